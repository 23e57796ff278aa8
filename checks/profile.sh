#!/bin/bash
# make profile: where the kernel spends its time while a workload swaps,
# vswap=on against vswap=off of the same kernel, by the ftrace function
# profiler (the plan's profile variant: qemu-test/config/profile.config).
#
#   profile.sh [--rev REV] [--swap zram] [--random] [--baseline] [--out DIR] [--top N]
# --rev REV   the series at REV of the kernel tree (default: the tip)
# --swap zram the swap area is zram0 and zswap is off (make bench's zram
#             columns), instead of the disk /dev/vda with zswap on
# --random    make bench's random workload (1.5 x memory.max written once,
#             then 2 x its pages random accesses that dirty them) instead
#             of memhog's
# --baseline  the series with vswap=off against the unpatched baseline (the
#             plan's kernel baseline-profile) instead of vswap=on against
#             off: what the series costs where vswap is not used
# --out DIR   results (default build/profile/REV[-zram][-random][-baseline]):
#             profile.txt (the table, also printed) and raw/{on,off,base}/
#             (qemu-test/run.sh's output)
# --top N     functions in the table (default 40)
#
# The guest is scenario bench with the icount clock, the in-guest program
# qemu-test/guest/profile.c (memhog's workload, 64 MiB memory.max, a swap
# area).  Each function's own time (graph-time off), summed over CPUs; the
# table sorts by the difference.  Times are guest (icount) time with every
# kernel function traced: compare them with each other, not with make
# bench's.  No time is judged.
set -uo pipefail
. "$(dirname "$0")/config.sh"

rev=tip out="" top=40 swap=/dev/vda work=size=2:passes=2 suffix="" baseline=""
while [ $# -gt 0 ]; do
	case $1 in
	--rev) rev=${2:?}; shift 2 ;;
	--random) work=size=1.5:passes=1:random=2 suffix=$suffix-random; shift ;;
	--swap) [ "${2:-}" = zram ] || die "--swap takes zram, not '${2:-}'"; swap=zram suffix=-zram$suffix; shift 2 ;;
	--baseline) baseline=1; shift ;;
	--out) out=${2:?}; shift 2 ;;
	--top) top=${2:?}; shift 2 ;;
	*) die "usage: profile.sh [--rev REV] [--swap zram] [--random] [--baseline] [--out DIR] [--top N]" ;;
	esac
done
case $top in ''|*[!0-9]*) die "--top takes a number, not '$top'" ;; esac
name=$(echo "$rev" | tr -c 'A-Za-z0-9._\n-' '_')
out=${out:-$BUILD/profile/$name$suffix${baseline:+-baseline}}

[ -d "$KTREE/.git" ] || bash "$TOP/checks/tree.sh" apply || exit 1
if [ "$rev" = tip ]; then
	img=$(kernel_image tip-profile) || die "the profile kernel does not build"
else
	kgit rev-parse -q --verify "$rev^{commit}" >/dev/null || die "no revision '$rev' in $KTREE"
	bash "$TOP/checks/build.sh" --image "profile-$name" profile "$rev" >&2 ||
		die "the profile kernel of $rev does not build"
	img=$OUT/img-profile-$name/arch/x86/boot/bzImage
fi

# Each run: its name, the kernel, and the command line it adds.
if [ -n "$baseline" ]; then
	base_img=$(kernel_image baseline-profile) || die "the baseline profile kernel does not build"
	runs="off:$img:vswap=off base:$base_img:" labels="series vswap=off,baseline"
else
	runs="on:$img:vswap=on off:$img:vswap=off" labels="vswap=on,vswap=off"
fi

rm -rf "$out"
mkdir -p "$out/raw"
serials=()
for run in $runs; do
	IFS=: read -r mode kimg append <<<"$run"
	msg "profile: $( [ "$mode" = base ] && echo baseline || echo "$rev, $append")"
	bash "$TOP/qemu-test/run.sh" --out "$out/raw/$mode" --label "profile-$mode" \
		--tests "profile:limit=64:swap=$swap:$work" \
		${append:+--append "$append"} --clock icount "$kimg" bench >"$out/raw/$mode.out" 2>&1 ||
		die "the $mode run failed: $(grep -m1 FAIL "$out/raw/$mode/results.txt" 2>/dev/null || echo "see $out/raw/$mode.out")"
	serials+=("$out/raw/$mode/serial.txt")
done
/usr/bin/python3 "$TOP/checks/profile-report.py" --top "$top" --labels "$labels" \
	--title "$rev ($(kgit rev-parse --short "$( [ "$rev" = tip ] && echo "$SERIES_BRANCH" || echo "$rev")")), swap $swap" \
	"${serials[@]}" | tee "$out/profile.txt"
exit "${PIPESTATUS[0]}"

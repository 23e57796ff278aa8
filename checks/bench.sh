#!/bin/bash
# make bench: the unpatched baseline and the series tip, side by side, in
# QEMU, with the same kernel config, guest and cgroup limits.
#
#   bench.sh            build what is missing or out of date, run, report
#
# What is compared and how often: qemu-test/bench/bench.conf; the
# workloads: qemu-test/bench/workloads.conf; the guest:
# qemu-test/scenarios/bench.conf; the in-guest runner:
# qemu-test/guest/bench.c; the report: checks/bench-report.py.
#
# Output: the table on stdout; build/bench/ (--out) holds bench.csv,
# bench.json, bench.png, table.txt and raw/ (every boot's result stream,
# console log and runner output).  No time is ever judged.
#
#   bench.sh [--rounds N] [--tiny] [--no-build] [--record] [--out DIR]
# --rounds N   rounds (default: bench.conf, or BENCH_ROUNDS)
# --tiny       small sizes and limits: proves the harness, measures nothing
#              (also BENCH_TINY=1)
# BENCH_CLOCK=host|icount replaces bench.conf's clock (the guest's times
# follow the host's clock, or the instructions the guest ran); BENCH_JOBS=N
# its jobs (boots at once, icount only).
# --no-build   use build/out/img-{baseline,tip} as they are (make test
#              built them); default: build them (checks/build.sh, in the
#              scratch worktree) when missing or out of date
# --record     record PASS/FAIL bench/harness: did the run give a complete
#              table, CSV, JSON and PNG
# --out DIR    results directory (default build/bench)
set -uo pipefail
. "$(dirname "$0")/config.sh"

rounds_arg="" tiny=${BENCH_TINY:-0} build=1 rec=0 out=$BUILD/bench
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds_arg=${2:?}; shift 2 ;;
	--tiny) tiny=1; shift ;;
	--no-build) build=0; shift ;;
	--record) rec=1; shift ;;
	--out) out=${2:?}; shift 2 ;;
	*) die "usage: bench.sh [--rounds N] [--tiny] [--no-build] [--record] [--out DIR]" ;;
	esac
done

# With --record a run that stops early is a FAIL too, with its reason.
recorded=
# shellcheck disable=SC2317
early_exit() {
	local rc=$?
	[ "$rec" = 1 ] && [ -z "$recorded" ] &&
		record FAIL "bench/harness" "checks/bench.sh stopped early (exit $rc, see above)"
}
trap early_exit EXIT

conf=$TOP/qemu-test/bench/bench.conf
wlconf=$TOP/qemu-test/bench/workloads.conf
# Defaults for what bench.conf does not set.
rounds=3 limit=64M data=12/10 wtimeout=150 sample_ms=50 clock=icount jobs=1
tiny_limit=16M tiny_wtimeout=40 variants="" tiny_variants=""
# shellcheck disable=SC1090
. "$conf"
rounds=${rounds_arg:-${BENCH_ROUNDS:-$rounds}}
variants=${BENCH_VARIANTS:-$variants}
clock=${BENCH_CLOCK:-$clock}
case $clock in host | icount) ;; *) die "BENCH_CLOCK/clock must be host or icount, not '$clock'" ;; esac
jobs=${BENCH_JOBS:-$jobs}
case $jobs in ''|*[!0-9]*|0) die "BENCH_JOBS/jobs must be a positive number, not '$jobs'" ;; esac
# Boots at once only where the host's load does not reach the guest's clock.
[ "$clock" = icount ] || jobs=1
scale=1
if [ "$tiny" = 1 ]; then
	limit=$tiny_limit wtimeout=$tiny_wtimeout scale=0.25
	variants=${BENCH_VARIANTS:-${tiny_variants:-$variants}}
fi
raw=$out/raw
case $rounds in ''|*[!0-9]*|0) die "the number of rounds must be a positive number, not '$rounds'" ;; esac

# ---- kernels --------------------------------------------------------------
# The plan's kernels "baseline" and "tip" (same variant, same fragments),
# built by checks/build.sh in the scratch worktree (never your checkout)
# into build/out/img-{baseline,tip} unless up to date.
image() {
	local img=$OUT/img-$1/arch/x86/boot/bzImage
	if [ "$build" = 0 ]; then
		[ -f "$img" ] || die "no $1 kernel at $img (--no-build uses it as it is)"
		msg "$1 kernel: $img (--no-build: not rebuilt)" >&2
		echo "$img"
		return
	fi
	if [ "$1" = tip ] && [ "$(export_sum)" != "$(kgit config --get vswap.exportsum || true)" ]; then
		msg "warning: branch $SERIES_BRANCH is not what branch-export/ holds (make tree applies it); benchmarking the branch" >&2
	fi
	kernel_image "$1"
}
# A fresh clone has no kernel tree yet: make it (as make tree does).
if [ "$build" = 1 ] && [ ! -d "$KTREE/.git" ]; then
	bash "$TOP/checks/tree.sh" apply || exit 1
fi
baseimg=$(image baseline) || exit 1
tipimg=$(image tip) || exit 1
# rev:REV kernels (BENCH_VARIANTS): the series at an earlier revision, with
# the tip's config fragments.
rev_image() {
	local rev=${1#rev:} name img
	name=rev-$(echo "${1#rev:}" | tr -c 'A-Za-z0-9._\n-' '_')
	img=$OUT/img-$name/arch/x86/boot/bzImage
	if [ "$build" = 0 ]; then
		[ -f "$img" ] || die "no kernel for $1 at $img (--no-build uses it as it is)"
		echo "$img"
		return
	fi
	kgit rev-parse -q --verify "$rev^{commit}" >/dev/null || die "no revision '$rev' in $KTREE"
	bash "$TOP/checks/build.sh" --image "$name" "$(bash "$TOP/qemu-test/plan.sh" kernel tip | cut -d' ' -f1)" "$rev" >&2 || return 1
	echo "$img"
}
# Same config: the two .config files may differ only in CONFIG_VSWAP*.
cfgdiff=$(diff <(grep -v VSWAP "$(dirname "$baseimg")/../../../.config" 2>/dev/null) \
	<(grep -v VSWAP "$(dirname "$tipimg")/../../../.config" 2>/dev/null) | grep -c '^[<>]')
[ "$cfgdiff" = 0 ] || msg "warning: the baseline and tip .config differ in $cfgdiff lines besides CONFIG_VSWAP*"

# ---- the plan ---------------------------------------------------------------
rm -rf "$raw"
mkdir -p "$raw"
plan=$raw/plan.txt
wlargs=()
while read -r name rest; do
	case "$name" in ''|'#'*) continue ;; esac
	# "memhog kind=seq size=3x" -> "memhog/kind=seq/size=3x" (no ',' or ':'
	# in it: /init splits its test list on those)
	spec=$(echo "$name $rest" | sed -E 's/[[:space:]]+#.*//; s/[[:space:]]+$//; s/[[:space:]]+/\//g')
	case $spec in *[,:]*) die "workload '$name': no ',' or ':' allowed" ;; esac
	wlargs+=("$spec")
	echo "workload $spec" >>"$plan"
done <"$wlconf"
[ ${#wlargs[@]} -gt 0 ] || die "no workload in $wlconf"

labels=() kern=() cmdl=() swap=()
declare -A revimg=()
while read -r label k c s na; do
	case "$label" in ''|'#'*) continue ;; esac
	printf 'variant %s %s %s %s %s\n' "$label" "$k" "$c" "$s" "$na" >>"$plan"
	[ -n "$na" ] && continue
	case $s in swapfile | none | zram | swapfile,mglru | none,mglru | zram,mglru) ;;
	*) die "variant $label: swap '$s' is not swapfile, none or zram (,mglru)" ;;
	esac
	labels+=("$label") kern+=("$k") cmdl+=("$c") swap+=("$s")
	case $k in
	baseline | tip) ;;
	rev:?*)
		# Built once, however many variants boot it.
		[ -n "${revimg[$k]:-}" ] && continue
		revimg[$k]=$(rev_image "$k") || exit 1
		echo "image $k ${revimg[$k]}" >>"$plan"
		;;
	*) die "variant $label: kernel '$k' is not baseline, tip or rev:REV" ;;
	esac
done <<<"$variants"
{
	echo "rounds $rounds"
	echo "limit $limit"
	echo "data $data"
	echo "tiny $tiny"
	echo "clock $clock"
	echo "jobs $jobs"
	echo "image baseline $baseimg"
	echo "image tip $tipimg"
	echo "config_diff $cfgdiff"
	bc=$TOP/qemu-test/scenarios/bench.conf
	echo "guest mem=$(scenario_get "$bc" mem) smp=$(scenario_get "$bc" smp) disks=$(scenario_get "$bc" disks) $(scenario_get "$bc" cmdline)"
} >>"$plan"

n=${#labels[@]}
msg "bench: ${n} kernels x ${rounds} rounds, workloads: ${wlargs[*]%%/*}; memory.max $limit, data $data, clock $clock, $jobs boot(s) at once$([ "$tiny" = 1 ] && echo ', tiny')"
# One boot: the kernel, its workloads, its result stream in $raw/TAG/.
boot() {
	local tag=$1 label=$2 r=$3 tests=$4 app=$5 img=$6
	bash "$TOP/qemu-test/run.sh" --out "$raw/$tag" --label "bench-$tag" --tests "$tests" --append "$app" \
		--clock "$clock" "$img" bench >"$raw/$tag.out" 2>&1
	grep -q '^VBENCH-END' "$raw/$tag/serial.txt" 2>/dev/null ||
		msg "  $label round $r: incomplete ($(grep -m1 -o 'no result: .*' "$raw/$tag.out" || echo 'see '"$raw/$tag.out"))"
}
# The boots use copies of the kernels taken now: a build meanwhile (make
# check replaces build/out/img-*) cannot change what is measured.
mkdir -p "$raw/images"
snap() {
	local d=$raw/images/$1
	mkdir -p "$d" && cp "$2" "$d/bzImage" && echo "$d/bzImage"
}
baseimg=$(snap baseline "$baseimg") || die "cannot copy the baseline kernel into $raw/images"
tipimg=$(snap tip "$tipimg") || die "cannot copy the tip kernel into $raw/images"
for k in "${!revimg[@]}"; do
	revimg[$k]=$(snap "$(echo "$k" | tr -c 'A-Za-z0-9._\n-' '_')" "${revimg[$k]}") ||
		die "cannot copy $k into $raw/images"
done
# The boots share one initramfs: build it before they start.
bash "$TOP/qemu-test/initramfs.sh" >/dev/null || die "the initramfs does not build"
start=$SECONDS
for ((r = 1; r <= rounds; r++)); do
	for ((k = 0; k < n; k++)); do
		i=$(( (k + r - 1) % n ))
		label=${labels[$i]}
		img=$baseimg
		[ "${kern[$i]}" = tip ] && img=$tipimg
		case ${kern[$i]} in rev:*) img=${revimg[${kern[$i]}]} ;; esac
		sw=none mg=0
		case ${swap[$i]} in swapfile*) sw=/dev/vda ;; zram*) sw=zram ;; esac
		case ${swap[$i]} in *,mglru) mg=1 ;; esac
		app=""
		[ "${cmdl[$i]}" != - ] && app=${cmdl[$i]}
		tests="bench:limit=$limit:swap=$sw:mglru=$mg:scale=$scale:data=$data:round=$r:wtimeout=$wtimeout:sample_ms=$sample_ms"
		for w in "${wlargs[@]}"; do tests="$tests:$w"; done
		tag=r$r-$label
		msg "[$(( (SECONDS - start) / 60 ))m$(( (SECONDS - start) % 60 ))s] round $r/$rounds: $label (${kern[$i]}${app:+, $app}, swap $sw)"
		echo "run $r $label $tag" >>"$plan"
		boot "$tag" "$label" "$r" "$tests" "$app" "$img" &
		# at most $jobs boots at once
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
	done
done
wait
msg "bench: all boots done in $(( (SECONDS - start) / 60 ))m$(( (SECONDS - start) % 60 ))s"

/usr/bin/python3 "$TOP/checks/bench-report.py" "$raw" "$out"
rc=$?
if [ "$rec" = 1 ]; then
	recorded=1
	if [ $rc = 0 ]; then
		record PASS "bench/harness" "complete table, CSV, JSON and PNG in $out$([ "$tiny" = 1 ] && echo ' (tiny)')"
	else
		record FAIL "bench/harness" "$(tail -n 1 "$out/report.err" 2>/dev/null || echo "report failed, exit $rc")"
	fi
fi
exit $rc

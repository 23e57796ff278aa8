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
# Output: the table on stdout; build/bench/ (BENCH_OUT) holds bench.csv,
# bench.json, bench.png, table.txt and raw/ (every boot's result stream,
# console log and runner output).  No time is ever judged.
#
# Environment:
#   BENCH_ROUNDS=N      rounds (default: bench.conf)
#   BENCH_TINY=1        small sizes and limits: proves the harness, measures nothing
#   BENCH_BUILD=1       (default) build build/out/bench-{baseline,tip} from the
#                       baseline tag and the vswap branch when missing or out
#                       of date; 0: use the images below as they are;
#                       dry: say what would be built, then use the images below
#   BENCH_BASELINE=IMG  baseline bzImage when BENCH_BUILD is 0 or dry
#                       (default build/out/img-baseline, made by make check/test)
#   BENCH_TIP=IMG       tip bzImage, likewise (default build/out/img-tip)
#   BENCH_RECORD=1      record PASS/FAIL bench/harness (checks/config.sh):
#                       did the run give a complete table, CSV, JSON and PNG
#   BENCH_OUT=DIR       results directory (default build/bench)
set -uo pipefail
. "$(dirname "$0")/config.sh"

# With BENCH_RECORD=1 a run that stops early is a FAIL too, with its reason.
recorded=
# shellcheck disable=SC2317
early_exit() {
	local rc=$?
	[ "${BENCH_RECORD:-0}" = 1 ] && [ -z "$recorded" ] &&
		record FAIL "bench/harness" "checks/bench.sh stopped early (exit $rc, see above)"
}
trap early_exit EXIT

conf=$TOP/qemu-test/bench/bench.conf
wlconf=$TOP/qemu-test/bench/workloads.conf
# Defaults for what bench.conf does not set.
rounds=3 limit=64M data=12/10 wtimeout=150 sample_ms=50
tiny_limit=16M tiny_wtimeout=40 variants=""
# shellcheck disable=SC1090
. "$conf"
rounds=${BENCH_ROUNDS:-$rounds}
tiny=${BENCH_TINY:-0}
if [ "$tiny" = 1 ]; then
	limit=$tiny_limit wtimeout=$tiny_wtimeout
fi
buildmode=${BENCH_BUILD:-1}
out=${BENCH_OUT:-$BUILD/bench}
raw=$out/raw
case $rounds in ''|*[!0-9]*|0) die "BENCH_ROUNDS must be a positive number, not '$rounds'" ;; esac

# ---- kernels --------------------------------------------------------------
# Both are built by checks/build.sh from the same fragments (base.config)
# in a worktree of the kernel tree (build/bench-src, never your checkout),
# into build/out/bench-NAME.  A stamp (source commit + hash of the config
# fragments and build.sh) says whether an image is up to date; if it is,
# nothing is built, and make itself only recompiles what changed.
wt=$BUILD/bench-src
stampsum() {
	cat "$TOP/qemu-test/config/base.config" "$TOP/checks/build.sh" | sha256sum | cut -d' ' -f1
}

# Print the bzImage for kernel NAME (baseline|tip), building it if needed.
kernel_image() {
	local name=$1 rev img stamp want
	if [ "$buildmode" != 1 ]; then
		if [ "$name" = baseline ]; then img=${BENCH_BASELINE:-$OUT/img-baseline/arch/x86/boot/bzImage}
		else img=${BENCH_TIP:-$OUT/img-tip/arch/x86/boot/bzImage}; fi
	fi
	if [ "$buildmode" = 0 ]; then
		[ -f "$img" ] || die "no $name kernel at $img (BENCH_BUILD=0 uses it as it is)"
		msg "$name kernel: $img (BENCH_BUILD=0: not rebuilt)" >&2
		echo "$img"
		return
	fi
	[ -d "$KTREE/.git" ] || die "no kernel tree at $KTREE (make tree)"
	if [ "$name" = baseline ]; then
		rev=$BASE_TAG
	else
		rev=refs/heads/$SERIES_BRANCH
		# The branch must hold what branch-export/ holds (make tree applies it).
		local sum applied
		sum=$( (cd "$EXPORT_DIR" && cat ./*.patch 2>/dev/null) | sha256sum | cut -d' ' -f1)
		applied=$(kgit config --get vswap.exportsum || true)
		[ "$sum" = "$applied" ] ||
			msg "warning: branch $SERIES_BRANCH is not what branch-export/ holds (make tree applies it); benchmarking the branch" >&2
	fi
	want="$(kgit rev-parse "$rev^{commit}") $(stampsum)"
	local dir=$OUT/bench-$name
	stamp=$(cat "$dir/.bench-stamp" 2>/dev/null || true)
	if [ -f "$dir/arch/x86/boot/bzImage" ] && [ "$stamp" = "$want" ]; then
		msg "$name kernel: $dir is up to date ($(kgit rev-parse --short "$rev^{commit}"))" >&2
		echo "$dir/arch/x86/boot/bzImage"
		return
	fi
	if [ "$buildmode" = dry ]; then
		msg "$name kernel: would build $dir from $rev ($(kgit rev-parse --short "$rev^{commit}")): ${stamp:+out of date}${stamp:-missing}; BENCH_BUILD=dry uses $img" >&2
		[ -f "$img" ] || die "no $name kernel at $img"
		echo "$img"
		return
	fi
	if [ ! -e "$wt/.git" ]; then
		kgit worktree prune
		msg "creating worktree $wt for the bench kernels" >&2
		kgit worktree add -q --detach "$wt" "$BASE_TAG" >&2 || die "cannot create worktree $wt"
	fi
	msg "building $name kernel from $rev into $dir" >&2
	KTREE=$wt kgit checkout -q --detach -f "$rev^{commit}" || die "cannot check out $rev in $wt"
	rm -f "$dir/.bench-stamp"
	bash "$TOP/checks/build.sh" "bench-$name" base "$wt" >/dev/null || die "build of the $name kernel failed"
	echo "$want" >"$dir/.bench-stamp"
	echo "$dir/arch/x86/boot/bzImage"
}

# A fresh clone has no kernel tree yet: make it (as make tree does).  An
# existing one is left alone (it may hold your uncommitted work): the
# kernels come from its baseline tag and vswap branch, in a worktree.
if [ "$buildmode" != 0 ] && [ ! -d "$KTREE/.git" ]; then
	bash "$TOP/checks/tree.sh" apply || exit 1
fi
baseimg=$(kernel_image baseline) || exit 1
tipimg=$(kernel_image tip) || exit 1
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
while read -r label k c s na; do
	case "$label" in ''|'#'*) continue ;; esac
	printf 'variant %s %s %s %s %s\n' "$label" "$k" "$c" "$s" "$na" >>"$plan"
	[ -n "$na" ] && continue
	labels+=("$label") kern+=("$k") cmdl+=("$c") swap+=("$s")
done <<<"$variants"
{
	echo "rounds $rounds"
	echo "limit $limit"
	echo "data $data"
	echo "tiny $tiny"
	echo "image baseline $baseimg"
	echo "image tip $tipimg"
	echo "config_diff $cfgdiff"
	# shellcheck disable=SC1091,SC2154
	(. "$TOP/qemu-test/scenarios/bench.conf"; echo "guest mem=$mem smp=$smp disks=$disks $cmdline")
} >>"$plan"

n=${#labels[@]}
msg "bench: ${n} kernels x ${rounds} rounds, workloads: ${wlargs[*]%%/*}; memory.max $limit, data $data$([ "$tiny" = 1 ] && echo ', tiny')"
start=$SECONDS
for ((r = 1; r <= rounds; r++)); do
	for ((k = 0; k < n; k++)); do
		i=$(( (k + r - 1) % n ))
		label=${labels[$i]}
		img=$baseimg
		[ "${kern[$i]}" = tip ] && img=$tipimg
		sw=none
		[ "${swap[$i]}" = swapfile ] && sw=/dev/vda
		app=""
		[ "${cmdl[$i]}" != - ] && app=${cmdl[$i]}
		tests="bench:limit=$limit:swap=$sw:data=$data:round=$r:wtimeout=$wtimeout:sample_ms=$sample_ms"
		for w in "${wlargs[@]}"; do tests="$tests:$w"; done
		tag=r$r-$label
		msg "[$(( (SECONDS - start) / 60 ))m$(( (SECONDS - start) % 60 ))s] round $r/$rounds: $label (${kern[$i]}${app:+, $app}, swap $sw)"
		VSWAP_RESULTS=$raw/records VTEST_TESTS=$tests VTEST_APPEND=$app \
			bash "$TOP/qemu-test/run.sh" "$img" bench "bench-$tag" >"$raw/$tag.out" 2>&1
		cp "$BUILD/qemu/bench-$tag-bench/results.txt.clean" "$raw/$tag.txt" 2>/dev/null || : >"$raw/$tag.txt"
		cp "$raw/records/bench-$tag-bench.log" "$raw/$tag.console.log" 2>/dev/null || true
		rm -rf "$BUILD/qemu/bench-$tag-bench"
		grep -q '^VBENCH-END' "$raw/$tag.txt" ||
			msg "  $label round $r: incomplete ($(grep -m1 -o 'no result: .*' "$raw/$tag.out" || echo 'see '"$raw/$tag.out"))"
		echo "run $r $label $tag" >>"$plan"
	done
done
msg "bench: all boots done in $(( (SECONDS - start) / 60 ))m$(( (SECONDS - start) % 60 ))s"

/usr/bin/python3 "$TOP/checks/bench-report.py" "$raw" "$out"
rc=$?
if [ "${BENCH_RECORD:-0}" = 1 ]; then
	recorded=1
	if [ $rc = 0 ]; then
		record PASS "bench/harness" "complete table, CSV, JSON and PNG in $out$([ "$tiny" = 1 ] && echo ' (tiny)')"
	else
		record FAIL "bench/harness" "$(tail -n 1 "$out/report.err" 2>/dev/null || echo "report failed, exit $rc")"
	fi
fi
exit $rc

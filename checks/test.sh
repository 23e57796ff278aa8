#!/bin/bash
# The whole test suite, as CI runs it (make test, .ci/run).  Every gate and
# test records PASS/FAIL lines; a failing step does not stop the others.
# Ends with "N passed, N failed" and a non-zero status if anything failed.
set -uo pipefail
. "$(dirname "$0")/config.sh"

rm -f "$RESULTS/results.txt"
mkdir -p "$RESULTS"
start=$SECONDS
step() {
	local name=$1; shift
	msg "[$(( (SECONDS - start) / 60 ))m] $name"
	"$@" || msg "$name: failures (see above)"
}
run() { bash "$TOP/$1" "${@:2}"; }
tipimg=$OUT/img-tip/arch/x86/boot/bzImage
baseimg=$OUT/img-baseline/arch/x86/boot/bzImage

# Tree workflow: reproducible hashes, bad input.
step "tree workflow" run checks/test-tree.sh
step "export round trip" run checks/test-roundtrip.sh

# Per commit: checkpatch, build, sparse, boot with vswap=on/off.
BOOT=1 step "per-commit gates and boots" run checks/percommit.sh

# The tip and the unpatched baseline, full guest suites.
if [ -f "$tipimg" ]; then
	for sc in vswap-on vswap-off vswap-bogus zswap-only zswap-regress phys phys-regress; do
		step "tip: $sc" run qemu-test/run.sh "$tipimg" "$sc" tip
	done
else
	record FAIL "tip/boot" "no tip kernel was built"
fi
if [ -f "$baseimg" ]; then
	step "baseline: unpatched kernel" run qemu-test/run.sh "$baseimg" baseline baseline
	step "baseline: zswap regression" run qemu-test/run.sh "$baseimg" zswap-regress baseline
	step "baseline: physical swap regression" run qemu-test/run.sh "$baseimg" phys-regress baseline
else
	record FAIL "baseline/boot" "no baseline kernel was built"
fi
# Both phys-regress runs above: test_memcontrol with vswap=off gives, sub-test
# for sub-test, what it gives on the unpatched kernel.
if [ -f "$tipimg" ] && [ -f "$baseimg" ]; then
	step "test_memcontrol: vswap=off vs the unpatched kernel" \
		run checks/compare-kst.sh test_memcontrol tip baseline phys-regress
fi

# make bench's harness, tiny (no time is judged): a complete table, CSV, JSON and PNG.
if [ -f "$tipimg" ] && [ -f "$baseimg" ]; then
	step "bench harness (tiny)" env BENCH_ROUNDS=1 BENCH_TINY=1 BENCH_BUILD=0 BENCH_RECORD=1 \
		BENCH_BASELINE="$baseimg" BENCH_TIP="$tipimg" BENCH_OUT="$BUILD/bench-tiny" \
		bash "$TOP/checks/bench.sh"
else
	record FAIL "bench/harness" "no tip or baseline kernel was built"
fi

# The tip under KASAN, lockdep, DEBUG_VM and DEBUG_LIST.
if bash "$TOP/checks/build.sh" tip-debug debug "$BUILD/percommit" >/dev/null; then
	record PASS "build/tip-debug"
	step "tip-debug: full suite" run qemu-test/run.sh "$OUT/tip-debug/arch/x86/boot/bzImage" full tip-debug
else
	record FAIL "build/tip-debug" "see $OUT/tip-debug/build.log"
fi

# Mails and pull request.
step "mails apply and pass checkpatch" run checks/test-mails.sh
step "pull request bundle" run checks/test-pull.sh

# Last, since it moves the per-commit worktree: the gates can fail.
step "the gates refuse a bad commit" run checks/test-gates.sh

msg "[$(( (SECONDS - start) / 60 ))m] done"
bash "$TOP/checks/summary.sh"

#!/bin/bash
# make demo: boot KERNEL_IMAGE with vswap=on in QEMU (scenario demo) and show
# what the demo guest program saw (qemu-test/guest/demo.c), then the verdict.
# Reads only the run directory qemu-test/run.sh leaves (build/runs/demo).
set -uo pipefail
. "$(dirname "$0")/../checks/config.sh"

kernel=${1:?usage: demo.sh KERNEL_IMAGE}
run=$BUILD/runs/demo
msg "booting $kernel in QEMU (TCG) with vswap=on and no swap device; output in $run"
bash "$TOP/qemu-test/run.sh" --out "$run" --label demo "$kernel" demo >"$BUILD/demo.out" 2>&1
rc=$?
log=$run/console.log
echo
echo "---- QEMU guest, kernel command line: $(grep -m1 -o 'Command line: .*' "$log" 2>/dev/null | cut -d' ' -f3-)"
# The demo's own lines, as the guest printed them.
sed -n '/VTEST-BEGIN demo/,/VTEST-RESULT demo/p' "$log" 2>/dev/null |
	grep -E '^(# |ok |not ok )' | sed 's/^# //'
echo "----"
cat "$BUILD/demo.out"
exit $rc

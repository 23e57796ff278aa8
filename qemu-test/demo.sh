#!/bin/bash
# make demo: boot KERNEL_IMAGE with vswap=on in QEMU and show what the demo
# guest program saw (qemu-test/guest/demo.c), then the verdict.
set -uo pipefail
. "$(dirname "$0")/../checks/config.sh"

kernel=${1:?usage: demo.sh KERNEL_IMAGE}
bash "$TOP/qemu-test/run.sh" "$kernel" demo demo >"$BUILD/demo.out" 2>&1
rc=$?
log=$RESULTS/demo-demo.log
echo
echo "---- QEMU guest, kernel command line: $(grep -m1 -o 'Command line: .*' "$log" | cut -d' ' -f3- | tr -d '\r')"
# The demo's own lines, as the guest printed them.
sed -n '/VTEST-BEGIN demo/,/VTEST-RESULT demo/p' "$log" | tr -d '\r' |
	grep -E '^(# |ok |not ok )' | sed 's/^# //'
echo "----"
cat "$BUILD/demo.out"
exit $rc

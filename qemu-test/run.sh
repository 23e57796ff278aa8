#!/bin/bash
# Boot a kernel in QEMU (TCG) with the test initramfs and one scenario.
#   run.sh KERNEL_IMAGE SCENARIO [LABEL]
#
# SCENARIO is a name in qemu-test/scenarios/ (or a path to a .conf).  LABEL
# defaults to the kernel's build/out/ directory name.  One record (see
# checks/config.sh) per guest test and one for dmesg_check, named
# LABEL/SCENARIO/TEST; the console log is build/results/LABEL-SCENARIO.log.
# Exit status 0 only if every test passed.
#
# Environment:
#   VTEST_KERNEL=baseline|series  what the kernel is (default: CONFIG_VSWAP
#                                 in the .config next to the image)
#   VTEST_FORCE=1                 run even if the scenario is not for this kernel
#   VTEST_VERBOSE=1               show the console while it runs
#   VTEST_TESTS="a b:arg"         override the scenario's test list
#   VTEST_APPEND="..."            extra kernel command line
set -uo pipefail
. "$(dirname "$0")/../checks/config.sh"

usage() { die "usage: run.sh KERNEL_IMAGE SCENARIO [LABEL]"; }
[ $# -ge 2 ] || usage
kernel=$1 scen=$2 label=${3:-}
[ -f "$kernel" ] || die "no kernel image $kernel"
kernel=$(realpath "$kernel")
case $scen in
*/*|*.conf) conf=$scen; scen=$(basename "$scen" .conf) ;;
*) conf=$TOP/qemu-test/scenarios/$scen.conf ;;
esac
[ -f "$conf" ] || die "no scenario $conf (have: $(cd "$TOP/qemu-test/scenarios" && ls ./*.conf | sed 's|^\./||; s|\.conf$||' | tr '\n' ' '))"

# Scenario defaults, then the scenario.
kernels=any cmdline="" mem=384M smp=2 disks="" tests="" requires="" timeout=120 test_timeout=""
# shellcheck disable=SC1090
. "$conf"
[ -n "${VTEST_TESTS:-}" ] && tests=$VTEST_TESTS
test_timeout=${test_timeout:-$((timeout > 30 ? timeout - 20 : timeout))}

# build/out/NAME/arch/x86/boot/bzImage: NAME is the label, NAME/.config the config.
kdir=$(cd "$(dirname "$kernel")/../../.." && pwd)
kconfig=$kdir/.config
[ -f "$kconfig" ] || kconfig=
[ -n "$label" ] || label=$(basename "$kdir")
[ -n "$label" ] && [ "$label" != / ] || label=kernel
kind=${VTEST_KERNEL:-}
if [ -z "$kind" ]; then
	[ -n "$kconfig" ] || die "no .config next to $kernel: set VTEST_KERNEL=baseline|series"
	if grep -qx 'CONFIG_VSWAP=y' "$kconfig"; then kind=series; else kind=baseline; fi
fi
case " $kernels " in
*" $kind "*|*" any "*) ;;
*)
	if [ "${VTEST_FORCE:-}" != 1 ]; then
		msg "not run: scenario $scen is for '$kernels' kernels, $kernel is $kind (VTEST_FORCE=1 runs it anyway)"
		exit 0
	fi
	msg "VTEST_FORCE=1: running $kernels scenario $scen on a $kind kernel"
	;;
esac

# Tests whose kernel option is missing are not run (said so, not recorded).
run_tests=()
for t in $tests; do
	name=${t%%:*} need=
	for r in $requires; do
		[ "${r%%:*}" = "$name" ] && need=${r#*:}
	done
	if [ -n "$need" ] && [ -n "$kconfig" ] && ! grep -qx "$need=y" "$kconfig"; then
		msg "not run: $name ($need is not set in $kconfig)"
		continue
	fi
	for seen in "${run_tests[@]%%:*}"; do
		[ "$seen" = "$name" ] && die "test $name listed twice in $conf"
	done
	run_tests+=("$t")
done
expect=("${run_tests[@]%%:*}" dmesg_check)

initrd=$(bash "$TOP/qemu-test/initramfs.sh") || die "initramfs build failed"

work=$BUILD/qemu/$label-$scen
rm -rf "$work"
mkdir -p "$work" "$RESULTS"
log=$RESULTS/$label-$scen.log
res=$work/results.txt
drives=()
i=0
for size in $disks; do
	truncate -s "$size" "$work/disk$i.raw"
	drives+=(-drive "file=$work/disk$i.raw,format=raw,if=virtio,cache=unsafe")
	i=$((i + 1))
done

tlist=$(IFS=,; echo "${run_tests[*]}")
append="console=ttyS0 panic=-1 printk.devkmsg=on vtest.tests=$tlist vtest.timeout=$test_timeout $cmdline ${VTEST_APPEND:-}"
qemu=(qemu-system-x86_64 -machine q35 -cpu max -smp "$smp" -m "$mem"
	-nographic -no-reboot -monitor none
	-serial stdio -serial "file:$res"
	-kernel "$kernel" -initrd "$initrd" -append "$append" "${drives[@]}")
printf '%q ' "${qemu[@]}" >"$work/qemu.cmd"; echo >>"$work/qemu.cmd"

msg "$label/$scen: $kind kernel, ${#run_tests[@]} tests (${run_tests[*]}), ${mem} RAM, ${smp} CPUs${disks:+, disks $disks}, limit ${timeout}s"
t0=$(date +%s.%N)
if [ "${VTEST_VERBOSE:-}" = 1 ]; then
	timeout -k 10 "$timeout" "${qemu[@]}" </dev/null 2>&1 | tee "$log"
	qrc=${PIPESTATUS[0]}
else
	timeout -k 10 "$timeout" "${qemu[@]}" </dev/null >"$log" 2>&1
	qrc=$?
fi
t1=$(date +%s.%N)
wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
tr -d '\r' <"$res" >"$res.clean" 2>/dev/null || : >"$res.clean"

# Why a test has no result, if it has none.
why_missing() {
	local name=$1
	if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
		echo "no result: QEMU killed after the scenario's ${timeout}s limit"
	elif grep -q 'Kernel panic' "$log"; then
		echo "no result: $(grep -m 1 -o 'Kernel panic.*' "$log" | tr -d '\r')"
	elif ! grep -q '^VTEST-INIT' "$res.clean"; then
		echo "no result: the guest never reached /init (QEMU exit $qrc; see $log)"
	elif grep -q "^VTEST-BEGIN $name\\b" "$res.clean"; then
		echo "no result: the guest died while running $name (QEMU exit $qrc)"
	else
		echo "no result: the guest stopped before $name (QEMU exit $qrc)"
	fi
}

failed=0
boot=$(sed -n 's/^VTEST-INIT \([0-9.]*\).*/\1/p' "$res.clean" | head -n 1)
for name in "${expect[@]}"; do
	line=$(grep "^VTEST-RESULT $name " "$res.clean" | tail -n 1)
	verdict=$(echo "$line" | cut -d' ' -f3)
	reason=$(echo "$line" | cut -d' ' -f4-)
	case $verdict in
	PASS) record PASS "$label/$scen/$name" "$reason" ;;
	FAIL) record FAIL "$label/$scen/$name" "$reason"; failed=$((failed + 1)) ;;
	*) record FAIL "$label/$scen/$name" "$(why_missing "$name")"; failed=$((failed + 1)) ;;
	esac
done
if [ "$qrc" != 0 ] && [ "$failed" = 0 ]; then
	# Every result arrived but QEMU did not end cleanly: say so, loudly.
	record FAIL "$label/$scen/qemu" "QEMU exit status $qrc after all results"
	failed=1
fi

msg "$label/$scen: $((${#expect[@]})) results, $failed failed; kernel reached /init at ${boot:-?}s guest time, ${wall}s wall; log $log"
[ "$failed" = 0 ]

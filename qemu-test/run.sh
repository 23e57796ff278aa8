#!/bin/bash
# Boot a kernel in QEMU (TCG) with the test initramfs and one scenario.
#   run.sh [--out DIR] [--label L] [--tests "a b:arg"] [--append "..."]
#          [--clock host|icount] [--verbose] KERNEL_IMAGE SCENARIO
#
# SCENARIO names qemu-test/scenarios/SCENARIO.conf (the guest: memory, CPUs,
# disks, command line, limits); its tests come from qemu-test/plan unless
# --tests gives them.  --append adds kernel parameters, --verbose shows the
# console while it runs.  --clock overrides the scenario's clock: host (the
# guest's clock follows the host's, so the host's load shows in guest
# times) or icount (QEMU -icount: guest time follows the instructions the
# guest executed, whatever else the host runs; make bench uses it).  L (default: the name of the kernel's build
# directory) names the records: L/SCENARIO/TEST.
#
# Everything the run leaves is in DIR (default build/runs/L-SCENARIO), the
# interface for whoever reads it (checks/test.sh, compare-*.sh, bench.sh,
# the demo):
#   results.txt   one record per expected result: every test, dmesg_check
#                 (in the guest) and console (the host's scan of the whole
#                 console log for WARNING/BUG/KASAN/lockdep/panic); a result
#                 that never came is a FAIL with the reason
#   console.log   the serial console (kernel messages and test output)
#   serial.txt    the guest's machine-read result stream (ttyS1)
#   qemu.cmd      the QEMU command line
#   tests         the test list that was run
# Exit status 0 only if every expected result is a PASS.
set -uo pipefail
. "$(dirname "$0")/../checks/config.sh"

usage() { die "usage: run.sh [--out DIR] [--label L] [--tests \"a b:arg\"] [--append \"...\"] [--clock host|icount] [--verbose] KERNEL_IMAGE SCENARIO"; }
out="" label="" tests="" tests_given=0 append="" verbose=0 clock=""
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=${2:?}; shift 2 ;;
	--label) label=${2:?}; shift 2 ;;
	--tests) tests=${2?}; tests_given=1; shift 2 ;;
	--append) append=${2?}; shift 2 ;;
	--clock) clock=${2:?}; shift 2 ;;
	--verbose) verbose=1; shift ;;
	-h|--help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -eq 2 ] || usage
kernel=$1 scen=$2
conf=$TOP/qemu-test/scenarios/$scen.conf
if [ -z "$label" ]; then
	label=$(basename "$(cd "$(dirname "$kernel")/../../.." 2>/dev/null && pwd)")
	[ -n "$label" ] && [ "$label" != / ] || label=kernel
fi
out=${out:-$BUILD/runs/$label-$scen}
# Only ever remove a directory this runner made (or an empty one).
if [ -d "$out" ] && [ -n "$(ls -A "$out")" ] && [ ! -f "$out/qemu.cmd" ] && [ ! -f "$out/tests" ] && [ ! -f "$out/results.txt" ]; then
	die "--out $out is a directory run.sh did not make; not touching it"
fi
rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
RECORDS=$out/results.txt
: >"$RECORDS"

[ "$tests_given" = 1 ] || tests=$(bash "$TOP/qemu-test/plan.sh" tests "$scen" | paste -sd' ')
expect=()
for t in $tests dmesg_check console; do expect+=("${t%%:*}"); done

# From here on, whatever stops the run leaves a FAIL for every expected
# result it did not give.
done_recording=0
finish() {
	local rc=$? name
	[ "$done_recording" = 1 ] && return
	for name in "${expect[@]}"; do
		grep -q "^[A-Z]* $label/$scen/$name\\b" "$RECORDS" ||
			record FAIL "$label/$scen/$name" "no result: the run stopped before booting (${why:-exit $rc})"
	done
}
trap finish EXIT
why=""
fatal() { why=$*; printf 'error: %s\n' "$*" >&2; exit 1; }

[ -f "$kernel" ] || fatal "no kernel image $kernel"
kernel=$(realpath "$kernel")
[ -f "$conf" ] || fatal "no scenario $conf (have: $(find "$TOP/qemu-test/scenarios" -name '*.conf' -printf '%f ' | sed 's/\.conf//g'))"
scenario_check "$conf" || fatal "scenario $conf is malformed"
[ -n "$tests" ] || fatal "no tests for scenario $scen in qemu-test/plan"
dup=$(printf '%s\n' "${expect[@]}" | sort | uniq -d | paste -sd' ')
[ -z "$dup" ] || fatal "tests listed twice: $dup"
echo "$tests" >"$out/tests"

cmdline=$(scenario_get "$conf" cmdline) mem=$(scenario_get "$conf" mem 384M)
smp=$(scenario_get "$conf" smp 2) disks=$(scenario_get "$conf" disks)
timeout=$(scenario_get "$conf" timeout 120) test_timeout=$(scenario_get "$conf" test_timeout)
test_timeout=${test_timeout:-$((timeout > 30 ? timeout - 20 : timeout))}
clock=${clock:-$(scenario_get "$conf" clock host)}
# icount: one guest nanosecond per 2 instructions (shift=1), and an idle
# guest's clock jumps to the next timer (sleep=off) instead of waiting for
# the host's.
case $clock in
host) clockargs=() ;;
icount) clockargs=(-icount "shift=1,sleep=off") ;;
*) fatal "clock '$clock' is neither host nor icount" ;;
esac

initrd=$(bash "$TOP/qemu-test/initramfs.sh") || fatal "the initramfs does not build (above)"

log=$out/console.log res=$out/serial.txt
drives=()
i=0
mkdir -p "$out/disks"
# A disk is SIZE, or SIZE:RULES for a disk whose IO fails as
# qemu-test/scenarios/RULES.blkdebug says (QEMU's blkdebug driver).
for spec in $disks; do
	size=${spec%%:*} file=$out/disks/disk$i.raw
	truncate -s "$size" "$file" || fatal "disk $spec: bad size"
	if [ "$spec" != "$size" ]; then
		rules=$TOP/qemu-test/scenarios/${spec#*:}.blkdebug
		[ -f "$rules" ] || fatal "disk $spec: no blkdebug rules $rules"
		file=blkdebug:$rules:$file
	fi
	drives+=(-drive "file=$file,format=raw,if=virtio,cache=unsafe")
	i=$((i + 1))
done

tlist=$(tr ' ' ',' <<<"$tests")
kappend="console=ttyS0 panic=-1 printk.devkmsg=on vtest.tests=$tlist vtest.timeout=$test_timeout $cmdline $append"
qemu=(qemu-system-x86_64 -machine q35 -cpu max -smp "$smp" -m "$mem"
	-nographic -no-reboot -monitor none
	-serial stdio -serial "file:$res.raw"
	-kernel "$kernel" -initrd "$initrd" -append "$kappend" "${drives[@]}" "${clockargs[@]}")
printf '%q ' "${qemu[@]}" >"$out/qemu.cmd"; echo >>"$out/qemu.cmd"

msg "$label/$scen: $(wc -w <<<"$tests") tests ($tests), ${mem} RAM, ${smp} CPUs${disks:+, disks $disks}, clock $clock, limit ${timeout}s; output in $out"
t0=$(date +%s.%N)
if [ "$verbose" = 1 ]; then
	timeout -k 10 "$timeout" "${qemu[@]}" </dev/null 2>&1 | tee "$log.raw"
	qrc=${PIPESTATUS[0]}
else
	timeout -k 10 "$timeout" "${qemu[@]}" </dev/null >"$log.raw" 2>&1
	qrc=$?
fi
t1=$(date +%s.%N)
wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
tr -d '\r' <"$res.raw" >"$res" 2>/dev/null || : >"$res"
tr -d '\r' <"$log.raw" >"$log" 2>/dev/null || : >"$log"
rm -rf "$res.raw" "$log.raw" "$out/disks"

# Why a test has no result, if it has none.
why_missing() {
	local name=$1
	if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
		echo "no result: QEMU killed after the scenario's ${timeout}s limit"
	elif grep -q 'Kernel panic' "$log"; then
		echo "no result: $(grep -m 1 -o 'Kernel panic.*' "$log")"
	elif ! grep -q '^VTEST-INIT' "$res"; then
		echo "no result: the guest never reached /init (QEMU exit $qrc; see $log)"
	elif grep -q "^VTEST-BEGIN $name\\b" "$res"; then
		echo "no result: the guest died while running $name (QEMU exit $qrc)"
	else
		echo "no result: the guest stopped before $name (QEMU exit $qrc)"
	fi
}

# The host's scan of the whole console: kernel lines (printk time stamp)
# with a splat, whatever the guest's 128 KiB ring kept.  Each is named with
# the test that was running (the guest's "vtest: start NAME" markers).
console_scan() {
	awk '
	/^\[ *[0-9]+\.[0-9]+\] vtest: start / { cur = $NF }
	/^\[ *[0-9]+\.[0-9]+\] / && /WARNING:|BUG:|KASAN:|UBSAN:|Oops|general protection fault|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|detected stall|blocked for more than|Kernel panic|list_add corruption|list_del corruption|kernel BUG at/ {
		n++
		if (n <= 3) printf "%s[during %s] %s", (n > 1 ? "; " : ""), (cur == "" ? "boot" : cur), substr($0, index($0, "]") + 2)
	}
	END { if (n > 3) printf "; ... %d splat lines in all", n; exit n > 0 }' "$log"
}

failed=0
boot=$(sed -n 's/^VTEST-INIT \([0-9.]*\).*/\1/p' "$res" | head -n 1)
for name in "${expect[@]}"; do
	[ "$name" = console ] && continue
	line=$(grep "^VTEST-RESULT $name " "$res" | tail -n 1)
	verdict=$(cut -d' ' -f3 <<<"$line")
	reason=$(cut -d' ' -f4- <<<"$line")
	case $verdict in
	PASS) record PASS "$label/$scen/$name" "$reason" ;;
	FAIL) record FAIL "$label/$scen/$name" "$reason"; failed=$((failed + 1)) ;;
	*) record FAIL "$label/$scen/$name" "$(why_missing "$name")"; failed=$((failed + 1)) ;;
	esac
done
if splats=$(console_scan); then
	if [ -s "$log" ]; then
		record PASS "$label/$scen/console" "no splat in $(wc -l <"$log") console lines"
	else
		record FAIL "$label/$scen/console" "empty console log (QEMU exit $qrc)"
		failed=$((failed + 1))
	fi
else
	record FAIL "$label/$scen/console" "$splats"
	failed=$((failed + 1))
fi
if [ "$qrc" != 0 ] && [ "$failed" = 0 ]; then
	# Every result arrived but QEMU did not end cleanly: say so, loudly.
	record FAIL "$label/$scen/qemu" "QEMU exit status $qrc after all results"
	failed=1
fi
done_recording=1

msg "$label/$scen: ${#expect[@]} results, $failed failed; kernel reached /init at ${boot:-?}s guest time, ${wall}s wall; output in $out"
[ "$failed" = 0 ]

#!/bin/bash
# A kernel selftest gives the same result for every sub-test on two kernels.
#   compare-kst.sh TEST LABEL_A LABEL_B SCENARIO
# Reads the "# kst TEST NAME RESULT" lines that the guest wrapper (e.g.
# qemu-test/guest/kselftest_memcontrol.c) prints into the console logs
# build/results/LABEL-SCENARIO.log of both runs, and records
# compare/TEST/LABEL_A-vs-LABEL_B: PASS if both logs have the lines and
# they are the same, FAIL (naming the sub-tests that differ) otherwise.
set -uo pipefail
. "$(dirname "$0")/config.sh"

[ $# -eq 4 ] || die "usage: compare-kst.sh TEST LABEL_A LABEL_B SCENARIO"
test=$1 a=$2 b=$3 scen=$4
name="compare/$test/$a-vs-$b"
results() {
	local log=$RESULTS/$1-$scen.log
	[ -f "$log" ] || return 1
	tr -d '\r' <"$log" | sed -n "s/^# kst $test \(test_[A-Za-z0-9_]*\) \([a-z]*\)\$/\1 \2/p" | sort -u
}
ra=$(results "$a") || { record FAIL "$name" "no console log $RESULTS/$a-$scen.log"; exit 1; }
rb=$(results "$b") || { record FAIL "$name" "no console log $RESULTS/$b-$scen.log"; exit 1; }
if [ -z "$ra" ] || [ -z "$rb" ]; then
	record FAIL "$name" "no '# kst $test' result lines in the $( [ -z "$ra" ] && echo "$a" || echo "$b" ) log"
	exit 1
fi
if [ "$ra" = "$rb" ]; then
	record PASS "$name" "$(wc -l <<<"$ra") sub-tests, same results ($(grep -c ' ok$' <<<"$ra") ok)"
	exit 0
fi
diffs=$(join -a1 -a2 -e missing -o 0,1.2,2.2 <(echo "$ra") <(echo "$rb") | awk '$2 != $3 { printf "%s %s:%s %s:%s; ", $1, A, $2, B, $3 }' A="$a" B="$b")
record FAIL "$name" "results differ: $diffs"
exit 1

#!/bin/bash
# A kernel selftest gives the same result for every sub-test on two kernels.
#   compare-kst.sh TEST RUN_A RUN_B [NAME]
# RUN_A and RUN_B are qemu-test/run.sh --out directories; their console.log
# holds the "# kst TEST NAME RESULT" lines the guest wrapper (e.g.
# qemu-test/guest/kselftest_memcontrol.c) prints.  Records
# compare/TEST/NAME (default A-vs-B, the directory names): PASS if both runs
# have the lines and they are the same, FAIL naming the sub-tests that
# differ otherwise.
set -uo pipefail
. "$(dirname "$0")/config.sh"

[ $# -ge 3 ] || die "usage: compare-kst.sh TEST RUN_A RUN_B [NAME]"
test=$1 a=$2 b=$3
name="compare/$test/${4:-$(basename "$a")-vs-$(basename "$b")}"
results() {
	local log=$1/console.log
	[ -f "$log" ] || return 1
	sed -n "s/^# kst $test \(test_[A-Za-z0-9_]*\) \([a-z]*\)\$/\1 \2/p" "$log" | sort -u
}
ra=$(results "$a") || { bad "$name" "no console log $a/console.log"; exit 1; }
rb=$(results "$b") || { bad "$name" "no console log $b/console.log"; exit 1; }
if [ -z "$ra" ] || [ -z "$rb" ]; then
	bad "$name" "no '# kst $test' result lines in $( [ -z "$ra" ] && echo "$a" || echo "$b" )/console.log"
	exit 1
fi
# A sub-test with two different results in one log is a conflict, not a result.
for r in "$ra" "$rb"; do
	conf=$(cut -d' ' -f1 <<<"$r" | uniq -d | paste -sd' ')
	[ -z "$conf" ] || { bad "$name" "conflicting results in one run for: $conf"; exit 1; }
done
if [ "$ra" = "$rb" ]; then
	good "$name" "$(wc -l <<<"$ra") sub-tests, same results ($(grep -c ' ok$' <<<"$ra") ok)"
	exit 0
fi
diffs=$(join -a1 -a2 -e missing -o 0,1.2,2.2 <(echo "$ra") <(echo "$rb") |
	awk '$2 != $3 { printf "%s %s:%s %s:%s; ", $1, A, $2, B, $3 }' A="$(basename "$a")" B="$(basename "$b")")
bad "$name" "results differ: $diffs"
exit 1

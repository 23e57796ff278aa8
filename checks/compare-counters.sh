#!/bin/bash
# Two kernels that must behave the same give the same kernel counters on the
# same workload, within the tolerances of checks/counter-tolerances.txt.
#   compare-counters.sh TEST RUN_A RUN_B [NAME]
# RUN_A and RUN_B are qemu-test/run.sh --out directories whose console.log
# holds the "# counter NAME VALUE" lines TEST printed (e.g.
# qemu-test/guest/swap_counters.c).  Records compare/TEST/NAME: PASS when
# both runs have the same counter names and every pair agrees, FAIL naming
# the counters that do not.  The table is in RUN_A/compare-TEST.txt.
set -uo pipefail
. "$(dirname "$0")/config.sh"

[ $# -ge 3 ] || die "usage: compare-counters.sh TEST RUN_A RUN_B [NAME]"
test=$1 a=$2 b=$3
name="compare/$test/${4:-$(basename "$a")-vs-$(basename "$b")}"
tol=$TOP/checks/counter-tolerances.txt
counters() {
	[ -f "$1/console.log" ] || return 1
	# Only the lines of TEST's own run.
	sed -n "/^VTEST-BEGIN $test\\b/,/^VTEST-RESULT $test /p" "$1/console.log" |
		sed -n 's/^# counter \([A-Za-z0-9_.]*\) \(-\{0,1\}[0-9][0-9]*\)$/\1 \2/p' | sort -u -k1,1
}
ca=$(counters "$a") || { bad "$name" "no console log $a/console.log"; exit 1; }
cb=$(counters "$b") || { bad "$name" "no console log $b/console.log"; exit 1; }
if [ -z "$ca" ] || [ -z "$cb" ]; then
	bad "$name" "no '# counter' lines from $test in $( [ -z "$ca" ] && echo "$a" || echo "$b" )/console.log"
	exit 1
fi
table=$a/compare-$test.txt
verdict=$(join -a1 -a2 -e missing -o 0,1.2,2.2 <(echo "$ca") <(echo "$cb") |
	awk -v A="$(basename "$a")" -v B="$(basename "$b")" -v table="$table" '
	FILENAME == ARGV[1] { if ($0 !~ /^[[:space:]]*(#|$)/) { np++; pat[np] = $1; rel[np] = $2; abs[np] = $3 } next }
	function glob2re(g) { gsub(/\./, "\\.", g); gsub(/\*/, ".*", g); return "^" g "$" }
	{
		name = $1; va = $2; vb = $3
		if (va == "missing" || vb == "missing") { bad = bad sprintf("%s missing in %s; ", name, va == "missing" ? A : B); next }
		for (i = 1; i <= np; i++) if (name ~ glob2re(pat[i])) break
		m = (va > vb ? va : vb); d = va - vb; if (d < 0) d = -d
		lim = m * rel[i] / 100; if (lim < abs[i]) lim = abs[i]
		ok = d <= lim
		printf "%-28s %12d %12d  diff %10d  limit %10d  %s\n", name, va, vb, d, lim, ok ? "ok" : "DIFFERS" > table
		if (!ok) bad = bad sprintf("%s %s:%d %s:%d (limit %d); ", name, A, va, B, vb, lim)
		n++
	}
	END { if (bad != "") { print "FAIL " bad; exit } print "PASS " n }' "$tol" -)
case $verdict in
PASS*) good "$name" "${verdict#PASS } counters agree within checks/counter-tolerances.txt (table: $table)" ;;
*) bad "$name" "${verdict#FAIL }(table: $table)"; exit 1 ;;
esac

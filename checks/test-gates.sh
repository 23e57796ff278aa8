#!/bin/bash
# The per-commit gates can fail: a scratch branch (gates-neg) adds, on top
# of the series, one commit with a checkpatch error and a new sparse warning.
# checks/percommit.sh gates that commit alone (the series' own commits are
# gated by the main run), with its results kept apart: it must fail
# checkpatch and sparse, by name, while it still builds.
set -uo pipefail
. "$(dirname "$0")/config.sh"

neg=gates-neg
res=$BUILD/gates-neg-results
fail=0

n=$(kgit rev-list --count "$BASE_TAG..refs/heads/$SERIES_BRANCH")
[ "$n" -gt 0 ] || { record FAIL gates/negative "the series is empty"; exit 1; }

# Make the bad commit without a checkout: a scratch index and commit-tree.
idx=$BUILD/gates-neg.index
tip=$(kgit rev-parse "refs/heads/$SERIES_BRANCH")
blob=$({ kgit show "$tip:mm/swapfile.c"; printf '\nint gates_neg_undeclared(void) \t{ return 0; }\n'; } |
	kgit hash-object -w --stdin)
rm -f "$idx"
GIT_INDEX_FILE=$idx kgit read-tree "$tip" &&
	GIT_INDEX_FILE=$idx kgit update-index --cacheinfo "100644,$blob,mm/swapfile.c" &&
	tree=$(GIT_INDEX_FILE=$idx kgit write-tree) &&
	c=$(printf 'gates: a commit the gates must refuse\n\nA non-static function without a declaration (sparse), a brace\nafter a function header and a space before a tab (checkpatch).\n' |
		kgit commit-tree "$tree" -p "$tip") &&
	kgit update-ref "refs/heads/$neg" "$c" || { record FAIL gates/negative "cannot make the bad commit"; exit 1; }
rm -f "$idx"

rm -rf "$res"
VSWAP_SERIES_BRANCH=$neg VSWAP_RESULTS=$res VSWAP_IMG_PREFIX=gates-neg- VSWAP_GATE_FROM=$tip \
	bash "$TOP/checks/percommit.sh" >"$BUILD/gates-neg.log" 2>&1
bad=$(printf '%02d-gates-a-commit-the-gates-must-refuse' $((n + 1)))
r=$res/results.txt
check() { # verdict pattern what
	if grep -q "^$1 $2" "$r" 2>/dev/null; then
		record PASS "gates/$3"
	else
		record FAIL "gates/$3" "no '$1 $2' in $r"
		fail=1
	fi
}
check FAIL "checkpatch/$bad" "checkpatch-refuses-bad-commit"
check FAIL "sparse/$bad" "sparse-refuses-new-warning"
check PASS "build/$bad" "bad-commit-still-builds"
kgit branch -q -D "$neg"
rm -rf "$OUT"/gates-neg-*
exit $fail

#!/bin/bash
# Every gate can fail, and does when it should.  A scratch branch (gates-neg)
# adds three bad commits on top of the series, and checks/percommit.sh --boot
# gates them alone (the series' own commits are gated by the main run),
# with their results kept apart in build/gates-neg/:
#   commit A0 swap_writepage() never writes (every folio stays dirty in
#             memory).  Gated first, so that A's sparse and W=1 gates take
#             their reference from A0's analysis, as the series' commits
#             after the first do.
#   commit A  a checkpatch error, a new sparse warning, a new W=1 compiler
#             warning and a WARN at boot
#             -> checkpatch, sparse and warnings FAIL, build PASSes, the
#                boots' smoke FAILs (swap did not happen, since A0) and
#                their console scan FAILs (the WARN)
#   commit B  panics at boot -> the boots FAIL (no result: Kernel panic)
# And the runner turns a missing result into a FAIL: a test that is not in
# the initramfs, and a scenario that does not exist.
#
#   test-gates.sh            the above (make test)
#   test-gates.sh --configs  only: check-configs (config novswap, a full
#                            build of its own) refuses commit A; make
#                            check-configs runs this after its matrix
set -uo pipefail
. "$(dirname "$0")/config.sh"
fail=0	# bad() sets it (lib.sh)

mode=percommit
case ${1:-} in
'') ;;
--configs) mode=configs ;;
*) die "usage: test-gates.sh [--configs]" ;;
esac

neg=gates-neg
res=$BUILD/gates-neg
n=$(kgit rev-list --count "$BASE_TAG..refs/heads/$SERIES_BRANCH")
[ "$n" -gt 0 ] || { bad gates/negative "the series is empty"; exit 1; }
tip=$(kgit rev-parse "refs/heads/$SERIES_BRANCH")

# commit_edit PARENT MESSAGE FILE PYTHON-EXPR...: a commit on PARENT whose
# FILE is the parent's, rewritten by the python expression (s is the text).
commit_edit() {
	local parent=$1 message=$2 file=$3 expr=$4 idx=$BUILD/gates-neg.index blob tree
	blob=$(kgit show "$parent:$file" | python3 -c "import sys; s = sys.stdin.read(); t = $expr; assert t != s, 'edit did not apply'; sys.stdout.write(t)" |
		kgit hash-object -w --stdin) || return 1
	rm -f "$idx"
	GIT_INDEX_FILE=$idx kgit read-tree "$parent" &&
		GIT_INDEX_FILE=$idx kgit update-index --cacheinfo "100644,$blob,$file" &&
		tree=$(GIT_INDEX_FILE=$idx kgit write-tree) &&
		printf '%s\n' "$message" | kgit commit-tree "$tree" -p "$parent"
	rm -f "$idx"
}

never_writes='s.replace("\tint ret;\n\n\tif (folio_free_swap(folio)) {", "\tint ret;\n\n\tfolio_mark_dirty(folio);\n\treturn AOP_WRITEPAGE_ACTIVATE;\n\n\tif (folio_free_swap(folio)) {", 1)'
style_and_warn='s.replace("static int __init swapfile_init(void)\n{\n\tint nid;\n", "static int __init swapfile_init(void)\n{\n\tint nid;\n\n\tWARN(1, \"gates-neg: a splat the console scan must see\\n\");\n", 1) + "\nint gates_neg_undeclared(void) \t{ int unused_var; return 0; }\n"'
panics='s.replace("static int __init swapfile_init(void)\n{\n\tint nid;\n", "static int __init swapfile_init(void)\n{\n\tint nid;\n\n\tpanic(\"gates-neg: this kernel must not boot\\n\");\n", 1)'

# A0 on the tip, A (the other edits) on A0, B on A.
if ! a1=$(commit_edit "$tip" "gates: swap_writepage() that never writes" mm/page_io.c "$never_writes") ||
   ! a2=$(commit_edit "$a1" "gates: a commit the gates must refuse" mm/swapfile.c "$style_and_warn") ||
   ! a=$(printf 'gates: a commit the gates must refuse\n\nA WARN at boot, a non-static function\nwithout a declaration (sparse, W=1), an unused variable, a brace after\na function header and a space before a tab (checkpatch).\n' |
	kgit commit-tree "$a2^{tree}" -p "$a1") ||
   ! b=$(commit_edit "$a" "gates: a kernel that does not boot" mm/swapfile.c "$panics") ||
   ! kgit update-ref "refs/heads/$neg" "$b"; then
	bad gates/negative "cannot make the bad commits"
	exit 1
fi

la=$(commit_label $((n + 2)) "$a") lb=$(commit_label $((n + 3)) "$b")
expect() { # VERDICT RECORD-PREFIX [REASON-PATTERN] NAME
	local v=$1 rec=$2 pat=$3 what=$4 line
	line=$(grep -E "^[A-Z]+ $rec(:|\$)" "$r" 2>/dev/null | head -n 1)
	if [[ $line == "$v "* ]] && grep -qE -- "$pat" <<<"$line"; then
		good "gates/$what" "${line:0:160}"
	else
		bad "gates/$what" "want '$v $rec' matching /$pat/, got '${line:-nothing}' (in $r; log $BUILD/gates-neg.log)"
	fi
}

if [ "$mode" = configs ]; then
	# make check-configs refuses commit A: its unused variable is a new
	# W=1 warning in a file the series touches (config "novswap" compiles it).
	res=$BUILD/gates-neg-configs
	rm -rf "$res"
	mkdir -p "$res"
	VSWAP_RESULTS=$res bash "$TOP/checks/check-configs.sh" --branch "$neg" novswap >"$res/check-configs.log" 2>&1
	r=$res/results.txt
	expect FAIL "configs/novswap" 'new W=1 warning' check-configs-refuses-new-warning
	kgit branch -q -D "$neg"
	exit "$fail"
fi

rm -rf "$res"
bash "$TOP/checks/percommit.sh" --boot --branch "$neg" --from "$tip" --results "$res" >"$BUILD/gates-neg.log" 2>&1
# A's reference was A0's analysis, not a fresh one of its parent.
if grep -q "reference: the analysis of $(kgit rev-parse --short "$a1")" "$BUILD/gates-neg.log"; then
	good gates/reference-from-previous-commit "A's sparse and W=1 reference came from A0's analysis"
else
	bad gates/reference-from-previous-commit "percommit.sh did not reuse A0's analysis for A (log $BUILD/gates-neg.log)"
fi
r=$res/results.txt
expect FAIL "checkpatch/$la" 'OPEN_BRACE|SPACE_BEFORE_TAB|space before tab|open brace' checkpatch-refuses-bad-style
expect FAIL "sparse/$la" 'not declared|Should it be static' sparse-refuses-new-warning
expect FAIL "warnings/$la" 'unused|prototype' compiler-warnings-refuse-new-warning
expect PASS "build/$la" . bad-commit-still-builds
for sc in $(bash "$TOP/qemu-test/plan.sh" boots commits | cut -d' ' -f2); do
	expect FAIL "$la/$sc/smoke" 'checks failed' "swap-check-refuses-kernel-that-cannot-swap-$sc"
	expect FAIL "$la/$sc/console" 'WARNING: .*swapfile_init' "console-scan-refuses-warn-$sc"
	expect FAIL "$lb/$sc/smoke" 'Kernel panic|never reached' "boot-refuses-kernel-that-panics-$sc"
done

# The runner: a result that never comes is a FAIL.
img=$OUT/img-tip/arch/x86/boot/bzImage
if [ -f "$img" ]; then
	bash "$TOP/qemu-test/run.sh" --out "$res/run-missing" --label gates --tests "no_such_test" "$img" smoke-on >/dev/null 2>&1
	r=$res/run-missing/results.txt
	expect FAIL "gates/smoke-on/no_such_test" 'no program' runner-fails-test-missing-from-initramfs
	bash "$TOP/qemu-test/run.sh" --out "$res/run-noscen" --label gates --tests "smoke" "$img" no-such-scenario >/dev/null 2>&1
	r=$res/run-noscen/results.txt
	expect FAIL "gates/no-such-scenario/smoke" 'no result' runner-fails-scenario-that-cannot-run
else
	bad gates/runner "no tip image $img to boot"
fi
kgit branch -q -D "$neg"
exit "$fail"

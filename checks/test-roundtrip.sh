#!/bin/bash
# branch-export/ <-> the vswap branch, both ways, byte for byte.
#   roundtrip/apply      a clone of the baseline, reset to what a fresh clone
#                        has (nothing of the kernel tree's branches or
#                        config), gets the series with "tree.sh apply", as
#                        make tree does
#   roundtrip/export     "tree.sh format" (make export's formatter) run right
#                        after that apply reproduces branch-export/ exactly
#                        (diff -r)
#   roundtrip/hashes     the branch that apply made has the same hashes as
#                        vswap in build/linux (else: make export, or make apply)
#   roundtrip/tree       the formatter on build/linux's vswap reproduces
#                        branch-export/ too (no unexported commits)
#   roundtrip/detects-change  negative check: the same formatter on the fresh
#                        clone after amending its tip commit's message gives a
#                        non-empty diff, so roundtrip/export can fail
# An empty branch-export/ fails: there would be nothing to round-trip.
set -uo pipefail
. "$(dirname "$0")/config.sh"

fail=0

patches=("$EXPORT_DIR"/*.patch)
[ -e "${patches[0]}" ] || { record FAIL roundtrip "branch-export/ has no patches: there is no series to round-trip"; exit 1; }
[ -d "$KTREE/.git" ] || { record FAIL roundtrip "no kernel tree at $KTREE (make tree)"; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log=$RESULTS/test-roundtrip.log
mkdir -p "$RESULTS"
: >"$log"
# tree.sh on a kernel tree of our own, build/roundtrip/linux, selected by
# VSWAP_BUILD: a clone of the baseline tag only (objects shared with
# build/linux), kept between runs because a kernel checkout takes minutes to
# make and delete, and reset every time to what a fresh clone has: the
# baseline checked out, no branch, no other ref, no vswap.* config.
rt=$BUILD/roundtrip
scratch_tree() { VSWAP_BUILD=$rt bash "$TOP/checks/tree.sh" "$@"; }
sgit() { KTREE=$rt/linux kgit "$@"; }
base=$(kgit rev-parse "$BASE_TAG^{commit}")
if [ -d "$rt/linux/.git" ] && [ "$(sgit rev-parse -q --verify "refs/tags/$BASE_TAG^{commit}")" != "$base" ]; then
	rm -rf "$rt/linux"
fi
if [ ! -d "$rt/linux/.git" ]; then
	mkdir -p "$rt"
	if ! kgit clone -q --shared --single-branch --branch "$BASE_TAG" "$KTREE" "$rt/linux" >>"$log" 2>&1; then
		record FAIL roundtrip/apply "cannot clone $BASE_TAG from $KTREE (log: $log)"
		exit 1
	fi
fi
sgit am --abort >/dev/null 2>&1
sgit checkout -q -f --detach "$BASE_TAG" >>"$log" 2>&1
sgit clean -q -ffdx
sgit for-each-ref --format='%(refname)' | grep -v -x "refs/tags/$BASE_TAG" | while read -r ref; do
	sgit update-ref -d "$ref"
done
sgit config --remove-section vswap >/dev/null 2>&1
if [ "$(sgit for-each-ref --format='%(refname)')" != "refs/tags/$BASE_TAG" ] ||
   [ "$(sgit rev-parse HEAD)" != "$base" ] || [ -n "$(sgit status --porcelain --ignored=matching)" ]; then
	record FAIL roundtrip/apply "cannot reset $rt/linux to a clean clone of $BASE_TAG"
	exit 1
fi

# The exported patches alone, as the reference.
mkdir -p "$work/export"
cp "${patches[@]}" "$work/export/"

if ! scratch_tree apply >>"$log" 2>&1; then
	record FAIL roundtrip/apply "tree.sh apply of branch-export/ onto a fresh baseline failed: $(tail -1 "$log") (log: $log)"
	exit 1
fi
stip=$(sgit rev-parse "refs/heads/$SERIES_BRANCH")
n=$(sgit rev-list --count "$BASE_TAG..$stip")
if [ "$n" -eq "${#patches[@]}" ]; then
	good roundtrip/apply "${#patches[@]} patches applied, tip ${stip:0:12}"
else
	bad roundtrip/apply "${#patches[@]} patches gave $n commits"
fi

# Export right after apply.
if ! scratch_tree format "$work/fmt" >>"$log" 2>&1; then
	bad roundtrip/export "tree.sh format failed (log: $log)"
elif diff -r "$work/export" "$work/fmt" >"$work/export.diff"; then
	good roundtrip/export "tree.sh format after apply reproduces the ${#patches[@]} files of branch-export/"
else
	cp "$work/export.diff" "$RESULTS/roundtrip-export.diff"
	bad roundtrip/export "tree.sh format after apply differs from branch-export/: $(grep -c '^[<>]' "$work/export.diff") lines (see $RESULTS/roundtrip-export.diff)"
fi

# Same hashes as the kernel tree's branch.
tip=$(kgit rev-parse -q --verify "refs/heads/$SERIES_BRANCH")
if [ -z "$tip" ]; then
	bad roundtrip/hashes "build/linux has no $SERIES_BRANCH branch (make tree)"
elif [ "$tip" = "$stip" ]; then
	good roundtrip/hashes "branch-export/ applies to $SERIES_BRANCH's exact tip ${tip:0:12}"
else
	bad roundtrip/hashes "branch-export/ applies to ${stip:0:12}, build/linux's $SERIES_BRANCH is ${tip:0:12}: run make export (to keep the branch) or make apply"
fi

# The kernel tree's branch itself, formatted.
if [ -n "$tip" ]; then
	if ! bash "$TOP/checks/tree.sh" format "$work/real" >>"$log" 2>&1; then
		bad roundtrip/tree "tree.sh format on build/linux failed (log: $log)"
	elif diff -r -q "$work/export" "$work/real" >"$work/real.diff"; then
		good roundtrip/tree "build/linux's $SERIES_BRANCH formats to branch-export/"
	else
		bad roundtrip/tree "build/linux's $SERIES_BRANCH differs from branch-export/ in: $(sed -E 's|^Files .*/export/([^ ]*) and .*|\1|; s|^Only in ([^:]*): |only in \1: |' "$work/real.diff" | head -3 | tr '\n' ' ')(make export)"
	fi
fi

# Negative check, on the clone only: an amended commit must show up.
msgfile=$work/msg
sgit log -1 --format=%B "$stip" >"$msgfile"
printf '\nAmended by test-roundtrip.sh to prove the round trip can fail.\n' >>"$msgfile"
if ! sgit commit -q --amend -F "$msgfile" >>"$log" 2>&1; then
	bad roundtrip/detects-change "cannot amend the tip of the scratch clone (log: $log)"
elif ! scratch_tree format "$work/fmt-amended" >>"$log" 2>&1; then
	bad roundtrip/detects-change "tree.sh format of the amended clone failed (log: $log)"
elif diff -r -q "$work/export" "$work/fmt-amended" >/dev/null; then
	bad roundtrip/detects-change "an amended commit formats to the same files: the round trip cannot fail"
elif [ "$(kgit rev-parse -q --verify "refs/heads/$SERIES_BRANCH")" != "$tip" ]; then
	bad roundtrip/detects-change "the negative check moved build/linux's $SERIES_BRANCH"
else
	good roundtrip/detects-change "amending the tip's message changes the export ($(diff -r -q "$work/export" "$work/fmt-amended" | wc -l) of ${#patches[@]} files differ)"
fi

exit "$fail"

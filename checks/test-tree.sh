#!/bin/bash
# Tests of the tree workflow in a scratch clone (build/tree-test), never the
# real tree: the baseline and the series get the same hashes on any machine,
# and bad input (a patch that does not apply, a dirty tree, unexported
# commits, a missing package) stops with a clear message and loses nothing.
set -uo pipefail
. "$(dirname "$0")/config.sh"

S=$BUILD/tree-test
fail=0
sgit() { git -C "$S" "$@"; }
apply_in() { VSWAP_KTREE=$S bash "$TOP/checks/tree.sh" apply; }

got=$(kgit rev-parse "$BASE_TAG^{commit}")
if [ "$got" = "$BASE_COMMIT" ]; then
	good tree/baseline-hash
else
	bad tree/baseline-hash "baseline is $got, expected $BASE_COMMIT (checks/config.sh)"
fi

tip=$(kgit rev-parse "refs/heads/$SERIES_BRANCH")
rm -rf "$S" "$S.home"
if ! git clone -q --shared --no-checkout "$KTREE" "$S" || ! sgit checkout -q --detach "$BASE_TAG"; then
	bad tree/clone "cannot clone $KTREE"
	exit 1
fi
# Like a fresh machine: the baseline only, no branch the clone brought along.
sgit for-each-ref --format='%(refname)' refs/heads refs/remotes | while read -r ref; do
	sgit update-ref -d "$ref"
done

# Another user, another time zone, another clock: the same hashes.
mkdir -p "$S.home"
printf '[user]\n\tname = Somebody Else\n\temail = else@example.org\n[am]\n\tthreeWay = true\n' >"$S.home/.gitconfig"
if HOME=$S.home TZ=Asia/Tokyo apply_in >"$S.log" 2>&1; then
	got=$(sgit rev-parse "refs/heads/$SERIES_BRANCH")
	if [ "$got" = "$tip" ]; then
		good tree/series-hash
	else
		bad tree/series-hash "applied tip $got differs from $tip"
	fi
else
	bad tree/series-hash "apply failed: $(tail -1 "$S.log")"
fi

# A second apply with nothing changed does nothing.
if apply_in 2>&1 | grep -q 'is current'; then good tree/reapply-noop; else bad tree/reapply-noop "second apply did not reuse the branch"; fi

# A patch that does not apply: named, with git's reason; branch unchanged.
bad=$S.badexport
rm -rf "$bad"; mkdir -p "$bad"; cp "$EXPORT_DIR"/*.patch "$bad"/
last=$(find "$bad" -name '*.patch' | sort | tail -n 1)
# Break the first context line of the first hunk.
awk 'BEGIN{h=0} /^@@/{h=1; print; next} h==1 && /^ /{print " this line is not in the tree"; h=2; next} {print}' "$last" >"$last.new" && mv "$last.new" "$last"
out=$(VSWAP_EXPORT_DIR=$bad apply_in 2>&1); rc=$?
now=$(sgit rev-parse "refs/heads/$SERIES_BRANCH")
if [ $rc -ne 0 ] && grep -q "$(basename "$last")" <<<"$out" && grep -qi 'patch failed\|does not apply\|error' <<<"$out" &&
   [ "$now" = "$tip" ] && [ -z "$(sgit status --porcelain --ignored=matching)" ] && [ ! -d "$S/.git/rebase-apply" ]; then
	good tree/broken-patch
else
	bad tree/broken-patch "rc=$rc tip=$now, output: $(tail -2 <<<"$out" | tr '\n' ' ')"
fi

# A dirty tree is never overwritten.
echo "# local edit" >>"$S/Makefile"
out=$(VSWAP_EXPORT_DIR=$bad apply_in 2>&1); rc=$?
if [ $rc -ne 0 ] && grep -q 'uncommitted changes' <<<"$out" && tail -1 "$S/Makefile" | grep -q 'local edit'; then
	good tree/dirty-tree
else
	bad tree/dirty-tree "rc=$rc, output: $(tail -1 <<<"$out")"
fi
sgit checkout -q -- Makefile

# Commits on the branch that are not in branch-export/ are never dropped.
echo "/* local */" >>"$S/mm/Kconfig"
sgit -c user.name=x -c user.email=x@x commit -q -am "local work"
mine=$(sgit rev-parse HEAD)
out=$(VSWAP_EXPORT_DIR=$bad apply_in 2>&1); rc=$?
if [ $rc -ne 0 ] && grep -q 'make export' <<<"$out" && [ "$(sgit rev-parse "refs/heads/$SERIES_BRANCH")" = "$mine" ]; then
	good tree/unexported-commits
else
	bad tree/unexported-commits "rc=$rc, output: $(tail -1 <<<"$out")"
fi

# A package that cannot be installed is named.
printf 'vswap-no-such-package\tmissing on purpose\n' >"$S.pkgs"
out=$(VSWAP_PACKAGES=$S.pkgs bash "$TOP/checks/deps.sh" 2>&1); rc=$?
if [ $rc -ne 0 ] && grep -q 'vswap-no-such-package' <<<"$out"; then
	good tree/missing-package
else
	bad tree/missing-package "rc=$rc, output: $(tail -1 <<<"$out")"
fi

rm -rf "$S" "$S.home" "$S.badexport" "$S.pkgs" "$S.log"
exit $fail

#!/bin/bash
# Kernel tree management.
#   tree.sh baseline   unpack the Debian source into $KTREE as one reproducible commit
#   tree.sh apply      (re)build the vswap branch from branch-export/*.patch with git am
#   tree.sh export     write the vswap branch back into branch-export/
#   tree.sh status     show what the tree holds
# Never overwrites work: a dirty tree, or a vswap branch with commits that are
# not in branch-export/, stops with a message.
set -euo pipefail
. "$(dirname "$0")/config.sh"

tree_is_clean() {
	# Debian's .gitignore hides everything at the top level, so untracked
	# files only show up as "ignored": look at those too.
	[ -z "$(kgit status --porcelain --ignored=matching)" ]
}

require_clean() {
	tree_is_clean && return 0
	kgit status --short --ignored=matching | head -20 >&2
	die "kernel tree $KTREE has uncommitted changes (above); commit them on '$SERIES_BRANCH' and run 'make export', or discard them yourself. Nothing was touched."
}

do_baseline() {
	if [ -d "$KTREE/.git" ]; then
		kgit rev-parse -q --verify "refs/tags/$BASE_TAG" >/dev/null ||
			die "$KTREE exists but has no tag $BASE_TAG; move it away and rerun"
		return 0
	fi
	[ -f "$KSRC_TARBALL" ] || die "$KSRC_TARBALL not found: install $KSRC_PKG=$KSRC_VERSION (make deps)"
	local tmp=$BUILD/linux.unpack
	rm -rf "$tmp"
	mkdir -p "$tmp"
	msg "unpacking $KSRC_TARBALL"
	tar -xf "$KSRC_TARBALL" -C "$tmp" --no-same-owner
	local src
	src=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d)
	[ -f "$src/MAINTAINERS" ] || die "unexpected tarball layout in $KSRC_TARBALL"
	msg "creating baseline commit (git add -A -f of the whole tree takes a minute)"
	KTREE=$src kgit init -q -b master
	# The baseline is ~90k loose objects: an automatic gc after a commit or
	# rebase would repack them all and take both cores for minutes.
	KTREE=$src kgit config gc.auto 0
	KTREE=$src kgit add -A -f
	KTREE=$src GIT_AUTHOR_DATE="$BASE_DATE" GIT_COMMITTER_DATE="$BASE_DATE" \
		kgit commit -q -m "Linux $(make -s -C "$src" kernelversion) from Debian $KSRC_PKG $KSRC_VERSION" \
		-m "Unpacked from $KSRC_TARBALL, unmodified."
	KTREE=$src kgit tag "$BASE_TAG"
	mv "$src" "$KTREE"
	rm -rf "$tmp"
	local got
	got=$(kgit rev-parse HEAD)
	msg "baseline $BASE_TAG = $got"
	[ "$got" = "$BASE_COMMIT" ] || printf 'warning: baseline is %s, checks/config.sh expects %s\n' "$got" "$BASE_COMMIT" >&2
}

do_apply() {
	do_baseline
	require_clean
	local sum applied_sum tip applied
	sum=$(export_sum)
	applied_sum=$(kgit config --get vswap.exportsum || true)
	tip=$(kgit rev-parse -q --verify "refs/heads/$SERIES_BRANCH" || true)
	applied=$(kgit config --get vswap.appliedtip || true)

	if [ -n "$tip" ] && [ "$tip" != "$applied" ]; then
		die "branch '$SERIES_BRANCH' in $KTREE has commits that are not in branch-export/ (tip $tip, last applied ${applied:-none}); run 'make export' to keep them, or 'git -C $KTREE branch -m $SERIES_BRANCH <other>' to set them aside"
	fi
	if [ -n "$tip" ] && [ "$sum" = "$applied_sum" ]; then
		[ "$(kgit symbolic-ref -q --short HEAD || true)" = "$SERIES_BRANCH" ] || kgit checkout -q "$SERIES_BRANCH"
		msg "branch $SERIES_BRANCH is current ($(kgit rev-list --count "$BASE_TAG..$SERIES_BRANCH") patches, tip $(kgit rev-parse --short HEAD))"
		return 0
	fi

	local patches=("$EXPORT_DIR"/*.patch)
	[ -e "${patches[0]}" ] || patches=()
	msg "applying ${#patches[@]} patches from branch-export/ onto $BASE_TAG"
	kgit checkout -q --detach "$BASE_TAG"
	local p log=$BUILD/am.log
	for p in "${patches[@]}"; do
		if ! kgit am -q --committer-date-is-author-date "$p" >"$log" 2>&1; then
			kgit am --abort >/dev/null 2>&1 || true
			if [ -n "$tip" ]; then kgit checkout -q "$SERIES_BRANCH"; fi
			sed 's/^/    /' "$log" >&2
			die "patch $(basename "$p") does not apply (git's reason above); the tree is back on ${tip:+branch $SERIES_BRANCH}${tip:-$BASE_TAG}, unchanged"
		fi
	done
	kgit checkout -q -B "$SERIES_BRANCH"
	kgit config vswap.exportsum "$sum"
	kgit config vswap.appliedtip "$(kgit rev-parse HEAD)"
	msg "branch $SERIES_BRANCH: tip $(kgit rev-parse --short HEAD)"
}

# git format-patch with fixed options, so that an export right after an apply
# reproduces branch-export/ byte for byte on any machine.
format_series() {
	local dir=$1; shift
	kgit -c core.abbrev=12 format-patch -q --no-signature --zero-commit --base="$BASE_TAG" -o "$dir" "$@" "$BASE_TAG..$SERIES_BRANCH"
}

do_export() {
	[ -d "$KTREE/.git" ] || die "no kernel tree at $KTREE (make tree)"
	tree_is_clean || printf 'warning: uncommitted changes in %s are not exported\n' "$KTREE" >&2
	local tmp
	tmp=$(mktemp -d)
	format_series "$tmp"
	mkdir -p "$EXPORT_DIR"
	rm -f "$EXPORT_DIR"/*.patch
	cp "$tmp"/*.patch "$EXPORT_DIR"/ 2>/dev/null || true
	rm -rf "$tmp"
	msg "exported $(find "$EXPORT_DIR" -maxdepth 1 -name '*.patch' | wc -l) patches to branch-export/"

	# Rebuild the branch from what was just exported, so that this tree has
	# the hashes every other machine gets from git am (committer and dates
	# fixed), not those of the local commits.  The trees must be identical.
	local old
	old=$(kgit rev-parse "$SERIES_BRANCH")
	kgit config vswap.appliedtip "$old"
	# Commits made as git am makes them need nothing; others are re-applied.
	if ! kgit log --format='%cn|%ce|%cI|%aI' "$BASE_TAG..$SERIES_BRANCH" |
		awk -F'|' -v n="$IDENT_NAME" -v e="$IDENT_EMAIL" '$1 != n || $2 != e || $3 != $4 { bad = 1 } END { exit bad }'; then
		kgit config vswap.exportsum stale
	else
		kgit config vswap.exportsum "$(export_sum)"
	fi
	tree_is_clean || return 0
	do_apply >/dev/null
	kgit diff --quiet "$old" "$SERIES_BRANCH" ||
		die "re-applying branch-export/ gave a different tree than $old (kept as refs/vswap/pre-export)"
	if [ "$(kgit rev-parse "$SERIES_BRANCH")" != "$old" ]; then
		kgit update-ref refs/vswap/pre-export "$old"
		msg "branch $SERIES_BRANCH re-applied from branch-export/: tip $(kgit rev-parse --short "$SERIES_BRANCH") (was $(kgit rev-parse --short "$old"), kept as refs/vswap/pre-export)"
	fi
}

do_status() {
	[ -d "$KTREE/.git" ] || { echo "no kernel tree yet ($KTREE)"; return 0; }
	echo "tree:     $KTREE"
	echo "baseline: $BASE_TAG $(kgit rev-parse "$BASE_TAG^{commit}")"
	kgit log --oneline "$BASE_TAG..$SERIES_BRANCH" 2>/dev/null | sed 's/^/series:   /'
	tree_is_clean && echo "state:    clean" || echo "state:    uncommitted changes"
}

case "${1:-}" in
baseline) do_baseline ;;
apply) do_apply ;;
export) do_export ;;
status) do_status ;;
format) shift; format_series "$@" ;;
*) die "usage: $0 baseline|apply|export|status" ;;
esac

#!/bin/bash
# The pull request works for someone who has only the baseline.
#   pull/make       make pull-request writes the bundle and the request text;
#                   the text names the baseline, the tip and PULL_URL
#   pull/fresh      a new repository holding nothing but the baseline commit
#                   (fetched from the kernel tree by its tag) does not have the
#                   series yet
#   pull/fetch      it fetches vswap from the bundle, and gets exactly the tip
#                   hash of the vswap branch, with every object (fsck)
#   pull/tag        and the annotated tag vswap-vN (N: cover-letters/version),
#                   which points at that tip and holds the vN cover letter,
#                   the tag the request text asks to pull
# An empty series fails: there would be nothing to pull.
set -uo pipefail
. "$(dirname "$0")/cover.sh"
set +e

fail=0

count=$(series_count 2>&1) || { record FAIL pull "$count"; exit 1; }
[ "$count" -gt 0 ] || { record FAIL pull "the series is empty: $BASE_TAG..$SERIES_BRANCH has no commits, there is nothing to pull"; exit 1; }
tip=$(kgit rev-parse "refs/heads/$SERIES_BRANCH")
base=$(kgit rev-parse "$BASE_TAG^{commit}")
n=$(series_version 2>&1) || { record FAIL pull "$n"; exit 1; }
tag=$SERIES_NAME-v$n
bundle=$BUILD/pull/$SERIES_NAME.bundle
text=$BUILD/pull/request-pull.txt
log=$RESULTS/test-pull.log
mkdir -p "$RESULTS"

url=https://git.example.invalid/test-pull-url.git
if ! PULL_URL=$url bash "$TOP/checks/pull-request.sh" >"$log" 2>&1; then
	record FAIL pull/make "make pull-request failed: $(tail -1 "$log") (log: $log)"
	exit 1
fi
if [ ! -s "$bundle" ] || [ ! -s "$text" ]; then
	bad pull/make "no ${bundle#"$TOP"/} or ${text#"$TOP"/}"
elif ! grep -qxF "  $url tags/$tag" "$text"; then
	bad pull/make "request-pull.txt does not name PULL_URL and the tag ($url tags/$tag)"
elif ! grep -q "^for you to fetch changes up to $tip:" "$text" ||
     ! grep -q "^The following changes since commit $base:" "$text"; then
	bad pull/make "request-pull.txt does not name $base..$tip"
elif [ "$(grep -c '^      ' "$text")" -ne "$count" ]; then
	bad pull/make "request-pull.txt's shortlog has $(grep -c '^      ' "$text") commits, the series $count"
else
	good pull/make "bundle and request-pull.txt for $count commits, PULL_URL honoured"
fi

# A repository with the baseline and nothing else: no alternates, no clone of
# the kernel tree's other refs, so every object of the series must come from
# the bundle.
fresh=$(mktemp -d)
trap 'rm -rf "$fresh"' EXIT
fgit() { GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null git -C "$fresh" "$@"; }
fgit init -q
if ! fgit fetch -q --no-tags "$KTREE" "refs/tags/$BASE_TAG:refs/tags/$BASE_TAG" >>"$log" 2>&1; then
	bad pull/fresh "cannot fetch $BASE_TAG from $KTREE into a new repository (log: $log)"
	exit 1
fi
all=$(fgit rev-list --all)
if [ "$all" != "$base" ]; then
	bad pull/fresh "the new repository holds $(wc -l <<<"$all") commits, not just the baseline"
elif fgit cat-file -e "$tip^{commit}" 2>/dev/null; then
	bad pull/fresh "the new repository already has $tip before fetching the bundle"
else
	good pull/fresh "new repository with only $BASE_TAG ($base)"
fi

# The bundle must say what it needs and hold what it promises.
if ! fgit bundle verify "$bundle" >>"$log" 2>&1; then
	bad pull/fetch "git bundle verify fails in the baseline-only repository (log: $log)"
elif ! fgit fetch -q "$bundle" "refs/heads/$SERIES_BRANCH:refs/heads/$SERIES_BRANCH" >>"$log" 2>&1; then
	bad pull/fetch "fetching $SERIES_BRANCH from the bundle failed (log: $log)"
else
	got=$(fgit rev-parse "refs/heads/$SERIES_BRANCH")
	if [ "$got" != "$tip" ]; then
		bad pull/fetch "fetched tip $got, the vswap branch is $tip"
	elif [ "$(fgit rev-list --count "$BASE_TAG..$SERIES_BRANCH")" -ne "$count" ]; then
		bad pull/fetch "fetched $(fgit rev-list --count "$BASE_TAG..$SERIES_BRANCH") commits on top of the baseline, want $count"
	elif ! fgit fsck --no-progress --connectivity-only --no-dangling >>"$log" 2>&1; then
		bad pull/fetch "the fetched repository is missing objects (git fsck, log: $log)"
	else
		good pull/fetch "fetched $SERIES_BRANCH = $tip ($count commits) from the bundle"
	fi
fi

# The tag the text asks to pull: annotated, at the tip, the vN cover letter.
subject=$(head -1 "$COVER_DIR/v$n/cover.txt")
if ! fgit fetch -q "$bundle" "refs/tags/$tag:refs/tags/$tag" >>"$log" 2>&1; then
	bad pull/tag "fetching tag $tag from the bundle failed (log: $log)"
elif [ "$(fgit cat-file -t "refs/tags/$tag")" != tag ]; then
	bad pull/tag "$tag is not an annotated tag"
elif [ "$(fgit rev-parse "refs/tags/$tag^{commit}")" != "$tip" ]; then
	bad pull/tag "$tag points at $(fgit rev-parse "refs/tags/$tag^{commit}"), not the tip $tip"
elif [ "$(fgit for-each-ref --format='%(contents:subject)' "refs/tags/$tag")" != "$subject" ]; then
	bad pull/tag "$tag's message does not start with the v$n cover's subject ($subject)"
elif ! grep -qxF "$subject" "$text"; then
	bad pull/tag "request-pull.txt does not quote $tag's message"
else
	good pull/tag "$tag: annotated, at $tip, the v$n cover letter as its message, quoted in the request"
fi

exit "$fail"

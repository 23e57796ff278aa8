#!/bin/bash
# The series as a pull request (make pull-request).
#
#   tag vswap-vN (in the kernel tree)  annotated tag of the tip for version
#                                 N (cover-letters/version), whose message
#                                 is that version's cover letter
#                                 (cover-letters/vN/cover.txt): what a
#                                 maintainer merges and keeps, as for a
#                                 signed tag (unsigned here: no key)
#   build/pull/vswap.bundle       git bundle of baseline..vswap: its refs
#                                 are refs/heads/vswap and refs/tags/vswap-vN,
#                                 its prerequisite the baseline commit, so
#                                 any tree made by "make tree" (same
#                                 baseline hash) can fetch it and gets the
#                                 same commit hashes:
#                                   git fetch vswap.bundle vswap:vswap tag vswap-vN
#   build/pull/request-pull.txt   "git request-pull" text for the tag: the
#                                 baseline, the tip, the tag's message (the
#                                 cover letter) and the shortlog
#
# PULL_URL is the public repository named in the text (default: a
# placeholder under .invalid).  git request-pull checks that the tip is
# really at the URL it is given; it is given the bundle (a local file, so
# no network is used and a bundle without the tip fails here), and the
# bundle's path is then replaced by PULL_URL in the text.  Push vswap there
# before you send the text.
set -euo pipefail
. "$(dirname "$0")/cover.sh"

PULL_DIR=$BUILD/pull
PULL_PLACEHOLDER=https://git.example.invalid/linux-vswap.git
PULL_URL=${PULL_URL:-$PULL_PLACEHOLDER}
bundle=$PULL_DIR/$SERIES_NAME.bundle
text=$PULL_DIR/request-pull.txt

count=$(need_series)
n=$(series_version)
check_cover_source "$n"
tip=$(kgit rev-parse "refs/heads/$SERIES_BRANCH")
base=$(kgit rev-parse "$BASE_TAG^{commit}")
tag=$SERIES_NAME-v$n
mkdir -p "$PULL_DIR"
rm -f "$bundle" "$text"

# The tag: remade every time (the tip or the cover may have changed), dated
# as the tip's commit so that it is the same object on every machine.
kgit tag -d "$tag" >/dev/null 2>&1 || true
GIT_COMMITTER_DATE=$(kgit log -1 --format=%cI "$tip") \
	kgit tag -a -F "$COVER_DIR/v$n/cover.txt" "$tag" "$tip" ||
	die "cannot tag $tip as $tag"

kgit bundle create -q "$bundle" "$BASE_TAG..refs/heads/$SERIES_BRANCH" "refs/tags/$tag" 2>"$PULL_DIR/bundle.log" ||
	{ cat "$PULL_DIR/bundle.log" >&2; die "git bundle create failed"; }
kgit bundle verify -q "$bundle" >>"$PULL_DIR/bundle.log" 2>&1 ||
	{ cat "$PULL_DIR/bundle.log" >&2; die "the bundle does not verify against $KTREE"; }
heads=$(kgit bundle list-heads "$bundle" | sort -k2)
want=$(printf '%s refs/heads/%s\n%s refs/tags/%s' "$tip" "$SERIES_BRANCH" "$(kgit rev-parse "refs/tags/$tag")" "$tag")
[ "$heads" = "$want" ] ||
	die "bundle holds '$heads', expected '$want'"

raw=$PULL_DIR/request-pull.raw
# For a tag, git request-pull names it and quotes its message.  It checks
# that the URL has the tag, peeled to the tip; a bundle does not list peeled
# tags, so it is given a repository that fetched the bundle (borrowing the
# kernel tree's objects for the baseline): the bundle is what it checks.
remote=$PULL_DIR/from-bundle.git
rm -rf "$remote"
git init -q --bare "$remote"
echo "$(cd "$KTREE" && git rev-parse --path-format=absolute --git-common-dir)/objects" >"$remote/objects/info/alternates"
GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null git -C "$remote" fetch -q "$bundle" \
	"refs/heads/$SERIES_BRANCH:refs/heads/$SERIES_BRANCH" "refs/tags/$tag:refs/tags/$tag" ||
	die "cannot fetch $SERIES_BRANCH and $tag from the bundle"
if ! kgit request-pull "$BASE_TAG" "$remote" "refs/tags/$tag" >"$raw" 2>"$PULL_DIR/request-pull.log"; then
	cat "$PULL_DIR/request-pull.log" >&2
	die "git request-pull failed"
fi
rm -rf "$remote"
# The one line naming where to pull from: "  <url> tags/<tag>".
grep -qxF "  $remote tags/$tag" "$raw" || die "no '  $remote tags/$tag' line in git request-pull's output ($raw)"
awk -v from="  $remote tags/$tag" -v to="  $PULL_URL tags/$tag" \
	'$0 == from { print to; next } { print }' "$raw" >"$text"
rm -f "$raw"
grep -q "^for you to fetch changes up to $tip:" "$text" || die "request-pull text does not name the tip $tip"
grep -q "^The following changes since commit $base:" "$text" || die "request-pull text does not name the baseline $base"
grep -qxF "$(head -1 "$COVER_DIR/v$n/cover.txt")" "$text" || die "request-pull text does not quote the tag's message (the v$n cover letter)"

msg "build/pull/${bundle##*/}: $count commits, $BASE_TAG (${base:0:12}) .. $SERIES_BRANCH (${tip:0:12})"
msg "tag $tag: the tip, with the v$n cover letter as its message"
msg "build/pull/request-pull.txt: pull from $PULL_URL tags/$tag"
if [ "$PULL_URL" = "$PULL_PLACEHOLDER" ]; then
	msg "the URL is a placeholder: make pull-request PULL_URL=<your public repo>, after pushing $SERIES_BRANCH and tag $tag there"
fi

#!/bin/bash
# The series as a pull request (make pull-request).
#
#   build/pull/vswap.bundle       git bundle of baseline..vswap: its one ref
#                                 is refs/heads/vswap, its prerequisite the
#                                 baseline commit, so any tree made by
#                                 "make tree" (same baseline hash) can
#                                 fetch it and gets the same commit hashes:
#                                   git fetch vswap.bundle vswap:vswap
#   build/pull/request-pull.txt   "git request-pull" text for baseline..vswap
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
tip=$(kgit rev-parse "refs/heads/$SERIES_BRANCH")
base=$(kgit rev-parse "$BASE_TAG^{commit}")
mkdir -p "$PULL_DIR"
rm -f "$bundle" "$text"

kgit bundle create -q "$bundle" "$BASE_TAG..refs/heads/$SERIES_BRANCH" 2>"$PULL_DIR/bundle.log" ||
	{ cat "$PULL_DIR/bundle.log" >&2; die "git bundle create failed"; }
kgit bundle verify -q "$bundle" >>"$PULL_DIR/bundle.log" 2>&1 ||
	{ cat "$PULL_DIR/bundle.log" >&2; die "the bundle does not verify against $KTREE"; }
heads=$(kgit bundle list-heads "$bundle")
[ "$heads" = "$tip refs/heads/$SERIES_BRANCH" ] ||
	die "bundle holds '$heads', expected '$tip refs/heads/$SERIES_BRANCH'"

raw=$PULL_DIR/request-pull.raw
# The full ref: "vswap" alone also matches b4/vswap, which git request-pull
# (git show-ref) calls ambiguous.
if ! kgit request-pull "$BASE_TAG" "$bundle" "refs/heads/$SERIES_BRANCH" >"$raw" 2>"$PULL_DIR/request-pull.log"; then
	cat "$PULL_DIR/request-pull.log" >&2
	die "git request-pull failed"
fi
# The one line naming where to pull from: "  <url> <branch>".
grep -qxF "  $bundle $SERIES_BRANCH" "$raw" || die "no '  $bundle $SERIES_BRANCH' line in git request-pull's output ($raw)"
awk -v from="  $bundle $SERIES_BRANCH" -v to="  $PULL_URL $SERIES_BRANCH" \
	'$0 == from { print to; next } { print }' "$raw" >"$text"
rm -f "$raw"
grep -q "^for you to fetch changes up to $tip:" "$text" || die "request-pull text does not name the tip $tip"
grep -q "^The following changes since commit $base:" "$text" || die "request-pull text does not name the baseline $base"

msg "build/pull/${bundle##*/}: $count commits, $BASE_TAG (${base:0:12}) .. $SERIES_BRANCH (${tip:0:12})"
msg "build/pull/request-pull.txt: pull from $PULL_URL $SERIES_BRANCH"
if [ "$PULL_URL" = "$PULL_PLACEHOLDER" ]; then
	msg "the URL is a placeholder: make pull-request PULL_URL=<your public repo>, after pushing $SERIES_BRANCH there"
fi

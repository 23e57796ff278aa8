#!/bin/bash
# The cover letter of the current version, made by b4 (make cover).
#
#   cover.sh     prepare b4's branch for the series and write the formatted
#                cover mail to cover-letters/vN/cover-letter.eml
#
# Sourced by checks/send.sh for the functions below; run, it does the above.
#
# Inputs (committed in cover-letters/):
#   version       N, the version being prepared (1, 2, ...)
#   change-id     b4's change-id of the series, the same for every version
#   vN/cover.txt  subject line, blank line, body, and a "---" section with
#                 "Changes in vN:" (the changelog, extended by every version)
#   cover-template.txt  b4's cover template, with base-commit fixed (see there)
#   vM/sent/*.patch, vM/cover-letter.eml, vM/message-id  for every version M
#                 before N: what was sent.  b4 tags a sent version in the
#                 tree (sent/vswap-vM) and compares the next one against it;
#                 the tag is not in any repository we commit, so it is
#                 rebuilt from these files when missing (record_sent below)
#
# From v2 on, the cover mail ends with the range-diff against the previous
# version (b4 prep --compare-to vM), after the changelog.
#
# How b4 is used, and why this way:
# - b4 0.12 works on the checked-out branch of the tree it runs in, and we
#   must never check anything out in build/linux itself: b4 runs in its own
#   worktree, build/b4, on branch b4/vswap.
# - b4/vswap is reset to vswap every time (same commits, same hashes); the
#   cover strategy is "branch-description" (.b4-config): the cover letter and
#   b4's tracking data live in git config (branch.b4/vswap.description and
#   .b4-tracking), no commit is added or rewritten.  Checked below: after b4
#   is done, b4/vswap must still be exactly vswap.  Do not commit on b4/vswap.
# - b4 reads .b4-config only from the top of the tree it runs in: it gets ours
#   as a git config include through the environment (GIT_CONFIG_COUNT), so
#   nothing is written to build/linux's branches or config for it.
# - b4 runs without the user's git config (like kgit), as the identity
#   VSWAP_SENDER_NAME/VSWAP_SENDER_EMAIL (default: the fixed identity of
#   checks/config.sh), and with sendemail.smtpserver=/bin/false, so that an
#   offline b4 cannot send anything even if asked to.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/config.sh"

COVER_DIR=${VSWAP_COVER_DIR:-$TOP/cover-letters}
B4_CONFIG=$TOP/.b4-config
B4_TEMPLATE=$BUILD/b4-cover-template
B4TREE=$BUILD/b4
B4_BRANCH=b4/$SERIES_NAME
B4_BASE=b4-base/$SERIES_NAME
B4_LOG=$BUILD/b4.log
# shellcheck disable=SC2034 # used by send.sh and test-mails.sh, which source this
MAILS=$BUILD/mails
SENDER_NAME=${VSWAP_SENDER_NAME:-$IDENT_NAME}
SENDER_EMAIL=${VSWAP_SENDER_EMAIL:-$IDENT_EMAIL}

# Number of commits in the series; dies when there is no tree or no branch.
series_count() {
	[ -d "$KTREE/.git" ] || die "no kernel tree at $KTREE (make tree)"
	kgit rev-parse -q --verify "refs/heads/$SERIES_BRANCH" >/dev/null ||
		die "no branch '$SERIES_BRANCH' in $KTREE (make apply)"
	kgit rev-list --count "$BASE_TAG..refs/heads/$SERIES_BRANCH"
}

need_series() {
	local n
	n=$(series_count)
	[ "$n" -gt 0 ] || die "the series is empty: $BASE_TAG..$SERIES_BRANCH has no commits"
	echo "$n"
}

series_version() {
	local v
	[ -f "$COVER_DIR/version" ] || die "$COVER_DIR/version is missing (it holds N of the version being prepared)"
	v=$(tr -d ' \n' <"$COVER_DIR/version")
	[[ "$v" =~ ^[1-9][0-9]*$ ]] || die "$COVER_DIR/version must hold a version number, not '$v'"
	echo "$v"
}

# The cover source of version N must be ready to send.
check_cover_source() {
	local n=$1 src=$COVER_DIR/v$1/cover.txt
	[ -f "$src" ] || die "$src is missing: write the cover letter of v$n there (copy v$((n - 1))/cover.txt and add 'Changes in v$n:')"
	! grep -q EDITME "$src" || die "$src still says EDITME: finish the cover letter first"
	grep -q "^Changes in v$n:" "$src" || die "$src has no 'Changes in v$n:' section"
	if [ -z "$(head -1 "$src")" ] || [ -n "$(sed -n 2p "$src")" ]; then
		die "$src must start with the subject line and a blank line"
	fi
}

# Run b4 in the b4 worktree.  B4_REAL=1 keeps the user's git config (their
# SMTP settings and identity) and does not set the dummy SMTP server: only
# checks/send.sh sets it, when asked to send for real.
kb4() {
	# core.abbrev fixed: the index lines must not depend on how many
	# objects the tree has, or the committed cover mail differs by machine.
	local -a cfg=(include.path "$B4_CONFIG" b4.prep-cover-template "$B4_TEMPLATE" core.abbrev 12)
	local -a envs=()
	if [ "${B4_REAL:-0}" != 1 ]; then
		envs=(GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null)
		cfg+=(user.name "$SENDER_NAME" user.email "$SENDER_EMAIL" sendemail.smtpserver /bin/false)
	else
		[ -z "${VSWAP_SENDER_NAME:-}" ] || cfg+=(user.name "$VSWAP_SENDER_NAME")
		[ -z "${VSWAP_SENDER_EMAIL:-}" ] || cfg+=(user.email "$VSWAP_SENDER_EMAIL")
	fi
	[ -z "${B4_EDITOR:-}" ] || cfg+=(core.editor "$B4_EDITOR")
	local i n=0
	for ((i = 0; i < ${#cfg[@]}; i += 2)); do
		envs+=("GIT_CONFIG_KEY_$n=${cfg[i]}" "GIT_CONFIG_VALUE_$n=${cfg[i + 1]}")
		n=$((n + 1))
	done
	(cd "$B4TREE" && env "${envs[@]}" GIT_CONFIG_COUNT=$n b4 "$@")
}

# kb4 with its chatter in $B4_LOG, shown only when it fails.
kb4_quiet() {
	printf '$ b4 %s\n' "$*" >>"$B4_LOG"
	if ! kb4 "$@" >>"$B4_LOG" 2>&1; then
		tail -20 "$B4_LOG" | sed 's/^/    /' >&2
		die "b4 $* failed (log: $B4_LOG)"
	fi
}

b4git() { KTREE=$B4TREE kgit "$@"; }

# Header NAME of mail FILE (first occurrence, unfolded).
mail_header() {
	python3 - "$1" "$2" <<-'EOF'
	import email, sys
	from email import policy
	m = email.message_from_file(open(sys.argv[1], encoding='utf-8'), policy=policy.compat32)
	v = m.get(sys.argv[2], '')
	print(' '.join(str(v).split()))
	EOF
}

# The tag b4 gives a sent version M: sent/<series>-vM.
sent_tag() { echo "sent/$SERIES_NAME-v$1"; }

# Rebuild version M as sent, from cover-letters/vM/sent/*.patch applied to
# the baseline without a worktree (a temporary index, git apply --cached),
# each commit with the author, date and message of its mail and committed
# as the series' identity at that date, so that its hash is the same on
# every machine; then tag it as b4 does after a send: an annotated tag
# whose message is the cover mail's body, which names base-commit and
# change-id.  Does nothing if the tag exists.
record_sent() {
	local m=$1 tag dir idx parent tree p t date body
	tag=$(sent_tag "$m")
	dir=$COVER_DIR/v$m
	kgit rev-parse -q --verify "refs/tags/$tag" >/dev/null && return 0
	[ -f "$dir/cover-letter.eml" ] || die "$dir/cover-letter.eml is missing: v$m as sent cannot be recorded"
	compgen -G "$dir/sent/*.patch" >/dev/null || die "$dir/sent/ has no patches: v$m as sent cannot be recorded"
	t=$(mktemp -d)
	idx=$t/index
	parent=$(kgit rev-parse "$BASE_TAG^{commit}")
	GIT_INDEX_FILE=$idx kgit read-tree "$parent"
	for p in "$dir"/sent/*.patch; do
		git mailinfo "$t/msg" "$t/patch" <"$p" >"$t/info" || die "git mailinfo failed on $p"
		GIT_INDEX_FILE=$idx kgit apply --cached "$t/patch" || die "${p#"$TOP"/} does not apply to the v$m series so far"
		tree=$(GIT_INDEX_FILE=$idx kgit write-tree)
		{ sed -n 's/^Subject: //p' "$t/info"; echo; cat "$t/msg"; } | git stripspace >"$t/message"
		date=$(sed -n 's/^Date: //p' "$t/info")
		parent=$(GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null \
			GIT_AUTHOR_NAME=$(sed -n 's/^Author: //p' "$t/info") \
			GIT_AUTHOR_EMAIL=$(sed -n 's/^Email: //p' "$t/info") \
			GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date \
			GIT_COMMITTER_NAME=$IDENT_NAME GIT_COMMITTER_EMAIL=$IDENT_EMAIL \
			git -C "$KTREE" commit-tree "$tree" -p "$parent" -F "$t/message")
	done
	body=$t/cover-body
	sed '1,/^$/d' "$dir/cover-letter.eml" >"$body"
	if ! grep -q '^base-commit: ' "$body" || ! grep -q '^change-id: ' "$body"; then
		die "$dir/cover-letter.eml names no base-commit or change-id: not a cover b4 made"
	fi
	GIT_COMMITTER_DATE=$(mail_header "$dir/cover-letter.eml" Date) kgit tag -a -F "$body" "$tag" "$parent"
	rm -rf "$t"
	msg "recorded v$m as sent: $tag = ${parent:0:12} ($(find "$dir/sent" -name '*.patch' | wc -l) patches)"
}

# Every version before N recorded as sent (tags, and b4's history of the
# cover letters' Message-Ids), so that b4 can compare against them.
record_sent_versions() {
	local n=$1 m tracking msgid
	for ((m = 1; m < n; m++)); do
		record_sent "$m"
		msgid=$(tr -d ' \n<>' <"$COVER_DIR/v$m/message-id" 2>/dev/null || true)
		[ -n "$msgid" ] || msgid=$(mail_header "$COVER_DIR/v$m/cover-letter.eml" Message-Id | tr -d '<>')
		tracking=$(kgit config --get "branch.$B4_BRANCH.b4-tracking")
		tracking=$(M=$m MSGID=$msgid python3 -c '
import json, os, sys
t = json.loads(sys.stdin.read())
t["series"].setdefault("history", {})["v" + os.environ["M"]] = [os.environ["MSGID"]]
print(json.dumps(t))' <<<"$tracking")
		kgit config "branch.$B4_BRANCH.b4-tracking" "$tracking"
	done
}

# Point b4/vswap (in build/b4) at the series, enroll it with b4 prep and
# give it the cover letter, revision, prefixes and recipients of version N.
b4_prepare() {
	local count n tip
	count=$(need_series)
	n=$(series_version)
	check_cover_source "$n"
	[ -f "$COVER_DIR/change-id" ] || die "$COVER_DIR/change-id is missing"
	local changeid
	changeid=$(tr -d ' \n' <"$COVER_DIR/change-id")
	tip=$(kgit rev-parse "refs/heads/$SERIES_BRANCH")
	: >"$B4_LOG"

	# The base b4 finds the series' start from (git merge-base --fork-point).
	kgit branch -f "$B4_BASE" "$BASE_TAG^{commit}" >/dev/null

	if [ ! -e "$B4TREE/.git" ]; then
		msg "creating b4's worktree $B4TREE (branch $B4_BRANCH = $SERIES_BRANCH)"
		kgit worktree prune
		kgit worktree add -q -B "$B4_BRANCH" "$B4TREE" "$tip"
	else
		[ "$(b4git symbolic-ref -q HEAD || true)" = "refs/heads/$B4_BRANCH" ] ||
			die "$B4TREE is not on branch $B4_BRANCH; remove it (git -C $KTREE worktree remove --force $B4TREE) and rerun"
		local was last
		was=$(b4git rev-parse HEAD)
		last=$(kgit config --get vswap.b4tip || true)
		if [ "$was" != "$tip" ] && [ -n "$last" ] && [ "$was" != "$last" ]; then
			die "$B4_BRANCH has commits this script did not put there ($was); it is rebuilt from $SERIES_BRANCH every time: move them to $SERIES_BRANCH and delete $B4_BRANCH"
		fi
		b4git reset -q --hard "$tip"
	fi
	kgit config vswap.b4tip "$tip"
	cp "$B4_CONFIG" "$B4TREE/.b4-config"
	sed "s/@BASE_COMMIT@/$(kgit rev-parse "$BASE_TAG^{commit}")/" \
		"$COVER_DIR/cover-template.txt" >"$B4_TEMPLATE"

	if [ -z "$(kgit config --get "branch.$B4_BRANCH.b4-tracking" || true)" ]; then
		msg "enrolling $B4_BRANCH with b4 prep (base $B4_BASE = $BASE_TAG)"
		kb4_quiet prep -e "$B4_BASE"
	fi
	[ "$(kgit config --get "branch.$B4_BRANCH.b4-prep-cover-strategy")" = branch-description ] ||
		die "$B4_BRANCH uses b4 cover strategy '$(kgit config --get "branch.$B4_BRANCH.b4-prep-cover-strategy")', not branch-description; delete the branch's b4 config (git -C $KTREE config --remove-section branch.$B4_BRANCH) and rerun"

	# The change-id is ours (committed), not the one b4 made up at enrollment:
	# every machine and every version of the series uses the same.
	local tracking
	tracking=$(kgit config --get "branch.$B4_BRANCH.b4-tracking")
	tracking=$(CHANGEID=$changeid BASEB=$B4_BASE python3 -c '
import json, os, sys
t = json.loads(sys.stdin.read())
t["series"]["change-id"] = os.environ["CHANGEID"]
t["series"]["base-branch"] = os.environ["BASEB"]
print(json.dumps(t))' <<<"$tracking")
	kgit config "branch.$B4_BRANCH.b4-tracking" "$tracking"

	# The cover letter: cover.txt, and from v2 on the range-diff against
	# the version before, as b4 makes it (git range-diff of the two).
	local prefixes coverfile=$BUILD/b4-cover.txt
	cp "$COVER_DIR/v$n/cover.txt" "$coverfile"
	if [ "$n" -gt 1 ]; then
		record_sent_versions "$n"
		local rd
		rd=$(kb4 prep --compare-to "v$((n - 1))" 2>>"$B4_LOG") ||
			die "b4 prep --compare-to v$((n - 1)) failed (log: $B4_LOG)"
		[ -n "$rd" ] || die "b4 prep --compare-to v$((n - 1)) printed no range-diff"
		printf '\nRange-diff against v%s:\n%s\n' "$((n - 1))" "$rd" >>"$coverfile"
	fi
	prefixes=$(git config -f "$B4_CONFIG" --get b4.send-prefixes || true)
	B4_EDITOR="cp -- '$coverfile'" \
		kb4_quiet prep --force-revision "$n" --set-prefixes "${prefixes:-}" --edit-cover
	kb4_quiet prep --auto-to-cc

	# b4 must not have touched the series.
	if [ "$(b4git rev-parse HEAD)" != "$tip" ] || [ "$(kgit rev-parse "refs/heads/$SERIES_BRANCH")" != "$tip" ]; then
		die "b4 changed the commits of the series (b4/vswap $(b4git rev-parse HEAD), vswap $tip)"
	fi
	msg "b4: $B4_BRANCH = $SERIES_BRANCH ($count patches, tip ${tip:0:12}), v$n, cover from cover-letters/v$n/cover.txt"
}

# Write every mail of the series into DIR (emptied first), as b4 would send
# them, without sending anything.
b4_mails() {
	local dir=$1
	rm -rf "$dir"
	mkdir -p "$dir"
	kb4_quiet send -o "$dir" --no-sign
	local nm
	nm=$(find "$dir" -name '*.eml' | wc -l)
	[ "$nm" -gt 0 ] || die "b4 send -o wrote no mails into $dir (log: $B4_LOG)"
}

# The cover mail among b4's output: the 0/N mail, or for a single patch the
# patch mail itself (b4 puts the cover text below its '---').
cover_mail_in() {
	local dir=$1 f
	f=$(find "$dir" -maxdepth 1 -name '0000-*.eml' | sort | head -1)
	if [ -z "$f" ] && [ "$(find "$dir" -maxdepth 1 -name '*.eml' | wc -l)" = 1 ]; then
		f=$(find "$dir" -maxdepth 1 -name '*.eml')
	fi
	[ -n "$f" ] || die "no cover mail in $dir"
	echo "$f"
}

# A mail without what changes on every run: b4 makes a fresh Date and
# Message-Id, and X-B4-Tracking is gzip data with a time stamp in it (its
# decoded content is kept).
stable_mail() {
	python3 - "$1" <<-'EOF'
	import base64, gzip, re, sys
	head, _, body = open(sys.argv[1], encoding='utf-8').read().partition('\n\n')
	out = []
	for h in re.split(r'\n(?![ \t])', head):
	    name = h.split(':', 1)[0].lower()
	    if name in ('date', 'message-id'):
	        continue
	    if name == 'x-b4-tracking':
	        b64 = re.sub(r'\s+', '', h.split('b=', 1)[1])
	        h = 'X-B4-Tracking: ' + gzip.decompress(base64.b64decode(b64)).decode()
	    out.append(h)
	sys.stdout.write('\n'.join(out) + '\n\n' + body)
	EOF
}

# Copy the cover mail of DIR to cover-letters/vN/cover-letter.eml, unless
# only its Date/Message-Id differ from the one already there.
save_cover() {
	local dir=$1 n src dst
	n=$(series_version)
	src=$(cover_mail_in "$dir")
	dst=$COVER_DIR/v$n/cover-letter.eml
	mkdir -p "$COVER_DIR/v$n"
	if [ -f "$dst" ] && cmp -s <(stable_mail "$src") <(stable_mail "$dst"); then
		msg "cover-letters/v$n/cover-letter.eml is current"
	else
		cp "$src" "$dst"
		msg "wrote cover-letters/v$n/cover-letter.eml (commit it)"
	fi
}

main() {
	b4_prepare
	COVER_TMP=$(mktemp -d)
	trap 'rm -rf "$COVER_TMP"' EXIT
	b4_mails "$COVER_TMP"
	save_cover "$COVER_TMP"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	main "$@"
fi

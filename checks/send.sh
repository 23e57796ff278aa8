#!/bin/bash
# The series as mails (make send).
#
#   make send                 writes every mail of version N, as b4 would
#                             send it, into build/mails/vN/.  Sends nothing.
#   make send SEND=reflect    sends the series to yourself only (b4 --reflect)
#   make send SEND=really     sends the series to the lists and people in it
#
# Both sending modes use your own git config for SMTP (sendemail.*) and
# identity (user.name/user.email, or VSWAP_SENDER_NAME/VSWAP_SENDER_EMAIL),
# need a terminal (b4 shows the recipients and asks before it sends), and
# refuse to run in CI.  Mails are not patatt-signed unless SIGN=yes.
# SEND_ARGS adds options to "b4 send" in those modes.
#
# After a real send b4 tags the series (sent/vswap-vN) and this script
# records the cover letter's Message-Id in cover-letters/vN/message-id, the
# patch mails in cover-letters/vN/sent/ (from which checks/cover.sh rebuilds
# that tag on another machine, for the next version's range-diff) and
# starts the next version: cover-letters/v(N+1)/cover.txt with a
# "Changes in v(N+1):" section (with EDITME, which must be replaced before
# v(N+1) can be made) and cover-letters/version = N+1.  Commit them.
set -euo pipefail
. "$(dirname "$0")/cover.sh"

mode=${SEND:-}
case "$mode" in
'' | no | dry-run) mode=mails ;;
really | reflect) ;;
*) die "SEND=$mode: use SEND=really (send to everyone), SEND=reflect (to yourself), or nothing (write mails only)" ;;
esac

if [ "$mode" != mails ]; then
	[ "${CI:-}" != true ] || die "refusing to send mail from CI (SEND=$mode)"
	[ -t 0 ] || die "SEND=$mode needs a terminal: b4 shows the recipients and asks before sending"
fi

# The robot's configurations first: no mail for a tip that has not passed.
why=$(configs_passed) || die "$why; run make check-configs (build/results/check-configs.txt) before make send"
# The kernel variants make test cannot afford: required to send, only
# reported when writing the mails (CI writes them; it does not build those).
if ! why=$(variants_passed); then
	[ "$mode" = mails ] || die "$why; run make test-variants (build/results/test-variants.txt) before sending"
	msg "note: $why; SEND=really refuses until make test-variants passes"
fi
b4_prepare
n=$(series_version)
dir=$MAILS/v$n
b4_mails "$dir"
save_cover "$dir"

if [ "$mode" = mails ]; then
	msg "wrote $(find "$dir" -name '*.eml' | wc -l) mails of v$n into ${dir#"$TOP"/}:"
	find "$dir" -maxdepth 1 -name '*.eml' -printf '    %f\n' | sort
	msg "NOTHING WAS SENT.  To send them: make send SEND=really (or SEND=reflect to send to yourself only)"
	exit 0
fi

args=()
[ "${SIGN:-}" = yes ] || args+=(--no-sign)
[ "$mode" = reflect ] && args+=(--reflect)
# shellcheck disable=SC2206 # SEND_ARGS is a list of options, split on purpose
args+=(${SEND_ARGS:-})

if [ "$mode" = reflect ]; then
	msg "SENDING v$n TO YOURSELF ONLY (b4 send --reflect); the To/Cc headers are filled in but nobody else gets it"
else
	msg "SENDING v$n FOR REAL to the recipients b4 lists next (b4 send ${args[*]})"
fi
B4_REAL=1 kb4 send "${args[@]}"

[ "$mode" = really ] || exit 0

# b4 recorded the cover letter's Message-Id and moved its tracking to v(N+1).
tracking=$(kgit config --get "branch.$B4_BRANCH.b4-tracking")
msgid=$(N=$n python3 -c '
import json, os, sys
t = json.loads(sys.stdin.read())
print(t["series"].get("history", {}).get("v" + os.environ["N"], [""])[-1])' <<<"$tracking")
[ -n "$msgid" ] || die "b4 send finished but recorded no Message-Id for v$n; check 'b4 prep --show-revision' in $B4TREE"
echo "$msgid" >"$COVER_DIR/v$n/message-id"
mkdir -p "$COVER_DIR/v$n/sent"
cover=$(cover_mail_in "$dir")
for f in "$dir"/*.eml; do
	[ "$f" = "$cover" ] || cp "$f" "$COVER_DIR/v$n/sent/$(basename "${f%.eml}").patch"
done
next=$((n + 1))
# shellcheck disable=SC2059 # b4.linkmask is a printf format (lore's %s)
link=$(printf "$(git config -f "$B4_CONFIG" --get b4.linkmask || echo 'https://lore.kernel.org/r/%s')" "$msgid")
mkdir -p "$COVER_DIR/v$next"
if [ ! -s "$COVER_DIR/v$next/cover.txt" ]; then
	awk -v n="$n" -v nn="$next" -v link="$link" '
		!done && $0 == "Changes in v" n ":" {
			print "Changes in v" nn ":"
			print "- EDITME: what changed since v" n "."
			print "- Link to v" n ": " link
			print ""
			done = 1
		}
		{ print }' "$COVER_DIR/v$n/cover.txt" >"$COVER_DIR/v$next/cover.txt.new"
	mv "$COVER_DIR/v$next/cover.txt.new" "$COVER_DIR/v$next/cover.txt"
fi
echo "$next" >"$COVER_DIR/version"
msg "sent v$n: $link"
msg "started v$next: edit cover-letters/v$next/cover.txt (replace EDITME), then commit cover-letters/"

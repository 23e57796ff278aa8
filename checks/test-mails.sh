#!/bin/bash
# The mails b4 makes of the series are what reviewers get: test them.
#   mails/refuses-unchecked-tip  make send writes no mail for a tip without
#                      a make check-configs pass (results elsewhere: none)
#   mails/refuses-untested-variants  sending needs a make test-variants
#                      pass of the tip: no record, a FAIL or a missing
#                      result is refused, a complete pass accepted
#   mails/generate     make send (the default: mails only, nothing is sent)
#                      writes the mails of version N into build/mails/vN/
#   mails/count        one mail per commit, plus the 0/N cover letter
#   mails/recipients   every mail goes to the series' lists and people
#                      (.b4-config) and to everyone get_maintainer.pl names
#                      for that patch
#   mails/checkpatch/NN-...  checkpatch.pl --strict on the mail: no error,
#                      warning or check but those justified in
#                      checks/checkpatch-exceptions.txt (format checked too)
#   mails/am           git am of every patch mail, in order, on a worktree
#                      reset to exactly the baseline tag
#   mails/tree         the result is the tree of the vswap tip
#   mails/messages     and has the same authors and commit messages (the
#                      author dates are the mails' dates, as for any mail)
#   mails/cover        the cover mail exists, has no EDITME and has the
#                      "Changes in vN:" section
#   mails/cover-committed  cover-letters/vN/cover-letter.eml as committed is
#                      the cover mail b4 makes now (make cover, then commit)
#   mails/range-diff   from v2 on: the cover mail carries the range-diff
#                      against v(N-1) as sent (tag sent/vswap-v(N-1), rebuilt
#                      from cover-letters/v(N-1)/sent/), and it pairs every
#                      patch of both versions (range-diff-refuses: the check
#                      refuses a cover with a line or the range-diff cut)
# An empty series fails: there would be nothing to test.
set -uo pipefail
. "$(dirname "$0")/cover.sh"
set +e

fail=0

count=$(series_count 2>&1) || { record FAIL mails "$count"; exit 1; }
[ "$count" -gt 0 ] || { record FAIL mails "the series is empty: $BASE_TAG..$SERIES_BRANCH has no commits, there are no mails to test"; exit 1; }
n=$(series_version 2>&1) || { record FAIL mails "$n"; exit 1; }
tip=$(kgit rev-parse "refs/heads/$SERIES_BRANCH")
dir=$MAILS/v$n
log=$RESULTS/test-mails.log
mkdir -p "$RESULTS"

# 0. make send refuses a tip that has not passed make check-configs.
nores=$(mktemp -d)
if VSWAP_RESULTS=$nores bash "$TOP/checks/send.sh" >"$nores/send.log" 2>&1; then
	bad mails/refuses-unchecked-tip "make send wrote mails with no check-configs result"
elif grep -q 'has not run on the tip' "$nores/send.log"; then
	good mails/refuses-unchecked-tip "$(grep -m1 -o 'make check-configs has not run.*' "$nores/send.log" | cut -c1-80)"
else
	bad mails/refuses-unchecked-tip "make send failed for another reason: $(tail -n 1 "$nores/send.log")"
fi
rm -rf "$nores"

# 0b. Sending refuses a tip without a complete make test-variants pass: the
# check send.sh makes, fed no record, a failed one and a complete one.
vres=$(mktemp -d)
want_refusal() {
	local why
	if why=$(VSWAP_RESULTS=$vres bash -c '. "$1/checks/config.sh"; variants_passed' _ "$TOP" 2>&1); then
		bad mails/refuses-untested-variants "$1: accepted"
		return 1
	fi
	grep -q "$2" <<<"$why" || { bad mails/refuses-untested-variants "$1: said '$why'"; return 1; }
}
# Every result make test-variants must leave, as PASS records.
passes=$(while read -r k s; do bash "$TOP/qemu-test/plan.sh" expect "$k" "$s"; done < <(bash "$TOP/qemu-test/plan.sh" presends) |
	awk '{ print "PASS " $0 }')
if want_refusal "no record" 'has not run on the tip' &&
	{ echo "tip $tip"; sed '1s/^PASS /FAIL /' <<<"$passes"; } >"$vres/test-variants.txt" &&
	want_refusal "a failed result" 'failed make test-variants' &&
	{ echo "tip $tip"; sed '$d' <<<"$passes"; } >"$vres/test-variants.txt" &&
	want_refusal "a missing result" 'left no PASS for'; then
	{ echo "tip $tip"; echo "$passes"; } >"$vres/test-variants.txt"
	if VSWAP_RESULTS=$vres bash -c '. "$1/checks/config.sh"; variants_passed' _ "$TOP" >/dev/null 2>&1; then
		good mails/refuses-untested-variants "$(wc -l <<<"$passes") expected results"
	else
		bad mails/refuses-untested-variants "a complete pass was refused"
	fi
fi
rm -rf "$vres"

# 1. The mails, exactly as make send writes them by default.  make send
# needs a make check-configs pass of the tip (refused above without one),
# which CI does not run (a build per configuration): it gets a record of
# one, as make check-configs writes it.
sres=$(mktemp -d)
{ echo "tip $tip"; grep -vE '^[[:space:]]*(#|$)' "$TOP/checks/configs" | awk '{ print "PASS " $1 }'; } >"$sres/check-configs.txt"
if env -u SEND -u SEND_ARGS -u SIGN -u B4_REAL VSWAP_RESULTS="$sres" bash "$TOP/checks/send.sh" >"$log" 2>&1; then
	good mails/generate "$(find "$dir" -name '*.eml' | wc -l) mails in ${dir#"$TOP"/}"
else
	bad mails/generate "make send failed: $(tail -1 "$log") (log: $log)"
	rm -rf "$sres"
	exit 1
fi
rm -rf "$sres"
grep -q '^==> NOTHING WAS SENT' "$log" || bad mails/generate "make send did not say that nothing was sent (log: $log)"

mapfile -t patches < <(find "$dir" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.eml' ! -name '0000-*' | sort)
ncover=$(find "$dir" -maxdepth 1 -name '0000-*.eml' | wc -l)
want_cover=1
[ "$count" -gt 1 ] || want_cover=0
if [ "${#patches[@]}" -eq "$count" ] && [ "$ncover" -eq "$want_cover" ]; then
	good mails/count "$count patch mails and $ncover cover letter"
else
	bad mails/count "${#patches[@]} patch mails and $ncover cover mails for $count commits (want $count and $want_cover)"
fi

# 2. A worktree at the baseline, for checkpatch and git am: build/mails-am,
# kept between runs (making and deleting a kernel checkout takes minutes) and
# reset to exactly the baseline tag, nothing else in it, every time.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
wt=$BUILD/mails-am
scratch_worktree "$wt" "$BASE_TAG" || { bad mails/am "cannot make a worktree at $BASE_TAG"; exit 1; }
wgit() { KTREE=$wt kgit "$@"; }
if [ "$(wgit rev-parse HEAD)" != "$(kgit rev-parse "$BASE_TAG^{commit}")" ] ||
   [ -n "$(wgit status --porcelain --ignored=matching)" ]; then
	bad mails/am "cannot reset $wt to a clean $BASE_TAG"
	exit 1
fi

# 3. Recipients: the series-wide ones, and get_maintainer.pl's for each patch
# (run in b4's worktree, at the tip, as b4 prep --auto-to-cc did).
addrs_of() { # mail -> the addresses in To: and Cc:, one per line, lower case
	python3 - "$1" <<-'EOF'
	import email, email.policy, email.utils, sys
	m = email.message_from_binary_file(open(sys.argv[1], 'rb'), policy=email.policy.default)
	vals = [str(v) for h in ('to', 'cc') for v in m.get_all(h, [])]
	for _, a in email.utils.getaddresses(vals):
	    print(a.lower())
	EOF
}
series_addrs=$(git config -f "$B4_CONFIG" --get-all b4.send-series-to; git config -f "$B4_CONFIG" --get-all b4.send-series-cc)
mapfile -t must < <(python3 -c '
import email.utils, sys
for _, a in email.utils.getaddresses(sys.stdin.read().splitlines()):
    print(a.lower())' <<<"$series_addrs")
if [ "${#must[@]}" -lt 2 ]; then
	bad mails/recipients "b4.send-series-to/cc in .b4-config name ${#must[@]} addresses"
fi
missing=()
for m in "$dir"/*.eml; do
	have=$(addrs_of "$m")
	need=("${must[@]}")
	case "${m##*/}" in 0000-*) ;; *)
		mapfile -t -O "${#need[@]}" need < <(cd "$B4TREE" && perl scripts/get_maintainer.pl --nogit --nogit-fallback --nogit-chief-penguins --norolestats "$m" 2>/dev/null |
			python3 -c '
import email.utils, sys
for _, a in email.utils.getaddresses(sys.stdin.read().splitlines()):
    print(a.lower())')
	esac
	for a in "${need[@]}"; do
		grep -qxF "$a" <<<"$have" || missing+=("${m##*/}: $a")
	done
done
if [ ${#missing[@]} -eq 0 ]; then
	good mails/recipients "every mail goes to ${#must[@]} series-wide addresses and its patch's maintainers"
else
	bad mails/recipients "missing: ${missing[*]:0:4}"
fi

# 4. checkpatch --strict on every patch mail, with the justified exceptions.
exc=$CHECKPATCH_EXCEPTIONS
badexc=$(checkpatch_exceptions_bad | head -3)
if [ ! -f "$exc" ]; then
	bad mails/checkpatch-exceptions "checks/checkpatch-exceptions.txt is missing"
elif [ -n "$badexc" ]; then
	bad mails/checkpatch-exceptions "lines not in the form N<TAB>TYPE<TAB>justification: $(tr '\n' '|' <<<"$badexc")"
else
	good mails/checkpatch-exceptions "$(grep -c -v -E '^[[:space:]]*(#|$)' "$exc") exceptions"
fi
i=0
for m in "${patches[@]}"; do
	i=$((i + 1))
	name=$(basename "$m" .eml | cut -c1-45)
	cplog=$RESULTS/checkpatch-mail-$name.log
	if checkpatch_run "$i" "$wt" "$m" >"$cplog"; then
		good "mails/checkpatch/$name"
	elif ! grep -q '^total: ' "$cplog"; then
		bad "mails/checkpatch/$name" "checkpatch.pl did not run to the end (log: $cplog)"
	else
		bad "mails/checkpatch/$name" "$(grep -E '^(ERROR|WARNING|CHECK):' "$cplog" | head -3 | tr '\n' ' ')(log: $cplog)"
	fi
done

# 5. git am of the mails, in order, onto the baseline.
applied=0
for m in "${patches[@]}"; do
	if ! wgit am -q --committer-date-is-author-date "$m" >"$work/am.log" 2>&1; then
		bad mails/am "${m##*/} does not apply after $applied mails: $(head -3 "$work/am.log" | tr '\n' ' ')"
		wgit am --abort >/dev/null 2>&1
		break
	fi
	applied=$((applied + 1))
done
if [ "$applied" -eq "${#patches[@]}" ] && [ "$applied" -gt 0 ]; then
	good mails/am "$applied mails apply to $BASE_TAG"

	# 6. Same tree, same authors and messages as the branch.
	if [ "$(wgit rev-parse 'HEAD^{tree}')" = "$(kgit rev-parse "$tip^{tree}")" ] &&
	   wgit diff --quiet HEAD "$tip"; then
		good mails/tree "the mails rebuild the tree of $SERIES_BRANCH (${tip:0:12})"
	else
		bad mails/tree "the tree from the mails differs from $SERIES_BRANCH: $(wgit diff --stat HEAD "$tip" | tail -1)"
	fi
	# Not the dates: b4 dates every mail at the time it makes them, and git am
	# takes the author date from the mail.
	fmt='%an <%ae>%n%B'
	if cmp -s <(wgit log --reverse --format="$fmt" "$BASE_TAG..HEAD") <(kgit log --reverse --format="$fmt" "$BASE_TAG..$tip"); then
		good mails/messages "authors and commit messages as on $SERIES_BRANCH"
	else
		bad mails/messages "authors or commit messages of the mails differ from $SERIES_BRANCH: $(diff <(wgit log --reverse --format="$fmt" "$BASE_TAG..HEAD") <(kgit log --reverse --format="$fmt" "$BASE_TAG..$tip") | head -3 | tr '\n' ' ')"
	fi
elif [ "${#patches[@]}" -eq 0 ]; then
	bad mails/am "no patch mails to apply"
fi

# 7. The cover letter.
cover=$(cover_mail_in "$dir" 2>/dev/null)
# 7b. From v2 on, the range-diff against the version sent before: every
# patch of v(N-1) and of vN on one of its lines ("1:  abc ! 1:  def ...").
# rangediff_check COVER PREV PCOUNT COUNT: prints why not, non-zero if not.
rangediff_check() {
	local cover=$1 prev=$2 pcount=$3 count=$4 pairs left right
	pairs=$(sed -n "/^Range-diff against v$prev:\$/,\$p" "$cover" |
		sed -n -E 's/^ *([0-9]+|-): +[0-9a-f-]+ [<>=!] +([0-9]+|-): .*/\1 \2/p')
	left=$(awk '$1 != "-" { print $1 }' <<<"$pairs" | sort -n | uniq | tr '\n' ' ')
	right=$(awk '$2 != "-" { print $2 }' <<<"$pairs" | sort -n | uniq | tr '\n' ' ')
	if ! grep -q "^Range-diff against v$prev:\$" "$cover"; then
		echo "${cover##*/} has no 'Range-diff against v$prev:'"
		return 1
	elif [ "$left" != "$(seq -s ' ' 1 "$pcount") " ] || [ "$right" != "$(seq -s ' ' 1 "$count") " ]; then
		echo "the range-diff does not pair all v$prev patches (1-$pcount: $left) and v$((prev + 1)) patches (1-$count: $right)"
		return 1
	fi
	echo "${cover##*/}: range-diff of v$prev ($pcount patches) against v$((prev + 1)) ($count)"
}
if [ "$n" -gt 1 ] && [ -n "$cover" ] && [ -f "$cover" ]; then
	prev=$((n - 1))
	ptag=$(sent_tag "$prev")
	pcount=$(kgit rev-list --count "$BASE_TAG..refs/tags/$ptag" 2>/dev/null || echo 0)
	sent_count=$(find "$COVER_DIR/v$prev/sent" -name '*.patch' 2>/dev/null | wc -l)
	if [ "$pcount" = 0 ] || [ "$pcount" != "$sent_count" ]; then
		bad mails/range-diff "tag $ptag has $pcount commits, cover-letters/v$prev/sent/ $sent_count patches"
	elif why=$(rangediff_check "$cover" "$prev" "$pcount" "$count"); then
		good mails/range-diff "$why (tag $ptag)"
	else
		bad mails/range-diff "$why"
	fi
	# The check refuses a cover whose range-diff lost a line, or is missing.
	sed '/^ *1: .* [<>=!] /d' "$cover" >"$work/no-first.eml"
	sed '/^Range-diff against/,$d' "$cover" >"$work/no-rd.eml"
	if rangediff_check "$work/no-first.eml" "$prev" "$pcount" "$count" >/dev/null ||
		rangediff_check "$work/no-rd.eml" "$prev" "$pcount" "$count" >/dev/null; then
		bad mails/range-diff-refuses "a range-diff without patch 1's line, or none, was accepted"
	else
		good mails/range-diff-refuses "a range-diff without patch 1's line, and a cover without one, are refused"
	fi
fi
if [ -z "$cover" ] || [ ! -f "$cover" ]; then
	bad mails/cover "no cover mail in ${dir#"$TOP"/}"
elif grep -q EDITME "$cover"; then
	bad mails/cover "${cover##*/} says EDITME"
elif ! grep -q "^Changes in v$n:" "$cover"; then
	bad mails/cover "${cover##*/} has no 'Changes in v$n:' section"
elif [ "$count" -gt 1 ] && ! grep -q "^Subject: \[PATCH.* 0*0/$count\] " "$cover"; then
	bad mails/cover "${cover##*/} is not numbered 0/$count: $(grep -m1 '^Subject:' "$cover")"
elif ! grep -q "^base-commit: $(kgit rev-parse "$BASE_TAG^{commit}")\$" "$cover"; then
	bad mails/cover "${cover##*/} does not name the baseline as base-commit: $(grep -m1 '^base-commit:' "$cover")"
else
	good mails/cover "${cover##*/}: changelog for v$n, base-commit, no EDITME"
fi
if [ -n "$cover" ] && [ -f "$cover" ]; then
	if git -C "$COVER_DIR" show "HEAD:./v$n/cover-letter.eml" >"$work/committed.eml" 2>/dev/null; then
		if cmp -s <(stable_mail "$work/committed.eml") <(stable_mail "$cover"); then
			good mails/cover-committed "cover-letters/v$n/cover-letter.eml is current"
		else
			bad mails/cover-committed "cover-letters/v$n/cover-letter.eml as committed differs from what b4 makes now: run make cover and commit it"
		fi
	else
		bad mails/cover-committed "cover-letters/v$n/cover-letter.eml is not committed: run make cover and commit it"
	fi
fi

exit "$fail"

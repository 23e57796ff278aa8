#!/bin/bash
# The one reader of qemu-test/plan (the test matrix, as data).
#
#   plan.sh check                 is the plan consistent?  (names every problem)
#   plan.sh variants              variant names
#   plan.sh fragments VARIANT     its config fragments, as paths
#   plan.sh kernels               kernel names
#   plan.sh kernel NAME           "VARIANT REV"
#   plan.sh boots [KERNEL]        "KERNEL SCENARIO" lines, in plan order
#   plan.sh presends              "KERNEL SCENARIO" lines of make test-variants
#   plan.sh built                 the kernels make test builds (booted ones)
#   plan.sh tests SCENARIO        its tests (TEST[:ARG...]), in order
#   plan.sh expect LABEL SCENARIO the record names a run of SCENARIO labelled
#                                 LABEL must leave (qemu-test/run.sh)
#   plan.sh compares              "HOW TEST KERNEL_A KERNEL_B SCENARIO" lines
#   plan.sh table                 the scenario table of the docs (markdown)
set -uo pipefail
. "$(dirname "$0")/../checks/config.sh"

SELF=$(realpath "$0")
self() { bash "$SELF" "$@"; }
PLAN=${VSWAP_PLAN:-$TOP/qemu-test/plan}
SCEN_DIR=$TOP/qemu-test/scenarios
[ -f "$PLAN" ] || die "no plan at $PLAN"

# The plan's lines of one kind, comments and blanks dropped, fields
# separated by single spaces.
lines() {
	sed -e 's/#.*//' -e 's/[[:space:]][[:space:]]*/ /g' -e 's/^ //' -e 's/ $//' "$PLAN" |
		awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print }'
}

# Post-test records every run leaves: dmesg_check (in the guest) and the
# host's scan of the whole console log.
POST_TESTS="dmesg_check console"

cmd=${1:-}
shift || true
case $cmd in
variants) lines variant | cut -d' ' -f1 ;;
fragments)
	v=${1:?usage: plan.sh fragments VARIANT}
	f=$(lines variant | awk -v v="$v" '$1 == v { $1 = ""; print }')
	[ -n "$f" ] || die "no variant '$v' in $PLAN (have: $(lines variant | cut -d' ' -f1 | tr '\n' ' '))"
	for x in $f; do echo "$TOP/qemu-test/config/$x.config"; done
	;;
kernels) lines kernel | cut -d' ' -f1 ;;
kernel)
	k=${1:?usage: plan.sh kernel NAME}
	l=$(lines kernel | awk -v k="$k" '$1 == k { print $2, $3 }')
	[ -n "$l" ] || die "no kernel '$k' in $PLAN"
	echo "$l"
	;;
boots)
	if [ $# -gt 0 ]; then lines boot | awk -v k="$1" '$1 == k'; else lines boot; fi
	;;
presends) lines presend ;;
built) lines boot | awk '!seen[$1]++ { print $1 }' ;;
tests)
	s=${1:?usage: plan.sh tests SCENARIO}
	lines test | awk -v s="$s" '$1 == s { print $2 }'
	;;
expect)
	label=${1:?usage: plan.sh expect LABEL SCENARIO} s=${2:?usage: plan.sh expect LABEL SCENARIO}
	for t in $(self tests "$s") $POST_TESTS; do echo "$label/$s/${t%%:*}"; done
	;;
compares) lines compare ;;
table)
	echo "| scenario | booted on (variant) | guest | tests |"
	echo "|---|---|---|---|"
	for s in $(lines test | cut -d' ' -f1 | awk '!seen[$0]++'); do
		on=$({ lines boot | awk -v s="$s" '$2 == s { print $1 }' | while read -r k; do
			echo "$k ($(self kernel "$k" | cut -d' ' -f1))"; done
			lines presend | awk -v s="$s" '$2 == s { print $1 }' | while read -r k; do
			echo "$k ($(self kernel "$k" | cut -d' ' -f1), make test-variants)"; done; } |
			paste -sd, | sed 's/,/, /g')
		f=$SCEN_DIR/$s.conf
		guest="$(scenario_get "$f" mem 384M), $(scenario_get "$f" smp 2) CPUs"
		d=$(scenario_get "$f" disks)
		[ -n "$d" ] && guest="$guest, disks $d"
		c=$(scenario_get "$f" cmdline)
		[ -n "$c" ] && guest="$guest, \`$c\`"
		echo "| \`$s\` | ${on:-not in make test} | $guest | $(self tests "$s" | paste -sd' ' | sed 's/ /, /g') |"
	done
	;;
check)
	errs=()
	err() { errs+=("$*"); }
	known=" variant kernel boot presend test compare "
	while read -r kind _; do
		[[ $known == *" $kind "* ]] || err "unknown line kind '$kind'"
	done < <(sed -e 's/#.*//' "$PLAN" | awk 'NF { print $1 }')
	while read -r v frags; do
		[ -n "$frags" ] || err "variant $v has no fragment"
		for x in $frags; do
			[ -f "$TOP/qemu-test/config/$x.config" ] || err "variant $v: no qemu-test/config/$x.config"
		done
	done < <(lines variant)
	while read -r k v rev extra; do
		lines variant | cut -d' ' -f1 | grep -qx "$v" || err "kernel $k: no variant '$v'"
		case $rev in baseline|tip|each) ;; *) err "kernel $k: REV '$rev' is not baseline, tip or each" ;; esac
		[ -z "$extra" ] || err "kernel $k: extra fields '$extra'"
	done < <(lines kernel)
	for kind in boot presend; do
		while read -r k s extra; do
			lines kernel | cut -d' ' -f1 | grep -qx "$k" || err "$kind $k $s: no kernel '$k'"
			if [ ! -f "$SCEN_DIR/$s.conf" ]; then
				err "$kind $k $s: no qemu-test/scenarios/$s.conf"
			else
				scenario_check "$SCEN_DIR/$s.conf" 2>/dev/null || err "$(scenario_check "$SCEN_DIR/$s.conf" 2>&1)"
			fi
			[ -n "$(self tests "$s")" ] || err "$kind $k $s: scenario $s has no test"
			[ -z "$extra" ] || err "$kind $k $s: extra fields '$extra'"
		done < <(lines "$kind")
	done
	while read -r k _; do
		[ "$(self kernel "$k" 2>/dev/null | cut -d' ' -f2)" = tip ] || err "presend $k: only a tip kernel can be booted before make send"
	done < <(lines presend)
	both=$(lines boot; lines presend)
	[ -z "$(sort <<<"$both" | uniq -d)" ] || err "booted twice: $(sort <<<"$both" | uniq -d | paste -sd,)"
	while read -r s t extra; do
		[ -f "$SCEN_DIR/$s.conf" ] || err "test $s $t: no qemu-test/scenarios/$s.conf"
		[ -f "$TOP/qemu-test/guest/${t%%:*}.c" ] || err "test $s $t: no qemu-test/guest/${t%%:*}.c"
		[ -z "$extra" ] || err "test $s $t: extra fields '$extra'"
		case $t in *,*) err "test $s $t: no ',' in a test (/init splits on it)" ;; esac
	done < <(lines test)
	dups=$(lines test | awk '{ split($2, a, ":"); print $1, a[1] }' | sort | uniq -d)
	[ -z "$dups" ] || err "listed twice: $(paste -sd, <<<"$dups")"
	while read -r how t a b s; do
		case $how in kst|counters) ;; *) err "compare $how: HOW is kst or counters" ;; esac
		for k in "$a" "$b"; do
			lines boot | grep -qx "$k $s" || err "compare $how $t: $k does not boot $s"
		done
		self tests "$s" | cut -d: -f1 | grep -qx "$t" || [ "$how" = kst ] ||
			err "compare $how $t: $s does not run $t"
	done < <(lines compare)
	if [ ${#errs[@]} -gt 0 ]; then
		printf 'plan: %s\n' "${errs[@]}" >&2
		exit 1
	fi
	echo "plan: $(lines boot | wc -l) boots (and $(lines presend | wc -l) before make send) of $(lines boot | cut -d' ' -f2 | sort -u | wc -l) scenarios on $(lines kernel | wc -l) kernels, $(lines test | wc -l) tests, $(lines compare | wc -l) comparisons"
	;;
*) die "usage: plan.sh check|variants|fragments V|kernels|kernel K|boots [K]|presends|built|tests S|expect L S|compares|table" ;;
esac

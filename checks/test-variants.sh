#!/bin/bash
# make test-variants: the plan's "presend" boots (qemu-test/plan): tip
# kernels of variants make test cannot afford, each a full kernel build
# (nomemcg: the !CONFIG_MEMCG stubs).  Builds each kernel, boots its
# scenarios and checks that every result the plan expects is there.  The
# records go to build/results/results.txt as for any target and, headed
# by the tip they tested, to build/results/test-variants.txt, which make
# send reads: it refuses a tip that has not passed them all.
set -uo pipefail
. "$(dirname "$0")/config.sh"

plan() { bash "$TOP/qemu-test/plan.sh" "$@"; }
tip=$(kgit rev-parse -q --verify "refs/heads/$SERIES_BRANCH^{commit}") || die "no branch $SERIES_BRANCH (make tree)"
mkdir -p "$RESULTS"
summary=$RESULTS/test-variants.txt
log=$RESULTS/test-variants.records
: >"$log"
export RECORDS=$log
[ -n "$(plan presends)" ] || die "the plan has no presend line"

while read -r k s; do
	msg "$k: $s"
	if ! kernel_image "$k" >/dev/null; then
		bad "build/$k" "see $OUT/$(plan kernel "$k" | cut -d' ' -f1)/build.log"
		continue
	fi
	good "build/$k"
	boot_kernel "$k" "$s"
	# A result the plan expects and the run did not leave is a failure.
	while read -r r; do
		grep -q -E "^(PASS|FAIL) $r(:|\$)" "$log" || bad "$r" "missing (the run stopped early?)"
	done < <(plan expect "$k" "$s")
done < <(plan presends)

cat "$log" >>"${RESULTS}/results.txt"
{ echo "tip $tip"; cat "$log"; } >"$summary"
passed=$(grep -c '^PASS ' "$log") failed=$(grep -c '^FAIL ' "$log")
[ "$failed" -eq 0 ] || grep '^FAIL ' "$log" | sed 's/^/  /'
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]

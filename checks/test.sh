#!/bin/bash
# The whole test suite, as CI runs it (make test, .ci/run).  What boots
# where comes from qemu-test/plan; every gate and test records PASS/FAIL
# lines; a failing stage does not stop the others.  At the end every result
# the plan expects must be there (a missing one is a FAIL), and the last
# line is "N passed, N failed" (non-zero status if anything failed).
set -uo pipefail
. "$(dirname "$0")/config.sh"

rm -f "$RESULTS/results.txt"
mkdir -p "$RESULTS"
# Nothing else can run without the packages and the kernel tree: if either
# fails, say so in the same form as every other result and stop.
for pre in "packages|$TOP/checks/deps.sh" "kernel tree|$TOP/checks/tree.sh apply"; do
	msg "${pre%%|*}"
	# shellcheck disable=SC2086
	if bash ${pre#*|}; then
		good "setup/${pre%%|*}"
	else
		bad "setup/${pre%%|*}" "failed (above); nothing else can run"
		bash "$TOP/checks/summary.sh"
		exit 1
	fi
done
plan() { bash "$TOP/qemu-test/plan.sh" "$@"; }
start=$SECONDS
times=$RESULTS/stage-times.txt
: >"$times"

# The stages, in order: "name|command".  Built first so that each stage
# can say "[i/N]".
stages=()
add() { stages+=("$1|$2"); }
add "plan is consistent" "plan_check"
add "the config of every variant make test builds resolves" "variants_resolve"
add "shellcheck" "bash $TOP/checks/lint.sh"
add "tree workflow" "bash $TOP/checks/test-tree.sh"
add "export round trip" "bash $TOP/checks/test-roundtrip.sh"
add "per-commit gates and boots" "bash $TOP/checks/percommit.sh --boot"
# The kernels make test boots; make test-variants builds the others.
for k in $(plan built); do
	[ "$(plan kernel "$k" | cut -d' ' -f2)" = each ] && continue
	add "kernel $k" "build_kernel $k"
done
while read -r k s; do
	[ "$(plan kernel "$k" | cut -d' ' -f2)" = each ] && continue
	add "$k: $s" "boot $k $s"
done < <(plan boots)
while read -r how t a b s; do
	add "compare $t: $a vs $b ($s)" "compare $how $t $a $b $s"
done < <(plan compares)
add "bench harness (tiny)" "bench_tiny"
add "mails apply and pass checkpatch" "bash $TOP/checks/test-mails.sh"
add "pull request bundle" "bash $TOP/checks/test-pull.sh"
add "the gates refuse bad commits and kernels" "bash $TOP/checks/test-gates.sh"

plan_check() {
	local out bad_plan=$RESULTS/plan-bad
	if out=$(plan check 2>&1); then good plan/check "$out"; else bad plan/check "$(tr '\n' ' ' <<<"$out")"; fi
	# The check can fail: a test listed twice and a boot of a scenario
	# that does not exist.
	{ cat "$TOP/qemu-test/plan"; echo "test smoke-on smoke:disk:/dev/vda"; echo "boot tip no-such-scenario"; } >"$bad_plan"
	if ! out=$(VSWAP_PLAN=$bad_plan plan check 2>&1) && grep -q 'listed twice: smoke-on smoke' <<<"$out" && grep -q 'no qemu-test/scenarios/no-such-scenario.conf' <<<"$out"; then
		good plan/check-refuses-bad-plan
	else
		bad plan/check-refuses-bad-plan "plan.sh check on $bad_plan said: $(tr '\n' ' ' <<<"$out")"
	fi
}
variants_resolve() {
	# The others' fragments are checked by the target that builds them.
	local v out
	for v in $(for k in $(plan built); do plan kernel "$k" | cut -d' ' -f1; done | sort -u); do
		if out=$(bash "$TOP/checks/build.sh" --config-only "$v" 2>&1); then
			good "variant/$v" "every option of its fragments survives olddefconfig"
		else
			bad "variant/$v" "$(tail -n 1 <<<"$out")"
		fi
	done
}
build_kernel() {
	if kernel_image "$1" >/dev/null; then good "build/$1"; else bad "build/$1" "see $OUT/$(plan kernel "$1" | cut -d' ' -f1)/build.log"; fi
}
boot() {
	boot_kernel "$1" "$2" || return 1
	grep -E '^FAIL ' "$BUILD/runs/$1-$2/results.txt"
	return 0
}
compare() {
	local how=$1 t=$2 a=$3 b=$4 s=$5
	bash "$TOP/checks/compare-$how.sh" "$t" "$BUILD/runs/$a-$s" "$BUILD/runs/$b-$s" "$a-vs-$b"
}
bench_tiny() {
	# make bench's harness, tiny (no time is judged): a complete table, CSV, JSON and PNG.
	bash "$TOP/checks/bench.sh" --tiny --rounds 1 --no-build --record --out "$BUILD/bench-tiny"
}

n=${#stages[@]} i=0
for st in "${stages[@]}"; do
	i=$((i + 1))
	name=${st%%|*} cmd=${st#*|}
	before=$(wc -l <"$RESULTS/results.txt" 2>/dev/null || echo 0)
	t0=$SECONDS
	msg "[$i/$n, $(( (SECONDS - start) / 60 ))m] $name"
	# shellcheck disable=SC2086
	$cmd
	rc=$?
	after=$(wc -l <"$RESULTS/results.txt" 2>/dev/null || echo 0)
	if [ "$after" -le "$before" ]; then
		bad "stage/$name" "recorded no result (exit $rc)"
	elif [ $rc != 0 ] && ! tail -n +$((before + 1)) "$RESULTS/results.txt" | grep -q '^FAIL '; then
		# It stopped with an error but said nothing had failed.
		bad "stage/$name" "exit status $rc without a FAIL record"
	elif [ $rc != 0 ]; then
		msg "$name: failures (see above)"
	fi
	printf '%5ds  %s\n' "$((SECONDS - t0))" "$name" >>"$times"
done

# Every result the plan expects: each boot's tests, dmesg_check and
# console; each commit's four gates.  (The config matrix and the debug,
# nomemcg and hibernate kernels are full builds each: make check-configs
# and make test-variants run them before make send, not CI.)
expected=0 missing=()
want() {
	expected=$((expected + 1))
	grep -q -E "^(PASS|FAIL) $1(:|\$)" "$RESULTS/results.txt" || missing+=("$1")
}
j=0
for c in $(kgit rev-list --reverse "$BASE_TAG..refs/heads/$SERIES_BRANCH"); do
	j=$((j + 1))
	l=$(commit_label "$j" "$c")
	for g in checkpatch build sparse warnings; do want "$g/$l"; done
done
while read -r k s; do
	if [ "$(plan kernel "$k" | cut -d' ' -f2)" = each ]; then
		j=0
		mapfile -t labels < <(for c in $(kgit rev-list --reverse "$BASE_TAG..refs/heads/$SERIES_BRANCH"); do
			j=$((j + 1)); commit_label "$j" "$c"; done)
	else
		labels=("$k")
	fi
	for l in "${labels[@]}"; do
		while read -r r; do want "$r"; done < <(plan expect "$l" "$s")
	done
done < <(plan boots)
if [ ${#missing[@]} -eq 0 ]; then
	good plan/complete "all $expected results the plan expects are recorded"
else
	bad plan/complete "${#missing[@]} of $expected expected results are missing: ${missing[*]:0:5}"
fi

msg "[$(( (SECONDS - start) / 60 ))m] done; stage times (s) in $times:"
cat "$times"
bash "$TOP/checks/summary.sh"

#!/bin/bash
# Gate every commit of the series, one by one, in the scratch worktree of
# the kernel tree (build/percommit, never your checkout):
#   checkpatch/N   checkpatch --strict: nothing unless justified in
#                  checks/checkpatch-exceptions.txt
#   build/N        the guest kernel (plan kernel "commits") builds,
#                  incrementally from the parent
#   sparse/N       no sparse warning on the objects the commit touches that
#                  the parent does not have; sparse must have run
#   warnings/N     no compiler warning at W=1 on those objects that the
#                  parent does not have
#   boots (--boot) every scenario the plan boots on "commits", e.g. a
#                  vswap=on and a vswap=off boot that must swap
# The baseline is built first (the reference for the tests; kept as
# build/out/img-baseline), the tip is kept as build/out/img-tip.
#
#   percommit.sh [--boot] [--branch B] [--from REV] [--results DIR]
# --branch B    gate branch B instead of vswap
# --from REV    gate only the commits after REV (no baseline build, no
#               images kept): checks/test-gates.sh gates its bad commits so
# --results DIR records go to DIR/results.txt instead of build/results/
set -uo pipefail
. "$(dirname "$0")/config.sh"

boot=0 branch=$SERIES_BRANCH from=""
while [ $# -gt 0 ]; do
	case $1 in
	--boot) boot=1; shift ;;
	--branch) branch=${2:?}; shift 2 ;;
	--from) from=${2:?}; shift 2 ;;
	--results) RECORDS=${2:?}/results.txt; mkdir -p "$2"; shift 2 ;;
	*) die "usage: percommit.sh [--boot] [--branch B] [--from REV] [--results DIR]" ;;
	esac
done
logs=$(dirname "${RECORDS:-$RESULTS/results.txt}")
mkdir -p "$logs"

[ -d "$KTREE/.git" ] || die "no kernel tree (make tree)"
kgit rev-parse -q --verify "refs/heads/$branch" >/dev/null || die "no $branch branch (make tree)"
commits=$(kgit rev-list --reverse "${from:-$BASE_TAG}..refs/heads/$branch")
[ -n "$commits" ] || { bad "series" "no commits on $branch"; exit 1; }
read -r variant _ < <(bash "$TOP/qemu-test/plan.sh" kernel commits) || die "no kernel 'commits' in the plan"
mapfile -t scenarios < <(bash "$TOP/qemu-test/plan.sh" boots commits | cut -d' ' -f2)
wt=$WORKTREE out=$OUT/$variant
build() { bash "$TOP/checks/build.sh" "$variant" "$1" >/dev/null; }

# Objects to analyse for commit C (no checkout needed): the .c files it
# touches, and the mm/ .c files that include an mm/ header it touches or
# <linux/swap.h>, if it touches that; only those this configuration compiles
# and the worktree's checkout has.
targets() {
	local c=$1 h
	{
		kgit diff --name-only --diff-filter=AM "$c^" "$c" -- '*.c'
		for h in $(kgit diff --name-only --diff-filter=AM "$c^" "$c" -- 'mm/*.h'); do
			kgit grep -l "#include \"$(basename "$h")\"" "$c" -- 'mm/*.c' | cut -d: -f2-
		done
		if kgit diff --name-only "$c^" "$c" -- include/linux/swap.h | grep -q .; then
			kgit grep -l '#include <linux/swap.h>' "$c" -- 'mm/*.c' | cut -d: -f2-
		fi
	} | sort -u | while read -r f; do
		# Compiled in this configuration, and in the checkout now (an
		# object of a file the parent lacks may be left from a later build).
		[ -f "$out/${f%.c}.o" ] && [ -f "$wt/$f" ] && echo "${f%.c}.o"
	done
}

# analyse OBJ...: recompile the objects with W=1 and sparse (C=2), print
# "sparse|gcc FILE: message" lines (no line numbers, so that code moving
# around does not look new).  Non-zero if the compile or sparse failed.
# One make for all objects, in parallel: a header commit touches most of
# mm/, and this ran twice per commit one object at a time.
analyse() {
	local rc=0 all
	[ $# -gt 0 ] || return 0
	# Always recompile: an object still current from an earlier W=1
	# pass would print nothing (ccache replays the warnings).
	(cd "$out" && rm -f "$@")
	if ! all=$(make -s -k -O -j"$(($(nproc) + 1))" -C "$wt" O="$out" W=1 C=2 CF="-D__CHECK_ENDIAN__" "$@" 2>&1 >/dev/null); then
		printf '%s\n' "$all" | grep -vE ': warning:' | tail -3 >&2
		rc=1
	fi
	# gcc's lines end in [-Wflag]; kernel-doc's (W=1) have no column; the
	# rest are sparse's.  Line numbers go, so that moved code is not new.
	# A context imbalance is the function's, but sparse places it at some
	# basic block of it, which may be in an inlined header (list.h) one
	# commit and in the .c file the next: it is named by its function only.
	printf '%s\n' "$all" | grep -E ': (warning|error):' |
		awk '/\[-W[^]]*\]$/ || !/^[^:]+:[0-9]+:[0-9]+:/ { print "gcc " $0; next } { print "sparse " $0 }' |
		sed -E 's/^([a-z]+ [^:]+):[0-9]+(:[0-9]+)?:/\1:/' |
		sed -E "s/^sparse [^:]+: (warning: context imbalance in ')/sparse (function): \1/" | sort -u
	return $rc
}

# gate KIND NAME BEFORE AFTER: PASS unless AFTER has lines of KIND that BEFORE lacks.
gate() {
	local kind=$1 name=$2 new
	new=$(comm -13 <(grep "^$kind " <<<"$3" | sort -u) <(grep "^$kind " <<<"$4" | sort -u) | cut -d' ' -f2-)
	if [ -z "$new" ]; then
		good "$([ "$kind" = gcc ] && echo warnings || echo sparse)/$name"
	else
		printf '%s\n' "$new" >"$logs/$kind-$name.log"
		bad "$([ "$kind" = gcc ] && echo warnings || echo sparse)/$name" "$(head -3 <<<"$new" | tr '\n' ' ')(log: $logs/$kind-$name.log)"
	fi
}

command -v sparse >/dev/null || die "sparse is not installed (make deps)"

# The images are only what this run built: none is left from an earlier one.
[ -n "$from" ] || rm -rf "$OUT/img-baseline" "$OUT/img-tip"
if [ -n "$from" ]; then
	msg "building the parent $(kgit rev-parse --short "$from")"
	build "$from" || die "the parent $from does not build"
else
	msg "building the baseline $BASE_TAG"
	if build "$BASE_TAG"; then
		good "build/baseline"
		save_image baseline "$variant" "$(kgit rev-parse "$BASE_TAG^{commit}")" "$out"
	else
		bad "build/baseline" "see $out/build.log"
		exit 1
	fi
fi

n=${from:+$(kgit rev-list --count "$BASE_TAG..$from")}
n=${n:-0} i=0 last_ok=0 total=$(wc -w <<<"$commits")
prev_done="" prev_tg="" prev_after=""
for c in $commits; do
	n=$((n + 1)) i=$((i + 1))
	subj=$(kgit log -1 --format=%s "$c")
	name=$(commit_label "$n" "$c")
	msg "commit $n ($i of $total on $branch): $subj ($(kgit rev-parse --short "$c"))"

	cplog=$logs/checkpatch-$name.log
	if kgit format-patch -1 --stdout "$c" | checkpatch_run "$n" "$wt" - >"$cplog"; then
		good "checkpatch/$name"
	elif ! grep -q '^total: ' "$cplog"; then
		bad "checkpatch/$name" "checkpatch.pl did not run to the end (log: $cplog)"
	else
		bad "checkpatch/$name" "$(grep -E '^(ERROR|WARNING|CHECK)' "$cplog" | head -3 | tr '\n' ' ')(log: $cplog)"
	fi

	# The worktree holds the parent, built: its warnings first.  If the
	# parent was the commit gated just before, its "after" analysis is of
	# this very tree: only the objects it did not cover are analysed now.
	# (Its lines from other objects can only hide a line that the parent
	# already printed: file and message, without line numbers, are equal.)
	tg=$(targets "$c")
	parent_ok=1
	if [ "$prev_done" = "$(kgit rev-parse "$c^")" ]; then
		more=$(comm -23 <(sort -u <<<"$tg") <(sort -u <<<"$prev_tg"))
		msg "sparse and W=1 reference: the analysis of $(kgit rev-parse --short "$prev_done"), and $(wc -w <<<"$more") more objects"
		# shellcheck disable=SC2086
		before=$(printf '%s\n' "$prev_after"; analyse $more) || parent_ok=0
	else
		# shellcheck disable=SC2086
		before=$(analyse $tg) || parent_ok=0
	fi
	prev_done=""
	if ! build "$c"; then
		bad "build/$name" "see $out/build.log"
		last_ok=0
		continue
	fi
	last_ok=1
	good "build/$name"
	tg=$(targets "$c")
	# shellcheck disable=SC2086
	if [ -z "$tg" ]; then
		good "sparse/$name" "no compiled C file touched"
		good "warnings/$name" "no compiled C file touched"
	elif [ "$parent_ok" = 0 ]; then
		bad "sparse/$name" "sparse or the W=1 compile failed on the parent: no reference"
		bad "warnings/$name" "sparse or the W=1 compile failed on the parent: no reference"
	elif ! after=$(analyse $tg); then
		bad "sparse/$name" "sparse or the W=1 compile did not run to the end"
		bad "warnings/$name" "sparse or the W=1 compile did not run to the end"
	else
		gate sparse "$name" "$before" "$after"
		gate gcc "$name" "$before" "$after"
		prev_done=$c prev_tg=$tg prev_after=$after
	fi

	if [ "$boot" = 1 ]; then
		for sc in "${scenarios[@]}"; do
			run=$BUILD/runs/$name-$sc
			bash "$TOP/qemu-test/run.sh" --out "$run" --label "$name" "$out/arch/x86/boot/bzImage" "$sc" \
				>"$logs/boot-$name-$sc.out" 2>&1
			merge_records "$run" && grep -E '^(PASS|FAIL) ' "$run/results.txt"
			if grep -q '^FAIL ' "$run/results.txt" 2>/dev/null; then
				fail=1
			elif [ ! -s "$run/results.txt" ]; then
				bad "$name/$sc" "the boot left no result (see $logs/boot-$name-$sc.out)"
			fi
		done
	fi
done
if [ -z "$from" ] && [ "$last_ok" = 1 ]; then
	save_image tip "$variant" "$(kgit rev-parse "refs/heads/$branch")" "$out"
fi
exit "$fail"

#!/bin/bash
# Gate every commit of the series, one by one, in a scratch worktree of the
# kernel tree (build/percommit, never the user's checkout):
#   checkpatch --strict   no error/warning/check unless justified in
#                         checks/checkpatch-exceptions.txt
#   build                 the guest kernel builds (incremental from the parent)
#   sparse                no sparse warning on the files the commit touches
#                         that the parent does not already have
#   boot (BOOT=1)         boots with vswap=on and vswap=off, quick guest test
# The baseline itself is built first (it is the sparse reference and the
# unpatched kernel for the tests).  A failure names the commit.
set -uo pipefail
. "$(dirname "$0")/config.sh"

BOOT=${BOOT:-0}
wt=$BUILD/percommit
out=percommit
fail=0

[ -d "$KTREE/.git" ] || die "no kernel tree (make tree)"
kgit rev-parse -q --verify "refs/heads/$SERIES_BRANCH" >/dev/null || die "no $SERIES_BRANCH branch (make tree)"
# VSWAP_GATE_FROM=REV gates only the commits after REV (and skips the
# baseline build): checks/test-gates.sh uses it for its one bad commit.
from=${VSWAP_GATE_FROM:-}
commits=$(kgit rev-list --reverse "${from:-$BASE_TAG}..$SERIES_BRANCH")
[ -n "$commits" ] || { record FAIL "series" "no commits on $SERIES_BRANCH"; exit 1; }

if [ ! -d "$wt/.git" ] && [ ! -f "$wt/.git" ]; then
	kgit worktree prune
	msg "creating scratch worktree $wt"
	kgit worktree add -q --detach "$wt" "$BASE_TAG" || die "cannot create worktree $wt"
fi
wgit() { KTREE=$wt kgit "$@"; }

# Keep a built kernel as build/out/img-NAME/ (bzImage and .config, laid out
# as in a build directory, which qemu-test/run.sh expects).
save_image() {
	local d=$OUT/${VSWAP_IMG_PREFIX:-img-}$1
	mkdir -p "$d/arch/x86/boot"
	cp "$OUT/$out/arch/x86/boot/bzImage" "$d/arch/x86/boot/bzImage"
	cp "$OUT/$out/.config" "$d/.config"
}

checkout() {
	wgit checkout -q --detach -f "$1"
	# Debian's .gitignore hides untracked files; remove any left over.
	wgit status --porcelain --ignored=matching | sed -n 's/^!! //p' | (cd "$wt" && xargs -r rm -rf)
}

build() {
	bash "$TOP/checks/build.sh" "$out" base "$wt" >/dev/null
}

# Objects to run sparse on for a commit: the .c files it touches, and the
# mm/ .c files that include an mm/ header it touches.
sparse_targets() {
	local c=$1 f h
	{
		wgit diff --name-only --diff-filter=AM "$c^" "$c" -- '*.c'
		for h in $(wgit diff --name-only --diff-filter=AM "$c^" "$c" -- 'mm/*.h'); do
			(cd "$wt" && grep -l "#include \"$(basename "$h")\"" mm/*.c)
		done
		if wgit diff --name-only "$c^" "$c" -- include/linux/swap.h | grep -q .; then
			(cd "$wt" && grep -l '#include <linux/swap.h>' mm/*.c)
		fi
	} | sort -u | while read -r f; do
		# Only what this configuration compiles.
		[ -f "$OUT/$out/${f%.c}.o" ] && echo "${f%.c}.o"
	done
}

# Sparse warnings for the given objects, without line numbers so that code
# moving around does not look new.
sparse_run() {
	local o
	for o in "$@"; do
		make -s -C "$wt" O="$OUT/$out" C=2 CF="-D__CHECK_ENDIAN__" "$o" 2>&1 >/dev/null |
			grep -E ': (warning|error):' | sed -E 's/:[0-9]+:[0-9]+:/:/' || true
	done | sort
}

if [ -n "$from" ]; then
	:
elif msg "building the baseline $BASE_TAG" && checkout "$BASE_TAG" && build; then
	record PASS "build/baseline"
	save_image baseline
else
	record FAIL "build/baseline" "see $OUT/$out/build.log"
	exit 1
fi

n=${from:+$(kgit rev-list --count "$BASE_TAG..$from")}
n=${n:-0} tip_ok=0
for c in $commits; do
	n=$((n + 1))
	subj=$(wgit log -1 --format=%s "$c")
	name=$(printf '%02d-%s' "$n" "$(wgit log -1 --format=%f "$c" | cut -c1-40)")
	msg "commit $n: $subj ($(wgit rev-parse --short "$c"))"

	# checkpatch
	cp_args=()
	while read -r type _; do
		case "$type" in ''|'#'*) continue ;; esac
		cp_args+=(--ignore "$type")
	done < <(grep -E "^$n[[:space:]]|^\*[[:space:]]" "$TOP/checks/checkpatch-exceptions.txt" 2>/dev/null | cut -f2- | sed 's/^[[:space:]]*//')
	cplog=$RESULTS/checkpatch-$name.log
	mkdir -p "$RESULTS"
	if (cd "$wt" && wgit format-patch -1 --stdout "$c" |
	    perl scripts/checkpatch.pl --strict --color=never "${cp_args[@]}" -) >"$cplog" 2>&1 &&
	   grep -q 'total: 0 errors, 0 warnings, 0 checks' "$cplog"; then
		record PASS "checkpatch/$name"
	else
		record FAIL "checkpatch/$name" "$(grep -E '^(ERROR|WARNING|CHECK)' "$cplog" | head -3 | tr '\n' ' ')(log: $cplog)"
		fail=1
	fi

	# sparse reference on the parent, for the objects this commit touches
	checkout "$c"
	targets=$(sparse_targets "$c" || true)
	checkout "$c^"
	build >/dev/null 2>&1 || true
	# shellcheck disable=SC2086
	before=$(sparse_run $targets)

	checkout "$c"
	if ! build; then
		record FAIL "build/$name" "see $OUT/$out/build.log"
		fail=1
		tip_ok=0
		continue
	fi
	tip_ok=1
	record PASS "build/$name"
	# Objects the commit adds exist only now.
	targets=$(sparse_targets "$c" || true)
	# shellcheck disable=SC2086
	after=$(sparse_run $targets)
	new=$(comm -13 <(printf '%s\n' "$before" | sed '/^$/d') <(printf '%s\n' "$after" | sed '/^$/d'))
	if [ -z "$targets" ]; then
		record PASS "sparse/$name" "no compiled C file touched"
	elif [ -z "$new" ]; then
		record PASS "sparse/$name"
	else
		printf '%s\n' "$new" >"$RESULTS/sparse-$name.log"
		record FAIL "sparse/$name" "$(printf '%s' "$new" | head -3 | tr '\n' ' ')"
		fail=1
	fi

	save_image "$name"
	if [ "$BOOT" = 1 ]; then
		for sc in smoke-on smoke-off; do
			bash "$TOP/qemu-test/run.sh" "$OUT/${VSWAP_IMG_PREFIX:-img-}$name/arch/x86/boot/bzImage" \
				"$sc" "$name" >"$RESULTS/boot-$name-$sc.out" 2>&1 || fail=1
			grep -E '^(PASS|FAIL) ' "$RESULTS/boot-$name-$sc.out"
		done
	fi
done
# The tip kernel for the guest suites, only if the last commit built.
rm -rf "$OUT/${VSWAP_IMG_PREFIX:-img-}tip"
[ "$tip_ok" = 1 ] && save_image tip
exit $fail

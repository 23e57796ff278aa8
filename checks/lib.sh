# Shell functions shared by checks/ and qemu-test/.  Sourced (through
# checks/config.sh, which sets TOP, BUILD, RESULTS, KTREE, kgit), never run.
# One implementation of each: messages, PASS/FAIL records, scratch
# worktrees, the checkpatch exceptions, export checksums, scenario files,
# progress of long steps.
# shellcheck shell=bash
# Variables set here are used by the scripts that source it.
# shellcheck disable=SC2034

msg() { printf '==> %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# ---- results ----------------------------------------------------------------
# One line per gate or test: "PASS name[: detail]" or "FAIL name: why", in
# $RECORDS (default $RESULTS/results.txt; qemu-test/run.sh points it at its
# --out directory).  checks/summary.sh counts them.
record() {
	local verdict=$1 name=$2 file=${RECORDS:-$RESULTS/results.txt}
	shift 2
	mkdir -p "$(dirname "$file")"
	printf '%s %s%s\n' "$verdict" "$name" "${*:+: $*}" >>"$file"
	printf '%s %s%s\n' "$verdict" "$name" "${*:+: $*}"
}
# good NAME [detail] / bad NAME why: record, and remember a failure in $fail.
fail=${fail:-0}
good() { record PASS "$@"; }
bad() { record FAIL "$@"; fail=1; }

# Append the records of a run directory (qemu-test/run.sh --out) to ours.
merge_records() {
	local dir=$1
	[ -f "$dir/results.txt" ] || return 1
	mkdir -p "$RESULTS"
	cat "$dir/results.txt" >>"${RECORDS:-$RESULTS/results.txt}"
}

# boot_kernel KERNEL SCENARIO: boot the plan kernel's image (build/out/img-KERNEL)
# in SCENARIO into build/runs/KERNEL-SCENARIO, print run.sh's last line and
# append its records to ours.  Non-zero if there is no image.
boot_kernel() {
	local k=$1 s=$2 img=$OUT/img-$1/arch/x86/boot/bzImage
	rm -rf "$BUILD/runs/$k-$s"	# no comparison of an earlier run's logs
	[ -f "$img" ] || { bad "$k/$s" "no $k kernel was built"; return 1; }
	bash "$TOP/qemu-test/run.sh" --out "$BUILD/runs/$k-$s" --label "$k" "$img" "$s" >"$RESULTS/run-$k-$s.out" 2>&1
	tail -n 1 "$RESULTS/run-$k-$s.out"
	merge_records "$BUILD/runs/$k-$s"
}

# ---- the kernel tree --------------------------------------------------------
# sha256 over branch-export/*.patch: is the vswap branch what the repo holds?
export_sum() {
	(cd "$EXPORT_DIR" && cat ./*.patch 2>/dev/null) | sha256sum | cut -d' ' -f1
}

# scratch_worktree DIR REV: a worktree of the kernel tree at DIR (made once,
# kept: a kernel checkout takes minutes), checked out detached at REV with
# nothing else in it (Debian's .gitignore hides untracked files, so ignored
# ones are removed too).  Never the user's checkout.
scratch_worktree() {
	local dir=$1 rev=$2
	if [ ! -e "$dir/.git" ]; then
		kgit worktree prune
		kgit worktree add -q --detach "$dir" "$rev" >&2 || return 1
	fi
	KTREE=$dir kgit am --abort >/dev/null 2>&1
	KTREE=$dir kgit checkout -q --detach -f "$rev" || return 1
	KTREE=$dir kgit status --porcelain --ignored=matching | sed -n 's/^!! //p; s/^?? //p' |
		(cd "$dir" && xargs -r rm -rf)
}

# ---- checkpatch exceptions --------------------------------------------------
# checks/checkpatch-exceptions.txt: "N<TAB>TYPE<TAB>justification" lines.
CHECKPATCH_EXCEPTIONS=$TOP/checks/checkpatch-exceptions.txt
# Lines not in that form (empty output: the file is well formed).
checkpatch_exceptions_bad() {
	grep -v -E '^[[:space:]]*(#|$)' "$CHECKPATCH_EXCEPTIONS" |
		grep -v -E $'^([0-9]+|\\*)\t[A-Z0-9_]+\t.*[[:alnum:]]'
}
# checkpatch_ignores N: the --ignore arguments for patch N, one per line.
checkpatch_ignores() {
	local n=$1 num type
	while IFS=$'\t' read -r num type _; do
		[ "$num" = "$n" ] || [ "$num" = '*' ] || continue
		printf -- '--ignore\n%s\n' "$type"
	done < <(grep -v -E '^[[:space:]]*(#|$)' "$CHECKPATCH_EXCEPTIONS" 2>/dev/null)
}
# checkpatch_run N DIR PATCH_FILE_OR_-: checkpatch --strict from the tree
# DIR with patch N's exceptions; 0 only if checkpatch ran to the end and
# found nothing.  Its output goes to stdout.
checkpatch_run() {
	local n=$1 dir=$2 patch=$3 out
	local -a ign
	mapfile -t ign < <(checkpatch_ignores "$n")
	out=$(cd "$dir" && perl scripts/checkpatch.pl --strict --show-types --color=never "${ign[@]}" "$patch" 2>&1)
	printf '%s\n' "$out"
	grep -q '^total: 0 errors, 0 warnings, 0 checks' <<<"$out"
}

# ---- scenario files ---------------------------------------------------------
# qemu-test/scenarios/NAME.conf: KEY=VALUE lines (value optionally in double
# quotes), comments.  Parsed, never sourced.  scenario_get FILE KEY DEFAULT
scenario_get() {
	local file=$1 key=$2 def=${3:-} v
	v=$(sed -n -E -e "s/^$key=\"([^\"]*)\"[[:space:]]*(#.*)?\$/\\1/p" \
		-e "s/^$key=([^\"# ]*)[[:space:]]*(#.*)?\$/\\1/p" "$file" | tail -n 1)
	if grep -q -E "^$key=" "$file"; then printf '%s\n' "$v"; else printf '%s\n' "$def"; fi
}
# Keys a scenario may set; anything else is a mistake the reader names.
SCENARIO_KEYS="cmdline mem smp disks timeout test_timeout clock"
scenario_check() {
	local file=$1 key bad=""
	while IFS= read -r line; do
		case "$line" in ''|'#'*) continue ;; esac
		key=${line%%=*}
		if [ "$key" = "$line" ] || ! grep -qw -- "$key" <<<"$SCENARIO_KEYS"; then
			bad="$bad '$line'"
		fi
	done <"$file"
	[ -z "$bad" ] || { printf '%s: not KEY=VALUE with a key of (%s):%s\n' "$file" "$SCENARIO_KEYS" "$bad" >&2; return 1; }
}

# ---- progress ---------------------------------------------------------------
# with_progress WHAT LOG CMD...: run CMD (its output to LOG), saying every
# minute that WHAT is still running, for how long, and where the log is.
with_progress() {
	local what=$1 log=$2 pid rc t0=$SECONDS
	shift 2
	"$@" >"$log" 2>&1 &
	pid=$!
	while ! wait_for "$pid" 60; do
		msg "$what: $(( (SECONDS - t0) / 60 ))m$(( (SECONDS - t0) % 60 ))s so far (log: $log)" >&2
	done
	wait "$pid"
	rc=$?
	msg "$what: done in $(( (SECONDS - t0) / 60 ))m$(( (SECONDS - t0) % 60 ))s (exit $rc)" >&2
	return $rc
}
# wait_for PID SECONDS: 0 once PID has exited, 1 if still running after SECONDS.
wait_for() {
	local pid=$1 i
	for ((i = 0; i < $2; i++)); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 1
	done
	! kill -0 "$pid" 2>/dev/null
}

# ---- kernels ----------------------------------------------------------------
# The scratch worktree every build at a revision uses (checks/build.sh,
# the per-commit gates): one checkout, incremental builds per variant.
WORKTREE=$BUILD/percommit
# build_stamp COMMIT VARIANT: what an image in build/out/img-NAME was built
# from (checks/build.sh --image writes it; a kernel is rebuilt when it differs).
build_stamp() {
	local f
	printf '%s %s ' "$1" "$2"
	for f in $(bash "$TOP/qemu-test/plan.sh" fragments "$2") "$TOP/checks/build.sh"; do
		cat "$f"
	done | sha256sum | cut -d' ' -f1
}
# kernel_image NAME: the bzImage of plan kernel NAME (baseline, tip, tip-debug,
# ...), built by checks/build.sh unless build/out/img-NAME is up to date.
kernel_image() {
	local name=$1 variant rev commit img=$OUT/img-$1/arch/x86/boot/bzImage
	read -r variant rev < <(bash "$TOP/qemu-test/plan.sh" kernel "$name") || return 1
	case $rev in
	tip) commit=$(kgit rev-parse -q --verify "refs/heads/$SERIES_BRANCH^{commit}") ;;
	baseline) commit=$(kgit rev-parse -q --verify "$BASE_TAG^{commit}") ;;
	*) die "kernel $name is built per commit (checks/percommit.sh), not as one image" ;;
	esac
	[ -n "$commit" ] || return 1
	if [ -f "$img" ] && [ "$(cat "$OUT/img-$name/stamp" 2>/dev/null)" = "$(build_stamp "$commit" "$variant")" ]; then
		msg "kernel $name: $img is up to date" >&2
		echo "$img"
		return 0
	fi
	bash "$TOP/checks/build.sh" --image "$name" "$variant" "$commit"
}
# save_image NAME VARIANT COMMIT OUTDIR: keep the kernel built in OUTDIR as
# build/out/img-NAME/ (bzImage, .config, stamp).
save_image() {
	local d=$OUT/img-$1
	rm -rf "$d"
	mkdir -p "$d/arch/x86/boot"
	cp "$4/arch/x86/boot/bzImage" "$d/arch/x86/boot/bzImage" &&
		cp "$4/.config" "$d/.config" &&
		build_stamp "$3" "$2" >"$d/stamp"
}
# commit_label N COMMIT: how results name commit N of the series
# ("03-mm-swap-make-the-swap-IO-path-take-the").
commit_label() {
	printf '%02d-%s\n' "$1" "$(kgit log -1 --format=%f "$2" | cut -c1-40)"
}

# kconfig_make SRC DIR ARCH FRAGMENT...: DIR/.config = tinyconfig for ARCH
# (x86_64, i386, arm64) with the fragments merged in order, then
# olddefconfig (with CC=$KCONFIG_CC if set).  Prints the requested options that did not survive (a
# missing dependency drops them silently); options only the series knows
# (CONFIG_VSWAP*) are exempt when SRC does not know them.  Non-zero if
# kconfig itself failed.
kconfig_make() {
	local src=$1 dir=$2 arch=$3 line opt val
	shift 3
	local -a mk=(make -s -C "$src" O="$dir" ARCH="$arch")
	[ "$arch" = arm64 ] && mk+=(CROSS_COMPILE=aarch64-linux-gnu-)
	[ -n "${KCONFIG_CC:-}" ] && mk+=(CC="$KCONFIG_CC")
	rm -rf "$dir"; mkdir -p "$dir"
	"${mk[@]}" tinyconfig >/dev/null || return 1
	(cd "$src" && ARCH=$arch KCONFIG_CONFIG="$dir/.config" scripts/kconfig/merge_config.sh -m -O "$dir" "$dir/.config" "$@" >"$dir/merge.log" 2>&1) || return 1
	"${mk[@]}" olddefconfig >/dev/null || return 1
	while IFS= read -r line; do
		case "$line" in CONFIG_*=*) ;; *) continue ;; esac
		opt=${line%%=*} val=${line#*=}
		if [ "$val" = n ]; then
			grep -q "^$opt=" "$dir/.config" && echo "$line"
			continue
		fi
		grep -qx "$line" "$dir/.config" && continue
		[[ $opt == CONFIG_VSWAP* ]] && ! grep -rqs "^config ${opt#CONFIG_}\$" "$src/mm/" && continue
		echo "$line"
	done < <(cat "$@" | awk -F= '/^CONFIG_[A-Za-z0-9_]+=/ { if (!($1 in v)) k[n++] = $1; v[$1] = $0 }
		END { for (i = 0; i < n; i++) print v[k[i]] }')	# a later fragment overrides an earlier one
	return 0
}

# variants_passed: has the vswap tip passed make test-variants (the plan's
# presend boots, build/results/test-variants.txt)?  Says why not.
variants_passed() {
	local f=$RESULTS/test-variants.txt tip k s r missing=""
	tip=$(kgit rev-parse "refs/heads/$SERIES_BRANCH^{commit}")
	if ! grep -qx "tip $tip" "$f" 2>/dev/null; then
		echo "make test-variants has not run on the tip ${tip:0:12}"
		return 1
	fi
	if grep -q '^FAIL ' "$f"; then
		echo "the tip ${tip:0:12} failed make test-variants: $(grep -m1 '^FAIL ' "$f")"
		return 1
	fi
	while read -r k s; do
		while read -r r; do
			grep -q "^PASS $r\(:\|\$\)" "$f" || missing="$missing $r"
		done < <(bash "$TOP/qemu-test/plan.sh" expect "$k" "$s")
	done < <(bash "$TOP/qemu-test/plan.sh" presends)
	[ -z "$missing" ] || { echo "make test-variants left no PASS for:$missing"; return 1; }
}

# configs_passed: has the vswap tip passed every line of checks/configs
# (make check-configs, build/results/check-configs.txt)?  Says why not.
configs_passed() {
	local f=$RESULTS/check-configs.txt tip name missing=""
	tip=$(kgit rev-parse "refs/heads/$SERIES_BRANCH^{commit}")
	if ! grep -qx "tip $tip" "$f" 2>/dev/null; then
		echo "make check-configs has not run on the tip ${tip:0:12}"
		return 1
	fi
	if grep -q '^FAIL ' "$f"; then
		echo "the tip ${tip:0:12} failed make check-configs: $(grep -m1 '^FAIL ' "$f")"
		return 1
	fi
	while read -r name _; do
		case "$name" in ''|'#'*) continue ;; esac
		grep -qx "PASS $name" "$f" || missing="$missing $name"
	done <"$TOP/checks/configs"
	[ -z "$missing" ] || { echo "the tip ${tip:0:12} did not pass make check-configs for:$missing"; return 1; }
}

#!/bin/bash
# make check-configs: build the series tip under every configuration of
# checks/configs at W=1, as the kernel test robot will.
#   check-configs.sh [--branch B] [NAME...]   (default: the vswap branch,
#                                             every line of checks/configs)
#
# Per configuration, in build/configs/NAME (source: the scratch worktree at
# the tip): the .config (the line's options must survive olddefconfig),
# then only what the series can break: mm/ and, elsewhere, the objects
# that include a header the series changes and that this configuration
# compiles (what "make -n" would compile).  Records configs/NAME: FAIL on
# any error, and on any warning in a file the series touches that the
# baseline, built the same way, does not have (the baseline is only built
# when the tip has such warnings).  A summary goes to
# build/results/check-configs.txt; make send refuses a tip without a PASS
# for every line there.
set -uo pipefail
. "$(dirname "$0")/config.sh"

conf=$TOP/checks/configs
[ -d "$KTREE/.git" ] || die "no kernel tree (make tree)"
branch=$SERIES_BRANCH
if [ "${1:-}" = --branch ]; then branch=${2:?--branch B}; shift 2; fi
tip=$(kgit rev-parse "refs/heads/$branch^{commit}") || die "no branch $branch"
base=$(kgit rev-parse "$BASE_TAG^{commit}")
want=("$@")
# The summary make send reads: only a run of every line on the series writes it.
summary=$RESULTS/check-configs.txt
[ ${#want[@]} -eq 0 ] && [ "$branch" = "$SERIES_BRANCH" ] || summary=/dev/null
mkdir -p "$RESULTS"
echo "tip $tip" >"$summary"
jobs=$(( $(nproc) + 1 ))
export CCACHE_BASEDIR="$WORKTREE" CCACHE_DIR=${CCACHE_DIR:-$BUILD/ccache} CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}

# Files the series touches, and the headers among them.
touched=$(kgit diff --name-only "$base" "$tip")
headers=$(grep -E '^include/.*\.h$' <<<"$touched" | sed 's|^include/||')

# The objects to build in OUT: mm/ and the includers of changed headers
# that this configuration compiles.  Uses build_at's make command (mk).
targets() {
	local out=$1 srcarch=$2 h dirs objs
	objs=$(for h in $headers; do kgit grep -l "#include <$h>" "$tip" -- '*.c' | cut -d: -f2-; done |
		grep -v '^mm/' | grep -v '^tools/' | grep -E -v "^arch/" ; for h in $headers; do
		kgit grep -l "#include <$h>" "$tip" -- "arch/$srcarch/*.c" | cut -d: -f2-; done)
	objs=$(sort -u <<<"$objs")
	dirs=$(for o in $objs; do case $o in arch/*) echo "arch/$srcarch/" ;; *) echo "${o%%/*}/" ;; esac; done | sort -u)
	echo mm/
	# make -n lists only what is out of date: forget the candidates first.
	for o in $objs; do rm -f "$out/${o%.c}.o"; done
	local -a dirv
	mapfile -t dirv <<<"$dirs"
	"${mk[@]}" -n "${dirv[@]}" 2>/dev/null |
		grep -oE ' -o [^ ]+\.o ' | awk '{ print $2 }' | sort -u >"$out/configured-objs.txt"
	for o in $objs; do
		grep -qx "${o%.c}.o" "$out/configured-objs.txt" && echo "${o%.c}.o"
	done
}

# build_at REV NAME ARCH OPTIONS...: build the targets at REV, print the
# warnings and errors in files the series touches ("FILE: message", no line
# numbers), non-zero if the build failed.
build_at() {
	local rev=$1 name=$2 arch=$3 out=$BUILD/configs/$2 frag lost cfg t
	shift 3
	scratch_worktree "$WORKTREE" "$rev" || { echo "cannot check out $rev"; return 1; }
	frag=$out.options.config
	mkdir -p "$BUILD/configs"
	for o in "$@"; do echo "CONFIG_$o"; done >"$frag"
	local kcc=gcc
	[ "$arch" = arm64 ] && kcc=aarch64-linux-gnu-gcc
	command -v ccache >/dev/null && kcc="ccache $kcc"
	cfg=$BUILD/configs/.cfg-$name
	lost=$(KCONFIG_CC="$kcc" kconfig_make "$WORKTREE" "$cfg" "$arch" "$TOP/qemu-test/config/base.config" "$frag" 2>&1) ||
		{ echo "kconfig failed: $lost"; return 1; }
	# Only this line's own options must survive (base.config's VSWAP,
	# ZSWAP, ... legitimately go with SWAP=n).
	lost=$(grep -xF -f "$frag" <<<"$lost")
	[ -z "$lost" ] || { echo "options not satisfied (a dependency is missing): $(tr '\n' ' ' <<<"$lost")"; return 1; }
	mkdir -p "$out"
	cmp -s "$cfg/.config" "$out/.config" || cp "$cfg/.config" "$out/.config"
	rm -rf "$cfg"
	local -a mk=(make -C "$WORKTREE" O="$out" ARCH="$arch" CC="$kcc" W=1 -j"$jobs")
	[ "$arch" = arm64 ] && mk+=(CROSS_COMPILE=aarch64-linux-gnu-)
	if ! "${mk[@]}" prepare >"$out/prepare.log" 2>&1; then
		echo "make prepare failed: $(grep -m3 -E 'error' "$out/prepare.log" | tr '\n' ' ')"
		return 1
	fi
	local srcarch=$arch
	case $arch in x86_64|i386) srcarch=x86 ;; esac
	mapfile -t t < <(targets "$out" "$srcarch")
	# Recompile the targets (W=1 output is what we want, not make's cache).
	find "$out/mm" -name '*.o' -delete 2>/dev/null
	for o in "${t[@]}"; do [ "$o" = mm/ ] || rm -f "$out/$o"; done
	"${mk[@]}" -k "${t[@]}" >"$out/build-$rev.log" 2>&1
	local rc=$?
	# The build directory is outside the source tree: kbuild names the
	# sources by an absolute or a relative path to it.
	local rel
	rel=$(realpath --relative-to="$out" "$WORKTREE")
	grep -E '^[^ :]+:[0-9]+(:[0-9]+)?: (warning|error):' "$out/build-$rev.log" |
		sed -E "s|^$WORKTREE/||; s|^$rel/||; s/:[0-9]+(:[0-9]+)?:/:/" | while IFS= read -r l; do
			grep -qxF "${l%%:*}" <<<"$touched" && echo "$l"
		done | sort -u
	if [ $rc != 0 ]; then
		echo "BUILD-FAILED: $(grep -m3 -E 'error|Error' "$out/build-$rev.log" | tr '\n' ' ')"
		return 1
	fi
	echo "${#t[@]} targets" >"$out/targets-$rev.txt"
}

while read -r name arch opts; do
	case "$name" in ''|'#'*) continue ;; esac
	if [ ${#want[@]} -gt 0 ] && [[ " ${want[*]} " != *" $name "* ]]; then continue; fi
	opts=${opts%%#*}
	t0=$SECONDS
	msg "config $name ($arch: $opts): building the tip's mm/ and the includers of changed headers at W=1 (log: $BUILD/configs/$name/build-$tip.log)"
	# shellcheck disable=SC2086
	tipw=$(build_at "$tip" "$name" "$arch" $opts)
	trc=$?
	if [ $trc != 0 ]; then
		bad "configs/$name" "$(tail -n 3 <<<"$tipw" | tr '\n' ' ')"
		echo "FAIL $name" >>"$summary"
		continue
	fi
	new=$tipw
	if [ -n "$tipw" ]; then
		msg "config $name: $(wc -l <<<"$tipw") warnings in files the series touches; building the baseline the same way"
		# shellcheck disable=SC2086
		basew=$(build_at "$base" "$name" "$arch" $opts) || basew=""
		new=$(comm -13 <(sort -u <<<"$basew") <(sort -u <<<"$tipw"))
	fi
	secs=$((SECONDS - t0))
	if [ -z "$new" ]; then
		good "configs/$name" "$arch $opts: no error, no new W=1 warning ($(cat "$BUILD/configs/$name/targets-$tip.txt" 2>/dev/null), ${secs}s)"
		echo "PASS $name" >>"$summary"
	else
		printf '%s\n' "$new" >"$BUILD/configs/$name/new-warnings.txt"
		bad "configs/$name" "$arch $opts: $(wc -l <<<"$new") new W=1 warnings: $(head -n 2 <<<"$new" | tr '\n' ' ')(all: $BUILD/configs/$name/new-warnings.txt)"
		echo "FAIL $name" >>"$summary"
	fi
done <"$conf"
# The matrix counts only if it can refuse: after a full run on the series,
# a bad commit on top of it must fail config novswap (checks/test-gates.sh).
if [ "$summary" != /dev/null ]; then
	msg "check-configs must refuse a commit with a new W=1 warning (test-gates.sh --configs)"
	if ! bash "$TOP/checks/test-gates.sh" --configs; then
		echo "FAIL the config gate accepted a bad commit (checks/test-gates.sh --configs)" >>"$summary"
		fail=1
	fi
fi
scratch_worktree "$WORKTREE" "$(kgit rev-parse "refs/heads/$SERIES_BRANCH")" >/dev/null 2>&1
exit "$fail"

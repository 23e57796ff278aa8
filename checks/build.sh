#!/bin/bash
# Build a guest kernel of a variant (qemu-test/plan: a list of config
# fragments) at a revision.
#   build.sh [--image NAME] [--config-only] VARIANT [REV]
#
# REV (a commit, tag or branch of the kernel tree; "tip" is the vswap branch,
# "baseline" the unpatched tag) is checked out in the scratch worktree
# build/percommit and built into build/out/VARIANT; without REV the kernel
# tree's own checkout (build/linux, as you left it) is built into
# build/out/tree-VARIANT.  Incremental: the .config is only replaced when it
# changes, so a rebuild compiles only what the checkout changed.
# --image NAME  also keep the result as build/out/img-NAME/ (bzImage, .config
#               and a stamp: source commit and fragment checksum)
# --config-only make and check the .config, build nothing
# Prints the bzImage path (the .config path with --config-only).  Says what
# it builds, where the log is, and once a minute how long it has run.
set -uo pipefail
. "$(dirname "$0")/config.sh"

image="" config_only=0
while [ $# -gt 0 ]; do
	case $1 in
	--image) image=${2:?--image NAME}; shift 2 ;;
	--config-only) config_only=1; shift ;;
	-*) die "unknown option $1 (usage: build.sh [--image NAME] [--config-only] VARIANT [REV])" ;;
	*) break ;;
	esac
done
variant=${1:?usage: build.sh [--image NAME] [--config-only] VARIANT [REV]}
rev=${2:-}
mapfile -t frags < <(bash "$TOP/qemu-test/plan.sh" fragments "$variant") || exit 1
[ ${#frags[@]} -gt 0 ] || exit 1

[ -d "$KTREE/.git" ] || die "no kernel tree at $KTREE (make tree)"
if [ -n "$rev" ]; then
	case $rev in
	tip) rev=refs/heads/$SERIES_BRANCH ;;
	baseline) rev=$BASE_TAG ;;
	esac
	commit=$(kgit rev-parse -q --verify "$rev^{commit}") || die "no revision '$rev' in $KTREE"
	src=$WORKTREE out=$OUT/$variant
	scratch_worktree "$src" "$commit" || die "cannot check out $rev in $src"
	what="$variant at $(kgit log -1 --format='%h %s' "$commit" | cut -c1-60)"
else
	src=$KTREE out=$OUT/tree-$variant
	commit=$(kgit rev-parse HEAD)
	what="$variant of $KTREE (checkout $(kgit rev-parse --short HEAD)$( [ -z "$(kgit status --porcelain -uno)" ] || echo ', with uncommitted changes'))"
fi
[ -f "$src/Makefile" ] || die "no kernel source at $src (make tree)"
mkdir -p "$out"
jobs=$(( $(nproc) + 1 ))
export KBUILD_BUILD_TIMESTAMP="$BASE_DATE" KBUILD_BUILD_USER=vswap KBUILD_BUILD_HOST=qemu-test
export CCACHE_BASEDIR="$src" CCACHE_DIR=${CCACHE_DIR:-$BUILD/ccache} CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
cc="gcc"
command -v ccache >/dev/null && cc="ccache gcc"

# Make the wanted .config in a scratch directory and install it only if it
# differs, so an unchanged configuration never triggers a full rebuild.
cfgdir=$out/.cfg
lost=$(KCONFIG_CC="$cc" kconfig_make "$src" "$cfgdir" x86_64 "${frags[@]}") || die "kconfig failed for variant $variant (log: $cfgdir/merge.log)"
[ -z "$lost" ] || die "variant $variant: config options not satisfied (a dependency is missing): $(tr '\n' ' ' <<<"$lost")"
if ! cmp -s "$cfgdir/.config" "$out/.config"; then
	cp "$cfgdir/.config" "$out/.config"
fi
rm -rf "$cfgdir"
if [ "$config_only" = 1 ]; then
	echo "$out/.config"
	exit 0
fi

log=$out/build.log
# A failed build must not leave an older image under the name it asked for.
[ -z "$image" ] || rm -rf "$OUT/img-$image"
if ! with_progress "building $what" "$log" make -C "$src" O="$out" CC="$cc" -j"$jobs" bzImage >&2; then
	grep -E 'error|Error' "$log" | head -20 >&2
	die "build of $what failed (log: $log)"
fi
grep -E '^[^ ]*: warning:' "$log" >&2
img=$out/arch/x86/boot/bzImage
if [ -n "$image" ]; then
	save_image "$image" "$variant" "$commit" "$out" || die "cannot keep the image as $OUT/img-$image"
	img=$OUT/img-$image/arch/x86/boot/bzImage
fi
echo "$img"

#!/bin/bash
# Build a guest kernel.
#   build.sh NAME [debug] [SRC]
# NAME is the output directory under build/out/, "debug" adds
# qemu-test/config/debug.config, SRC is the source tree (default: the kernel
# tree's checkout).  Incremental: the .config is only replaced when it changes,
# so a rebuild compiles only what the checkout changed.  Prints the bzImage path.
set -euo pipefail
. "$(dirname "$0")/config.sh"

name=${1:?usage: build.sh NAME [debug] [SRC]}
variant=${2:-base}
src=${3:-$KTREE}
out=$OUT/$name
frags=("$TOP/qemu-test/config/base.config")
[ "$variant" = debug ] && frags+=("$TOP/qemu-test/config/debug.config")

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
rm -rf "$cfgdir"; mkdir -p "$cfgdir"
make -s -C "$src" O="$cfgdir" CC="$cc" tinyconfig >/dev/null
(cd "$src" && KCONFIG_CONFIG="$cfgdir/.config" scripts/kconfig/merge_config.sh -m -O "$cfgdir" "$cfgdir/.config" "${frags[@]}" >"$cfgdir/merge.log" 2>&1)
make -s -C "$src" O="$cfgdir" CC="$cc" olddefconfig >/dev/null

# Every requested option must have survived (a missing dependency would
# silently drop it).  Options that only exist with the series are exempt
# when the source does not know them.
bad=()
while IFS= read -r line; do
	case "$line" in CONFIG_*=*) ;; *) continue ;; esac
	opt=${line%%=*}; val=${line#*=}
	if [ "$val" = n ]; then
		grep -q "^$opt=" "$cfgdir/.config" && bad+=("$line")
		continue
	fi
	grep -qx "$line" "$cfgdir/.config" && continue
	if ! grep -rqs "^config ${opt#CONFIG_}\$" "$src/mm/Kconfig" "$src/mm/Kconfig.debug" "$src/lib/Kconfig.debug" "$src/lib/kunit/Kconfig" \
		&& [[ $opt == CONFIG_VSWAP* ]]; then
		continue
	fi
	bad+=("$line")
done < <(cat "${frags[@]}")
[ ${#bad[@]} -eq 0 ] || die "config options not satisfied in $name: ${bad[*]}"

if ! cmp -s "$cfgdir/.config" "$out/.config"; then
	cp "$cfgdir/.config" "$out/.config"
fi
rm -rf "$cfgdir"
log=$out/build.log
if ! make -C "$src" O="$out" CC="$cc" -j"$jobs" bzImage >"$log" 2>&1; then
	grep -E 'error|Error' "$log" | head -20 >&2
	die "build of $name failed (log: $log)"
fi
grep -E '^[^ ]*: warning:' "$log" >&2 || true
echo "$out/arch/x86/boot/bzImage"

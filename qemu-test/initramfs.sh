#!/bin/bash
# Build the guest test programs and the test initramfs.
#   initramfs.sh          build if needed, print the initramfs path
#   initramfs.sh -f       rebuild unconditionally
#
# Every qemu-test/guest/*.c is one test: built static and linked with
# every qemu-test/guest/lib/*.c (the helper library, compiled once into
# build/guest/lib/) into build/guest/bin/NAME, installed as /tests/NAME.
# Tests include "lib.h", which includes the lib/*.h headers.  The
# kernel's cgroup selftests test_zswap and test_memcontrol (run by
# guest/kselftest_zswap.c and guest/kselftest_memcontrol.c) are built
# static from the kernel tree ($KTREE, unchanged sources, plus
# kselftest/linebuf.c) into /tests/; without the tree they are left out,
# said so on stderr, and their wrappers fail.  The
# initramfs is busybox (installed with --install -s at boot), /init and the
# tests.  Nothing is rebuilt unless a source, /init, this script, busybox
# or the compiler changed.
set -euo pipefail
. "$(dirname "$0")/../checks/config.sh"

src=$TOP/qemu-test
out=$BUILD/guest
img=$out/initramfs.cpio.gz
busybox=${VTEST_BUSYBOX:-/bin/busybox}
CC=${CC:-gcc}
CFLAGS=(-static -O2 -Wall -Werror)
# As tools/testing/selftests/cgroup/Makefile and lib.mk build it, and as
# they do without optimisation: at -O2 gcc drops the malloc, the stores and
# the free of test_zswap's allocate_bytes(), and nothing is ever swapped.
kst=$KTREE/tools/testing/selftests
KST_TESTS=(test_zswap test_memcontrol)
KST_COMMON=("$kst/cgroup/cgroup_util.c" "$src/kselftest/linebuf.c")
KST_SRCS=("${KST_COMMON[@]}")
for t in "${KST_TESTS[@]}"; do KST_SRCS+=("$kst/cgroup/$t.c"); done
KST_HDRS=("$kst/cgroup/cgroup_util.h" "$kst/kselftest.h" "$kst/clone3/clone3_selftests.h")
KST_CFLAGS=(-static -Wall -pthread -D_GNU_SOURCE= -I"$kst")
have_kst() {
	local f
	for f in "${KST_SRCS[@]}" "${KST_HDRS[@]}"; do
		[ -f "$f" ] || return 1
	done
}

mkdir -p "$out"
exec 9>"$out/.lock"
flock 9

inputs_sum() {
	{
		sha256sum "$src"/guest/*.c "$src"/guest/*.h "$src"/guest/lib/*.c \
			"$src"/guest/lib/*.h "$src/init" "$0" "$busybox"
		"$CC" --version | head -n 1
		echo "${CFLAGS[*]}"
		if have_kst; then
			sha256sum "${KST_SRCS[@]}" "${KST_HDRS[@]}"
			echo "${KST_CFLAGS[*]}"
		else
			echo "no kselftest sources in $kst"
		fi
	} | sha256sum | cut -d' ' -f1
}

sum=$(inputs_sum)
if [ "${1:-}" != -f ] && [ -f "$img" ] && [ "$(cat "$out/.inputs" 2>/dev/null)" = "$sum" ]; then
	echo "$img"
	exit 0
fi

[ -x "$busybox" ] || die "no busybox at $busybox (apt-get install busybox-static)"
file -L "$busybox" 2>/dev/null | grep -q 'statically linked' ||
	die "$busybox is not statically linked (install busybox-static, or set VTEST_BUSYBOX)"

rm -rf "${out:?}/bin" "${out:?}/lib" "${out:?}/root"
mkdir -p "$out/bin" "$out/lib" "$out/root"/{bin,sbin,usr/bin,usr/sbin,tests,etc,proc,sys,dev,tmp,run}
INCS=(-I"$src/guest" -I"$src/guest/lib")
libobjs=()
for c in "$src"/guest/lib/*.c; do
	o=$out/lib/$(basename "$c" .c).o
	"$CC" "${CFLAGS[@]}" "${INCS[@]}" -c -o "$o" "$c" ||
		die "guest library $(basename "$c") does not build"
	libobjs+=("$o")
done
for c in "$src"/guest/*.c; do
	name=$(basename "$c" .c)
	"$CC" "${CFLAGS[@]}" "${INCS[@]}" -o "$out/bin/$name" "$c" "${libobjs[@]}" ||
		die "guest test $name does not build"
	cp "$out/bin/$name" "$out/root/tests/$name"
done
if have_kst; then
	for t in "${KST_TESTS[@]}"; do
		"$CC" "${KST_CFLAGS[@]}" -o "$out/bin/$t" "$kst/cgroup/$t.c" "${KST_COMMON[@]}" ||
			die "kselftest $t does not build from $kst"
		cp "$out/bin/$t" "$out/root/tests/$t"
	done
else
	echo "initramfs.sh: no cgroup selftest sources under $kst: ${KST_TESTS[*]} left out of /tests" >&2
fi
cp "$busybox" "$out/root/bin/busybox"
install -m 0755 "$src/init" "$out/root/init"
echo smoke:zswap:/dev/vda >"$out/root/etc/vtest.tests"

# Same bytes for the same inputs: fixed mtimes and owners, sorted names.
find "$out/root" -exec touch -h -d "$BASE_DATE" {} +
(cd "$out/root" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner=0:0 --reproducible --quiet) | gzip -9n >"$img.tmp"
mv "$img.tmp" "$img"
echo "$sum" >"$out/.inputs"
echo "$img"

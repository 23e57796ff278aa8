// SPDX-License-Identifier: GPL-2.0
/*
 * vswap_overcommit: the overcommit heuristic counts what vswap can hold.
 *
 * Under vm.overcommit_memory=0 (OVERCOMMIT_GUESS) one private writable
 * mapping larger than RAM plus swap is refused.  With vswap=on and zswap
 * enabled, anonymous memory can swap into zswap with no swap area, and the
 * series counts vswap as twice RAM there (a compressed pool that fits in
 * RAM at 3:1).  Claim: a mapping of RAM + SwapTotal + RAM (plus slack) is
 * accepted exactly when vswap can store pages, and one of RAM + SwapTotal
 * + 3 x RAM is refused either way, so the margin is bounded.
 */
#include "lib.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

/* 0 if a PROT_WRITE private mapping of bytes was accepted, else errno. */
static int try_map(unsigned long long bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return errno;
	munmap(p, bytes);
	return 0;
}

int main(void)
{
	long long ram, swap, mode = -1;
	int vswap, zswap, r;
	unsigned long long big, huge;

	t_init("vswap_overcommit");
	ram = meminfo_kb("MemTotal");
	swap = meminfo_kb("SwapTotal");
	if (ram <= 0 || swap < 0)
		t_bail("read MemTotal and SwapTotal", "MemTotal %lld, SwapTotal %lld in /proc/meminfo",
		       ram, swap);
	read_ll("/proc/sys/vm/overcommit_memory", &mode);
	if (mode != 0 && write_file("/proc/sys/vm/overcommit_memory", "0"))
		t_bail("overcommit_memory 0", "cannot set it (was %lld)", mode);
	zswap = zswap_enabled() == 1;
	vswap = path_exists(VSWAP_DIR);
	ram <<= 10;
	swap <<= 10;
	t_diag("MemTotal %lld MiB, SwapTotal %lld MiB, vswap %s, zswap %s",
	       ram >> 20, swap >> 20, vswap ? "on" : "off", zswap ? "on" : "off");

	big = ram + swap + ram + 16 * MiB;
	r = try_map(big);
	if (vswap && zswap)
		t_ok(r == 0, "2 x RAM + swap accepted with vswap and zswap",
		     "mmap of %llu MiB: %s", big >> 20, strerror(r));
	else
		t_ok(r == ENOMEM, "2 x RAM + swap refused without vswap",
		     "mmap of %llu MiB: %s", big >> 20, r ? strerror(r) : "accepted");

	huge = ram + swap + 3 * ram + 16 * MiB;
	r = try_map(huge);
	t_ok(r == ENOMEM, "4 x RAM + swap refused either way",
	     "mmap of %llu MiB: %s", huge >> 20, r ? strerror(r) : "accepted");

	if (mode > 0)
		write_filef("/proc/sys/vm/overcommit_memory", "%lld", mode);
	return t_done();
}

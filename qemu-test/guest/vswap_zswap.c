// SPDX-License-Identifier: GPL-2.0
/*
 * vswap_zswap: with vswap=on and zswap enabled, anonymous memory swaps
 * into zswap with no swap device at all (design: "no swapon needed").
 *
 * With nothing in /proc/swaps, a worker writes 96 MiB of compressible
 * pages in a 32 MiB cgroup.  It must not be OOM-killed, zswpout and vswap
 * "used" must go up while the pages are out, every byte must read back,
 * and used must be 0 again once the worker is gone.
 */
#include "lib.h"

#include <errno.h>
#include <string.h>

#define SEED 0x5eed0301ULL
#define MAX (32 * MiB)
#define WSET (96 * MiB)

static int worker(const char *cg, void *arg)
{
	size_t npages = WSET / page_size(), bad;
	long long used, zout, zin, swcur;
	void *buf = map_anon(npages);

	(void)arg;
	if (!buf)
		return t_fail("map working set", "mmap: %s", strerror(errno)), 1;
	pat_fill(buf, npages, SEED, PAT_COMPRESSIBLE);
	pageout(buf, npages);
	zout = cg_stat(cg, "zswpout");
	swcur = cg_ll(cg, "memory.swap.current");
	used = vswap_stat("used");
	t_diag("pushed out: zswpout %lld, zswapped %lld KiB, memory.swap.current %lld KiB, "
	       "vswap used %lld", zout, cg_stat(cg, "zswapped") >> 10, swcur >> 10, used);
	t_ok(zout > 0, "pages went to zswap", "zswpout %lld", zout);
	t_ok(used > 0, "vswap used > 0 while pages are out",
	     used < 0 ? "cannot read used" : "used is %lld", used);
	bad = pat_verify(buf, npages, SEED, PAT_COMPRESSIBLE);
	t_ok(bad == 0, "data read back byte-exact", "%zu of %zu pages differ", bad, npages);
	zin = cg_stat(cg, "zswpin");
	t_ok(zin > 0, "pages came back from zswap", "zswpin %lld", zin);
	return 0;
}

int main(void)
{
	t_init("vswap_zswap");
	if (!path_exists(VSWAP_DIR))
		t_bail("vswap device present", "%s missing (vswap=on?)", VSWAP_DIR);
	t_ok(swaps_count() == 0, "no swap area in /proc/swaps", "%d listed", swaps_count());
	zswap_check_enabled(1);

	/* With no swap area, an OOM kill is what vswap must prevent. */
	cg_phase(NULL, "vswap_zswap", MAX, worker, NULL);
	vswap_check_used_back("after the worker exited", 0);
	return t_done();
}

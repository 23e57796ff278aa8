// SPDX-License-Identifier: GPL-2.0
/*
 * vswap_zero: zero-filled pages swap out as "zero": no zswap entry, no
 * disk write, and they read back as zeroes.
 *
 *   vswap_zero [DEVICE]      regression mode: the swap disk (default /dev/vda)
 *
 * Modes (swap_env_setup): vswap mode with vswap=on and no swap area,
 * regression mode (no vswap device) with a swap area on DEVICE.
 *
 * A worker in a 32 MiB cgroup writes zeroes over 64 MiB of order-0 pages
 * (the cgroup's limit pushes pages out while it writes) and pushes the
 * rest out with MADV_PAGEOUT.  While the pages are out:
 *  - swpout_zero in memory.stat rose by at least 3/4 of the region;
 *  - the zswap pool did not grow: zswpout, zswapped and zswap's
 *    stored_pages rose by at most a few pages (the worker's own non-zero
 *    pages);
 *  - the swap slots are in use: vswap "used" (vswap mode) or the area's
 *    Used column covers at least 3/4 of the region;
 *  - regression mode: less than 1 MiB was written to the disk.
 * Every byte reads back as zero and the pages were faulted back in.  In
 * vswap mode "used" is 0 again after the worker exited.
 */
#include "lib.h"

#include <errno.h>
#include <string.h>

#define MAX (32 * MiB)
#define WSET (64 * MiB)
#define SLACK 64		/* pages of the worker that are not zero */

struct work {
	struct swap_env *env;
	long long stored0;	/* zswap stored_pages before the worker */
};

static int worker(const char *cg, void *arg)
{
	struct work *w = arg;
	size_t npages = WSET / page_size(), bad;
	long long rd0, wr0, rd1, wr1, zero, zout, zswapped, stored, used;
	int disk = w->env->mode == SWAP_DISK;
	char *buf = map_anon_4k(npages);
	int r;

	if (!buf)
		return t_fail("map working set", "mmap: %s", strerror(errno)), 1;
	if (disk && blk_sectors(w->env->dev, &rd0, &wr0))
		return t_fail("block statistics", "cannot read stat of %s", w->env->dev), 1;
	memset(buf, 0, npages * page_size());
	r = pageout(buf, npages);
	t_ok(r == 0, "MADV_PAGEOUT accepted", "madvise: %s", strerror(-r));

	zero = cg_stat(cg, "swpout_zero");
	zout = cg_stat(cg, "zswpout");
	zswapped = cg_stat(cg, "zswapped");
	stored = zswap_stat("stored_pages");
	used = swap_env_used(w->env);
	t_diag("pushed out %zu zero pages: swpout_zero %lld, zswpout %lld, zswapped %lld KiB, "
	       "stored_pages %lld (was %lld), %s used %lld pages, memory.current %lld KiB",
	       npages, zero, zout, zswapped >> 10, stored, w->stored0,
	       swap_env_name(w->env), used, cg_ll(cg, "memory.current") >> 10);
	if (zero < 0)
		t_skip("swpout_zero counts the zero pages", "memory.stat has no swpout_zero");
	else
		t_ok(zero >= (long long)npages * 3 / 4, "swpout_zero counts the zero pages",
		     "swpout_zero %lld for %zu zero pages", zero, npages);
	t_ok(zout >= 0 && zout <= SLACK, "zero pages are not stored in zswap (zswpout)",
	     "zswpout %lld", zout);
	t_ok(zswapped >= 0 && zswapped <= SLACK * (long long)page_size(),
	     "zswapped did not grow", "zswapped %lld bytes", zswapped);
	if (stored < 0 || w->stored0 < 0)
		t_skip("zswap stored_pages did not grow", "no %s/zswap/stored_pages", DEBUGFS);
	else
		t_ok(stored - w->stored0 <= SLACK, "zswap stored_pages did not grow",
		     "stored_pages %lld, was %lld", stored, w->stored0);
	t_ok(used >= (long long)npages * 3 / 4, "swap slots hold the zero pages while out",
	     "%s used %lld pages for %zu pages pushed out", swap_env_name(w->env), used, npages);
	if (disk && blk_sectors(w->env->dev, &rd1, &wr1))
		t_fail("zero pages not written to the disk", "cannot read stat of %s",
		       w->env->dev);
	else if (disk)
		t_ok(wr1 - wr0 < 2048, "zero pages not written to the disk",
		     "%lld KiB written to %s", (wr1 - wr0) / 2, w->env->dev);

	bad = pat_verify(buf, npages, 0, PAT_ZERO);
	t_ok(bad == 0, "every byte reads back as zero", "%zu of %zu pages not zero", bad, npages);
	t_diag("read back: swpin_zero %lld, pgmajfault %lld, zswpin %lld",
	       cg_stat(cg, "swpin_zero"), cg_stat(cg, "pgmajfault"), cg_stat(cg, "zswpin"));
	t_ok(cg_stat(cg, "swpin_zero") > 0 || cg_stat(cg, "pgmajfault") > 0,
	     "pages were faulted back in", "swpin_zero %lld, pgmajfault %lld",
	     cg_stat(cg, "swpin_zero"), cg_stat(cg, "pgmajfault"));
	return 0;
}

int main(int argc, char **argv)
{
	struct swap_env env;
	struct work w = { .env = &env };

	t_init("vswap_zero");
	swap_env_setup(&env, argc, argv);
	w.stored0 = zswap_stat("stored_pages");

	cg_phase(NULL, "vswap_zero", MAX, worker, &w);
	if (env.mode == SWAP_VSWAP) {
		vswap_check_used_back("after the worker exited", 0);
	} else {
		/* Swap-cache-only slots may linger until reclaim: informational. */
		t_diag("after the worker exited: %s Used %lld pages", env.dev, swap_env_used(&env));
	}
	swap_env_teardown(&env);
	return t_done();
}

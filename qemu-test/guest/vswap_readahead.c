// SPDX-License-Identifier: GPL-2.0
/*
 * vswap_readahead: swapped-out pages read back in order are read ahead,
 * whatever holds them, as without vswap: swap faults bring in their
 * neighbours, so there are far fewer major faults than pages.
 *
 *   vswap_readahead [DEVICE]   with DEVICE: a swap area behind vswap, or
 *                              regression mode without the vswap device
 *
 * Modes (swap_env_setup_flags, SWAP_ENV_DISK_ARG): vswap mode (no area),
 * vswap + swap area, regression mode (no vswap device, the area alone).
 *
 * A worker in a cgroup with no limit writes 32 MiB of compressible order-0
 * pages, pushes them out with MADV_PAGEOUT and reads them back in order.
 * The claims:
 *  - the pages went out: zswpout covers 3/4 of them at least, and in the
 *    vswap modes so does vswap "used" (they took vswap slots);
 *  - they were read ahead: /proc/vmstat swap_ra rose by at least a quarter
 *    of the pages, and the read back took at most 3/4 as many major faults
 *    as there are pages;
 *  - every byte reads back.
 * A series that skips readahead for vswap entries faults once per page
 * and leaves swap_ra at 0 in the vswap modes.
 */
#include "lib.h"

#include <errno.h>
#include <string.h>

#define SEED 0x5eed0ead1ULL
#define WSET (32 * MiB)

static int worker(const char *cg, void *arg)
{
	struct swap_env *env = arg;
	size_t npages = WSET / page_size(), bad;
	long long zout, used, ra0, ra, maj0, maj, hit0, hit;
	void *buf = map_anon_4k(npages);
	int r;

	if (!buf)
		return t_fail("map working set", "mmap: %s", strerror(errno)), 1;
	pat_fill(buf, npages, SEED, PAT_COMPRESSIBLE);
	r = pageout(buf, npages);
	t_ok(r == 0, "MADV_PAGEOUT accepted", "madvise: %s", strerror(-r));
	zout = cg_stat(cg, "zswpout");
	used = env->mode == SWAP_DISK ? -1 : vswap_stat("used");
	t_diag("pushed out %zu pages: zswpout %lld, %s used %lld", npages, zout,
	       swap_env_name(env), used);
	t_ok(zout >= (long long)npages * 3 / 4, "the pages went to zswap",
	     "zswpout %lld for %zu pages", zout, npages);
	if (env->mode != SWAP_DISK)
		t_ok(used >= (long long)npages * 3 / 4, "they took vswap slots",
		     "vswap used %lld for %zu pages", used, npages);

	ra0 = vmstat("swap_ra");
	hit0 = vmstat("swap_ra_hit");
	maj0 = cg_stat(cg, "pgmajfault");
	bad = pat_verify(buf, npages, SEED, PAT_COMPRESSIBLE);
	ra = vmstat("swap_ra") - ra0;
	hit = vmstat("swap_ra_hit") - hit0;
	maj = cg_stat(cg, "pgmajfault") - maj0;
	t_diag("read back in order: swap_ra +%lld, swap_ra_hit +%lld, pgmajfault +%lld",
	       ra, hit, maj);
	t_ok(bad == 0, "data read back byte-exact", "%zu of %zu pages differ", bad, npages);
	t_ok(ra >= (long long)npages / 4, "the reads were read ahead (swap_ra)",
	     "swap_ra rose by %lld for %zu pages", ra, npages);
	t_ok(maj > 0 && maj <= (long long)npages * 3 / 4,
	     "fewer major faults than pages", "%lld major faults for %zu pages", maj, npages);
	return 0;
}

int main(int argc, char **argv)
{
	struct swap_env env;

	t_init("vswap_readahead");
	swap_env_setup_flags(&env, argc, argv, SWAP_ENV_DISK_ARG);
	cg_phase(NULL, "vswap_readahead", 0, worker, &env);
	swap_env_teardown(&env);
	return t_done();
}

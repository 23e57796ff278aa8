// SPDX-License-Identifier: GPL-2.0
/*
 * vswap_phys: with vswap=on and a swap area swapon'ed, every anonymous
 * page swaps out behind a vswap slot, and its data picks the backend:
 * compressible pages go to zswap, zero-filled pages to neither zswap nor
 * the disk, pages zswap rejects to a physical slot on the swap area.
 *
 *   vswap_phys [DEVICE]       the swap area (default /dev/vda), in both modes
 *
 * Modes (swap_env_setup_flags, SWAP_ENV_DISK): vswap + swap area with the
 * vswap device, regression mode (no vswap device: vswap=off or the
 * unpatched kernel) otherwise.  DEVICE gets a fresh swap header in both.
 *
 * Phase 1 (MADV_PAGEOUT): a worker in a 64 MiB cgroup writes 8 MiB each
 * of compressible, random and zero-filled order-0 pages and pushes them
 * all out.  Then:
 *  - zswap stored_pages rose by 3/4 of the compressible pages or more and
 *    by no more than them plus slack; the reject counters rose by half
 *    the random pages or more; swpout_zero counts 3/4 of the zero pages;
 *  - the disk got the random pages and nothing else: sectors written
 *    cover 3/4 of them and at most them plus 1 MiB;
 *  - vswap + swap area: vswap "used" covers 3/4 of all the pages (each
 *    took a vswap slot first, though the disk had room), /proc/swaps Used
 *    covers 3/4 of the random pages and at most them plus slack, and
 *    vswap "phys" (vswap slots backed by a physical slot) equals Used in
 *    pages within the per-CPU slot caches (SLACK);
 *  - regression mode: Used covers 3/4 of all the pages (a physical slot
 *    per page, whatever holds the data).
 * memory.reclaim then empties the swap cache and every byte reads back,
 * the random pages from the disk.
 *
 * Phase 2 (memory.max): a worker writes 64 MiB of pages cycling
 * compressible, random, zero (PAT_MIX3) in a 32 MiB cgroup, so reclaim
 * pushes them out while it writes.  It completes with no OOM kill, after
 * the write pass zswpout > 0 and /proc/swaps Used > 0 (vswap + swap area:
 * vswap "used" > 0 and "phys" matches Used), and everything reads back
 * byte-exact, with sectors read from the disk.
 *
 * After each worker (vswap + swap area): vswap "used" and "phys" are 0
 * and Used is within SLACK of 0; regression mode shows Used only.
 */
#include "lib.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define SEED_C	0x5eed0701ULL
#define SEED_R	0x5eed0702ULL
#define SEED_M	0x5eed0703ULL
#define REGION	(8 * MiB)
/* Pages the per-CPU swap slot caches may hold (64 a CPU, alloc and free). */
#define SLACK	256

static struct swap_env env;

static int vswap_disk(void)
{
	return env.mode == SWAP_VSWAP_DISK;
}

static long long llabs_diff(long long a, long long b)
{
	return a > b ? a - b : b - a;
}

/* vswap "phys" equals /proc/swaps Used in pages, within SLACK. */
static void phys_matches_used(const char *when)
{
	long long phys = vswap_stat("phys"), used = swaps_used_pages(env.dev);
	char name[160];

	snprintf(name, sizeof(name), "%s: vswap phys matches /proc/swaps Used", when);
	if (phys < 0)
		t_fail(name, "no %s/phys counter (Used %lld pages)", VSWAP_DIR, used);
	else
		t_ok(used >= 0 && llabs_diff(phys, used) <= SLACK, name,
		     "phys %lld, Used %lld pages", phys, used);
}

static int phase1_worker(const char *cg, void *arg)
{
	size_t n = REGION / page_size(), all = 3 * n, ps = page_size(), bad;
	long long rd0, wr0, rd1, wr1, rd2, wr2;
	long long stored0 = zswap_stat("stored_pages"), rej0 = zswap_rejected();
	long long stored, rej, zero, used, disk, wr_kb, rand_kb = REGION >> 10;
	char *buf = map_anon_4k(all);
	char *comp, *rnd, *zer;

	(void)arg;
	if (!buf)
		return t_fail("map working set", "mmap: %s", strerror(errno)), 1;
	if (blk_sectors(env.dev, &rd0, &wr0))
		return t_fail("block statistics", "cannot read stat of %s", env.dev), 1;
	comp = buf;
	rnd = buf + n * ps;
	zer = buf + 2 * n * ps;
	pat_fill(comp, n, SEED_C, PAT_COMPRESSIBLE);
	pat_fill(rnd, n, SEED_R, PAT_RANDOM);
	pat_fill(zer, n, 0, PAT_ZERO);
	t_ok(pageout(buf, all) == 0, "MADV_PAGEOUT accepted", "madvise: %s", strerror(errno));

	/* The writes are asynchronous: let them complete. */
	wr1 = poll_value(get_blk_written, (void *)env.dev, UNTIL_GE, wr0 + rand_kb * 2, 3000);
	stored = zswap_stat("stored_pages");
	rej = zswap_rejected();
	zero = cg_stat(cg, "swpout_zero");
	used = swap_env_used(&env);
	disk = swaps_used_pages(env.dev);
	wr_kb = (wr1 - wr0) / 2;
	t_diag("pushed out %zu compressible, %zu random, %zu zero pages: stored_pages +%lld, "
	       "rejected +%lld, swpout_zero %lld, zswpout %lld, %s used %lld, vswap phys %lld, "
	       "%s Used %lld pages, %lld KiB written", n, n, n, stored - stored0, rej - rej0,
	       zero, cg_stat(cg, "zswpout"), swap_env_name(&env), used, vswap_stat("phys"),
	       env.dev, disk, wr_kb);

	t_ok(stored - stored0 >= (long long)n * 3 / 4, "compressible pages went to zswap",
	     "stored_pages +%lld for %zu pages", stored - stored0, n);
	t_ok(stored - stored0 <= (long long)n + 64, "zswap stored nothing else",
	     "stored_pages +%lld for %zu compressible pages", stored - stored0, n);
	if (rej < 0)
		t_skip("zswap rejected the random pages", "no zswap reject_compress_* counters");
	else
		t_ok(rej - rej0 >= (long long)n / 2, "zswap rejected the random pages",
		     "reject_compress_poor + reject_compress_fail +%lld for %zu pages",
		     rej - rej0, n);
	t_ok(zero >= (long long)n * 3 / 4, "zero pages swapped out as zero (swpout_zero)",
	     "swpout_zero %lld for %zu pages", zero, n);
	t_ok(wr_kb >= rand_kb * 3 / 4, "random pages written to the disk",
	     "%lld KiB written for %lld KiB of random pages", wr_kb, rand_kb);
	t_ok(wr1 >= 0 && wr_kb <= rand_kb + 1024, "nothing but the random pages written to the disk",
	     "%lld KiB written for %lld KiB of random pages", wr_kb, rand_kb);
	if (vswap_disk()) {
		t_ok(used >= (long long)all * 3 / 4,
		     "every page took a vswap slot, though the disk had room",
		     "vswap used %lld for %zu pages", used, all);
		t_ok(disk >= (long long)n * 3 / 4, "random pages hold physical slots (/proc/swaps)",
		     "Used %lld pages for %zu random pages", disk, n);
		t_ok(disk <= (long long)n + SLACK,
		     "compressible and zero pages hold no physical slot",
		     "Used %lld pages for %zu random pages", disk, n);
		phys_matches_used("pages out");
	} else {
		t_ok(disk >= (long long)all * 3 / 4, "every page holds a physical slot",
		     "Used %lld pages for %zu pages", disk, all);
	}

	/* Written pages stay in the swap cache until reclaim takes them. */
	cg_write(cg, "memory.reclaim", "64M");
	blk_sectors(env.dev, &rd1, &wr1);
	bad = pat_verify(comp, n, SEED_C, PAT_COMPRESSIBLE);
	t_ok(bad == 0, "compressible pages read back byte-exact", "%zu of %zu differ", bad, n);
	bad = pat_verify(rnd, n, SEED_R, PAT_RANDOM);
	t_ok(bad == 0, "random pages read back byte-exact", "%zu of %zu differ", bad, n);
	bad = pat_verify(zer, n, 0, PAT_ZERO);
	t_ok(bad == 0, "zero pages read back as zeroes", "%zu of %zu differ", bad, n);
	blk_sectors(env.dev, &rd2, &wr2);
	t_diag("read back: %lld KiB read from %s, zswpin %lld, swpin_zero %lld",
	       (rd2 - rd1) / 2, env.dev, cg_stat(cg, "zswpin"), cg_stat(cg, "swpin_zero"));
	t_ok((rd2 - rd1) / 2 >= rand_kb * 3 / 4, "random pages read back from the disk",
	     "%lld KiB read for %lld KiB of random pages", (rd2 - rd1) / 2, rand_kb);
	return 0;
}

static int phase2_worker(const char *cg, void *arg)
{
	size_t npages = 64 * MiB / page_size(), bad;
	long long used, disk, zout, rd0 = 0, wr0 = 0, rd1 = 0, wr1 = 0;
	char *buf = map_anon_4k(npages);

	(void)arg;
	if (!buf)
		return t_fail("map working set", "mmap: %s", strerror(errno)), 1;
	pat_fill(buf, npages, SEED_M, PAT_MIX3);
	blk_sectors(env.dev, &rd0, &wr0);
	zout = cg_stat(cg, "zswpout");
	used = swap_env_used(&env);
	disk = swaps_used_pages(env.dev);
	t_diag("64 MiB written in a 32 MiB cgroup: zswpout %lld, swpout_zero %lld, %s used %lld, "
	       "vswap phys %lld, %s Used %lld pages", zout, cg_stat(cg, "swpout_zero"),
	       swap_env_name(&env), used, vswap_stat("phys"), env.dev, disk);
	t_ok(zout > 0, "limit reclaim: compressible pages went to zswap", "zswpout %lld", zout);
	t_ok(disk > 0, "limit reclaim: pages reached the disk (/proc/swaps Used > 0)",
	     "Used %lld pages", disk);
	if (vswap_disk()) {
		t_ok(used > 0, "limit reclaim: pages took vswap slots", "vswap used %lld", used);
		phys_matches_used("limit reclaim");
	}
	bad = pat_verify(buf, npages, SEED_M, PAT_MIX3);
	t_ok(bad == 0, "limit reclaim: every page read back byte-exact", "%zu of %zu differ",
	     bad, npages);
	blk_sectors(env.dev, &rd1, &wr1);
	t_diag("read back: %lld KiB read from %s, %lld KiB written, zswpin %lld, swpin_zero %lld",
	       (rd1 - rd0) / 2, env.dev, (wr1 - wr0) / 2, cg_stat(cg, "zswpin"),
	       cg_stat(cg, "swpin_zero"));
	t_ok(rd1 > rd0, "limit reclaim: pages read back from the disk", "no sector read from %s",
	     env.dev);
	return 0;
}

static void after_worker(const char *phase)
{
	long long phys, disk;

	if (!vswap_disk()) {
		t_diag("%s: after the worker exited %s Used %lld pages", phase, env.dev,
		       swaps_used_pages(env.dev));
		return;
	}
	vswap_check_used_back(phase, 0);
	phys = poll_value(get_vswap, "phys", UNTIL_EQ, 0, 5000);
	disk = poll_value(get_swaps_used_pages, (void *)env.dev, UNTIL_LE, SLACK, 5000);
	t_ok(phys == 0, t_name(phase, "vswap phys back to 0"), "phys is %lld", phys);
	t_ok(disk >= 0 && disk <= SLACK, t_name(phase, "physical slots freed (/proc/swaps Used)"),
	     "Used %lld pages", disk);
}

static void run_phase(const char *phase, const char *cgname, unsigned long max,
		      int (*fn)(const char *cg, void *arg))
{
	cg_phase(phase, cgname, max, fn, NULL);
	after_worker(phase);
}

int main(int argc, char **argv)
{
	t_init("vswap_phys");
	swap_env_setup_flags(&env, argc, argv, SWAP_ENV_DISK);
	run_phase("phase 1", "vswap_phys1", 64 * MiB, phase1_worker);
	run_phase("phase 2", "vswap_phys2", 32 * MiB, phase2_worker);
	swap_env_teardown(&env);
	return t_done();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * vswap_prio: with two swap areas of different priority, physical slots
 * (behind vswap slots with vswap=on) come from the higher-priority area
 * until it is full, then from the other; swapoff of the full one loses
 * nothing.
 *
 *   vswap_prio [HIGH [LOW]]   default /dev/vdb (small, priority 10) and
 *                             /dev/vdc (larger, priority 5)
 *
 * Mode: vswap + two swap areas with the vswap device, regression mode (no
 * vswap device) otherwise; the vswap-only counters are checked only in
 * the first.  Both devices get a fresh header and are swapon'ed with
 * SWAP_FLAG_PREFER, /proc/swaps must show the priorities.
 *
 * A worker in a 96 MiB cgroup writes random order-0 pages (zswap rejects
 * them: each needs a physical slot), 48 MiB in all, 1.5 x the size of
 * HIGH:
 *  - after the first 16 MiB are pushed out, HIGH's Used covers 3/4 of them
 *    and LOW's is at most one slot-cache batch (64 pages);
 *  - after the rest, HIGH is full (Used 85% of its size or more) and LOW
 *    holds 3/4 of what did not fit or more;
 *  - vswap + two areas: vswap "phys" is the sum of both Used columns
 *    (within SLACK) both times.
 * Then, with the worker holding its pages and its cgroup reclaimed (the
 * written pages leave the swap cache), swapoff HIGH succeeds, reads 3/4
 * of what HIGH held or more, and
 *  - vswap + two areas: the worker's VmSwap is unchanged, vswap "used"
 *    unchanged (within 8), vswap "phys" matches LOW's Used;
 *  - regression mode: VmSwap dropped by 3/4 of what HIGH held or more;
 * and the worker reads all 48 MiB back byte-exact.  Nothing is
 * OOM-killed, vswap "used" and "phys" are 0 after the worker exited,
 * swapoff LOW succeeds and no swap area is left.
 */
#include "lib.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/swap.h>

#define SEED	0x5eed0a01ULL
#define WSET	(48 * MiB)
#define FIRST	(16 * MiB)
#define PRIO_HI	10
#define PRIO_LO	5
/* Pages the per-CPU swap slot caches may hold (64 a CPU, alloc and free). */
#define SLACK	256

static const char *hi = "/dev/vdb", *lo = "/dev/vdc";
static int vswap;

/*
 * The worker: FIRST of random pages out, wait; the rest out, wait; then
 * read everything back (after the parent's swapoff).
 */
static int worker(const char *cg, void *arg)
{
	size_t npages = WSET / page_size(), first = FIRST / page_size(), bad;
	char *buf = map_anon_4k(npages);

	(void)cg;
	(void)arg;
	if (!buf)
		return t_fail("map working set", "mmap: %s", strerror(errno)), 1;
	pat_fill(buf, first, SEED, PAT_RANDOM);
	pageout(buf, first);
	if (!worker_sync())
		return 0;
	pat_fill_from(buf, first, npages - first, SEED, PAT_RANDOM);
	pageout(buf + first * page_size(), npages - first);
	if (!worker_sync())
		return 0;
	bad = pat_verify(buf, npages, SEED, PAT_RANDOM);
	t_ok(bad == 0, "every page read back byte-exact after swapoff of the high-priority area",
	     "%zu of %zu pages differ", bad, npages);
	return 0;
}

/* vswap "phys" is the sum of the Used columns (vswap mode only). */
static void phys_check(const char *when)
{
	long long phys = vswap_stat("phys"), sum = 0, u;
	char name[160];

	if (!vswap)
		return;
	if ((u = swaps_used_pages(hi)) > 0)
		sum += u;
	if ((u = swaps_used_pages(lo)) > 0)
		sum += u;
	snprintf(name, sizeof(name), "%s: vswap phys matches the areas' Used", when);
	if (phys < 0)
		t_fail(name, "no %s/phys counter", VSWAP_DIR);
	else
		t_ok(phys - sum <= SLACK && sum - phys <= SLACK, name,
		     "phys %lld, Used %lld pages in all", phys, sum);
}

static void area_on(const char *dev, int prio)
{
	long long p = 0;
	char name[160];
	int r = swap_area_on(dev, prio);

	if (r)
		t_bail("swapon with a priority", "%s priority %d: %s", dev, prio, strerror(-r));
	snprintf(name, sizeof(name), "%s swapon'ed with priority %d", dev, prio);
	t_ok(!swaps_prio(dev, &p) && p == prio, name, "/proc/swaps says %lld", p);
}

/* The parent's side: checks between the worker's steps. */
static void run(void)
{
	size_t npages = WSET / page_size(), first = FIRST / page_size();
	long long size_hi = swaps_size_kb(hi) * 1024 / (long long)page_size();
	long long uh, ul, vmswap0, vmswap1, used0, used1, phys;
	long long rd0 = 0, wr0 = 0, rd1 = 0, wr1 = 0;
	char *cg = cg_create("vswap_prio", 96 * MiB);
	struct cg_worker w;
	int r, st;

	if (!cg) {
		t_fail("create cgroup", "%s", strerror(errno));
		return;
	}
	if (!worker_start(&w, cg, "first pages out", worker, NULL))
		goto out;
	uh = swaps_used_pages(hi);
	ul = swaps_used_pages(lo);
	t_diag("first %zu pages out: %s Used %lld, %s Used %lld pages, vswap used %lld, phys %lld",
	       first, hi, uh, lo, ul, vswap_stat("used"), vswap_stat("phys"));
	t_ok(uh >= (long long)first * 3 / 4, "slots come from the high-priority area first",
	     "%s Used %lld pages for %zu", hi, uh, first);
	t_ok(ul >= 0 && ul <= 64, "the low-priority area is not used while the other has room",
	     "%s Used %lld pages", lo, ul);
	phys_check("first pages");
	if (worker_release(&w, 1) || !worker_wait_ready(&w))
		goto died;

	uh = swaps_used_pages(hi);
	ul = swaps_used_pages(lo);
	t_diag("all %zu pages out: %s Used %lld of %lld, %s Used %lld pages, vswap used %lld, "
	       "phys %lld", npages, hi, uh, size_hi, lo, ul, vswap_stat("used"),
	       vswap_stat("phys"));
	t_ok(uh >= size_hi * 85 / 100, "the high-priority area fills up",
	     "%s Used %lld of %lld pages", hi, uh, size_hi);
	t_ok(ul >= ((long long)npages - size_hi) * 3 / 4,
	     "what does not fit goes to the low-priority area",
	     "%s Used %lld pages for %lld that did not fit", lo, ul, (long long)npages - size_hi);
	phys_check("all pages");

	/* Out of the swap cache: swapoff has to read the pages back. */
	cg_write(cg, "memory.reclaim", "96M");
	vmswap0 = proc_status_kb(w.pid, "VmSwap");
	used0 = vswap_stat("used");
	cg_write(cg, "memory.max", "max");
	blk_sectors(hi, &rd0, &wr0);
	errno = 0;
	r = swapoff(hi);
	t_ok(r == 0, "swapoff of the full high-priority area", "swapoff %s: %s", hi,
	     strerror(errno));
	blk_sectors(hi, &rd1, &wr1);
	t_ok(rd0 >= 0 && (rd1 - rd0) / 8 >= uh * 3 / 4, "swapoff read the area's pages back",
	     "%lld KiB read from %s for %lld pages on it", (rd1 - rd0) / 2, hi, uh);
	vmswap1 = proc_status_kb(w.pid, "VmSwap");
	used1 = vswap_stat("used");
	phys = vswap_stat("phys");
	t_diag("after swapoff %s: VmSwap %lld KiB (was %lld), %s Used %lld pages (was %lld), "
	       "vswap used %lld (was %lld), phys %lld", hi, vmswap1, vmswap0, lo,
	       swaps_used_pages(lo), ul, used1, used0, phys);
	if (vswap) {
		t_ok(vmswap0 > 0 && vmswap1 == vmswap0,
		     "page tables untouched: VmSwap unchanged by swapoff",
		     "VmSwap %lld KiB before, %lld KiB after", vmswap0, vmswap1);
		t_ok(used0 >= 0 && used1 >= used0 - 8 && used1 <= used0 + 8,
		     "vswap entries survive swapoff (used unchanged)",
		     "vswap used %lld before, %lld after", used0, used1);
		phys_check("after swapoff");
	} else {
		t_ok(vmswap1 >= 0 && vmswap0 - vmswap1 >= uh * (long long)(page_size() >> 10) * 3 / 4,
		     "swapoff swapped the high-priority area's pages in (VmSwap)",
		     "VmSwap %lld KiB before, %lld KiB after, %lld pages were on %s",
		     vmswap0, vmswap1, uh, hi);
	}
	worker_release(&w, 1);
	st = worker_finish(&w, 0);
	t_ok(st == 0, "worker completed", "worker %s", status_str(st));
	goto out;
died:
	st = worker_finish(&w, 1);
	t_fail("worker pushed the rest of its pages out", "worker %s", status_str(st));
out:
	cg_no_oom_kill(cg, NULL);
	cg_destroy(cg);
	free(cg);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		hi = argv[1];
	if (argc > 2)
		lo = argv[2];
	t_init("vswap_prio");
	vswap = path_exists(VSWAP_DIR);
	t_diag("%s: %s priority %d, %s priority %d",
	       vswap ? "vswap + two swap areas" : "regression mode (no vswap device)",
	       hi, PRIO_HI, lo, PRIO_LO);
	t_ok(swaps_count() == 0, "no swap area before the test", "%d listed", swaps_count());
	area_on(hi, PRIO_HI);
	area_on(lo, PRIO_LO);
	run();
	if (vswap) {
		vswap_check_used_back("after the worker exited", 0);
		t_ok(vswap_stat("phys") == 0, "vswap phys back to 0 after the worker exited",
		     "phys is %lld", vswap_stat("phys"));
	}
	if (swaps_used_kb(hi) >= 0)
		swapoff(hi);
	errno = 0;
	t_ok(!swapoff(lo), "swapoff of the low-priority area", "swapoff %s: %s", lo,
	     strerror(errno));
	t_ok(swaps_count() == 0, "no swap area left", "%d listed", swaps_count());
	return t_done();
}

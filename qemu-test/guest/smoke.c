// SPDX-License-Identifier: GPL-2.0
/*
 * smoke: the per-commit check.  Anonymous memory pushed through a small
 * cgroup really leaves RAM, by the way asked for, and comes back
 * byte-exact.
 *
 *   smoke zswap DEV     through zswap
 *   smoke disk DEV      through the swap area on DEV, zswap off
 *
 * DEV (e.g. /dev/vda) is a blank disk: it gets a fresh swap header and is
 * swapon'ed, and must then be the only swap area in /proc/swaps.  zswap
 * mode sets zswap.enabled to Y, disk mode to N (the value found is put
 * back at the end); zswap.enabled must read so.
 *
 * A worker in a fresh cgroup with memory.max = 32 MiB writes 96 MiB of
 * order-0 pages, compressible ones in zswap mode, random (incompressible)
 * ones in disk mode: the limit pushes 64 MiB or more of them out while it
 * writes (EXCESS, the working set minus the limit).  Right after writing:
 *  - zswap: the cgroup's memory.stat zswpout counts at least half of
 *    EXCESS in pages: the data left RAM through zswap;
 *  - disk: /proc/vmstat pswpout rose by at least half of EXCESS in pages,
 *    the sectors written to DEV (/sys/block/NAME/stat) cover at least as
 *    much, and the cgroup's zswpout is 0: the data went to the disk.
 * The worker then reads all 96 MiB back, and every byte must match.  It
 * completes, and nothing in the cgroup was OOM-killed (its memory.events
 * read, oom_kill 0).  With the vswap device (vswap=on), its "used"
 * returns to the value it had before the test within 5 s of the worker's
 * exit (whether the pages took vswap slots on this commit is not judged).
 * swapoff DEV succeeds at the end and DEV leaves /proc/swaps.
 *
 * Runs unchanged on the unpatched kernel (no vswap debugfs), on the
 * series with vswap=off, and with vswap=on.
 */
#include "lib.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define SEED	0x5eed0001ULL
#define MAX	(32 * MiB)
#define WSET	(96 * MiB)

struct work {
	int zswap;		/* zswap mode, else disk mode */
	const char *dev;
	long long pswpout0;	/* /proc/vmstat before the worker */
	long long wr0;		/* sectors written to dev before the worker */
};

/* Half of what the limit must push out, in pages. */
static long long want_pages(void)
{
	return (long long)((WSET - MAX) / page_size() / 2);
}

static int worker(const char *cg, void *arg)
{
	struct work *w = arg;
	size_t npages = WSET / page_size(), bad;
	enum pat_kind kind = w->zswap ? PAT_COMPRESSIBLE : PAT_RANDOM;
	long long want = want_pages(), zout, pswpout, wr;
	char *buf = map_anon_4k(npages);
	double t0 = mono_now(), t1;

	if (!buf)
		return t_fail("map working set", "mmap: %s", strerror(errno)), 1;
	pat_fill(buf, npages, SEED, kind);
	t1 = mono_now();
	zout = cg_stat(cg, "zswpout");
	pswpout = vmstat("pswpout");
	/* Sectors are counted when the writes complete. */
	wr = w->wr0 < 0 ? -1 : poll_value(get_blk_written, (void *)w->dev, UNTIL_GE,
					  w->wr0 + want * (long long)(page_size() / 512), 5000);
	t_diag("%zu MiB written in %.1fs: memory.current %lld KiB, zswpout %lld, "
	       "zswapped %lld KiB, pswpout +%lld, %lld KiB written to %s, swpout_zero %lld",
	       WSET / MiB, t1 - t0, cg_ll(cg, "memory.current") >> 10, zout,
	       cg_stat(cg, "zswapped") >> 10, pswpout - w->pswpout0, (wr - w->wr0) / 2,
	       w->dev, cg_stat(cg, "swpout_zero"));
	if (w->zswap) {
		t_ok(zout >= want, "the pages left RAM through zswap (memory.stat zswpout)",
		     zout < 0 ? "no zswpout in memory.stat" :
		     "zswpout %lld, want %lld of the %lld pages over the limit", zout, want,
		     2 * want);
	} else {
		t_ok(pswpout >= 0 && w->pswpout0 >= 0 && pswpout - w->pswpout0 >= want,
		     "the pages left RAM to the swap area (/proc/vmstat pswpout)",
		     pswpout < 0 ? "no pswpout in /proc/vmstat" :
		     "pswpout +%lld, want %lld of the %lld pages over the limit",
		     pswpout - w->pswpout0, want, 2 * want);
		t_ok(w->wr0 >= 0 && wr >= 0 &&
		     (wr - w->wr0) / (long long)(page_size() / 512) >= want,
		     "the pages were written to the disk (sectors written)",
		     "%lld KiB written to %s, want %lld pages", (wr - w->wr0) / 2, w->dev, want);
		t_ok(zout == 0, "zswap off: nothing stored in zswap (memory.stat zswpout 0)",
		     "zswpout %lld", zout);
	}

	bad = pat_verify(buf, npages, SEED, kind);
	t_diag("read back in %.1fs: zswpin %lld, pswpin %lld, pgmajfault %lld",
	       mono_now() - t1, cg_stat(cg, "zswpin"), vmstat("pswpin"),
	       cg_stat(cg, "pgmajfault"));
	t_ok(bad == 0, "every byte read back", "%zu of %zu pages differ", bad, npages);
	return 0;
}

int main(int argc, char **argv)
{
	struct work w = { 0 };
	long long rd, used0 = -1;
	int zswap_was, r;

	t_init("smoke");
	if (argc != 3 || (strcmp(argv[1], "zswap") && strcmp(argv[1], "disk")))
		t_bail("usage", "smoke zswap|disk DEV");
	w.zswap = !strcmp(argv[1], "zswap");
	w.dev = argv[2];
	t_diag("%s mode: %lu MiB of %s pages through a %lu MiB cgroup, swap area on %s%s",
	       argv[1], WSET / MiB, w.zswap ? "compressible" : "random", MAX / MiB, w.dev,
	       path_exists(VSWAP_DIR) ? ", vswap device present" : "");

	zswap_was = zswap_enabled();
	r = zswap_set_enabled(w.zswap);
	if (r)
		t_diag("cannot write %s/enabled: %s", ZSWAP_PARAM, strerror(-r));
	zswap_check_enabled(w.zswap);
	if (!swap_area_check_on(NULL, w.dev, -1))
		t_bail("swap area", "no swap area, nothing to test");
	t_ok(swaps_count() == 1, "it is the only swap area", "%d areas listed",
	     swaps_count());

	if (path_exists(VSWAP_DIR "/used"))
		used0 = vswap_stat("used");
	w.pswpout0 = vmstat("pswpout");
	if (blk_sectors(w.dev, &rd, &w.wr0))
		t_diag("cannot read the block statistics of %s", w.dev);
	cg_phase(NULL, "smoke", MAX, worker, &w);

	if (path_exists(VSWAP_DIR "/used")) {
		long long used = vswap_wait_used(used0, 5000);

		t_ok(used0 >= 0 && used >= 0 && used <= used0,
		     "vswap used back to its value before the test",
		     "used %lld, was %lld before the test", used, used0);
	}
	swap_area_check_off(NULL, w.dev);
	if (zswap_was >= 0)
		zswap_set_enabled(zswap_was);
	return t_done();
}

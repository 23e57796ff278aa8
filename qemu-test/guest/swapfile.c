// SPDX-License-Identifier: GPL-2.0
/*
 * swapfile: a normal swap area works (next to vswap, when it is on).
 *
 *   swapfile [DEVICE]        default /dev/vda (the scenario's first disk)
 *
 * The device gets a fresh v1 swap header and is swapon'ed.  Then:
 * 1. a worker in a 32 MiB cgroup writes 96 MiB, half compressible (zswap
 *    keeps it) and half random (zswap rejects it, so it must reach the
 *    disk): the device's Used column or memory.swap.current goes up,
 *    sectors are written to the disk (/sys/block stat: direct evidence of
 *    the disk's I/O), and everything reads back byte-exact, with sectors
 *    read from the disk;
 * 2. a second worker pushes 48 MiB of random pages out and stays alive;
 *    swapoff with those pages on the device succeeds, /proc/swaps is back
 *    to its header, and the worker then reads its data back byte-exact.
 * Both workers complete and their cgroups see no OOM kill.
 */
#include "lib.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <unistd.h>

#define SEED1 0x5eed0101ULL
#define SEED2 0x5eed0202ULL

static const char *dev = "/dev/vda";

struct work {
	size_t npages;
	enum pat_kind kind;
	uint64_t seed;
	int hold;		/* phase 2: wait for the parent's swapoff after pageout */
};

static int worker(const char *cg, void *arg)
{
	struct work *w = arg;
	long long used, swcur, rd0, wr0, rd1, wr1, rd2, wr2;
	void *buf = map_anon(w->npages);
	const char *what = w->hold ? "held pages" : "pages";
	char name[128];
	size_t bad;

	if (!buf) {
		t_fail("map working set", "mmap: %s", strerror(errno));
		return 1;
	}
	if (blk_sectors(dev, &rd0, &wr0)) {
		t_fail("block statistics", "cannot read /sys/block stat of %s", dev);
		return 1;
	}
	pat_fill(buf, w->npages, w->seed, w->kind);
	pageout(buf, w->npages);
	used = swaps_used_kb(dev);
	swcur = cg_ll(cg, "memory.swap.current");
	blk_sectors(dev, &rd1, &wr1);
	t_diag("%s out: %s Used %lld KiB, memory.swap.current %lld KiB, %lld KiB written, "
	       "zswpout %lld", what, dev, used, swcur >> 10, (wr1 - wr0) / 2,
	       cg_stat(cg, "zswpout"));
	snprintf(name, sizeof(name), "%s reached %s", what, dev);
	t_ok(used > 0 || swcur > 0, name, "Used %lld KiB, memory.swap.current %lld",
	     used, swcur);
	/* Random pages do not compress: zswap rejects them, the disk gets them. */
	snprintf(name, sizeof(name), "%s written to %s", what, dev);
	t_ok(wr1 > wr0, name, "no sector written");

	if (w->hold && !worker_sync())
		return 0;	/* the parent gave up; it reports why */
	bad = pat_verify(buf, w->npages, w->seed, w->kind);
	snprintf(name, sizeof(name), "%s read back byte-exact%s", what,
		 w->hold ? " after swapoff" : "");
	t_ok(bad == 0, name, "%zu of %zu pages differ", bad, w->npages);
	if (!w->hold) {
		blk_sectors(dev, &rd2, &wr2);
		t_diag("read back: %lld KiB read from %s, zswpin %lld, pgmajfault %lld",
		       (rd2 - rd1) / 2, dev, cg_stat(cg, "zswpin"), cg_stat(cg, "pgmajfault"));
		t_ok(rd2 > rd1, "pages read back from the disk", "no sector read from %s", dev);
	}
	return 0;
}

static void phase1(void)
{
	struct work w = { .npages = 96 * MiB / page_size(), .kind = PAT_MIXED, .seed = SEED1 };
	long long used;

	cg_phase(NULL, "swapfile1", 32 * MiB, worker, &w);
	used = poll_value(get_swaps_used_pages, (void *)dev, UNTIL_LE, 0, 5000);
	/* Swap-cache-only slots may linger until reclaim: informational. */
	t_diag("after the worker exited: %s Used %lld pages", dev, used);
}

static void phase2(void)
{
	struct work w = { .npages = 48 * MiB / page_size(), .kind = PAT_RANDOM,
			  .seed = SEED2, .hold = 1 };
	char *cg = cg_create("swapfile2", 32 * MiB);
	struct cg_worker wk;
	int r, st;

	if (!cg) {
		t_fail("set up worker", "%s", strerror(errno));
		return;
	}
	if (worker_start(&wk, cg, "phase 2", worker, &w)) {
		/* swapoff charges the pages back to the cgroup: let them fit. */
		cg_write(cg, "memory.max", "max");
		errno = 0;
		r = swapoff(dev);
		t_ok(r == 0, "swapoff with pages on the device", "swapoff: %s", strerror(errno));
		t_ok(swaps_count() == 0, "/proc/swaps back to its header", "%d areas listed",
		     swaps_count());
		worker_release(&wk, 1);
		st = worker_finish(&wk, 0);
		t_ok(st == 0, "worker completed after swapoff", "worker %s", status_str(st));
	}
	cg_no_oom_kill(cg, "phase 2");
	cg_destroy(cg);
	free(cg);
}

int main(int argc, char **argv)
{
	struct stat stb;

	if (argc > 1)
		dev = argv[1];
	t_init("swapfile");
	if (stat(dev, &stb) || !S_ISBLK(stb.st_mode))
		t_bail("swap disk present", "%s is not a block device (scenario disks=?)", dev);
	t_ok(swaps_count() == 0, "no swap area active before", "%d listed", swaps_count());
	if (!swap_area_check_on(NULL, dev, -1))
		return t_done();
	t_ok(!swaps_contains("vswap"), "/proc/swaps lists no vswap entry", "vswap listed");

	phase1();
	phase2();
	if (swaps_used_kb(dev) >= 0)
		swapoff(dev);
	t_ok(swaps_count() == 0 && !swaps_contains(dev), "no swap area left",
	     "%d areas listed", swaps_count());
	return t_done();
}

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
 *    sectors are written to the disk (/sys/block stat: the tinyconfig
 *    kernel has no pswpout), and everything reads back byte-exact, with
 *    sectors read from the disk;
 * 2. a second worker pushes 48 MiB of random pages out and stays alive;
 *    swapoff with those pages on the device succeeds, /proc/swaps is back
 *    to its header, and the worker then reads its data back byte-exact.
 */
#include "lib.h"

#include <errno.h>
#include <signal.h>
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
	int hold;		/* phase 2: stop after pageout until told */
	int to_parent[2];	/* child -> parent: "pushed out" */
	int to_child[2];	/* parent -> child: "swapoff done" */
};

static int worker(const char *cg, void *arg)
{
	struct work *w = arg;
	long long used, swcur = -1, rd0, wr0, rd1, wr1, rd2, wr2;
	void *buf = map_anon(w->npages);
	const char *what = w->hold ? "held pages" : "pages";
	char name[128], c = 'x';
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
	cg_read_ll(cg, "memory.swap.current", &swcur);
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

	if (w->hold) {
		close(w->to_parent[0]);
		close(w->to_child[1]);
		if (write(w->to_parent[1], &c, 1) != 1 || read(w->to_child[0], &c, 1) != 1) {
			t_fail("handshake with parent", "%s", strerror(errno));
			return 1;
		}
		if (c != 'g')
			return 0;	/* parent gave up; it reports why */
	}
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
	long long oom = 0, used = -1;
	char *cg = cg_create("swapfile1", 32 * MiB);
	int st;

	if (!cg) {
		t_fail("create cgroup", "%s", strerror(errno));
		return;
	}
	st = cg_run(cg, worker, &w);
	t_ok(st == 0, "worker completed", "worker %s", status_str(st));
	cg_read_key(cg, "memory.events", "oom_kill", &oom);
	t_ok(oom == 0, "no OOM kill", "memory.events oom_kill %lld", oom);
	cg_destroy(cg);
	free(cg);
	for (int i = 0; i < 50 && (used = swaps_used_kb(dev)) > 0; i++)
		usleep(100000);
	/* Swap-cache-only slots may linger until reclaim: informational. */
	t_diag("after the worker exited: %s Used %lld KiB", dev, used);
}

static void phase2(void)
{
	struct work w = { .npages = 48 * MiB / page_size(), .kind = PAT_RANDOM,
			  .seed = SEED2, .hold = 1 };
	char *cg = cg_create("swapfile2", 32 * MiB);
	char c = 'x';
	pid_t pid;
	int r, st;

	if (!cg || pipe(w.to_parent) || pipe(w.to_child)) {
		t_fail("set up worker", "%s", strerror(errno));
		return;
	}
	pid = cg_spawn(cg, worker, &w);
	if (pid < 0) {
		t_fail("spawn worker", "%s", strerror(-pid));
		return;
	}
	close(w.to_parent[1]);
	close(w.to_child[0]);
	if (read(w.to_parent[0], &c, 1) != 1) {
		st = cg_wait(pid);
		t_fail("worker pushed its pages out", "worker %s", status_str(st));
		swapoff(dev);
		return;
	}
	/* swapoff charges the pages back to the cgroup: let them fit. */
	cg_write(cg, "memory.max", "max");
	errno = 0;
	r = swapoff(dev);
	t_ok(r == 0, "swapoff with pages on the device", "swapoff: %s", strerror(errno));
	t_ok(swaps_count() == 0, "/proc/swaps back to its header", "%d areas listed",
	     swaps_count());
	c = 'g';
	if (write(w.to_child[1], &c, 1) != 1)
		kill(pid, SIGKILL);
	st = cg_wait(pid);
	t_ok(st == 0, "worker completed after swapoff", "worker %s", status_str(st));
	cg_destroy(cg);
	free(cg);
}

int main(int argc, char **argv)
{
	struct stat stb;
	int r;

	if (argc > 1)
		dev = argv[1];
	t_init("swapfile");
	if (stat(dev, &stb) || !S_ISBLK(stb.st_mode))
		t_bail("swap disk present", "%s is not a block device (scenario disks=?)", dev);
	t_ok(swaps_count() == 0, "no swap area active before", "%d listed", swaps_count());
	r = make_swap(dev);
	if (r)
		t_bail("write swap header", "%s: %s", dev, strerror(-r));
	t_pass("write swap header");
	errno = 0;
	if (swapon(dev, 0))
		t_bail("swapon", "%s: %s", dev, strerror(errno));
	t_pass("swapon");
	t_ok(swaps_used_kb(dev) >= 0, "/proc/swaps lists the device", "%s not listed", dev);
	t_ok(!swaps_contains("vswap"), "/proc/swaps lists no vswap entry", "vswap listed");

	phase1();
	phase2();
	if (swaps_used_kb(dev) >= 0)
		swapoff(dev);
	t_ok(swaps_count() == 0 && !swaps_contains(dev), "no swap area left",
	     "%d areas listed", swaps_count());
	return t_done();
}

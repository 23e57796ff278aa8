// SPDX-License-Identifier: GPL-2.0
/*
 * vswap_swapoff: swapoff of a swap area that backs a process's swapped-out
 * pages succeeds and loses nothing, while the process holds them and
 * while it keeps writing; with vswap the process's page tables are not
 * touched.
 *
 *   vswap_swapoff [DEVICE]    the swap area (default /dev/vda), in both modes
 *
 * Modes as vswap_phys (swap_env_setup_flags, SWAP_ENV_DISK).
 *
 * Phase 1 (held): a worker in a 64 MiB cgroup writes 24 MiB of order-0
 * pages, even ones compressible (zswap), odd ones random (zswap rejects
 * them: the disk), pushes them out and waits.  With half of them or more
 * on the device (/proc/swaps Used), the parent reclaims the cgroup
 * (memory.reclaim: the written pages leave the swap cache), lifts
 * memory.max and swapoffs the device: swapoff succeeds, reads 3/4 of the
 * random pages or more, and the device leaves /proc/swaps.  Then
 *  - vswap + swap area: the worker's VmSwap (/proc/PID/status) is what it
 *    was before the swapoff (its swap PTEs still point to the same vswap
 *    entries), vswap "used" is unchanged (within 8), vswap "phys" is 0 and
 *    zswap stored_pages did not drop (zswap entries stay where they are);
 *  - regression mode: VmSwap is 0 (try_to_unuse swapped every page in);
 * and the worker reads everything back byte-exact.
 *
 * Phase 2 (writing): a worker in a 64 MiB cgroup keeps rewriting 16 MiB
 * of such pages, 64 at a time, each with a new generation of its pattern,
 * checking first that the page holds the generation it wrote last, and
 * pushes the chunk out.  It counts every page it writes in a progress
 * counter the parent reads (MAP_SHARED).  Three times, with the device
 * swapon'ed and a quarter of the random pages or more on it, the parent
 * waits until the counter moves, swapoffs the device while the worker
 * writes (and swapons it again after each but the last); each swapoff
 * succeeds, the counter advanced between the call of swapoff() and its
 * return (the process really wrote during the swapoff), and (vswap + swap
 * area) vswap "phys" is 0 after it.  At the end the worker checks every
 * page once more.  No page ever held anything but its last generation,
 * the worker completes, nothing is OOM-killed and (vswap + swap area)
 * vswap "used" goes back to 0.
 */
#include "lib.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/swap.h>
#include <time.h>
#include <unistd.h>

#define SEED1	0x5eed0901ULL
#define SEED2	0x5eed0902ULL
#define HELD	(24 * MiB)
#define WSET	(16 * MiB)
#define CHUNK	64	/* pages the writer rewrites between pageouts */
#define ROUNDS	3

static struct swap_env env;

static int vswap_disk(void)
{
	return env.mode == SWAP_VSWAP_DISK;
}

/* ---- phase 1: swapoff while the pages are held ----------------------- */

static int held_worker(const char *cg, void *arg)
{
	size_t npages = HELD / page_size(), bad;
	char *buf = map_anon_4k(npages);

	(void)cg;
	(void)arg;
	if (!buf)
		return t_fail("phase 1: map working set", "mmap: %s", strerror(errno)), 1;
	pat_fill(buf, npages, SEED1, PAT_MIXED);
	pageout(buf, npages);
	if (!worker_sync())
		return 0;	/* the parent gave up and says why */
	bad = pat_verify(buf, npages, SEED1, PAT_MIXED);
	t_ok(bad == 0, "phase 1: held pages read back byte-exact after swapoff",
	     "%zu of %zu pages differ", bad, npages);
	return 0;
}

static void phase1(void)
{
	size_t npages = HELD / page_size();
	long long vmswap0, vmswap1, used0, used1, phys0, phys1, stored0, stored1, disk0;
	long long rd0 = 0, wr0 = 0, rd1 = 0, wr1 = 0;
	char *cg = cg_create("vswap_swapoff1", 64 * MiB);
	struct cg_worker w;
	pid_t pid;
	double t0;
	int r, st;

	if (!cg) {
		t_fail("phase 1: set up", "%s", strerror(errno));
		return;
	}
	if (!worker_start(&w, cg, "phase 1", held_worker, NULL))
		goto out;
	pid = w.pid;
	/*
	 * Written pages stay in the swap cache until reclaim takes them:
	 * reclaim the cgroup, so that swapoff has to read them back.
	 */
	cg_write(cg, "memory.reclaim", "64M");
	disk0 = swaps_used_pages(env.dev);
	vmswap0 = proc_status_kb(pid, "VmSwap");
	used0 = swap_env_used(&env);
	phys0 = vswap_stat("phys");
	stored0 = zswap_stat("stored_pages");
	t_diag("phase 1: %zu pages out: VmSwap %lld KiB, %s used %lld, vswap phys %lld, "
	       "%s Used %lld pages, stored_pages %lld", npages, vmswap0, swap_env_name(&env),
	       used0, phys0, env.dev, disk0, stored0);
	t_ok(disk0 >= (long long)npages / 2 * 3 / 4, "phase 1: random pages are on the device",
	     "Used %lld pages for %zu random pages", disk0, npages / 2);
	t_ok(vmswap0 >= (long long)(HELD >> 10) * 3 / 4, "phase 1: the worker's pages are out "
	     "(VmSwap)", "VmSwap %lld KiB for %lu KiB", vmswap0, HELD >> 10);

	/* swapoff charges what it brings in to the cgroup: let it fit. */
	cg_write(cg, "memory.max", "max");
	blk_sectors(env.dev, &rd0, &wr0);
	t0 = mono_now();
	errno = 0;
	r = swapoff(env.dev);
	t_diag("phase 1: swapoff took %.2fs", mono_now() - t0);
	t_ok(r == 0, "phase 1: swapoff with the pages on the device", "swapoff: %s",
	     strerror(errno));
	blk_sectors(env.dev, &rd1, &wr1);
	/* Regression mode: zswap holds the compressible half, the disk the rest. */
	t_ok(rd0 >= 0 && (rd1 - rd0) / 8 >= (long long)npages / 2 * 3 / 4,
	     "phase 1: swapoff read the random pages from the device",
	     "%lld KiB read for %zu random pages", (rd1 - rd0) / 2, npages / 2);
	t_ok(swaps_used_kb(env.dev) < 0, "phase 1: the device left /proc/swaps",
	     "%d areas listed", swaps_count());

	vmswap1 = proc_status_kb(pid, "VmSwap");
	used1 = swap_env_used(&env);
	phys1 = vswap_stat("phys");
	stored1 = zswap_stat("stored_pages");
	t_diag("phase 1: after swapoff: VmSwap %lld KiB, vswap used %lld, phys %lld, "
	       "stored_pages %lld", vmswap1, used1, phys1, stored1);
	if (vswap_disk()) {
		t_ok(vmswap0 > 0 && vmswap1 == vmswap0,
		     "phase 1: page tables untouched: VmSwap unchanged by swapoff",
		     "VmSwap %lld KiB before, %lld KiB after", vmswap0, vmswap1);
		t_ok(used1 >= 0 && used1 >= used0 - 8 && used1 <= used0 + 8,
		     "phase 1: vswap entries survive swapoff (used unchanged)",
		     "vswap used %lld before, %lld after", used0, used1);
		if (phys1 < 0)
			t_fail("phase 1: no vswap slot backed by the device after swapoff",
			       "no %s/phys counter", VSWAP_DIR);
		else
			t_ok(phys1 == 0, "phase 1: no vswap slot backed by the device after swapoff",
			     "vswap phys %lld (was %lld)", phys1, phys0);
		t_ok(stored0 >= 0 && stored1 >= stored0 - 8, "phase 1: zswap entries stay in zswap",
		     "stored_pages %lld before, %lld after", stored0, stored1);
	} else {
		t_ok(vmswap1 == 0, "phase 1: swapoff swapped every page in (VmSwap 0)",
		     "VmSwap %lld KiB after swapoff (was %lld)", vmswap1, vmswap0);
	}

	worker_release(&w, 1);
	st = worker_finish(&w, 0);
	t_ok(st == 0, "phase 1: worker completed", "worker %s", status_str(st));
out:
	cg_no_oom_kill(cg, "phase 1");
	cg_destroy(cg);
	free(cg);
	if (env.mode != SWAP_DISK)
		vswap_check_used_back("phase 1", 0);
}

/* ---- phase 2: swapoff while the process writes ----------------------- */

/* Shared with the parent (MAP_SHARED): the writer's state and progress. */
struct writer {
	volatile int stop;
	volatile long long written;	/* pages written (progress, counted per page) */
	volatile long long rewritten;	/* pages rewritten and pushed out, per chunk */
	volatile long long stale;	/* pages that did not hold their last generation */
	volatile long long checked;
	const char *cg;		/* the parent's: for memory.reclaim */
};

static uint64_t gen_seed(uint32_t gen)
{
	return SEED2 + ((uint64_t)gen << 32);
}

/*
 * Pages first .. first + n - 1 hold generation gen[i]: the number that do
 * not.  The first 20 are described; after that the test has failed and
 * checking stops, so that a broken kernel does not flood the log.
 */
static size_t check_pages(struct writer *w, const char *buf, const uint32_t *gen,
			  size_t first, size_t n)
{
	size_t bad = 0;

	for (size_t i = first; i < first + n && w->stale + bad < 20; i++)
		bad += pat_verify_from(buf, i, 1, gen_seed(gen[i]), PAT_MIXED);
	return bad;
}

static int writer_worker(const char *cg, void *arg)
{
	struct writer *w = arg;
	size_t npages = WSET / page_size(), ps = page_size(), pos = 0;
	char *buf = map_anon_4k(npages);
	uint32_t *gen = calloc(npages, sizeof(*gen));

	(void)cg;
	if (!buf || !gen)
		return t_fail("phase 2: set up writer", "%s", strerror(errno)), 1;
	for (size_t i = 0; i < npages; i++)
		pat_fill_from(buf, i, 1, gen_seed(0), PAT_MIXED);
	pageout(buf, npages);
	worker_ready();
	while (!w->stop) {
		size_t n = npages - pos < CHUNK ? npages - pos : CHUNK;

		w->stale += check_pages(w, buf, gen, pos, n);
		w->checked += n;
		for (size_t i = pos; i < pos + n; i++) {
			pat_fill_from(buf, i, 1, gen_seed(++gen[i]), PAT_MIXED);
			w->written++;
		}
		pageout(buf + pos * ps, n);
		w->rewritten += n;
		pos = (pos + n) % npages;
	}
	w->stale += check_pages(w, buf, gen, 0, npages);
	w->checked += npages;
	return 0;
}

struct progress {
	struct writer *w;
	long long from;
};

/* Reader for poll_value(): pages the writer wrote since p->from. */
static long long get_progress(void *arg)
{
	struct progress *p = arg;

	return p->w->written - p->from;
}

static void swapoff_round(struct writer *w, int round)
{
	size_t want = WSET / page_size() / 2 / 4;
	long long disk, phys, before, after, rd0 = 0, wr0 = 0, rd1 = 0, wr1 = 0;
	struct progress p = { .w = w };
	char label[32];
	double t0, dt;
	int r;

	snprintf(label, sizeof(label), "phase 2 round %d", round);
	/* Out of the swap cache and onto the device only, as in phase 1. */
	cg_write(w->cg, "memory.reclaim", "16M");
	disk = poll_value(get_swaps_used_pages, (void *)env.dev, UNTIL_GE, want, 10000);
	t_ok(disk >= (long long)want, t_name(label, "the writer's pages are on the device"),
	     "Used %lld pages, want %zu", disk, want);
	/* The writer is writing right now, not stalled. */
	p.from = w->written;
	poll_value(get_progress, &p, UNTIL_GE, 1, 5000);
	blk_sectors(env.dev, &rd0, &wr0);
	t0 = mono_now();
	errno = 0;
	before = w->written;
	r = swapoff(env.dev);
	after = w->written;
	dt = mono_now() - t0;
	blk_sectors(env.dev, &rd1, &wr1);
	phys = vswap_stat("phys");
	t_diag("%s: swapoff with %lld pages on the device took %.2fs and read %lld KiB; "
	       "the writer wrote %lld pages meanwhile (%lld rewritten in all), vswap phys "
	       "%lld after", label, disk, dt, (rd1 - rd0) / 2, after - before, w->rewritten,
	       phys);
	t_ok(r == 0, t_name(label, "swapoff while the process writes"), "swapoff: %s",
	     strerror(errno));
	t_ok(after > before, t_name(label, "the process wrote while swapoff ran"),
	     "writer progress %lld when swapoff was called, %lld when it returned %.3fs later",
	     before, after, dt);
	if (vswap_disk()) {
		if (phys < 0)
			t_fail(t_name(label, "no vswap slot backed by the device after swapoff"),
			       "no %s/phys counter", VSWAP_DIR);
		else
			t_ok(phys == 0,
			     t_name(label, "no vswap slot backed by the device after swapoff"),
			     "vswap phys %lld", phys);
	}
	/* Let the writer fault the pages swapoff brought in. */
	usleep(300000);
}

static void phase2(void)
{
	struct writer *w = mmap(NULL, sizeof(*w), PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	char *cg = cg_create("vswap_swapoff2", 64 * MiB);
	struct cg_worker wk;
	int r, st, ran = 0;

	if (w == MAP_FAILED || !cg) {
		t_fail("phase 2: set up", "%s", strerror(errno));
		return;
	}
	w->cg = cg;
	r = swap_area_on(env.dev, -1);
	if (r) {
		t_fail("phase 2: swapon the device again", "%s: %s", env.dev, strerror(-r));
		goto out;
	}
	if (!worker_start(&wk, cg, "phase 2", writer_worker, w)) {
		swapoff(env.dev);
		goto out;
	}
	cg_write(cg, "memory.max", "max");
	for (int round = 1; round <= ROUNDS; round++) {
		swapoff_round(w, round);
		if (round == ROUNDS)
			break;
		r = swap_area_on(env.dev, -1);
		if (r) {
			t_fail("phase 2: swapon the device again", "%s: %s", env.dev,
			       strerror(-r));
			break;
		}
	}
	w->stop = 1;
	st = worker_finish(&wk, 0);
	t_diag("phase 2: the writer checked %lld pages, rewrote %lld, %lld stale or corrupt",
	       w->checked, w->rewritten, w->stale);
	t_ok(st == 0, "phase 2: writer completed", "writer %s", status_str(st));
	t_ok(w->checked > 0 && w->stale == 0,
	     "phase 2: every page held the generation written last",
	     "%lld of %lld pages checked did not", w->stale, w->checked);
	cg_no_oom_kill(cg, "phase 2");
	ran = 1;
out:
	cg_destroy(cg);
	free(cg);
	munmap(w, sizeof(*w));
	if (ran && env.mode != SWAP_DISK)
		vswap_check_used_back("phase 2", 0);
}

int main(int argc, char **argv)
{
	t_init("vswap_swapoff");
	swap_env_setup_flags(&env, argc, argv, SWAP_ENV_DISK);
	phase1();
	phase2();
	t_ok(swaps_count() == 0, "no swap area left", "%d areas listed", swaps_count());
	return t_done();
}

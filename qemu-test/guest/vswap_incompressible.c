// SPDX-License-Identifier: GPL-2.0
/*
 * vswap_incompressible: pages that zswap rejects (random data) never get
 * lost, leak nothing, and without a swap device stay in memory.
 *
 *   vswap_incompressible [DEVICE]   regression mode: the swap disk (default /dev/vda)
 *
 * Phase 1: a worker writes 16 MiB of random pages (order-0) in a 48 MiB
 * cgroup and pushes them out with MADV_PAGEOUT.  Zswap rejects them
 * (reject_compress_poor + reject_compress_fail rise by half the pages or
 * more, stored_pages does not).
 *  - vswap mode: they stay resident: memory.current and active_anon still
 *    hold the region, nothing is written anywhere, no swap area appears;
 *  - regression mode: they are written to the disk.
 * Every byte reads back.
 *
 * Phase 2: a worker writes 64 MiB of random pages in a 32 MiB cgroup, one
 * 8 MiB chunk at a time, re-reading the previous chunk after each one and
 * everything at the end.
 *  - vswap mode: either the pages stay resident (worker completes) or the
 *    cgroup OOMs (worker SIGKILLed, oom_kill in memory.events, the kill is
 *    constrained to the cgroup): both are accepted and the outcome is
 *    reported.  The expected OOM report is bracketed for dmesg_check.
 *  - regression mode: the worker must complete, no OOM, and the disk was
 *    written and read.
 * Every page the worker read back was byte-exact.
 *
 * After each worker: vswap used back to 0 (vswap mode), zswap stored_pages
 * back to its starting value, and in vswap mode no physical swap used
 * (SwapTotal 0, nothing in /proc/swaps).
 */
#include "lib.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>

#define SEED1 0x5eed0401ULL
#define SEED2 0x5eed0402ULL
#define CHUNK (8 * MiB)

struct work {
	struct swap_env *env;
	size_t npages;
	uint64_t seed;
	/* phase 2 progress, shared with the parent */
	volatile size_t written, verified, bad;
};

static int phase1_worker(const char *cg, void *arg)
{
	struct work *w = arg;
	long long rd0 = 0, wr0 = 0, rd1 = 0, wr1 = 0, rd2 = 0, wr2 = 0;
	long long poor0 = zswap_rejected(), poor, cur, active;
	long long stored0 = zswap_stat("stored_pages"), stored;
	size_t bytes = w->npages * page_size(), bad;
	int disk = w->env->mode == SWAP_DISK;
	void *buf = map_anon_4k(w->npages);

	if (!buf)
		return t_fail("map working set", "mmap: %s", strerror(errno)), 1;
	if (disk && blk_sectors(w->env->dev, &rd0, &wr0))
		return t_fail("block statistics", "cannot read stat of %s", w->env->dev), 1;
	pat_fill(buf, w->npages, w->seed, PAT_RANDOM);
	pageout(buf, w->npages);

	poor = zswap_rejected();
	stored = zswap_stat("stored_pages");
	cur = cg_ll(cg, "memory.current");
	active = cg_stat(cg, "active_anon");
	if (disk)
		blk_sectors(w->env->dev, &rd1, &wr1);
	t_diag("phase 1: %zu random pages pushed out: zswap rejected +%lld, "
	       "stored_pages %lld (was %lld), zswpout %lld, memory.current %lld KiB, "
	       "active_anon %lld KiB, %s used %lld pages, %lld KiB written to disk",
	       w->npages, poor - poor0, stored, stored0, cg_stat(cg, "zswpout"), cur >> 10,
	       active >> 10, swap_env_name(w->env), swap_env_used(w->env), (wr1 - wr0) / 2);
	if (poor < 0)
		t_skip("zswap rejected the random pages", "no zswap reject_compress_* counters");
	else
		t_ok(poor - poor0 >= (long long)w->npages / 2, "zswap rejected the random pages",
		     "reject_compress_poor + reject_compress_fail +%lld for %zu pages",
		     poor - poor0, w->npages);
	t_ok(stored >= 0 && stored - stored0 <= 64, "zswap stored none of them",
	     "stored_pages %lld, was %lld", stored, stored0);
	if (!disk) {
		t_ok(cur >= (long long)bytes * 9 / 10, "rejected pages stay resident (memory.current)",
		     "memory.current %lld KiB for a %zu KiB region", cur >> 10, bytes >> 10);
		t_ok(active >= (long long)bytes * 3 / 4, "rejected pages are on the active list",
		     "active_anon %lld KiB for a %zu KiB region", active >> 10, bytes >> 10);
		t_ok(swaps_count() == 0 && meminfo_kb("SwapTotal") == 0,
		     "no physical swap in use", "%d swap areas, SwapTotal %lld KiB",
		     swaps_count(), meminfo_kb("SwapTotal"));
	} else {
		t_ok(wr1 - wr0 >= (long long)bytes / 512 / 2, "rejected pages written to the disk",
		     "%lld KiB written for %zu KiB", (wr1 - wr0) / 2, bytes >> 10);
	}
	bad = pat_verify(buf, w->npages, w->seed, PAT_RANDOM);
	t_ok(bad == 0, "phase 1: random pages read back byte-exact", "%zu of %zu pages differ",
	     bad, w->npages);
	/* Without pressure the written pages may still be in the swap cache. */
	if (disk) {
		blk_sectors(w->env->dev, &rd2, &wr2);
		t_diag("phase 1 read back: %lld KiB read from %s", (rd2 - rd1) / 2, w->env->dev);
	}
	return 0;
}

/*
 * Write chunk after chunk; after each, re-read the one before (the limit
 * has pushed at it meanwhile), and at the end everything.
 */
static int phase2_worker(const char *cg, void *arg)
{
	struct work *w = arg;
	size_t per = CHUNK / page_size(), ps = page_size(), prev = 0;
	char *buf = map_anon_4k(w->npages);

	(void)cg;
	if (!buf)
		return 2;
	for (size_t done = 0; done < w->npages; ) {
		size_t n = w->npages - done < per ? w->npages - done : per;

		/* One seed per chunk: a page from another chunk is told apart. */
		pat_fill(buf + done * ps, n, w->seed + done, PAT_RANDOM);
		w->written = done + n;
		if (done) {
			w->bad += pat_verify(buf + prev * ps, done - prev, w->seed + prev,
					     PAT_RANDOM);
			w->verified += done - prev;
		}
		prev = done;
		done += n;
	}
	for (size_t v = 0; v < w->npages; v += per) {
		size_t m = w->npages - v < per ? w->npages - v : per;

		w->bad += pat_verify(buf + v * ps, m, w->seed + v, PAT_RANDOM);
		w->verified += m;
	}
	return w->bad ? 1 : 0;
}

static void after_worker(struct swap_env *env, long long stored0, const char *phase)
{
	zswap_check_stored_back(phase, stored0);
	if (env->mode == SWAP_VSWAP) {
		vswap_check_used_back(phase, 0);
		t_ok(swaps_count() == 0 && meminfo_kb("SwapTotal") == 0,
		     t_name(phase, "no physical swap used"), "%d swap areas, SwapTotal %lld KiB",
		     swaps_count(), meminfo_kb("SwapTotal"));
	} else {
		t_diag("%s: after the worker exited %s Used %lld pages", phase, env->dev,
		       swap_env_used(env));
	}
}

static void phase1(struct swap_env *env)
{
	struct work w = { .env = env, .npages = 16 * MiB / page_size(), .seed = SEED1 };
	long long stored0 = zswap_stat("stored_pages");

	cg_phase("phase 1", "vswap_incomp1", 48 * MiB, phase1_worker, &w);
	after_worker(env, stored0, "phase 1");
}

static void phase2(struct swap_env *env)
{
	struct work *w = mmap(NULL, sizeof(*w), PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	long long oom, stored0 = zswap_stat("stored_pages"), rd0 = 0, wr0 = 0, rd1 = 0, wr1 = 0;
	int vswap = env->mode == SWAP_VSWAP, kills0, kills;
	char *cg = cg_create("vswap_incomp2", 32 * MiB);
	size_t npages = 64 * MiB / page_size();
	int st;

	if (w == MAP_FAILED || !cg) {
		t_fail("phase 2: set up", "%s", strerror(errno));
		return;
	}
	w->env = env;
	w->npages = npages;
	w->seed = SEED2;
	kills0 = oom_kills_logged();
	if (!vswap)
		blk_sectors(env->dev, &rd0, &wr0);
	if (vswap)
		oom_expect_begin("vswap_incompressible: 64 MiB random, 32 MiB cgroup, no swap device");
	st = cg_run(cg, phase2_worker, w);
	if (vswap)
		oom_expect_end();
	kills = oom_kills_logged() - kills0;
	oom = cg_oom_kills(cg);
	t_diag("phase 2: worker %s after writing %zu of %zu pages, %zu re-read, %zu bad; "
	       "memory.events oom_kill %lld, %d OOM reports in the log",
	       status_str(st), w->written, npages, w->verified, w->bad, oom, kills);
	if (st == 0) {
		t_pass(vswap ? "phase 2: outcome: pages stayed resident, worker completed" :
		       "phase 2: worker completed");
		cg_no_oom_kill(cg, "phase 2");
	} else if (vswap && st == 128 + SIGKILL) {
		t_ok(oom >= 1, "phase 2: outcome: the cgroup OOMed (clean memcg OOM kill)",
		     oom < 0 ? "SIGKILL, and memory.events cannot be read" :
		     "SIGKILL but memory.events oom_kill %lld", oom);
	} else {
		t_fail(vswap ? "phase 2: worker completed or was OOM-killed" :
		       "phase 2: worker completed", "worker %s", status_str(st));
	}
	t_ok(w->verified > 0 && w->bad == 0, "phase 2: every page read back was byte-exact",
	     "%zu bad of %zu re-read", w->bad, w->verified);
	if (!vswap) {
		blk_sectors(env->dev, &rd1, &wr1);
		t_diag("phase 2: %lld KiB written to %s, %lld KiB read", (wr1 - wr0) / 2,
		       env->dev, (rd1 - rd0) / 2);
		t_ok(rd0 >= 0 && wr0 >= 0 && rd1 > rd0 && wr1 > wr0,
		     "phase 2: pages went to the disk and came back",
		     "%lld KiB written, %lld KiB read", (wr1 - wr0) / 2, (rd1 - rd0) / 2);
	}
	cg_destroy(cg);
	after_worker(env, stored0, "phase 2");
	munmap(w, sizeof(*w));
}

int main(int argc, char **argv)
{
	struct swap_env env;

	t_init("vswap_incompressible");
	swap_env_setup(&env, argc, argv);
	phase1(&env);
	phase2(&env);
	swap_env_teardown(&env);
	return t_done();
}

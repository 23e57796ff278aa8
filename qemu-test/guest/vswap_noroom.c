// SPDX-License-Identifier: GPL-2.0
/*
 * vswap_noroom: when zswap cannot store and there is no swap area, the
 * kernel behaves as one with no swap at all.  vswap slots are of no use
 * then; reclaim must not scan anonymous memory it cannot put anywhere, and
 * nothing may be charged to or counted against memory.swap.
 *
 *   vswap_noroom          both of these, in this order:
 *   vswap_noroom memcg    memory.zswap.max = 0 in a 32 MiB cgroup
 *   vswap_noroom global   no cgroup limit, zswap's pool at max_pool_percent
 *
 * No swap area may be listed.  memcg: a worker in a fresh cgroup with
 * memory.max 32 MiB and memory.zswap.max 0 touches 64 MiB of compressible
 * pages.  It must be OOM-killed (it has nowhere to go); the cgroup's
 * memory.stat pgscan stays within an eighth of the 32 MiB excess (a
 * kernel with no swap scans none: only the anon LRU holds its pages);
 * zswpout is 0, memory.swap.peak 0, memory.swap.events max and fail 0.
 *
 * global: zswap's max_pool_percent is set to 1 (put back at the end), and a
 * hog in the root cgroup (oom_score_adj 1000, this test -1000) writes
 * compressible pages until the machine runs out of memory, 4 MiB mappings
 * one after the other, up to twice MemTotal.  It must be OOM-killed.  Once the pool is full
 * nothing else can be swapped: zswap's pool_limit_hit may rise by at most
 * 4096 (one refused page each while reclaim still tries) where a kernel
 * that keeps reclaiming into a full pool counts hundreds of thousands; the
 * time to the kill and the anon pages scanned are reported.
 *
 * Both modes run unchanged with vswap=off and on the unpatched kernel.
 */
#include "lib.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define SEED	0x5eed0f01ULL
#define MAX	(32 * MiB)
#define WSET	(64 * MiB)
#define POOL	ZSWAP_PARAM "/max_pool_percent"

static int touch(const char *cg, void *arg)
{
	size_t npages = WSET / page_size();
	char *buf = map_anon_4k(npages);

	(void)cg;
	(void)arg;
	if (!buf)
		return 1;
	pat_fill(buf, npages, SEED, PAT_COMPRESSIBLE);
	/* Not reached while the limit holds: the fill is OOM-killed. */
	return pat_verify(buf, npages, SEED, PAT_COMPRESSIBLE) ? 2 : 0;
}

static void memcg_mode(void)
{
	long long excess = (WSET - MAX) / page_size(), scan, peak, smax, sfail;
	char *cg = cg_create("vswap_noroom", MAX);
	double t0;
	int st;

	if (!cg)
		t_bail("create cgroup", "%s", strerror(errno));
	if (cg_write(cg, "memory.zswap.max", "0"))
		t_bail("memory.zswap.max = 0", "%s", strerror(errno));
	oom_expect_begin("vswap_noroom: nowhere to swap, the worker must be OOM-killed");
	t0 = mono_now();
	st = cg_run(cg, touch, NULL);
	oom_expect_end();
	scan = cg_stat(cg, "pgscan");
	peak = cg_ll(cg, "memory.swap.peak");
	if (cg_read_key(cg, "memory.swap.events", "max", &smax))
		smax = -1;
	if (cg_read_key(cg, "memory.swap.events", "fail", &sfail))
		sfail = -1;
	t_diag("worker ended (%s) after %.2fs: pgscan %lld, pgactivate %lld, zswpout %lld, "
	       "memory.swap.peak %lld, memory.swap.events max %lld fail %lld",
	       status_str(st), mono_now() - t0, scan, cg_stat(cg, "pgactivate"),
	       cg_stat(cg, "zswpout"), peak, smax, sfail);
	t_ok(st == 128 + SIGKILL && cg_oom_kills(cg) > 0,
	     "the worker was OOM-killed: it had nowhere to go",
	     "%s, oom_kill %lld", status_str(st), cg_oom_kills(cg));
	t_ok(scan >= 0 && scan <= excess / 8,
	     "reclaim did not scan what it could not swap (pgscan)",
	     "pgscan %lld, at most %lld", scan, excess / 8);
	t_ok(cg_stat(cg, "zswpout") == 0, "nothing went to zswap (zswpout 0)",
	     "zswpout %lld", cg_stat(cg, "zswpout"));
	t_ok(peak == 0, "memory.swap.peak stays 0", "memory.swap.peak %lld", peak);
	t_ok(smax == 0 && sfail == 0, "memory.swap.events max and fail stay 0",
	     "max %lld fail %lld", smax, sfail);
	cg_destroy(cg);
	free(cg);
}

/*
 * The hog: write compressible pages until killed, 4 MiB mappings one after
 * the other (one mapping of twice RAM is refused by the overcommit
 * heuristic where vswap does not count as swap).
 */
static void hog(size_t limit)
{
	size_t step = 4 * MiB / page_size(), done;
	char *buf;

	if (write_file("/proc/self/oom_score_adj", "1000"))
		_exit(1);
	for (done = 0; done < limit; done += 4 * MiB) {
		buf = map_anon_4k(step);
		if (!buf)
			_exit(2);
		pat_fill(buf, step, SEED + done, PAT_COMPRESSIBLE);
	}
	_exit(0);
}

static void global_mode(void)
{
	long long total = meminfo_kb("MemTotal"), pool0 = -1, hit0, hit, scan0, scan;
	char old[32] = "";
	double t0, t1;
	pid_t pid;
	int st;

	if (read_file(POOL, old, sizeof(old)) < 0 || write_file(POOL, "1"))
		t_bail("zswap max_pool_percent = 1", "%s", POOL);
	write_file("/proc/self/oom_score_adj", "-1000");
	hit0 = zswap_stat("pool_limit_hit");
	scan0 = vmstat("pgscan_anon");
	pool0 = zswap_stat("pool_total_size");
	oom_expect_global_begin("vswap_noroom: the hog fills RAM and the zswap pool");
	t0 = mono_now();
	pid = fork();
	if (pid == 0)
		hog((size_t)total * 1024 * 2);
	st = pid < 0 ? -errno : cg_wait(pid);
	t1 = mono_now();
	oom_expect_end();
	hit = zswap_stat("pool_limit_hit") - hit0;
	scan = vmstat("pgscan_anon") - scan0;
	t_diag("hog ended (%s) after %.2fs: pool_limit_hit +%lld, pgscan_anon +%lld, "
	       "zswpout %lld, pool_total_size %lld KiB (was %lld)", status_str(st), t1 - t0,
	       hit, scan, vmstat("zswpout"), zswap_stat("pool_total_size") >> 10, pool0 >> 10);
	t_ok(st == 128 + SIGKILL, "the hog was OOM-killed", "%s", status_str(st));
	t_ok(hit0 >= 0 && hit <= 4096, "reclaim stopped swapping once the pool was full "
	     "(pool_limit_hit)", "pool_limit_hit +%lld, at most 4096", hit);
	write_file("/proc/self/oom_score_adj", "0");
	write_file(POOL, old);
}

int main(int argc, char **argv)
{
	t_init("vswap_noroom");
	if (argc > 2 || (argc == 2 && strcmp(argv[1], "memcg") && strcmp(argv[1], "global")))
		t_bail("usage", "vswap_noroom [memcg|global]");
	t_ok(swaps_count() == 0, "no swap area in /proc/swaps", "%d listed", swaps_count());
	zswap_check_enabled(1);
	if (argc == 1 || !strcmp(argv[1], "memcg"))
		memcg_mode();
	if (argc == 1 || !strcmp(argv[1], "global"))
		global_mode();
	return t_done();
}

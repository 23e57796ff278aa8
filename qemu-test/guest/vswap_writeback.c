// SPDX-License-Identifier: GPL-2.0
/*
 * vswap_writeback: zswap writeback moves entries from zswap to the swap
 * area (vswap entries too, without touching page tables), not at all with
 * memory.zswap.writeback=0, and fails cleanly with no swap area.
 *
 *   vswap_writeback [DEVICE]  with DEVICE: a swap area on it (vswap + swap
 *                             area, or regression mode); without, with
 *                             vswap=on: zswap only; regression mode uses
 *                             /dev/vda then
 *
 * Each phase: a worker in a 64 MiB cgroup writes C1 = 8 MiB of
 * compressible order-0 pages and pushes them out (zswap stores them:
 * stored_pages rises by 3/4 of them or more).  memory.zswap.max is then
 * lowered to a quarter of memory.zswap.current and C2 = 24 MiB more are
 * pushed out, 4 MiB at a time: each store over the limit makes zswap
 * write back (or, while the LRU's second-chance bits are still set,
 * reject) one of the cgroup's older entries (zswap_store ->
 * shrink_memcg).  Then memory.reclaim of the whole cgroup empties the swap
 * cache (what is left resident is reclaimed again).
 *
 * Phase 1, memory.zswap.writeback=1:
 *  - with a swap area: written_back_pages and the cgroup's zswpwb rose by
 *    half of C1 or more; sectors written to the disk cover 3/4 of the
 *    written-back pages; vswap + swap area: vswap "phys" rose by 3/4 of
 *    them or more (the entries moved, their vswap slots did not), and the
 *    pages over memory.zswap.max took physical slots directly, as without
 *    vswap (zswap may not store for the cgroup, so vswap gives no slot):
 *    Used - phys covers 3/4 of C2, vswap "used" stays under C1 + C2 / 8;
 *  - zswap only: writeback of a vswap entry has nowhere to go, so pages
 *    over memory.zswap.max get no vswap slot and stay in memory, as with
 *    no swap at all (vswap "used" stays under C1 + C2 / 8),
 *    written_back_pages and zswpwb did not move, no swap area appeared.
 * Phase 2, memory.zswap.writeback=0, and 1 MiB of random pages (zswap
 * rejects them) pushed out at the end: written_back_pages and zswpwb do
 * not move and no page reaches the disk (less than 64 KiB written; in
 * 6.12 the knob keeps rejected pages off the disk too); vswap + swap
 * area: vswap "phys" is 0, and the pages over memory.zswap.max hold
 * physical slots directly (Used covers 3/4 of C2) that nothing was
 * written to.
 * In both phases every page reads back byte-exact, the worker completes
 * with no OOM kill and (vswap modes) vswap "used" is 0 afterwards.
 */
#include "lib.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SEED1	0x5eed0801ULL
#define SEED2	0x5eed0802ULL
#define SEEDR	0x5eed0803ULL
#define C1	(8 * MiB)
#define C2	(24 * MiB)
#define STEP	(4 * MiB)
#define RND	(1 * MiB)
/* Pages the per-CPU swap slot caches may hold (64 a CPU, alloc and free). */
#define SLACK	256

static struct swap_env env;

struct counters {
	long long wb;		/* zswap written_back_pages */
	long long zswpwb;	/* the cgroup's memory.stat zswpwb */
	long long fail;		/* zswap reject_reclaim_fail */
	long long rd, wr;	/* sectors of the disk */
	long long phys;		/* vswap phys */
	long long disk;		/* /proc/swaps Used, pages */
};

static int has_disk(void)
{
	return env.mode != SWAP_VSWAP;
}

static void sample(const char *cg, struct counters *c)
{
	c->wb = zswap_stat("written_back_pages");
	c->zswpwb = cg_stat(cg, "zswpwb");
	c->fail = zswap_stat("reject_reclaim_fail");
	c->rd = c->wr = 0;
	c->phys = vswap_stat("phys");
	c->disk = has_disk() ? swaps_used_pages(env.dev) : 0;
	if (has_disk())
		blk_sectors(env.dev, &c->rd, &c->wr);	/* -1 if unreadable */
}

static void show(const char *when, const struct counters *c)
{
	t_diag("%s: written_back_pages %lld, zswpwb %lld, reject_reclaim_fail %lld, "
	       "vswap phys %lld, Used %lld pages, %lld KiB written, %lld KiB read", when,
	       c->wb, c->zswpwb, c->fail, c->phys, c->disk, c->wr / 2, c->rd / 2);
}

/* Name a check after its phase. */
static const char *nm(int wb, const char *what)
{
	static char buf[200];

	snprintf(buf, sizeof(buf), "writeback %s: %s", wb ? "on" : "off", what);
	return buf;
}

static int worker(const char *cg, void *arg)
{
	int wb = *(int *)arg;
	size_t n1 = C1 / page_size(), n2 = C2 / page_size(), nr = RND / page_size();
	size_t step = STEP / page_size(), ps = page_size(), bad;
	long long stored0 = zswap_stat("stored_pages"), stored, cur = -1, used;
	struct counters a, b, c;
	char *p1 = map_anon_4k(n1), *p2 = map_anon_4k(n2), *pr = map_anon_4k(nr);
	char val[32];

	if (!p1 || !p2 || !pr)
		return t_fail("map working set", "mmap: %s", strerror(errno)), 1;
	pat_fill(p1, n1, SEED1, PAT_COMPRESSIBLE);
	pageout(p1, n1);
	stored = zswap_stat("stored_pages");
	cg_read_ll(cg, "memory.zswap.current", &cur);
	t_diag("first %zu pages out: stored_pages +%lld, memory.zswap.current %lld bytes, "
	       "%s used %lld", n1, stored - stored0, cur, swap_env_name(&env),
	       swap_env_used(&env));
	t_ok(stored - stored0 >= (long long)n1 * 3 / 4, nm(wb, "first pages went to zswap"),
	     "stored_pages +%lld for %zu pages", stored - stored0, n1);
	snprintf(val, sizeof(val), "%lld", cur > 16 ? cur / 4 : 4096);
	t_ok(cur > 0 && !cg_write(cg, "memory.zswap.max", val),
	     nm(wb, "memory.zswap.max lowered below memory.zswap.current"),
	     "memory.zswap.current %lld, writing %s", cur, val);

	sample(cg, &a);
	show("before", &a);
	for (size_t i = 0; i < n2; i += step) {
		size_t k = n2 - i < step ? n2 - i : step;

		pat_fill_from(p2, i, k, SEED2, PAT_COMPRESSIBLE);
		pageout(p2 + i * ps, k);
	}
	if (!wb) {
		pat_fill(pr, nr, SEEDR, PAT_RANDOM);
		pageout(pr, nr);
	}
	/*
	 * Reclaim the whole cgroup: written-back and written pages leave the
	 * swap cache, so the read-back below comes from the disk.  It fails
	 * with EAGAIN when less could be reclaimed (writeback off): fine.
	 */
	cg_write(cg, "memory.reclaim", "64M");
	/* Written-back and rejected pages are written asynchronously. */
	for (int i = 0; i < 30; i++) {
		usleep(100000);
		sample(cg, &b);
		if (!has_disk() || (b.wr - a.wr) / 8 >= b.wb - a.wb)
			break;
	}
	cg_read_ll(cg, "memory.zswap.current", &cur);
	used = swap_env_used(&env);
	show("after", &b);
	t_diag("after: memory.zswap.current %lld bytes, zswpout %lld, %s used %lld",
	       cur, cg_stat(cg, "zswpout"), swap_env_name(&env), used);

	if (wb && has_disk()) {
		t_ok(b.wb - a.wb >= (long long)n1 / 2, nm(wb, "zswap wrote entries back"),
		     "written_back_pages +%lld for %zu pages", b.wb - a.wb, n1);
		t_ok(b.zswpwb - a.zswpwb >= (long long)n1 / 2, nm(wb, "zswpwb counts them"),
		     "zswpwb %lld -> %lld", a.zswpwb, b.zswpwb);
		t_ok((b.wr - a.wr) / 8 >= (b.wb - a.wb) * 3 / 4,
		     nm(wb, "written-back pages reached the disk"),
		     "%lld KiB written for %lld pages written back", (b.wr - a.wr) / 2, b.wb - a.wb);
	} else if (wb) {
		t_ok(b.wb == a.wb && b.zswpwb == a.zswpwb,
		     nm(wb, "no swap area: nothing written back"),
		     "written_back_pages %lld -> %lld, zswpwb %lld -> %lld",
		     a.wb, b.wb, a.zswpwb, b.zswpwb);
		t_ok(used >= 0 && used <= (long long)(n1 + n2 / 8),
		     nm(wb, "no swap area: pages over memory.zswap.max got no vswap slot"),
		     "vswap used %lld for %zu + %zu pages", used, n1, n2);
		t_ok(swaps_count() == 0, nm(wb, "no swap area appeared"), "%d listed",
		     swaps_count());
	} else {
		t_ok(b.wb == a.wb && b.zswpwb == a.zswpwb, nm(wb, "nothing written back"),
		     "written_back_pages %lld -> %lld, zswpwb %lld -> %lld",
		     a.wb, b.wb, a.zswpwb, b.zswpwb);
		if (has_disk())
			t_ok(a.wr >= 0 && b.wr >= 0 && b.wr - a.wr < 128,
			     nm(wb, "no page reached the disk"),
			     "%lld KiB written to %s", (b.wr - a.wr) / 2, env.dev);
	}
	if (env.mode == SWAP_VSWAP_DISK && wb) {
		if (b.phys < 0)
			t_fail(nm(wb, "written-back vswap entries got physical slots"),
			       "no %s/phys counter", VSWAP_DIR);
		else
			t_ok(b.phys - a.phys >= (b.wb - a.wb) * 3 / 4,
			     nm(wb, "written-back vswap entries got physical slots"),
			     "vswap phys %lld -> %lld for %lld written back", a.phys, b.phys,
			     b.wb - a.wb);
		t_ok(b.phys >= 0 && b.disk - b.phys >= (long long)n2 * 3 / 4 &&
		     b.disk - b.phys <= (long long)n2 + SLACK,
		     nm(wb, "pages over memory.zswap.max took physical slots directly"),
		     "Used %lld pages, vswap phys %lld, for %zu pages", b.disk, b.phys, n2);
		t_ok(used >= 0 && used <= (long long)(n1 + n2 / 8),
		     nm(wb, "and no vswap slot"),
		     "vswap used %lld for %zu + %zu pages", used, n1, n2);
	} else if (env.mode == SWAP_VSWAP_DISK) {
		t_ok(b.phys == 0, nm(wb, "no vswap slot got a physical slot"),
		     "vswap phys %lld", b.phys);
		t_ok(b.disk >= (long long)n2 * 3 / 4 && b.disk <= (long long)(n2 + n1) + SLACK,
		     nm(wb, "pages over memory.zswap.max hold physical slots directly"),
		     "Used %lld pages for %zu", b.disk, n2);
	}

	bad = pat_verify(p1, n1, SEED1, PAT_COMPRESSIBLE);
	bad += pat_verify(p2, n2, SEED2, PAT_COMPRESSIBLE);
	if (!wb)
		bad += pat_verify(pr, nr, SEEDR, PAT_RANDOM);
	sample(cg, &c);
	t_diag("read back: %lld KiB read from the disk, zswpin %lld", (c.rd - b.rd) / 2,
	       cg_stat(cg, "zswpin"));
	t_ok(bad == 0, nm(wb, "every page read back byte-exact"), "%zu pages differ", bad);
	if (wb && has_disk())
		t_ok(c.rd > b.rd, nm(wb, "written-back pages read back from the disk"),
		     "no sector read from %s", env.dev);
	return 0;
}

static void phase(int wb)
{
	const char *label = wb ? "writeback on" : "writeback off";
	char *cg = cg_create(wb ? "vswap_wb_on" : "vswap_wb_off", 64 * MiB);
	int r;

	if (!cg) {
		t_fail(nm(wb, "create cgroup"), "%s", strerror(errno));
		return;
	}
	r = cg_write(cg, "memory.zswap.writeback", wb ? "1" : "0");
	if (r)
		t_fail(nm(wb, "set memory.zswap.writeback"), "%s", strerror(-r));
	else
		cg_run_ok(cg, label, worker, &wb);
	cg_destroy(cg);
	free(cg);
	if (env.mode != SWAP_DISK)
		vswap_check_used_back(label, 0);
	else
		t_diag("after the worker exited: %s Used %lld pages", env.dev,
		       swaps_used_pages(env.dev));
}

int main(int argc, char **argv)
{
	char root_wb[16] = "?", shrinker[16] = "?";

	t_init("vswap_writeback");
	swap_env_setup_flags(&env, argc, argv, SWAP_ENV_DISK_ARG);
	read_file(CGROOT "/memory.zswap.writeback", root_wb, sizeof(root_wb));
	read_file("/sys/module/zswap/parameters/shrinker_enabled", shrinker, sizeof(shrinker));
	t_diag("root memory.zswap.writeback %.1s, zswap shrinker_enabled %.1s", root_wb,
	       shrinker);
	if (zswap_stat("written_back_pages") < 0)
		t_bail("zswap debugfs counters", "no %s/zswap/written_back_pages", DEBUGFS);
	phase(1);
	phase(0);
	swap_env_teardown(&env);
	return t_done();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * vswap_memcg: with vswap, memory.swap.* counts physical swap only.  A page
 * in zswap or a zero-filled page costs no disk and is not charged there; a
 * page is charged while a physical slot backs it.  vswap=off (regression
 * mode): memory.swap.* counts every swapped-out page, zswap included, as
 * 6.12 does.
 *
 *   vswap_memcg [DEVICE]      with DEVICE: a swap area on it (vswap + swap
 *                             area, or regression mode); without, with
 *                             vswap=on: zswap only; regression mode uses
 *                             /dev/vda then
 *
 * zswap: a worker in a 32 MiB cgroup writes 160 MiB of compressible and
 * 32 MiB of zero-filled order-0 pages (regression mode: half, for the
 * slots of a 128 MiB area), 16 MiB at a time, each chunk pushed out.
 * vswap: with memory.swap.max = 0 the pages still go to zswap (zswpout
 * covers 3/4 of the compressible ones), memory.swap.current is 0 at every
 * step and memory.swap.peak is 0, memory.zswap.current > 0, no OOM kill.
 * Regression mode: memory.swap.max stays "max" and memory.swap.current
 * covers 3/4 of the zswap-stored pages.
 *
 * physical (a swap area): 32 MiB of random pages (zswap rejects them)
 * pushed out: memory.swap.current equals vswap "phys" and /proc/swaps Used
 * (vswap: exactly; regression: within the per-CPU slot caches) and covers
 * 3/4 of the pages.  Then 8 MiB of compressible pages to zswap, and
 * memory.zswap.max lowered under memory.zswap.current while 16 MiB more
 * are stored (twice as many: each store over the limit walks one zswap
 * LRU entry, and a new entry's second chance costs one walk before it can
 * be written back): zswap writes entries back, and memory.swap.current
 * rises with vswap "phys" and the direct slots (see below), by no less than
 * written_back_pages.  All of it reads back byte-exact.
 *
 * swap.max: memory.swap.max = 4 MiB, 16 MiB random and 16 MiB compressible
 * pushed out: memory.swap.current stays at or under 4 MiB, the events "max"
 * count refusals; vswap: the compressible pages are in zswap anyway
 * (zswpout covers 3/4 of them), the refused random pages stay resident.
 * Byte-exact.
 *
 * offline owner: a worker swaps 8 MiB of compressible pages to zswap in a
 * child cgroup, the child is deleted and the worker moves to the parent.
 * vswap: the parent's memory.swap.current is 0 (regression: it shows the
 * child's pages).  With a swap area, the worker then stores 16 MiB more
 * with the parent's memory.zswap.max lowered: a quarter of the deleted
 * child's entries or more are written back, and (vswap) the parent's
 * memory.swap.current rises with "phys" and the direct slots.  Every page reads
 * back byte-exact.  After the worker exits, the parent's
 * memory.swap.current and memory.zswap.current are 0.
 *
 * offline, swap.max 0 (vswap with a swap area): the same, with the child's
 * memory.swap.max at 0 before it is deleted.  The child still stores in
 * zswap (memory.swap.max does not cover it), and writeback of its entries
 * after deletion charges the parent, the first online ancestor, as zswap's
 * own memory is reparented: nobody can raise a deleted cgroup's limit, so
 * charging it would keep those entries in zswap for good.
 *
 * With vswap, pages over a lowered memory.zswap.max take physical slots
 * directly (vswap gives a slot only where zswap may store): memory.swap
 * charges them as 6.12 does, so "physical" and "offline" expect
 * memory.swap.current to rise with vswap "phys" plus those pages, and from
 * then on the per-CPU slot caches make Used and memory.swap.current exact
 * only within SLACK, as in regression mode.
 *
 * debugfs (vswap): at every checkpoint above, vswap "zswap" equals
 * zswap's stored_pages, "phys" equals Used (once direct slots exist: at
 * most), and zswap + zero + phys equals
 * "used" (swap.max: at most "used", as refused pages keep a slot in
 * memory); the zero pages of the zswap phase are all in "zero"; under
 * swap.max, "phys_reject" rises exactly with memory.swap.events max.
 *
 * After every worker: memory.swap.current 0 (regression: within the slot
 * caches), memory.zswap.current 0, (vswap) vswap "used", "zswap", "zero"
 * and "phys" 0, /proc/swaps Used 0 (regression: within the slot caches).
 */
#include "lib.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SEED_C	0x5eed0a01ULL
#define SEED_Z	0x5eed0a02ULL
#define SEED_R	0x5eed0a03ULL
#define SEED_W	0x5eed0a04ULL
#define CHUNK	(16 * MiB)
/* Pages the per-CPU swap slot caches may hold (64 a CPU, alloc and free). */
#define SLACK	256

static struct swap_env env;
/*
 * vswap gives a page a slot only where zswap may store it: once a phase
 * lowers memory.zswap.max with a swap area (physical, offline), the pages
 * over it take physical slots directly, as without vswap, through the
 * per-CPU slot caches.  From then on stored_pages and Used also count
 * those, and Used and memory.swap.current what the caches hold (SLACK).
 */
static int direct;

static int vsw(void)
{
	return env.mode != SWAP_DISK;
}

static int has_disk(void)
{
	return env.mode != SWAP_VSWAP;
}

static long long swap_cur_pages(const char *cg)
{
	long long v = cg_ll(cg, "memory.swap.current");

	return v < 0 ? v : v / (long long)page_size();
}

static long long disk_used(void)
{
	return has_disk() ? swaps_used_pages(env.dev) : 0;
}

/*
 * vswap's debugfs counters at a checkpoint: "zswap" equals zswap's
 * stored_pages (every zswap entry here is a vswap slot's: order-0 anonymous
 * pages only), "phys" the area's Used, and zswap + zero + phys make up
 * "used": exactly when every slot in use has a backend, at most "used"
 * when some folios stay in memory with a slot and no backend (a refused
 * physical slot).  Nothing to check in regression mode.
 */
static void check_backends(const char *when, int exact)
{
	long long used = vswap_stat("used"), z = vswap_stat("zswap");
	long long zero = vswap_stat("zero"), phys = vswap_stat("phys");
	long long stored = zswap_stat("stored_pages"), disk = disk_used();
	long long sum = z + zero + phys;
	char name[160];

	if (!vsw())
		return;
	t_diag("%s: vswap used %lld = zswap %lld + zero %lld + phys %lld%s; "
	       "stored_pages %lld, Used %lld pages, alloc_reject %lld, phys_reject %lld",
	       when, used, z, zero, phys, exact ? "" : " + in memory", stored, disk,
	       vswap_stat("alloc_reject"), vswap_stat("phys_reject"));
	snprintf(name, sizeof(name), "%s: debugfs zswap + zero + phys %s used", when,
		 exact ? "equal" : "within");
	t_ok(z >= 0 && zero >= 0 && phys >= 0 && (exact ? sum == used : sum <= used),
	     name, "%lld + %lld + %lld vs used %lld", z, zero, phys, used);
	if (direct) {
		snprintf(name, sizeof(name), "%s: debugfs zswap <= stored_pages, phys <= Used "
			 "(and direct slots)", when);
		t_ok(z <= stored && phys <= disk, name, "zswap %lld vs %lld, phys %lld vs %lld",
		     z, stored, phys, disk);
		return;
	}
	snprintf(name, sizeof(name), "%s: debugfs zswap = stored_pages, phys = Used", when);
	t_ok(z == stored && phys == disk, name, "zswap %lld vs %lld, phys %lld vs %lld",
	     z, stored, phys, disk);
}

/* Equal (vswap: exactly), or within the slot caches (regression mode). */
static int matches(long long a, long long b)
{
	long long slack = vsw() && !direct ? 0 : SLACK;

	return a >= 0 && b >= 0 && a - b <= slack && b - a <= slack;
}

/* Push pages out in CHUNK steps, each filled just before. */
static void fill_out(char *p, size_t npages, uint64_t seed, enum pat_kind kind)
{
	size_t step = CHUNK / page_size();

	for (size_t i = 0; i < npages; i += step) {
		size_t k = npages - i < step ? npages - i : step;

		pat_fill_from(p, i, k, seed, kind);
		pageout(p + i * page_size(), k);
	}
}

/* ---- zswap and zero pages cost no physical swap ---------------------- */

static int zswap_worker(const char *cg, void *arg)
{
	/* Regression mode: every page takes a slot of the 128 MiB area. */
	size_t nc = (vsw() ? 160 : 80) * MiB / page_size();
	size_t nz = (vsw() ? 32 : 16) * MiB / page_size();
	size_t step = CHUNK / page_size(), bad;
	long long cur, maxcur = 0, zcur = -1, peak = -1, zout;
	char *pc = map_anon_4k(nc), *pz = map_anon_4k(nz);

	(void)arg;
	if (!pc || !pz)
		return t_fail("zswap: map", "mmap: %s", strerror(errno)), 1;
	for (size_t i = 0; i < nc; i += step) {
		pat_fill_from(pc, i, step, SEED_C, PAT_COMPRESSIBLE);
		pageout(pc + i * page_size(), step);
		cur = swap_cur_pages(cg);
		maxcur = cur > maxcur ? cur : maxcur;
		if (i / step % 2 == 0 && i / step / 2 * step < nz) {
			size_t z = i / step / 2 * step;

			pat_fill_from(pz, z, step, SEED_Z, PAT_ZERO);
			pageout(pz + z * page_size(), step);
		}
	}
	cg_read_ll(cg, "memory.zswap.current", &zcur);
	cg_read_ll(cg, "memory.swap.peak", &peak);
	zout = cg_stat(cg, "zswpout");
	t_diag("zswap: zswpout %lld, swpout_zero %lld, memory.zswap.current %lld, "
	       "memory.swap.current max %lld pages, peak %lld bytes, stored_pages %lld",
	       zout, cg_stat(cg, "swpout_zero"), zcur, maxcur, peak,
	       zswap_stat("stored_pages"));
	t_ok(zcur > 0, "zswap: memory.zswap.current > 0", "%lld", zcur);
	check_backends("zswap", 1);
	if (vsw()) {
		long long zero = vswap_stat("zero"), zpout = cg_stat(cg, "swpout_zero");

		t_ok(zero == zpout && zero >= (long long)nz * 3 / 4,
		     "zswap: debugfs zero counts the zero pages swapped out",
		     "zero %lld, swpout_zero %lld, for %zu pages", zero, zpout, nz);
		t_ok(zout >= (long long)nc * 3 / 4,
		     "zswap: memory.swap.max 0 does not keep pages out of zswap",
		     "zswpout %lld for %zu pages", zout, nc);
		t_ok(maxcur == 0 && peak == 0,
		     "zswap: memory.swap.current and .peak stay 0",
		     "current up to %lld pages, peak %lld bytes", maxcur, peak);
	} else {
		t_ok(maxcur >= zswap_stat("stored_pages") * 3 / 4 && maxcur > 0,
		     "zswap: regression: memory.swap.current counts zswap pages",
		     "current up to %lld pages, stored_pages %lld", maxcur,
		     zswap_stat("stored_pages"));
	}
	bad = pat_verify(pc, nc, SEED_C, PAT_COMPRESSIBLE);
	bad += pat_verify(pz, nz, SEED_Z, PAT_ZERO);
	t_ok(bad == 0, "zswap: every page read back byte-exact", "%zu pages differ", bad);
	return 0;
}

/* ---- physical slots are charged, page for page ----------------------- */

struct snap {
	long long cur, phys, disk, wb;
};

static void snap(const char *cg, struct snap *s, const char *when)
{
	long long events = -1;

	s->cur = swap_cur_pages(cg);
	s->phys = vswap_stat("phys");
	s->disk = disk_used();
	s->wb = zswap_stat("written_back_pages");
	cg_read_key(cg, "memory.swap.events", "max", &events);
	t_diag("%s: memory.swap.current %lld pages, vswap phys %lld, Used %lld pages, "
	       "written_back_pages %lld, memory.swap.events max %lld", when, s->cur,
	       s->phys, s->disk, s->wb, events);
	t_diag("%s: zswpwb %lld, zswpout %lld, reject_reclaim_fail %lld, "
	       "reject_compress_poor %lld, reject_compress_fail %lld, stored_pages %lld",
	       when,
	       cg_stat(cg, "zswpwb"), cg_stat(cg, "zswpout"),
	       zswap_stat("reject_reclaim_fail"), zswap_stat("reject_compress_poor"),
	       zswap_stat("reject_compress_fail"), zswap_stat("stored_pages"));
}

/* Pages written back and written asynchronously: wait for the counters to settle. */
static void settle(const char *cg, struct snap *s, const char *when)
{
	struct snap prev = { -1, -1, -1, -1 };

	for (int i = 0; i < 30; i++) {
		usleep(100000);
		s->cur = swap_cur_pages(cg);
		s->phys = vswap_stat("phys");
		s->disk = disk_used();
		s->wb = zswap_stat("written_back_pages");
		if (!memcmp(s, &prev, sizeof(prev)))
			break;
		prev = *s;
	}
	snap(cg, s, when);
}

static int phys_worker(const char *cg, void *arg)
{
	size_t nr = 32 * MiB / page_size(), nc = 8 * MiB / page_size();
	size_t nw = 16 * MiB / page_size(), bad;
	char *pr = map_anon_4k(nr), *pc = map_anon_4k(nc), *pw = map_anon_4k(nw);
	long long zcur = -1;
	struct snap a, b;
	char val[32];

	(void)arg;
	direct = 0;	/* this worker's first checkpoints are exact */
	if (!pr || !pc || !pw)
		return t_fail("physical: map", "mmap: %s", strerror(errno)), 1;
	fill_out(pr, nr, SEED_R, PAT_RANDOM);
	settle(cg, &a, "random pages out");
	check_backends("random pages out", 1);
	t_ok(a.cur >= (long long)nr * 3 / 4, "physical: random pages are charged",
	     "memory.swap.current %lld pages for %zu", a.cur, nr);
	t_ok(matches(a.cur, a.disk), "physical: memory.swap.current equals Used",
	     "%lld vs %lld pages", a.cur, a.disk);
	if (vsw())
		t_ok(a.cur == a.phys, "physical: memory.swap.current equals vswap phys",
		     "%lld vs %lld", a.cur, a.phys);

	fill_out(pc, nc, SEED_C, PAT_COMPRESSIBLE);
	settle(cg, &a, "compressible pages out");
	check_backends("compressible pages out", 1);
	/* Exact until now; the parent set it for the phases after this one. */
	direct = vsw();
	cg_read_ll(cg, "memory.zswap.current", &zcur);
	snprintf(val, sizeof(val), "%lld", zcur > 16 ? zcur / 4 : 4096);
	t_ok(zcur > 0 && !cg_write(cg, "memory.zswap.max", val),
	     "physical: memory.zswap.max lowered", "memory.zswap.current %lld", zcur);
	fill_out(pw, nw, SEED_W, PAT_COMPRESSIBLE);
	settle(cg, &b, "after writeback");
	check_backends("after writeback", 1);
	t_ok(b.wb > a.wb, "physical: zswap wrote entries back",
	     "written_back_pages %lld -> %lld", a.wb, b.wb);
	if (vsw()) {
		t_ok(b.cur - a.cur >= b.phys - a.phys + (long long)nw * 3 / 4 &&
		     b.cur - a.cur <= b.phys - a.phys + (long long)nw + SLACK,
		     "physical: memory.swap.current rose with vswap phys and the direct slots",
		     "current +%lld, phys +%lld, %zu pages over memory.zswap.max",
		     b.cur - a.cur, b.phys - a.phys, nw);
		t_ok(b.cur - a.cur >= b.wb - a.wb,
		     "physical: written-back pages are charged",
		     "current +%lld for %lld written back", b.cur - a.cur, b.wb - a.wb);
	}
	t_ok(matches(b.cur, b.disk), "physical: memory.swap.current equals Used after writeback",
	     "%lld vs %lld pages", b.cur, b.disk);

	bad = pat_verify(pr, nr, SEED_R, PAT_RANDOM);
	bad += pat_verify(pc, nc, SEED_C, PAT_COMPRESSIBLE);
	bad += pat_verify(pw, nw, SEED_W, PAT_COMPRESSIBLE);
	t_ok(bad == 0, "physical: every page read back byte-exact", "%zu pages differ", bad);
	return 0;
}

/* ---- memory.swap.max caps physical swap only -------------------------- */

static int max_worker(const char *cg, void *arg)
{
	size_t nr = 16 * MiB / page_size(), nc = 16 * MiB / page_size(), bad;
	char *pr = map_anon_4k(nr), *pc = map_anon_4k(nc);
	long long zout0 = cg_stat(cg, "zswpout"), zout, events = -1;
	long long rej0 = vswap_stat("phys_reject"), rej;
	long long limit = 4 * MiB / page_size();
	struct snap s;

	(void)arg;
	if (!pr || !pc)
		return t_fail("swap.max: map", "mmap: %s", strerror(errno)), 1;
	fill_out(pr, nr, SEED_R, PAT_RANDOM);
	fill_out(pc, nc, SEED_C, PAT_COMPRESSIBLE);
	settle(cg, &s, "swap.max: pushed out");
	check_backends("swap.max", 0);
	rej = vswap_stat("phys_reject") - rej0;
	zout = cg_stat(cg, "zswpout") - zout0;
	cg_read_key(cg, "memory.swap.events", "max", &events);
	t_ok(s.cur >= 0 && s.cur <= limit, "swap.max: memory.swap.current within the limit",
	     "%lld pages, limit %lld", s.cur, limit);
	t_ok(events > 0, "swap.max: memory.swap.events max counts the refusals",
	     "max %lld", events);
	if (vsw()) {
		t_ok(zout >= (long long)nc * 3 / 4,
		     "swap.max: compressible pages went to zswap regardless",
		     "zswpout +%lld for %zu pages", zout, nc);
		t_ok(s.cur > 0 && s.cur == s.phys,
		     "swap.max: physical slots up to the limit, all charged",
		     "memory.swap.current %lld pages, vswap phys %lld", s.cur, s.phys);
		t_ok(rej == events, "swap.max: debugfs phys_reject counts the refusals",
		     "phys_reject +%lld, memory.swap.events max %lld", rej, events);
	}
	bad = pat_verify(pr, nr, SEED_R, PAT_RANDOM);
	bad += pat_verify(pc, nc, SEED_C, PAT_COMPRESSIBLE);
	t_ok(bad == 0, "swap.max: every page read back byte-exact", "%zu pages differ", bad);
	return 0;
}

/* ---- the owner of zswap entries is deleted ---------------------------- */

struct offline_arg {
	const char *parent;
	const char *what;	/* "offline" or "offline, swap.max 0" */
};

static int offline_worker(const char *cg, void *arg)
{
	struct offline_arg *o = arg;
	size_t nc = 8 * MiB / page_size(), nw = 16 * MiB / page_size(), bad;
	char *pc = map_anon_4k(nc), *pw = map_anon_4k(nw);
	long long zcur = -1;
	struct snap a, b;
	char val[32];

	if (!pc || !pw)
		return t_fail(t_name(o->what, "map"), "mmap: %s", strerror(errno)), 1;
	fill_out(pc, nc, SEED_C, PAT_COMPRESSIBLE);
	if (!worker_sync())
		return t_fail(t_name(o->what, "handshake"), "the parent gave up"), 1;
	/*
	 * Now in the parent, whose LRUs hold the deleted child's zswap
	 * entries: storing over the parent's memory.zswap.max writes back
	 * from there, oldest first.
	 */
	snap(o->parent, &a, t_name(o->what, "child deleted"));
	check_backends(t_name(o->what, "child deleted"), 1);
	if (vsw())
		t_ok(a.cur == 0, t_name(o->what, "the deleted child's zswap pages are not charged"),
		     "parent memory.swap.current %lld pages", a.cur);
	else
		t_ok(a.cur >= (long long)nc * 3 / 4,
		     t_name(o->what, "regression: the parent sees the deleted child's swap"),
		     "parent memory.swap.current %lld pages for %zu", a.cur, nc);
	if (has_disk()) {
		cg_read_ll(o->parent, "memory.zswap.current", &zcur);
		snprintf(val, sizeof(val), "%lld", zcur > 16 ? zcur / 4 : 4096);
		cg_write(o->parent, "memory.zswap.max", val);
		fill_out(pw, nw, SEED_W, PAT_COMPRESSIBLE);
		settle(o->parent, &b, t_name(o->what, "after writeback"));
		check_backends(t_name(o->what, "after writeback"), 1);
		t_ok(b.wb - a.wb >= (long long)nc / 4,
		     t_name(o->what, "the deleted cgroup's entries were written back"),
		     "written_back_pages +%lld", b.wb - a.wb);
		if (vsw())
			t_ok(b.phys > a.phys &&
			     b.cur - a.cur >= b.phys - a.phys + (long long)nw * 3 / 4 &&
			     b.cur - a.cur <= b.phys - a.phys + (long long)nw + SLACK,
			     t_name(o->what, "writeback and the direct slots charge the parent"),
			     "parent memory.swap.current +%lld, phys +%lld, %zu pages over "
			     "memory.zswap.max", b.cur - a.cur, b.phys - a.phys, nw);
	}
	bad = pat_verify(pc, nc, SEED_C, PAT_COMPRESSIBLE);
	if (has_disk())
		bad += pat_verify(pw, nw, SEED_W, PAT_COMPRESSIBLE);
	t_ok(bad == 0, t_name(o->what, "every page read back byte-exact"), "%zu pages differ", bad);
	return 0;
}

/* ---- phases ------------------------------------------------------------ */

/* Counters after a worker is gone. */
static void check_idle(const char *what, const char *cg)
{
	/*
	 * vswap slots are uncharged when freed; a physical area's slots in
	 * the per-CPU slot caches stay charged until the caches flush.
	 */
	long long slack = vsw() && !direct ? 0 : SLACK * (long long)page_size();
	long long cur, zcur, used, phys, disk;
	char name[160];

	cur = cg_wait_le(cg, "memory.swap.current", slack, 5000);
	zcur = cg_wait_le(cg, "memory.zswap.current", 0, 5000);
	snprintf(name, sizeof(name), "%s: memory.swap.current and .zswap.current back to 0",
		 what);
	t_ok(cur >= 0 && cur <= slack && zcur == 0, name,
	     "swap %lld bytes (slot caches: up to %lld), zswap %lld bytes", cur, slack, zcur);
	disk = disk_used();
	snprintf(name, sizeof(name), "%s: no physical slot left in use", what);
	t_ok(vsw() && !direct ? disk == 0 : disk >= 0 && disk <= SLACK, name, "Used %lld pages", disk);
	if (vsw()) {
		long long z, zero;

		used = vswap_wait_used(0, 5000);
		phys = vswap_stat("phys");
		z = vswap_stat("zswap");
		zero = vswap_stat("zero");
		snprintf(name, sizeof(name), "%s: debugfs used, zswap, zero, phys back to 0",
			 what);
		t_ok(used == 0 && z == 0 && zero == 0 && phys == 0, name,
		     "used %lld, zswap %lld, zero %lld, phys %lld", used, z, zero, phys);
	}
}

static void run_phase(const char *what, const char *cgname, unsigned long max,
		      const char *swap_max, int (*fn)(const char *, void *))
{
	char *cg = cg_create(cgname, max);
	int r = cg ? 0 : -errno;

	if (!r && swap_max)
		r = cg_write(cg, "memory.swap.max", swap_max);
	if (r) {
		t_fail(t_name(what, "create cgroup"), "%s", strerror(-r));
	} else {
		cg_run_ok(cg, what, fn, NULL);
		check_idle(what, cg);
	}
	if (cg)
		cg_destroy(cg);
	free(cg);
}

/*
 * @swap_max: the child's memory.swap.max, or NULL.  With "0", writeback of
 * the deleted child's entries must charge the parent, the first online
 * ancestor: nobody can raise a deleted cgroup's limit.
 */
static void offline_phase(const char *what, const char *swap_max)
{
	struct offline_arg o;
	char *parent = cg_create("vswap_mcg_parent", 0), *child = NULL;
	struct cg_worker w;
	char pid[16];
	int st, r;

	if (!parent || write_filef(CGROOT "/vswap_mcg_parent/cgroup.subtree_control",
				   "+memory") ||
	    !(child = cg_create("vswap_mcg_parent/child", 32 * MiB))) {
		t_fail(t_name(what, "create cgroups"), "%s", strerror(errno));
		goto out;
	}
	r = swap_max ? cg_write(child, "memory.swap.max", swap_max) : 0;
	if (r) {
		t_fail(t_name(what, "set the child's memory.swap.max"), "%s", strerror(-r));
		goto out;
	}
	o.parent = parent;
	o.what = what;
	if (!worker_start(&w, child, what, offline_worker, &o))
		goto out;
	/*
	 * The parent can only take the worker once it has no memory
	 * controller for children: the child must be gone first.
	 */
	snprintf(pid, sizeof(pid), "%d", (int)w.pid);
	r = write_file(CGROOT "/cgroup.procs", pid);
	r = r ?: rmdir(child) ? -errno : 0;
	r = r ?: cg_write(parent, "cgroup.subtree_control", "-memory");
	r = r ?: cg_write(parent, "cgroup.procs", pid);
	t_ok(!r, t_name(what, "child cgroup deleted, worker moved to the parent"), "%s",
	     strerror(-r));
	r = worker_release(&w, 1);
	if (r)
		t_fail(t_name(what, "handshake"), "%s", strerror(-r));
	st = worker_finish(&w, 0);
	t_ok(st == 0, t_name(what, "worker completed"), "worker %s", status_str(st));
	cg_no_oom_kill(parent, what);
	check_idle(what, parent);
out:
	if (child)
		cg_destroy(child);
	if (parent)
		cg_destroy(parent);
	free(child);
	free(parent);
}

int main(int argc, char **argv)
{
	t_init("vswap_memcg");
	swap_env_setup_flags(&env, argc, argv, SWAP_ENV_DISK_ARG);
	if (!path_exists(CGROOT "/memory.zswap.writeback") && !vsw())
		t_diag("no memory.zswap.writeback in the root");
	run_phase("zswap", "vswap_mcg_zswap", 32 * MiB, vsw() ? "0" : NULL, zswap_worker);
	if (has_disk()) {
		direct = vsw();
		run_phase("physical", "vswap_mcg_phys", 64 * MiB, NULL, phys_worker);
		run_phase("swap.max", "vswap_mcg_max", 64 * MiB, "4M", max_worker);
	}
	offline_phase("offline", NULL);
	/* 6.12 keeps such a child's pages out of zswap: vswap only. */
	if (vsw() && has_disk())
		offline_phase("offline, swap.max 0", "0");
	swap_env_teardown(&env);
	return t_done();
}

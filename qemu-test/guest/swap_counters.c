// SPDX-License-Identifier: GPL-2.0
/*
 * swap_counters: a fixed, deterministic swap workload, and the kernel's
 * counters of it.  The host compares the counters between the series with
 * vswap=off and the unpatched kernel, which must behave the same; this
 * test only asserts what holds on every kernel.
 *
 *   swap_counters DEV       DEV: a blank disk of 128 MiB or more (6.12 uses
 *                           up to 110 MiB of it), e.g. /dev/vda
 *
 * DEV gets a fresh swap area (the only one in /proc/swaps), zswap is
 * enabled.  A worker in a fresh cgroup with memory.max = 32 MiB runs three
 * phases:
 *  fill:      writes 96 MiB of order-0 pages, page i % 4 being 0 or 1:
 *             compressible, 2: zero-filled, 3: random (PAT_MIX4); the
 *             limit pushes them out while it writes;
 *  readback:  reads all 96 MiB back, byte for byte;
 *  wb:        sets its memory.zswap.max to 0 and writes 32 MiB more of
 *             compressible pages: every store over the limit makes zswap
 *             walk one of the cgroup's older entries, and once the walk
 *             has cleared their second-chance bits, write it back to DEV
 *             (zswpwb: some 4900 pages on 6.12); then reads those 32 MiB
 *             back and unmaps them;
 *  final:     reads the 96 MiB of fill back once more (written-back pages
 *             come from DEV).
 * At the end of each phase (once DEV's write count is steady) it prints
 * every counter, one line each, integers:
 *
 *	# counter PHASE.NAME VALUE
 *
 *  PHASE.pswpin, .pswpout, .zswpin, .zswpout, .zswpwb, .swpin_zero,
 *  .swpout_zero        /proc/vmstat, the increase during the phase
 *  PHASE.dev_written_kb, .dev_read_kb   DEV's /sys/block stat, increase
 *  PHASE.swap_current_kb, .swap_peak_kb, .zswap_current_kb
 *                      memory.swap.current, .swap.peak, .zswap.current
 *  PHASE.zswap_kb, .zswapped_kb         memory.stat zswap, zswapped
 *  PHASE.swaps_used_kb                  DEV's Used column in /proc/swaps
 *  PHASE.vswap_NAME    only with the vswap device (vswap=on): each
 *                      counter file there (used, phys, zswap, zero, ...);
 *                      the host compares vswap=off with the baseline only
 *
 * Asserted: the swap area is on and alone, zswap is enabled, every counter
 * above (but the vswap ones) can be read at every phase, the pages left
 * RAM during fill (pswpout + zswpout + swpout_zero rose by at least half
 * of the 64 MiB over the limit, in pages), every page reads back
 * byte-exact in every phase, memory.zswap.max can be set, the worker
 * completes with no OOM kill in its cgroup (memory.events read), and
 * swapoff DEV succeeds.  About 13 s under TCG (2 vCPUs).
 */
#include "lib.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SEED	0x5eed0c01ULL
#define SEED_WB	0x5eed0c02ULL
#define MAX	(32 * MiB)
#define WSET	(96 * MiB)
#define WB	(32 * MiB)

static const char *const events[] = {
	"pswpin", "pswpout", "zswpin", "zswpout", "zswpwb", "swpin_zero", "swpout_zero",
};
#define NEVENTS (sizeof(events) / sizeof(events[0]))

static const char *dev;

/* The counters at the end of the previous phase: the increases start there. */
struct snap {
	long long ev[NEVENTS];
	long long rd, wr;	/* DEV's sectors */
};

static void take(struct snap *s)
{
	for (size_t i = 0; i < NEVENTS; i++)
		s->ev[i] = vmstat(events[i]);
	blk_sectors(dev, &s->rd, &s->wr);
}

/* Wait until DEV's written sectors stop moving (async writes): at most 3 s. */
static void settle(void)
{
	long long prev = -2, wr = get_blk_written((void *)dev);

	for (int i = 0; i < 30 && wr != prev; i++) {
		usleep(100000);
		prev = wr;
		wr = get_blk_written((void *)dev);
	}
}

struct line {
	const char *phase;
	char missing[256];	/* the counters that could not be read */
};

static void put(struct line *l, const char *name, long long v)
{
	size_t len = strlen(l->missing);

	if (v >= 0) {
		t_diag("counter %s.%s %lld", l->phase, name, v);
		return;
	}
	if (len + strlen(name) + 3 < sizeof(l->missing))
		snprintf(l->missing + len, sizeof(l->missing) - len, "%s%s", len ? ", " : "",
			 name);
}

static long long kb(long long bytes)
{
	return bytes < 0 ? -1 : bytes >> 10;
}

static long long delta(long long now, long long then)
{
	return now < 0 || then < 0 ? -1 : now - then;
}

/* Every debugfs vswap counter there is, as PHASE.vswap_NAME (not judged). */
static void put_vswap(const char *phase)
{
	DIR *d = opendir(VSWAP_DIR);
	struct dirent *de;
	char path[300];
	long long v;

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", VSWAP_DIR, de->d_name);
		if (!read_ll(path, &v))
			t_diag("counter %s.vswap_%s %lld", phase, de->d_name, v);
	}
	closedir(d);
}

/*
 * Print the counters of a phase that ends now and start the next one.
 * Returns the increase of pswpout + zswpout + swpout_zero.
 */
static long long checkpoint(const char *cg, const char *phase, struct snap *prev)
{
	struct line l = { .phase = phase };
	long long out = 0;
	struct snap now;

	settle();
	take(&now);
	for (size_t i = 0; i < NEVENTS; i++) {
		long long d = delta(now.ev[i], prev->ev[i]);

		put(&l, events[i], d);
		if (!strcmp(events[i], "pswpout") || !strcmp(events[i], "zswpout") ||
		    !strcmp(events[i], "swpout_zero"))
			out = out < 0 || d < 0 ? -1 : out + d;
	}
	put(&l, "dev_written_kb", kb(delta(now.wr, prev->wr) * 512));
	put(&l, "dev_read_kb", kb(delta(now.rd, prev->rd) * 512));
	put(&l, "swap_current_kb", kb(cg_ll(cg, "memory.swap.current")));
	put(&l, "swap_peak_kb", kb(cg_ll(cg, "memory.swap.peak")));
	put(&l, "zswap_current_kb", kb(cg_ll(cg, "memory.zswap.current")));
	put(&l, "zswap_kb", kb(cg_stat(cg, "zswap")));
	put(&l, "zswapped_kb", kb(cg_stat(cg, "zswapped")));
	put(&l, "swaps_used_kb", swaps_used_kb(dev));
	put_vswap(phase);
	t_ok(!l.missing[0], t_name(phase, "every counter readable"), "cannot read %s",
	     l.missing);
	*prev = now;
	return out;
}

static void verify(const char *phase, const char *what, const void *buf, size_t npages,
		   uint64_t seed, enum pat_kind kind)
{
	size_t bad = pat_verify(buf, npages, seed, kind);
	char name[160];

	snprintf(name, sizeof(name), "%s: %s read back byte-exact", phase, what);
	t_ok(bad == 0, name, "%zu of %zu pages differ", bad, npages);
}

static int worker(const char *cg, void *arg)
{
	size_t npages = WSET / page_size(), nwb = WB / page_size();
	long long want = (WSET - MAX) / page_size() / 2, out;
	char *buf = map_anon_4k(npages), *wb = map_anon_4k(nwb);
	struct snap *s = arg;
	double t0 = mono_now();
	int r;

	if (!buf || !wb)
		return t_fail("map working set", "mmap: %s", strerror(errno)), 1;
	pat_fill(buf, npages, SEED, PAT_MIX4);
	out = checkpoint(cg, "fill", s);
	t_diag("fill took %.1fs", mono_now() - t0);
	t_ok(out >= want, "fill: the pages left RAM (pswpout + zswpout + swpout_zero)",
	     out < 0 ? "cannot read the counters" : "%lld pages out, want %lld of the %lld "
	     "over the limit", out, want, 2 * want);

	t0 = mono_now();
	verify("readback", "every page", buf, npages, SEED, PAT_MIX4);
	checkpoint(cg, "readback", s);
	t_diag("readback took %.1fs", mono_now() - t0);

	t0 = mono_now();
	r = cg_write(cg, "memory.zswap.max", "0");
	t_ok(!r, "wb: memory.zswap.max set to 0", "%s", strerror(-r));
	pat_fill(wb, nwb, SEED_WB, PAT_COMPRESSIBLE);
	verify("wb", "the new pages", wb, nwb, SEED_WB, PAT_COMPRESSIBLE);
	munmap(wb, nwb * page_size());
	checkpoint(cg, "wb", s);
	t_diag("wb took %.1fs", mono_now() - t0);

	t0 = mono_now();
	verify("final", "every page of fill", buf, npages, SEED, PAT_MIX4);
	checkpoint(cg, "final", s);
	t_diag("final took %.1fs", mono_now() - t0);
	return 0;
}

int main(int argc, char **argv)
{
	struct snap s;
	int r;

	t_init("swap_counters");
	if (argc != 2)
		t_bail("usage", "swap_counters DEV");
	dev = argv[1];
	t_diag("%s; %lu MiB of pages (1/2 compressible, 1/4 zero, 1/4 random) through a "
	       "%lu MiB cgroup, swap area on %s", path_exists(VSWAP_DIR) ?
	       "vswap device present (vswap=on)" : "no vswap device", WSET / MiB, MAX / MiB,
	       dev);
	r = zswap_set_enabled(1);
	if (r)
		t_diag("cannot write %s/enabled: %s", ZSWAP_PARAM, strerror(-r));
	zswap_check_enabled(1);
	if (!swap_area_check_on(NULL, dev, -1))
		t_bail("swap area", "no swap area, nothing to test");
	t_ok(swaps_count() == 1, "it is the only swap area", "%d areas listed", swaps_count());

	/* The worker's first phase counts from here. */
	take(&s);
	cg_phase(NULL, "swap_counters", MAX, worker, &s);
	swap_area_check_off(NULL, dev);
	return t_done();
}

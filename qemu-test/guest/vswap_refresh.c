// SPDX-License-Identifier: GPL-2.0
/*
 * vswap_refresh: reclaim sees zswap room that a cgroup freed since the last
 * stats flush.  Whether anon can go to vswap depends on
 * memory.zswap.current, which reclaim reads as last flushed (every two
 * seconds); a cgroup that was at memory.zswap.max and has swapped its pages
 * back in must not look full to the next reclaim, or reclaim scans file
 * only and the cgroup is OOM-killed while zswap has room.
 *
 *   vswap_refresh          vswap=on, zswap enabled, no swap area
 *
 * A worker in a fresh cgroup (memory.max 64 MiB) measures what a page of
 * its pattern costs in zswap, then sets memory.zswap.max to half of what
 * its 24 MiB of compressible pages would take and pushes them all out
 * (MADV_PAGEOUT): zswap is at its limit (memory.zswap.current, which
 * flushes, says so), the rest stays in memory.  It reads everything back,
 * which empties zswap, and at once lowers its own memory.max to 16 MiB:
 * that reclaim must swap anon into zswap again (the limit has room for
 * it) instead of OOM-killing the worker.  The worker completes, no OOM
 * kill, its pages read back byte-exact.  Timing: a periodic flush between
 * the read-back and the write hides the bug (about one run in ten); it
 * never makes a good kernel fail.
 */
#include "lib.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define SEED	0x5eedf1e5ULL
#define MAX	(64 * MiB)
#define WSET	(24 * MiB)
#define PROBE	(4 * MiB)

/* Exit codes of the worker besides 0 (done) and a kill. */
enum { W_MAP = 1, W_CORRUPT, W_PROBE, W_NOT_FULL };

static int work(const char *cg, void *arg)
{
	size_t np = WSET / page_size(), pp = PROBE / page_size();
	char *buf = map_anon_4k(np), *probe = map_anon_4k(pp), lim[32];
	long long per_page, z;

	(void)arg;
	if (!buf || !probe)
		return W_MAP;
	/* What a page of this pattern costs in zswap, here. */
	pat_fill(probe, pp, SEED + 1, PAT_COMPRESSIBLE);
	pageout(probe, pp);
	z = cg_ll(cg, "memory.zswap.current");
	if (z <= 0)
		return W_PROBE;
	per_page = z / (long long)pp + 1;
	if (pat_verify(probe, pp, SEED + 1, PAT_COMPRESSIBLE))
		return W_CORRUPT;
	munmap(probe, PROBE);

	/* Half of the working set fits in zswap. */
	snprintf(lim, sizeof(lim), "%lld", per_page * (long long)np / 2);
	if (cg_write(cg, "memory.zswap.max", lim))
		return W_PROBE;
	pat_fill(buf, np, SEED, PAT_COMPRESSIBLE);
	pageout(buf, np);
	if (cg_ll(cg, "memory.zswap.current") < per_page * (long long)np / 2 - 64 * 1024)
		return W_NOT_FULL;
	/* Back in: zswap empties, but nothing flushes the stats now... */
	if (pat_verify(buf, np, SEED, PAT_COMPRESSIBLE))
		return W_CORRUPT;
	/* ... and this reclaim must see the room. */
	cg_write(cg, "memory.max", "16M");
	return pat_verify(buf, np, SEED, PAT_COMPRESSIBLE) ? W_CORRUPT : 0;
}

int main(void)
{
	char *cg;
	int st;

	t_init("vswap_refresh");
	t_ok(vswap_stat("used") >= 0, "vswap is on (debugfs vswap/used)", "no %s", VSWAP_DIR);
	t_ok(swaps_count() == 0, "no swap area in /proc/swaps", "%d listed", swaps_count());
	zswap_check_enabled(1);
	cg = cg_create("vswap_refresh", MAX);
	if (!cg)
		t_bail("create cgroup", "%s", strerror(errno));
	st = cg_run(cg, work, NULL);
	t_diag("worker %s; memory.zswap.current %lld, zswpout %lld, zswpin %lld, "
	       "memory.current %lld", status_str(st), cg_ll(cg, "memory.zswap.current"),
	       cg_stat(cg, "zswpout"), cg_stat(cg, "zswpin"), cg_ll(cg, "memory.current"));
	t_ok(st != W_PROBE && st != W_NOT_FULL && st != W_MAP,
	     "setup: zswap reached memory.zswap.max", "worker exit %d (%s)", st,
	     st == W_NOT_FULL ? "zswap not at its limit after the push" : "probe failed");
	t_ok(st == 0, "the worker completed: reclaim swapped into the freed zswap room",
	     "%s", status_str(st));
	cg_no_oom_kill(cg, NULL);
	cg_destroy(cg);
	free(cg);
	return t_done();
}

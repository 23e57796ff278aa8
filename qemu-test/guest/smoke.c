// SPDX-License-Identifier: GPL-2.0
/*
 * smoke: the quick per-commit check.
 *
 * Claim: anonymous memory survives reclaim byte-exact.
 * - With a swap area in /proc/swaps: 96 MiB through a 32 MiB cgroup is
 *   swapped out (zswpout or memory.swap.current), swapped back in and
 *   reads back byte-exact.
 * - With vswap on (debugfs vswap/ or vswap=on) and no swap area: 16 MiB in
 *   a 64 MiB cgroup goes through MADV_PAGEOUT and reads back byte-exact;
 *   whether it swapped is reported, not judged (that is vswap_zswap's
 *   claim, which the series only fulfils once swap-out goes through vswap).
 * - With no swap at all: the same, and nothing is swapped out.
 * With vswap on, the worker's exit gives every vswap entry back (used 0).
 */
#include "lib.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define SEED 0x5eed0001ULL

enum mode { NO_SWAP, VSWAP_ONLY, SWAP_AREA };

static const char *const mode_name[] = {
	[NO_SWAP] = "no swap",
	[VSWAP_ONLY] = "vswap on, no swap area",
	[SWAP_AREA] = "swap area present",
};

struct work {
	size_t npages;
	unsigned long max;	/* memory.max */
	enum mode mode;
};

static int child(const char *cg, void *arg)
{
	struct work *w = arg;
	long long cur = -1, swcur = -1, zout, zin, majflt;
	void *buf = map_anon(w->npages);
	size_t bad;
	int r;

	if (!buf)
		return t_fail("map working set", "mmap: %s", strerror(errno)), 1;
	pat_fill(buf, w->npages, SEED, PAT_COMPRESSIBLE);
	r = pageout(buf, w->npages);
	t_ok(r == 0, "MADV_PAGEOUT accepted", "madvise: %s", strerror(-r));

	/* The cgroup is new: its counters are this worker's alone. */
	cg_read_ll(cg, "memory.current", &cur);
	cg_read_ll(cg, "memory.swap.current", &swcur);
	zout = cg_stat(cg, "zswpout");
	t_diag("pushed out: memory.current %lld KiB, memory.swap.current %lld KiB, "
	       "zswpout %lld, zswapped %lld KiB", cur >> 10, swcur >> 10, zout,
	       cg_stat(cg, "zswapped") >> 10);
	if (w->mode == SWAP_AREA)
		t_ok(zout > 0 || swcur > 0, "pages were swapped out",
		     "zswpout %lld and memory.swap.current %lld after %zu pages went through a %lu MiB cgroup",
		     zout, swcur, w->npages, w->max / MiB);
	else if (w->mode == NO_SWAP)
		t_ok(zout == 0 && swcur == 0, "nothing swapped out without a swap area",
		     zout < 0 ? "memory.stat has no zswpout" :
		     "zswpout %lld, memory.swap.current %lld", zout, swcur);

	bad = pat_verify(buf, w->npages, SEED, PAT_COMPRESSIBLE);
	t_ok(bad == 0, "data read back byte-exact", "%zu of %zu pages differ", bad, w->npages);
	zin = cg_stat(cg, "zswpin");
	majflt = cg_stat(cg, "pgmajfault");
	t_diag("read back: zswpin %lld, pgmajfault %lld", zin, majflt);
	if (w->mode == SWAP_AREA)
		t_ok(zin > 0 || majflt > 0, "pages were swapped back in",
		     "zswpin %lld, pgmajfault %lld", zin, majflt);
	return 0;
}

int main(void)
{
	struct work w;
	long long oom = 0, used = -1;
	char val[64];
	char *cg;
	int st, r = 0;

	t_init("smoke");
	t_ok(is_mounted("/proc", "proc"), "proc mounted", "not in /proc/mounts");
	t_ok(is_mounted("/sys", "sysfs"), "sysfs mounted", "not in /proc/mounts");
	t_ok(is_mounted(DEBUGFS, "debugfs"), "debugfs mounted", "not in /proc/mounts");
	t_ok(is_mounted(CGROOT, "cgroup2"), "cgroup2 mounted", "not in /proc/mounts");

	if (swaps_count() > 0)
		w.mode = SWAP_AREA;
	else if (path_exists(VSWAP_DIR) ||
		 (cmdline_get("vswap", val, sizeof(val)) && !strcmp(val, "on")))
		w.mode = VSWAP_ONLY;
	else
		w.mode = NO_SWAP;
	if (w.mode == SWAP_AREA) {
		w.max = 32 * MiB;
		w.npages = 96 * MiB / page_size();
	} else {
		w.max = 64 * MiB;
		w.npages = 16 * MiB / page_size();
	}
	t_diag("%s: %zu MiB working set, memory.max %lu MiB", mode_name[w.mode],
	       w.npages * page_size() / MiB, w.max / MiB);

	cg = cg_create("smoke", w.max);
	if (!cg)
		t_bail("create cgroup", "%s", strerror(errno));
	t_pass("create cgroup with memory.max");
	st = cg_run(cg, child, &w);
	t_ok(st == 0, "worker completed", "worker %s", status_str(st));
	cg_read_key(cg, "memory.events", "oom_kill", &oom);
	t_ok(oom == 0, "no OOM kill in the cgroup", "memory.events oom_kill %lld", oom);
	cg_destroy(cg);

	if (path_exists(VSWAP_DIR)) {
		/* Freed entries go back; swap cache may take a moment. */
		for (int i = 0; i < 50; i++) {
			r = read_ll(VSWAP_DIR "/used", &used);
			if (r || used == 0)
				break;
			usleep(100000);
		}
		t_ok(!r && used == 0, "vswap used is 0 after the worker exited",
		     r ? "cannot read used" : "used is %lld", used);
	}
	return t_done();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * vswap_zswap: with vswap=on and zswap enabled, anonymous memory swaps
 * into zswap with no swap device at all (design: "no swapon needed").
 *
 * With nothing in /proc/swaps, a worker writes 96 MiB of compressible
 * pages in a 32 MiB cgroup.  It must not be OOM-killed, zswpout and vswap
 * "used" must go up while the pages are out, every byte must read back,
 * and used must be 0 again once the worker is gone.
 */
#include "lib.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define SEED 0x5eed0301ULL
#define MAX (32 * MiB)
#define WSET (96 * MiB)

static int worker(const char *cg, void *arg)
{
	size_t npages = WSET / page_size(), bad;
	long long used = -1, zout, zin, swcur = -1;
	void *buf = map_anon(npages);
	int r;

	(void)arg;
	if (!buf)
		return t_fail("map working set", "mmap: %s", strerror(errno)), 1;
	pat_fill(buf, npages, SEED, PAT_COMPRESSIBLE);
	pageout(buf, npages);
	zout = cg_stat(cg, "zswpout");
	cg_read_ll(cg, "memory.swap.current", &swcur);
	r = read_ll(VSWAP_DIR "/used", &used);
	t_diag("pushed out: zswpout %lld, zswapped %lld KiB, memory.swap.current %lld KiB, "
	       "vswap used %lld", zout, cg_stat(cg, "zswapped") >> 10, swcur >> 10, used);
	t_ok(zout > 0, "pages went to zswap", "zswpout %lld", zout);
	t_ok(!r && used > 0, "vswap used > 0 while pages are out",
	     r ? "cannot read used" : "used is %lld", used);
	bad = pat_verify(buf, npages, SEED, PAT_COMPRESSIBLE);
	t_ok(bad == 0, "data read back byte-exact", "%zu of %zu pages differ", bad, npages);
	zin = cg_stat(cg, "zswpin");
	t_ok(zin > 0, "pages came back from zswap", "zswpin %lld", zin);
	return 0;
}

int main(void)
{
	char val[16] = "";
	long long oom = 0, used = -1;
	char *cg;
	int st, r = 0;

	t_init("vswap_zswap");
	if (!path_exists(VSWAP_DIR))
		t_bail("vswap device present", "%s missing (vswap=on?)", VSWAP_DIR);
	t_ok(swaps_count() == 0, "no swap area in /proc/swaps", "%d listed", swaps_count());
	read_file("/sys/module/zswap/parameters/enabled", val, sizeof(val));
	t_ok(val[0] == 'Y', "zswap enabled", "zswap.enabled is '%.1s'", val);

	cg = cg_create("vswap_zswap", MAX);
	if (!cg)
		t_bail("create cgroup", "%s", strerror(errno));
	st = cg_run(cg, worker, NULL);
	t_ok(st == 0, "worker completed", "worker %s", status_str(st));
	cg_read_key(cg, "memory.events", "oom_kill", &oom);
	t_ok(oom == 0, "no OOM kill with no swap area", "memory.events oom_kill %lld", oom);
	cg_destroy(cg);

	for (int i = 0; i < 50; i++) {
		r = read_ll(VSWAP_DIR "/used", &used);
		if (r || used == 0)
			break;
		usleep(100000);
	}
	t_ok(!r && used == 0, "vswap used back to 0 after the worker exited",
	     r ? "cannot read used" : "used is %lld", used);
	return t_done();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * vswap_swapmax: zswap writeback skips a cgroup with no memory.swap.max
 * room, as it skips one with memory.zswap.writeback = 0.  With vswap a
 * written-back page gets a new physical slot charged to memory.swap; at
 * the limit the shrinker could only take slots and fail their charges.
 *
 *   vswap_swapmax DEVICE     a swap area on DEVICE, vswap=on
 *
 * zswap's shrinker is turned on (put back at the end).  In each phase a
 * worker in a fresh 32 MiB cgroup writes 96 MiB of compressible pages,
 * asks memory.reclaim for 16 MiB four times and reads everything back
 * twice: memcg reclaim all along, which runs the shrinker for the cgroup.
 *
 * control (memory.swap.max = max): the shrinker writes entries back
 * (memory.stat zswpwb > 0), so the next phase can fail.
 * swap.max = 0: no writeback (zswpwb 0), memory.swap.events max and fail
 * stay 0 (every page compresses: nothing else asks for a physical slot),
 * vswap phys_reject does not move, memory.swap.peak is 0.  Both phases:
 * byte-exact, no OOM kill.
 */
#include "lib.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEED		0x5eed5a01ULL
#define MAX		(32 * MiB)
#define WSET		(96 * MiB)
#define SHRINKER	ZSWAP_PARAM "/shrinker_enabled"

static int work(const char *cg, void *arg)
{
	size_t npages = WSET / page_size();
	char *buf = map_anon_4k(npages);
	int i;

	(void)arg;
	if (!buf)
		return 1;
	pat_fill(buf, npages, SEED, PAT_COMPRESSIBLE);
	for (i = 0; i < 4; i++)
		cg_write(cg, "memory.reclaim", "16M");	/* EAGAIN is fine */
	for (i = 0; i < 2; i++)
		if (pat_verify(buf, npages, SEED, PAT_COMPRESSIBLE))
			return 2;
	return 0;
}

/* One phase; swapmax is memory.swap.max.  Returns the cgroup's zswpwb. */
static long long phase(const char *label, const char *swapmax)
{
	long long rej0 = vswap_stat("phys_reject"), wb, smax, sfail, peak;
	char *cg = cg_create("vswap_swapmax", MAX);

	if (!cg)
		t_bail(t_name(label, "create cgroup"), "%s", strerror(errno));
	if (cg_write(cg, "memory.swap.max", swapmax))
		t_bail(t_name(label, "memory.swap.max"), "%s: %s", swapmax, strerror(errno));
	cg_run_ok(cg, label, work, NULL);
	wb = cg_stat(cg, "zswpwb");
	peak = cg_ll(cg, "memory.swap.peak");
	if (cg_read_key(cg, "memory.swap.events", "max", &smax))
		smax = -1;
	if (cg_read_key(cg, "memory.swap.events", "fail", &sfail))
		sfail = -1;
	t_diag("%s: zswpout %lld, zswpwb %lld, memory.swap.peak %lld, events max %lld "
	       "fail %lld, vswap phys_reject +%lld", label, cg_stat(cg, "zswpout"), wb,
	       peak, smax, sfail, vswap_stat("phys_reject") - rej0);
	if (!strcmp(swapmax, "0")) {
		t_ok(wb == 0, t_name(label, "no zswap writeback (zswpwb 0)"),
		     "zswpwb %lld", wb);
		t_ok(smax == 0 && sfail == 0,
		     t_name(label, "memory.swap.events max and fail stay 0"),
		     "max %lld fail %lld", smax, sfail);
		t_ok(rej0 >= 0 && vswap_stat("phys_reject") == rej0,
		     t_name(label, "vswap phys_reject does not move"),
		     "%lld, was %lld", vswap_stat("phys_reject"), rej0);
		t_ok(peak == 0, t_name(label, "memory.swap.peak stays 0"),
		     "memory.swap.peak %lld", peak);
	}
	cg_destroy(cg);
	free(cg);
	return wb;
}

int main(int argc, char **argv)
{
	char old[8] = "";
	long long wb;

	t_init("vswap_swapmax");
	if (argc != 2)
		t_bail("usage", "vswap_swapmax DEVICE");
	t_ok(vswap_stat("used") >= 0, "vswap is on (debugfs vswap/used)", "no %s", VSWAP_DIR);
	zswap_check_enabled(1);
	if (!swap_area_check_on(NULL, argv[1], -1))
		t_bail("swap area", "%s", argv[1]);
	if (read_file(SHRINKER, old, sizeof(old)) < 0 || write_file(SHRINKER, "Y"))
		t_bail("zswap shrinker_enabled = Y", "%s", SHRINKER);

	wb = phase("control", "max");
	t_ok(wb > 0, "control: the shrinker writes back at swap.max = max (zswpwb > 0)",
	     "zswpwb %lld", wb);
	phase("swap.max=0", "0");

	write_file(SHRINKER, old[0] == 'Y' ? "Y" : "N");
	swap_area_check_off(NULL, argv[1]);
	return t_done();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * vswap_zram: zram users are left alone.  With zswap disabled, vswap has
 * no backend of its own to offer, so a page must get its swap slot straight
 * from the swap area as on a kernel without vswap: zram keeps its swap
 * cache bypass (SWP_SYNCHRONOUS_IO) and frees its copy on swapin.
 *
 *   vswap_zram [SIZE_MIB]   zram0 of SIZE_MIB (default 128) as swap
 *
 * zswap is set to N (and put back at the end), /dev/zram0 is given a
 * disksize, a swap header and swapon'ed; it must be the only swap area.  A
 * worker in a 32 MiB cgroup writes 96 MiB of compressible order-0 pages
 * and reads them back byte-exact.  Meanwhile vswap's debugfs "used" is
 * sampled every time the worker has written 4 MiB and after it is done:
 * it must never rise above its value before the test, and "phys" (vswap
 * slots backed by a swap area) must stay 0: no page went through vswap.
 * /proc/vmstat pswpout and zram's mm_stat orig_data_size show the data
 * really went to zram (at least half of the 64 MiB over the limit), and
 * zswpout stays 0.
 *
 * Runs unchanged on the unpatched kernel and with vswap=off (no vswap
 * debugfs: the vswap checks then only report that there is no device).
 */
#include "lib.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEED	0x5eed0e01ULL
#define MAX	(32 * MiB)
#define WSET	(96 * MiB)
#define ZRAM	"/dev/zram0"
#define ZRAM_SYS "/sys/block/zram0"

struct work {
	long long used0;	/* vswap used before, -1 without a device */
	long long used_max;	/* the most seen while the worker ran */
	long long phys_max;
	long long pswpout0;
};

static void sample(struct work *w)
{
	long long used, phys;

	if (w->used0 < 0)
		return;
	used = vswap_stat("used");
	phys = vswap_stat("phys");
	if (used > w->used_max)
		w->used_max = used;
	if (phys > w->phys_max)
		w->phys_max = phys;
}

/* zram's mm_stat: orig_data_size is the first field, in bytes. */
static long long zram_orig_bytes(void)
{
	long long v;

	return read_ll(ZRAM_SYS "/mm_stat", &v) ? -1 : v;
}

static int worker(const char *cg, void *arg)
{
	struct work *w = arg;
	size_t npages = WSET / page_size(), step = 4 * MiB / page_size(), i, bad;
	long long want = (long long)((WSET - MAX) / page_size() / 2);
	long long pswpout, orig, zout;
	char *buf = map_anon_4k(npages);

	if (!buf)
		return t_fail("map working set", "mmap: %s", strerror(errno)), 1;
	for (i = 0; i < npages; i += step) {
		pat_fill_from(buf, i, step, SEED, PAT_COMPRESSIBLE);
		sample(w);
	}
	pswpout = vmstat("pswpout") - w->pswpout0;
	orig = zram_orig_bytes();
	zout = cg_stat(cg, "zswpout");
	t_diag("written: pswpout +%lld, zram orig_data_size %lld KiB, zswpout %lld, "
	       "vswap used max %lld (was %lld), phys max %lld", pswpout, orig >> 10, zout,
	       w->used_max, w->used0, w->phys_max);
	t_ok(pswpout >= want, "the pages went to the swap area (pswpout)",
	     "pswpout +%lld, want %lld", pswpout, want);
	t_ok(orig >= want * (long long)page_size(), "zram holds them (mm_stat orig_data_size)",
	     "orig_data_size %lld bytes, want %lld pages", orig, want);
	t_ok(zout == 0, "zswap off: nothing in zswap (memory.stat zswpout 0)", "zswpout %lld",
	     zout);
	bad = pat_verify(buf, npages, SEED, PAT_COMPRESSIBLE);
	sample(w);
	t_ok(bad == 0, "every byte read back", "%zu of %zu pages differ", bad, npages);
	/* The samples live in this (forked) worker: judge them here. */
	if (w->used0 >= 0) {
		t_ok(w->used_max <= w->used0, "zswap off: no page took a vswap slot",
		     "vswap used rose to %lld from %lld", w->used_max, w->used0);
		t_ok(w->phys_max == 0, "no zram slot backs a vswap slot (phys 0)",
		     "phys reached %lld", w->phys_max);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct work w = { .used0 = -1 };
	unsigned long mib = argc > 1 ? strtoul(argv[1], NULL, 0) : 128;
	int zswap_was, r;

	t_init("vswap_zram");
	zswap_was = zswap_enabled();
	r = zswap_set_enabled(0);
	if (r)
		t_diag("cannot write %s/enabled: %s", ZSWAP_PARAM, strerror(-r));
	zswap_check_enabled(0);

	if (!path_exists(ZRAM_SYS))
		t_bail("zram device", "%s missing (CONFIG_ZRAM?)", ZRAM_SYS);
	r = write_filef(ZRAM_SYS "/disksize", "%luM", mib);
	if (r)
		t_bail("zram disksize", "%s/disksize: %s", ZRAM_SYS, strerror(-r));
	if (!swap_area_check_on(NULL, ZRAM, -1))
		t_bail("zram swap area", "cannot swapon %s", ZRAM);
	t_ok(swaps_count() == 1, "zram is the only swap area", "%d areas listed",
	     swaps_count());

	if (path_exists(VSWAP_DIR "/used")) {
		w.used0 = vswap_stat("used");
		w.used_max = w.used0;
		w.phys_max = vswap_stat("phys");
	} else {
		t_diag("no vswap device: only the swap area and the data are checked");
	}
	w.pswpout0 = vmstat("pswpout");
	cg_phase(NULL, "vswap_zram", MAX, worker, &w);
	swap_area_check_off(NULL, ZRAM);
	write_file(ZRAM_SYS "/reset", "1");
	if (zswap_was >= 0)
		zswap_set_enabled(zswap_was);
	return t_done();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * vswap_wrerr: a page whose write to a swap slot failed stays in memory,
 * byte-exact, and with vswap its next writeout goes to another slot.
 *
 *   vswap_wrerr DEVICE   a disk whose writes to slots 40-43 of a swap area
 *                        fail with EIO (QEMU blkdebug, the scenario's
 *                        wrerr rules); vswap=on or off, or the baseline
 *
 * 1024 pages of random data (zswap rejects them: the area) are pushed out
 * and reclaimed (memory.reclaim of the test's own cgroup); each pass waits
 * for the guest's writeback to end before reclaim and before counting, so
 * a write still in flight is not taken for a failed one.  The pages whose
 * writes failed are dirty again and stay in memory (mincore counts them).
 * 6.12 writes them to the same slots at each pass, which fail again: they
 * stay in memory (asserted after the first pass in regression mode).  With
 * vswap the failed slots are retired (still Used in /proc/swaps) and the
 * pages go to other slots: none is left in memory after at most MAX_PASSES
 * passes (two usually; a later pass only if an earlier one first met a
 * failing slot, and each of the four can be met once).  Every page reads
 * back byte-exact, and swapoff, which must give the retired slots back,
 * completes.
 */
#include "lib.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/swap.h>
#include <unistd.h>

#define SEED		0x5eed0d01ULL
#define NPAGES		1024
#define MAX_PASSES	6

/* Pages of @buf in memory, the swap cache included. */
static size_t resident(char *buf, size_t npages)
{
	static unsigned char vec[NPAGES];
	size_t i, n = 0;

	if (mincore(buf, npages * page_size(), vec))
		t_bail("mincore", "%s", strerror(errno));
	for (i = 0; i < npages; i++)
		n += vec[i] & 1;
	return n;
}

static long long get_writeback(void *unused)
{
	(void)unused;
	return vmstat("nr_writeback");
}

/* Let the writes complete (and fail): pages under writeback stay resident. */
static void wait_writeback(void)
{
	if (poll_value(get_writeback, NULL, UNTIL_EQ, 0, 10000) != 0)
		t_diag("nr_writeback still %lld after 10 s", vmstat("nr_writeback"));
}

/* Push @buf out and reclaim what was written from the swap cache. */
static size_t push_out(const char *cg, char *buf)
{
	pageout(buf, NPAGES);
	wait_writeback();
	cg_write(cg, "memory.reclaim", "64M");
	wait_writeback();
	return resident(buf, NPAGES);
}

int main(int argc, char **argv)
{
	const char *dev = argc > 1 ? argv[1] : "/dev/vde";
	long long vswap = vswap_stat("used") >= 0, used;
	size_t r1, r2, rn, bad;
	char *p, *cg;
	int r, pass;

	t_init("vswap_wrerr");
	if (!swap_area_check_on(NULL, dev, -1))
		return t_done();
	cg = cg_enter_new("vswap_wrerr");
	p = map_anon_4k(NPAGES);
	if (!p)
		t_bail("map", "mmap: %s", strerror(errno));
	pat_fill(p, NPAGES, SEED, PAT_RANDOM);

	r1 = push_out(cg, p);
	r2 = push_out(cg, p);
	rn = r2;
	for (pass = 2; vswap && rn && pass < MAX_PASSES; pass++)
		rn = push_out(cg, p);
	used = swaps_used_pages(dev);
	t_diag("resident after pass 1: %zu, after pass 2: %zu, after the last (%d): %zu; Used %lld pages",
	       r1, r2, pass, rn, used);
	if (vswap) {
		t_ok(used > NPAGES, "writes failed, and their slots stay allocated, retired",
		     "Used %lld pages for %d pages", used, NPAGES);
		t_ok(vswap_stat("retired") == used - NPAGES, "debugfs counts them as retired",
		     "retired %lld, Used %lld for %d pages", vswap_stat("retired"), used,
		     NPAGES);
		t_ok(rn == 0, "the pages go to other slots: none stays in memory",
		     "%zu pages still resident after %d passes", rn, pass);
	} else {
		t_ok(r1 >= 1 && r1 <= NPAGES / 4, "pages whose write failed stay in memory",
		     "%zu of %d pages resident after the first pass", r1, NPAGES);
		t_diag("regression mode: %zu pages failed again on the same slots", r2);
	}

	bad = pat_verify(p, NPAGES, SEED, PAT_RANDOM);
	t_ok(bad == 0, "every page reads back byte-exact", "%zu of %d pages differ", bad,
	     NPAGES);
	pageout(p, NPAGES);
	usleep(200 * 1000);
	r = swapoff(dev);
	t_ok(r == 0, "swapoff completes and gives the retired slots back", "swapoff %s: %s",
	     dev, strerror(errno));
	if (vswap)
		t_ok(vswap_stat("retired") == 0, "no slot stays retired after swapoff",
		     "retired %lld", vswap_stat("retired"));
	bad = pat_verify(p, NPAGES, SEED, PAT_RANDOM);
	t_ok(bad == 0, "every page reads back byte-exact after swapoff",
	     "%zu of %d pages differ", bad, NPAGES);
	munmap(p, NPAGES * page_size());
	cg_leave(cg);
	return t_done();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * vswap_ioerr: swapoff of an area with unreadable slots completes, as on
 * 6.12: the pages it cannot read are lost (SIGBUS when touched), every
 * other page reads back byte-exact.
 *
 *   vswap_ioerr DEVICE   a disk whose reads of slots 40-43 of a swap area
 *                        fail with EIO (QEMU blkdebug, the scenario's
 *                        ioerr rules); vswap=on or off, or the baseline
 *
 * 1024 pages of random data (zswap rejects them: the area) are pushed out
 * and reclaimed out of the swap cache (memory.reclaim of the test's own
 * cgroup), so that swapoff must read each one
 * back, four of them from the failing slots.  6.12 poisons the page table
 * entry of a page it cannot read and goes on (unuse_pte()); its swapin
 * readahead may read, and so lose, a few neighbours with it.  With vswap
 * the vswap slot is marked lost instead (debugfs vswap/lost), and only the
 * pages of the unreadable slots are: swapoff reads in batches, and reads a
 * page of a failed batch once more on its own.
 */
#include "lib.h"

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/swap.h>

#define SEED		0x5eed0c01ULL
#define NPAGES		1024
#define NR_BAD_SLOTS	4
/* 6.12 reads a cluster of 8 around a fault; one failed IO may take it. */
#define MAX_LOST	(NR_BAD_SLOTS * 8)

static sigjmp_buf bus_jmp;

static void on_sigbus(int sig)
{
	siglongjmp(bus_jmp, 1);
}

/* 1 if reading the page at @p raises SIGBUS. */
static int page_gives_sigbus(const char *p)
{
	if (sigsetjmp(bus_jmp, 1))
		return 1;
	(void)*(volatile const char *)p;
	return 0;
}

int main(int argc, char **argv)
{
	const char *dev = argc > 1 ? argv[1] : "/dev/vdd";
	struct sigaction sa = { .sa_handler = on_sigbus };
	size_t ps = page_size(), i, lost = 0, again = 0, bad = 0;
	long long used, in0, lost_vswap = -1, vswap = vswap_stat("used") >= 0;
	static unsigned char is_lost[NPAGES];
	char *p, *cg;
	int r;

	t_init("vswap_ioerr");
	if (sigaction(SIGBUS, &sa, NULL))
		t_bail("SIGBUS handler", "%s", strerror(errno));
	if (!swap_area_check_on(NULL, dev, -1))
		return t_done();
	cg = cg_enter_new("vswap_ioerr");
	p = map_anon_4k(NPAGES);
	if (!p)
		t_bail("map", "mmap: %s", strerror(errno));
	pat_fill(p, NPAGES, SEED, PAT_RANDOM);
	pageout(p, NPAGES);
	/* Written pages stay in the swap cache until reclaim takes them. */
	cg_write(cg, "memory.reclaim", "64M");
	used = swaps_used_pages(dev);
	t_ok(used >= NPAGES - NPAGES / 16, "the pages are on the area",
	     "Used %lld pages of %d", used, NPAGES);

	in0 = vmstat("pswpin");
	r = swapoff(dev);
	t_ok(r == 0, "swapoff completes although some slots cannot be read",
	     "swapoff %s: %s", dev, strerror(errno));
	t_ok(!swaps_contains(dev), "the area left /proc/swaps", "%s still listed", dev);
	t_ok(vmstat("pswpin") - in0 >= NPAGES / 2, "swapoff reads the pages from the area",
	     "swapoff read %lld pages of %d", vmstat("pswpin") - in0, NPAGES);
	if (vswap)
		lost_vswap = vswap_stat("lost");

	for (i = 0; i < NPAGES; i++) {
		is_lost[i] = page_gives_sigbus(p + i * ps);
		lost += is_lost[i];
	}
	t_ok(lost >= 1 && lost <= MAX_LOST,
	     "the unreadable pages, and only they, are lost: SIGBUS",
	     "%zu pages give SIGBUS, expected 1 to %d", lost, MAX_LOST);
	t_diag("%zu pages lost to the %d unreadable slots", lost, NR_BAD_SLOTS);
	/* vswap reads a page of a failed batch once more on its own. */
	if (vswap)
		t_ok(lost <= NR_BAD_SLOTS, "only the pages of the unreadable slots are lost",
		     "%zu pages lost to %d unreadable slots", lost, NR_BAD_SLOTS);
	if (vswap)
		t_ok(lost_vswap == (long long)lost, "vswap counts them as lost",
		     "debugfs vswap/lost %lld, SIGBUS on %zu pages", lost_vswap, lost);
	for (i = 0; i < NPAGES; i++) {
		if (is_lost[i]) {
			again += page_gives_sigbus(p + i * ps);
			continue;
		}
		if (pat_verify_from(p, i, 1, SEED, PAT_RANDOM))
			bad++;
	}
	t_ok(again == lost, "a lost page gives SIGBUS again",
	     "%zu of %zu lost pages readable on a second touch", lost - again, lost);
	t_ok(bad == 0, "every other page reads back byte-exact",
	     "%zu of %zu pages differ", bad, NPAGES - lost);
	munmap(p, NPAGES * ps);
	cg_leave(cg);
	if (vswap)
		t_ok(vswap_stat("lost") == 0, "lost vswap slots are freed with the pages",
		     "debugfs vswap/lost %lld after munmap", vswap_stat("lost"));
	return t_done();
}

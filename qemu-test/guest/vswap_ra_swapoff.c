// SPDX-License-Identifier: GPL-2.0
/*
 * vswap_ra_swapoff: swapin readahead on one swap area does not wait for a
 * swapoff of another one when its window covers slots that back vswap
 * pages.
 *
 *   vswap_ra_swapoff AREA OTHER   AREA holds shmem and vswap pages side by
 *                                 side; OTHER is swapped off meanwhile
 *
 * A memfd's pages (shmem takes physical slots directly) and random
 * anonymous pages (zswap rejects them: vswap slots backed by AREA) are
 * pushed out one after the other, so that AREA's slots alternate between
 * the two.  OTHER, at a higher priority, then takes 64 MiB of anonymous
 * pages, and everything is reclaimed out of the swap cache.  A child
 * swapoffs OTHER.  Once OTHER's Used count starts to drop (swapoff is
 * under way, with the slot caches off), the test reads the memfd back:
 * shmem swapin reads a cluster of AREA's slots around each page, half of
 * them slots that back vswap pages.  While the slot caches are off, 6.12
 * waits for a folio to show up in AREA's swap cache for such a slot, which
 * never happens, until the swapoff ends; with vswap the readahead skips
 * them.  The claim: the memfd is read back, byte-exact, while the swapoff
 * of OTHER is still running.  Then the swapoff must succeed and every
 * page read back byte-exact.
 */
#define _GNU_SOURCE
#include "lib.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <unistd.h>

#define SEED_S		0x5eed0e01ULL
#define SEED_V		0x5eed0e02ULL
#define SEED_O		0x5eed0e03ULL
#define NPAIRS		256
#define OTHER_PAGES	16384	/* 64 MiB */

int main(int argc, char **argv)
{
	const char *area = argc > 1 ? argv[1] : "/dev/vdb";
	const char *other = argc > 2 ? argv[2] : "/dev/vdc";
	size_t ps = page_size(), i, bad;
	long long used0, used;
	char *s, *v, *o, *cg;
	int fd, status;
	pid_t pid, reaped;

	t_init("vswap_ra_swapoff");
	if (vswap_stat("used") < 0)
		t_diag("vswap is off: AREA holds shmem and directly mapped anonymous pages");
	if (!swap_area_check_on(NULL, area, 10))
		return t_done();
	cg = cg_enter_new("vswap_ra_swapoff");
	fd = memfd_create("vswap_ra_swapoff", 0);
	if (fd < 0 || ftruncate(fd, NPAIRS * ps))
		t_bail("memfd", "%s", strerror(errno));
	s = mmap(NULL, NPAIRS * ps, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	v = map_anon_4k(NPAIRS);
	o = map_anon_4k(OTHER_PAGES);
	if (s == MAP_FAILED || !v || !o)
		t_bail("map", "%s", strerror(errno));
	for (i = 0; i < NPAIRS; i++) {
		pat_fill_from(s, i, 1, SEED_S, PAT_RANDOM);
		pageout(s + i * ps, 1);
		pat_fill_from(v, i, 1, SEED_V, PAT_RANDOM);
		pageout(v + i * ps, 1);
	}
	if (!swap_area_check_on(NULL, other, 20))
		return t_done();
	pat_fill(o, OTHER_PAGES, SEED_O, PAT_RANDOM);
	pageout(o, OTHER_PAGES);
	/* Written pages stay in the swap cache until reclaim takes them. */
	cg_write(cg, "memory.reclaim", "256M");
	used0 = swaps_used_pages(other);
	t_ok(swaps_used_pages(area) >= 2 * NPAIRS - NPAIRS / 8 &&
	     used0 >= OTHER_PAGES - OTHER_PAGES / 8,
	     "both areas hold their pages", "%s Used %lld (%d expected), %s Used %lld (%d)",
	     area, swaps_used_pages(area), 2 * NPAIRS, other, used0, OTHER_PAGES);

	pid = fork();
	if (pid < 0)
		t_bail("fork", "%s", strerror(errno));
	if (!pid)
		_exit(swapoff(other) ? errno : 0);
	/* swapoff is under way once it has brought pages in. */
	do {
		usleep(1000);
		used = swaps_used_pages(other);
	} while (used >= used0 && used > 0);
	bad = pat_verify(s, NPAIRS, SEED_S, PAT_RANDOM);
	used = swaps_used_pages(other);
	reaped = waitpid(pid, &status, WNOHANG);
	t_ok(reaped == 0,
	     "shmem swapin next to vswap's slots does not wait for another area's swapoff",
	     "the swapoff of %s ended before the memfd was read back", other);
	t_diag("%s Used %lld of %lld when the memfd was read back", other, used, used0);
	t_ok(bad == 0, "the memfd reads back byte-exact", "%zu of %d pages differ", bad,
	     NPAIRS);
	if (!reaped && waitpid(pid, &status, 0) != pid)
		t_bail("wait", "%s", strerror(errno));
	t_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "swapoff of the other area succeeds",
	     "swapoff %s: %s", other, status_str(status));
	bad = pat_verify(v, NPAIRS, SEED_V, PAT_RANDOM) +
	      pat_verify(o, OTHER_PAGES, SEED_O, PAT_RANDOM);
	t_ok(bad == 0, "every anonymous page reads back byte-exact", "%zu pages differ", bad);
	munmap(s, NPAIRS * ps);
	close(fd);
	munmap(v, NPAIRS * ps);
	munmap(o, OTHER_PAGES * ps);
	swap_area_check_off(NULL, area);
	cg_leave(cg);
	return t_done();
}

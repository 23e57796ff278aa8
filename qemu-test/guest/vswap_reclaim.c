// SPDX-License-Identifier: GPL-2.0
/*
 * vswap_reclaim: a swap area that runs full reclaims the slots whose data
 * is also in memory, in swap cache folios (6.12 does it for its own swap
 * cache; with vswap those folios are in vswap's swap cache, and patch 6
 * lets the area find them through its back pointers).
 *
 *   vswap_reclaim [DEVICE]    a small swap area (default /dev/vda; 32 MiB in
 *                             the scenarios), made fresh, in both modes
 *
 * Modes (swap_env_setup_flags, SWAP_ENV_DISK): vswap + swap area when the
 * vswap device exists, regression mode (vswap=off, unpatched) otherwise.
 * The disk is made non-rotational first (see main()).
 *
 * Each case: a holder H in its own cgroup writes HOLD (a third of the
 * area) of random pages, pushes them to the disk with MADV_PAGEOUT and
 * reads them back: a read fault on an area less than half full keeps the
 * slot (should_try_to_free_swap()), so the area still holds HOLD while
 * the data is in memory too.  Then a writer W in another cgroup writes
 * WRITE (more than the area's free space) of random pages and pushes them
 * out with MADV_PAGEOUT and memory.reclaim.  W's pages can only all reach
 * the disk if the area reclaims the holder's duplicate slots.
 *
 * Case "swapin": H alone.  Both modes: at least 90% of WRITE is written
 * to the area, more than it had free slots (nothing else writes there, and
 * a page is only written once it has a slot).
 * Case "fork": H forks a child that keeps the swapped-out mapping before H
 * reads it back, so the holder's slots are still referenced by the child.
 *  - vswap + swap area: the child's page tables hold vswap entries, and
 *    the area may drop the physical copy of a folio in memory all the
 *    same: at least 90% of WRITE is written to the area, and the child
 *    reads its data back byte-exact afterwards;
 *  - regression mode: the child's page tables name the slots, which 6.12
 *    cannot reclaim: the outcome is reported, data must be intact.
 * Where the writer got its slots, they hold its pages afterwards: Used
 * covers 90% of WRITE (the slots reclaimed are the duplicates of pages in
 * use, not those of pages just written out).
 * Every page of H, the child and W reads back byte-exact; when all exited,
 * /proc/swaps Used is back within the slot caches of 0.
 */
#include "lib.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define SEED_H	0x5eed0901ULL
#define SEED_W	0x5eed0902ULL
/* Pages the per-CPU swap slot caches may hold (64 a CPU, alloc and free). */
#define SLACK	256

static struct swap_env env;
static long long area_pages, hold_pages, write_pages;

static int vswap_disk(void)
{
	return env.mode == SWAP_VSWAP_DISK;
}

/*
 * The holder: HOLD pages out to the disk, (fork,) read back, say ready,
 * wait for main, verify again.  Exit status: 0 if every byte was right.
 * The holder's child waits for a release of its own.
 */
static int holder(const char *cg, void *arg)
{
	const char *name = arg;
	int do_fork = !strcmp(name, "fork"), bad = 0, status;
	size_t n = hold_pages;
	char *buf = map_anon_4k(n);
	pid_t child = -1;
	char t[160];

	(void)cg;
	if (!buf)
		return 1;
	pat_fill(buf, n, SEED_H, PAT_RANDOM);
	if (pageout(buf, n))
		return 1;
	poll_value(get_swaps_used_pages, (void *)env.dev, UNTIL_GE, n * 3 / 4, 5000);
	if (do_fork) {
		child = fork();
		if (child == 0) {
			/* Keep the swapped-out mapping; check it when told. */
			if (!worker_await())
				_exit(2);
			_exit(pat_verify(buf, n, SEED_H, PAT_RANDOM) ? 1 : 0);
		}
		if (child < 0)
			return 1;
	}
	/* Read faults: the slots stay, the data is in memory as well. */
	bad |= pat_verify(buf, n, SEED_H, PAT_RANDOM) != 0;
	snprintf(t, sizeof(t), "%s: holder's data read back byte-exact", name);
	t_ok(!bad, t, "pages differ after the swapin");
	if (!worker_sync())
		bad = 1;
	bad |= pat_verify(buf, n, SEED_H, PAT_RANDOM) != 0;
	if (child > 0) {
		if (waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			bad |= 2;
	}
	return bad;
}

/* Pages written to the area since wr0 (512-byte sectors). */
static long long written_since(long long wr0)
{
	long long rd, wr;

	if (blk_sectors(env.dev, &rd, &wr))
		return -1;
	return (wr - wr0) * 512 / (long long)page_size();
}

/*
 * The writer: WRITE random pages, out by MADV_PAGEOUT and memory.reclaim.
 * Its pages are on the disk when as many pages were written to the area:
 * nothing else writes there meanwhile, and a page is only written once it
 * has a slot.
 */
static int writer(const char *cg, void *arg)
{
	size_t n = write_pages, bad;
	long long rd0, wr0, wrote = -1;
	char *buf = map_anon_4k(n);

	(void)arg;
	if (!buf || blk_sectors(env.dev, &rd0, &wr0))
		return 1;
	pat_fill(buf, n, SEED_W, PAT_RANDOM);
	pageout(buf, n);
	/*
	 * Pages that found no slot at first stay in the swap cache, unmapped:
	 * MADV_PAGEOUT does not see them again, memory.reclaim does.
	 */
	for (int i = 0; i < 20; i++) {
		for (int j = 0; j < 3; j++) {
			wrote = written_since(wr0);
			if (wrote >= write_pages * 9 / 10)
				break;
			usleep(100000);
		}
		if (wrote >= write_pages * 9 / 10)
			break;
		cg_write(cg, "memory.reclaim", "64M");
	}
	t_diag("writer: %lld pages written to %s after pushing out %zu, Used %lld",
	       wrote, env.dev, n, swaps_used_pages(env.dev));
	if (!worker_sync())
		return 1;
	bad = pat_verify(buf, n, SEED_W, PAT_RANDOM);
	return bad ? 1 : 0;
}

static void run_case(const char *name, int do_fork)
{
	char cgh[64], cgw[64], t[160];
	struct cg_worker h, w;
	char *hcg, *wcg;
	long long held, phys0, used, phys, rd0, wr0, wrote;
	int st;

	snprintf(cgh, sizeof(cgh), "vswap_reclaim_h_%s", name);
	snprintf(cgw, sizeof(cgw), "vswap_reclaim_w_%s", name);
	hcg = cg_create(cgh, 64 * MiB);
	wcg = cg_create(cgw, 64 * MiB);
	if (!hcg || !wcg) {
		t_fail(name, "setup: %s", strerror(errno));
		return;
	}

	if (!worker_start(&h, hcg, t_name(name, "holder"), holder, (void *)name))
		goto out;
	held = swaps_used_pages(env.dev);
	phys0 = vswap_stat("phys");
	t_diag("%s: holder read back %lld pages, the area still holds %lld of %lld pages "
	       "(vswap phys %lld)", name, hold_pages, held, area_pages, phys0);
	t_ok(held >= hold_pages * 3 / 4, t_name(name, "the holder's slots stay after the swapin"),
	     "Used %lld pages", held);

	blk_sectors(env.dev, &rd0, &wr0);
	if (!worker_start(&w, wcg, t_name(name, "writer"), writer, NULL)) {
		worker_finish(&h, 1);
		goto out;
	}
	wrote = wr0 >= 0 ? written_since(wr0) : -1;
	used = swaps_used_pages(env.dev);
	phys = vswap_stat("phys");
	t_diag("%s: writer pushed out %lld pages, %lld written to the area, area Used %lld of "
	       "%lld pages (%lld were free), vswap phys %lld", name, write_pages, wrote, used,
	       area_pages, area_pages - held, phys);
	snprintf(t, sizeof(t), "%s: the writer's pages reached the disk (duplicate slots reclaimed)",
		 name);
	if (do_fork && !vswap_disk()) {
		t_diag("%s: regression mode, 6.12 keeps slots a child maps: writer %s", name,
		       wrote >= write_pages * 9 / 10 ? "got them all anyway" :
		       "did not get them all (expected)");
	} else {
		t_ok(wrote >= write_pages * 9 / 10, t, "wanted %lld of its %lld pages written, "
		     "%lld written, %lld slots were free (Used now %lld)", write_pages * 9 / 10,
		     write_pages, wrote, area_pages - held, used);
		/* The writer's own slots, of pages on their way out, stay. */
		t_ok(used >= write_pages * 9 / 10, t_name(name, "the writer's pages stay on the disk"),
		     "Used %lld pages after the writer's %lld went out", used, write_pages);
	}

	/* Verify everything: the writer, the holder and the holder's child. */
	worker_release(&w, 1);
	worker_release(&h, 1);
	if (do_fork)
		worker_release(&h, 1);
	st = worker_finish(&w, 0);
	t_ok(st == 0, t_name(name, "writer's data read back byte-exact"), "writer: %s",
	     status_str(st));
	st = worker_finish(&h, 0);
	snprintf(t, sizeof(t), "%s: holder's%s data read back byte-exact at the end", name,
		 do_fork ? " and its child's" : "");
	t_ok(st == 0, t, "holder: %s", status_str(st));
	cg_no_oom_kill(hcg, t_name(name, "holder"));
	cg_no_oom_kill(wcg, t_name(name, "writer"));

	used = poll_value(get_swaps_used_pages, (void *)env.dev, UNTIL_LE, SLACK, 3000);
	t_ok(used >= 0 && used <= SLACK, t_name(name, "area empty after exit"), "Used %lld pages",
	     used);
	if (vswap_disk()) {
		vswap_check_used_back(name, 0);
		phys = poll_value(get_vswap, "phys", UNTIL_EQ, 0, 3000);
		t_ok(phys == 0, t_name(name, "vswap phys back to 0"), "phys %lld", phys);
	}
out:
	cg_destroy(hcg);
	cg_destroy(wcg);
	free(hcg);
	free(wcg);
}

int main(int argc, char **argv)
{
	t_init("vswap_reclaim");
	/*
	 * A virtio disk says it is rotational, and 6.12 gives a rotational
	 * area the old linear slot scan, which only reclaims a cache-only slot
	 * it happens to pass while the area still has free ones.  The cluster
	 * allocator of non-rotational areas (SSD, zram), which reclaims full
	 * clusters once the area is full, is the one to test.
	 */
	t_ok(blk_set_nonrot(argc > 1 ? argv[1] : "/dev/vda") == 0,
	     "area is non-rotational (cluster allocator)", "cannot write its queue/rotational");
	swap_env_setup_flags(&env, argc, argv, SWAP_ENV_DISK);
	area_pages = (env.size_kb << 10) / (long long)page_size();
	if (area_pages < 2048)
		t_bail("swap area size", "%s: %lld pages, want 8 MiB or more", env.dev, area_pages);
	/* A third of the area held; the writer needs more than the rest. */
	hold_pages = area_pages / 3;
	write_pages = area_pages * 5 / 6;
	t_diag("area %s: %lld pages; holder %lld, writer %lld", env.dev, area_pages,
	       hold_pages, write_pages);
	run_case("swapin", 0);
	run_case("fork", 1);
	swap_env_teardown(&env);
	return t_done();
}

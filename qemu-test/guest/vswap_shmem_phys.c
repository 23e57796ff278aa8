// SPDX-License-Identifier: GPL-2.0
/*
 * vswap_shmem_phys: tmpfs pages behind vswap slots use every backend a
 * physical swap area gives anonymous ones: a physical slot for what zswap
 * rejects, zswap writeback to the area, and swapoff of the area under load.
 *
 *   vswap_shmem_phys DEVICE  a swap area on DEVICE; vswap=on (vswap + the
 *                            area) or regression mode (the area alone)
 *
 * A worker in a 24 MiB cgroup writes, through write(), a 32 MiB tmpfs file
 * A of mixed pages (odd pages random: zswap rejects them), then lowers its
 * memory.zswap.max to a quarter of memory.zswap.current and writes a 32 MiB
 * file B of compressible pages: each store over the limit makes zswap look
 * at one of the cgroup's older entries (A's), and write it back to the
 * area once its second chance is used up, so B has twice as many pages as
 * A has in zswap.  It then reads both files in a
 * loop, checking every byte, while the parent (after raising memory.max, so
 * that what comes back in fits) swaps the area off.
 *  - the worker completes, no OOM kill, every pass byte-exact;
 *  - the area holds A's random half (Used covers 3/4 of it); with vswap:
 *    vswap "phys" covers 3/4 of it (they are vswap pages on physical
 *    slots) and memory.swap.current charges them;
 *  - zswap written_back_pages rose; with vswap, vswap "phys" rose with it
 *    (the entries moved to the area, their vswap slots stayed);
 *  - swapoff succeeds while the worker reads; with vswap, vswap "phys" is
 *    0 after it (the shmem pages left the area through vswap's back
 *    pointers; their vswap entries in the files did not change);
 *  - the files removed, vswap "used" and zswap stored_pages are back.
 */
#include "lib.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <unistd.h>

#define SEED_A		0x5eed1811ULL
#define SEED_B		0x5eed1812ULL
#define MAX		(24 * MiB)
#define SIZE_A		(32 * MiB)
#define SIZE_B		(32 * MiB)
#define MNT		"/vswap_shmem_phys"
#define PATH_A		MNT "/a"
#define PATH_B		MNT "/b"

static struct swap_env env;

/* Counters the worker read at its steps, for the parent's checks. */
struct seen {
	long long used_a, phys_a, swapcur_a;	/* after A was written */
	long long wb0, wb1, phys1;		/* around B's writes */
	long long passes, bad;			/* the read loop */
};

static struct seen *seen;

static int vswap_mode(void)
{
	return env.mode != SWAP_DISK;
}

static int fill_file(const char *path, size_t size, uint64_t seed, enum pat_kind kind)
{
	int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600), r;

	if (fd < 0)
		return -errno;
	r = pat_write_fd(fd, 0, size / page_size(), seed, kind);
	close(fd);
	return r;
}

static size_t verify_file(const char *path, size_t size, uint64_t seed, enum pat_kind kind)
{
	int fd = open(path, O_RDONLY);
	size_t bad;

	if (fd < 0)
		return size / page_size();
	bad = pat_verify_fd(fd, 0, size / page_size(), seed, kind);
	close(fd);
	return bad;
}

static int worker(const char *cg, void *arg)
{
	long long zmax;
	char val[32];
	int r;

	(void)arg;
	r = fill_file(PATH_A, SIZE_A, SEED_A, PAT_MIXED);
	if (r)
		return t_fail("write file A", "%s", strerror(-r)), 1;
	cg_write(cg, "memory.reclaim", "64M");
	seen->used_a = swaps_used_pages(env.dev);
	seen->phys_a = vswap_mode() ? vswap_stat("phys") : -1;
	seen->swapcur_a = cg_ll(cg, "memory.swap.current");
	zmax = cg_ll(cg, "memory.zswap.current") / 4;
	t_diag("A out: Used %lld pages, vswap phys %lld, memory.swap.current %lld KiB, "
	       "memory.zswap.max -> %lld KiB", seen->used_a, seen->phys_a,
	       seen->swapcur_a >> 10, zmax >> 10);

	seen->wb0 = zswap_stat("written_back_pages");
	snprintf(val, sizeof(val), "%lld", zmax);
	cg_write(cg, "memory.zswap.max", val);
	r = fill_file(PATH_B, SIZE_B, SEED_B, PAT_COMPRESSIBLE);
	if (r)
		return t_fail("write file B", "%s", strerror(-r)), 1;
	cg_write(cg, "memory.reclaim", "64M");
	seen->wb1 = zswap_stat("written_back_pages");
	seen->phys1 = vswap_mode() ? vswap_stat("phys") : -1;
	cg_write(cg, "memory.zswap.max", "max");
	t_diag("B out: written_back_pages %lld -> %lld, vswap phys %lld", seen->wb0, seen->wb1,
	       seen->phys1);

	/* Read until the parent has swapped the area off, then once more. */
	worker_ready();
	do {
		seen->bad += verify_file(PATH_A, SIZE_A, SEED_A, PAT_MIXED);
		seen->bad += verify_file(PATH_B, SIZE_B, SEED_B, PAT_COMPRESSIBLE);
		seen->passes++;
	} while (swaps_used_pages(env.dev) >= 0);
	seen->bad += verify_file(PATH_A, SIZE_A, SEED_A, PAT_MIXED);
	seen->bad += verify_file(PATH_B, SIZE_B, SEED_B, PAT_COMPRESSIBLE);
	seen->passes++;
	return 0;
}

int main(int argc, char **argv)
{
	long long rnd = SIZE_A / page_size() / 2, used0, stored0, phys;
	struct cg_worker w;
	int r, st;
	char *cg;

	t_init("vswap_shmem_phys");
	swap_env_setup_flags(&env, argc, argv, SWAP_ENV_DISK);
	t_diag("mode: %s", swap_env_name(&env));
	seen = mmap(NULL, sizeof(*seen), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (seen == MAP_FAILED)
		t_bail("map", "%s", strerror(errno));
	mkdir(MNT, 0700);
	if (mount("tmpfs", MNT, "tmpfs", 0, "huge=never"))
		t_bail("mount tmpfs", "%s", strerror(errno));
	used0 = vswap_mode() ? vswap_stat("used") : -1;
	stored0 = zswap_stat("stored_pages");
	cg = cg_create("vswap_shmem_phys", MAX);
	if (!cg)
		t_bail("create cgroup", "%s", strerror(errno));

	if (!worker_start(&w, cg, NULL, worker, NULL))
		return t_done();
	t_ok(seen->used_a >= rnd * 3 / 4, "rejected pages went to the area",
	     "Used %lld pages for %lld random pages", seen->used_a, rnd);
	if (vswap_mode()) {
		t_ok(seen->phys_a >= rnd * 3 / 4, "they are vswap pages on physical slots",
		     "vswap phys %lld for %lld random pages", seen->phys_a, rnd);
		t_ok(seen->swapcur_a >= seen->phys_a * (long long)page_size() * 3 / 4,
		     "memory.swap.current charges the physical slots",
		     "%lld KiB for %lld physical slots", seen->swapcur_a >> 10, seen->phys_a);
	}
	t_ok(seen->wb1 > seen->wb0, "zswap wrote shmem entries back to the area",
	     "written_back_pages %lld -> %lld", seen->wb0, seen->wb1);
	if (vswap_mode())
		t_ok(seen->phys1 > seen->phys_a, "written back, they stay vswap pages",
		     "vswap phys %lld, was %lld", seen->phys1, seen->phys_a);

	cg_write(cg, "memory.max", "max");
	r = swapoff(env.dev);
	st = errno;
	t_ok(r == 0, "swapoff while the worker reads", "swapoff %s: %s", env.dev, strerror(st));
	phys = vswap_mode() ? vswap_stat("phys") : 0;
	if (vswap_mode())
		t_ok(phys == 0, "no vswap page is left on the area", "vswap phys %lld", phys);
	/* If the area stays on, the worker reads on: stop it. */
	st = worker_finish(&w, r != 0);
	t_ok(st == 0, "worker completed", "%s", status_str(st));
	cg_no_oom_kill(cg, NULL);
	t_ok(seen->bad == 0 && seen->passes >= 2, "every read pass byte-exact",
	     "%lld bad pages in %lld passes", seen->bad, seen->passes);

	if (r)
		swap_env_teardown(&env);
	unlink(PATH_A);
	unlink(PATH_B);
	if (vswap_mode())
		vswap_check_used_back(NULL, used0);
	zswap_check_stored_back(NULL, stored0);
	cg_destroy(cg);
	umount(MNT);
	return t_done();
}

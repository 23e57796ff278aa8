// SPDX-License-Identifier: GPL-2.0
/*
 * vswap_fork: swap entries shared by fork, copy-on-write of swapped-out
 * pages, exit with pages still out, and MADV_DONTNEED / MADV_FREE over
 * swapped-out ranges all give the slots back.
 *
 *   vswap_fork [DEVICE]       regression mode: the swap disk (default /dev/vda)
 *
 * Phase 1 (fork): a worker in a 64 MiB cgroup writes 16 MiB of
 * compressible order-0 pages and pushes them out (MADV_PAGEOUT: zswap has
 * them, the swap slots are in use), then forks.  The child rewrites the
 * first half and pushes everything out; the parent then checks that its
 * whole view is still the original, rewrites the second half and pushes
 * out; the child checks first half = its data, second half = original;
 * the parent checks first half = original, second half = its data.  Both
 * push everything out again and exit with their pages in zswap.  After
 * both are gone zswap's stored_pages is back to its starting value and
 * (vswap mode) vswap "used" is 0.
 *
 * Phase 2 (madvise): a worker pushes 16 MiB out, then MADV_DONTNEED on the
 * first quarter and MADV_FREE on the second: each time the slots in use
 * and zswap's stored_pages drop by at least 3/4 of the quarter (physical
 * devices free slots through a per-CPU cache, hence not all of it).  The
 * DONTNEED quarter reads back as zeroes, every page of the FREE quarter is
 * zero or its old contents, the untouched half is byte-exact.  After the
 * worker: stored_pages back to the start, vswap "used" 0.
 */
#include "lib.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define SEED_ORIG	0x5eed0601ULL
#define SEED_CHILD	0x5eed0602ULL
#define SEED_PARENT	0x5eed0603ULL
#define SEED_MADV	0x5eed0604ULL
#define WSET (16 * MiB)

static struct swap_env env;

/* Pages first .. first + npages - 1 of the region at buf hold seed's pattern. */
static int check(const char *who, const char *what, const char *buf, size_t first,
		 size_t npages, uint64_t seed)
{
	char name[160];
	size_t bad = pat_verify_from(buf, first, npages, seed, PAT_COMPRESSIBLE);

	snprintf(name, sizeof(name), "%s: %s byte-exact", who, what);
	return t_ok(bad == 0, name, "%zu of %zu pages differ", bad, npages);
}

static int xread(int fd)
{
	char c;

	return read(fd, &c, 1) == 1 ? c : -1;
}

static int xwrite(int fd, char c)
{
	return write(fd, &c, 1) == 1 ? 0 : -1;
}

static int fork_worker(const char *cg, void *arg)
{
	size_t npages = WSET / page_size(), half = npages / 2;
	char *buf = map_anon_4k(npages);
	int to_parent[2], to_child[2], st;
	long long used;
	pid_t pid;

	(void)arg;
	if (!buf || pipe(to_parent) || pipe(to_child))
		return t_fail("set up", "%s", strerror(errno)), 1;
	pat_fill(buf, npages, SEED_ORIG, PAT_COMPRESSIBLE);
	pageout(buf, npages);
	used = swap_env_used(&env);
	t_diag("before fork: zswpout %lld, %s used %lld pages", cg_stat(cg, "zswpout"),
	       swap_env_name(&env), used);
	t_ok(used >= (long long)npages * 3 / 4, "pages are swapped out before fork",
	     "%s used %lld pages for %zu", swap_env_name(&env), used, npages);

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return t_fail("fork", "%s", strerror(errno)), 1;
	if (pid == 0) {
		pat_fill(buf, half, SEED_CHILD, PAT_COMPRESSIBLE);
		pageout(buf, npages);
		if (xwrite(to_parent[1], 'a') || xread(to_child[0]) != 'b')
			_exit(t_fail("child: handshake", "parent gone") ? 0 : 1);
		check("child", "its own first half", buf, 0, half, SEED_CHILD);
		check("child", "the second half it did not write", buf, half,
		      npages - half, SEED_ORIG);
		/* Exit with the pages out. */
		pageout(buf, npages);
		_exit(0);
	}
	if (xread(to_parent[0]) != 'a') {
		t_fail("parent: handshake", "child %s", status_str(cg_wait(pid)));
		return 1;
	}
	check("parent", "whole view after the child wrote", buf, 0, npages, SEED_ORIG);
	pat_fill_from(buf, half, npages - half, SEED_PARENT, PAT_COMPRESSIBLE);
	pageout(buf, npages);
	xwrite(to_child[1], 'b');
	check("parent", "first half it did not write", buf, 0, half, SEED_ORIG);
	check("parent", "its own second half", buf, half, npages - half, SEED_PARENT);
	st = cg_wait(pid);
	t_ok(st == 0, "child completed", "child %s", status_str(st));
	t_diag("after both wrote: zswpout %lld, zswpin %lld, %s used %lld pages",
	       cg_stat(cg, "zswpout"), cg_stat(cg, "zswpin"), swap_env_name(&env),
	       swap_env_used(&env));
	pageout(buf, npages);
	used = swap_env_used(&env);
	t_ok(used > 0, "parent exits with pages still out", "%s used %lld",
	     swap_env_name(&env), used);
	return 0;
}

/* Slots and zswap entries after an madvise, polled: frees may be batched. */
static void expect_drop(const char *what, long long used0, long long stored0, size_t n)
{
	long long used = swap_env_used(&env), stored = zswap_stat("stored_pages");
	long long want = (long long)n * 3 / 4;
	char name[160];

	for (int i = 0; i < 20 && (used0 - used < want || stored0 - stored < want); i++) {
		usleep(100000);
		used = swap_env_used(&env);
		stored = zswap_stat("stored_pages");
	}
	t_diag("%s on %zu swapped-out pages: %s used %lld -> %lld, stored_pages %lld -> %lld",
	       what, n, swap_env_name(&env), used0, used, stored0, stored);
	snprintf(name, sizeof(name), "%s releases the swap slots", what);
	t_ok(used >= 0 && used0 - used >= want, name, "used dropped by %lld, want %lld (now %lld)",
	     used0 - used, want, used);
	snprintf(name, sizeof(name), "%s frees the zswap entries", what);
	t_ok(stored >= 0 && stored0 - stored >= want, name,
	     "stored_pages dropped by %lld, want %lld (now %lld)", stored0 - stored, want, stored);
}

static int madv_worker(const char *cg, void *arg)
{
	size_t npages = WSET / page_size(), q = npages / 4, ps = page_size();
	size_t zero = 0, old = 0, garbage;
	char *buf = map_anon_4k(npages);
	long long used, stored;
	int r;

	(void)arg;
	if (!buf)
		return t_fail("set up", "%s", strerror(errno)), 1;
	pat_fill(buf, npages, SEED_MADV, PAT_COMPRESSIBLE);
	pageout(buf, npages);
	used = swap_env_used(&env);
	stored = zswap_stat("stored_pages");
	t_diag("pushed out: zswpout %lld, %s used %lld, stored_pages %lld",
	       cg_stat(cg, "zswpout"), swap_env_name(&env), used, stored);
	t_ok(used >= (long long)npages * 3 / 4, "pages are swapped out",
	     "%s used %lld pages for %zu", swap_env_name(&env), used, npages);

	r = madvise(buf, q * ps, MADV_DONTNEED);
	t_ok(!r, "MADV_DONTNEED accepted", "madvise: %s", strerror(errno));
	expect_drop("MADV_DONTNEED", used, stored, q);

	used = swap_env_used(&env);
	stored = zswap_stat("stored_pages");
	r = madvise(buf + q * ps, q * ps, MADV_FREE);
	t_ok(!r, "MADV_FREE accepted", "madvise: %s", strerror(errno));
	expect_drop("MADV_FREE", used, stored, q);

	garbage = pat_verify_from(buf, 0, q, 0, PAT_ZERO);
	t_ok(garbage == 0, "MADV_DONTNEED range reads back as zeroes",
	     "%zu of %zu pages not zero", garbage, q);
	/* pat_verify's view of one page at a time: zero, old contents, or bad. */
	garbage = 0;
	for (size_t i = q; i < 2 * q; i++) {
		if (page_is_zero(buf + i * ps))
			zero++;
		else if (!pat_verify_from(buf, i, 1, SEED_MADV, PAT_COMPRESSIBLE))
			old++;
		else
			garbage++;
	}
	t_diag("MADV_FREE range: %zu pages zero, %zu with their old contents, %zu other",
	       zero, old, garbage);
	t_ok(garbage == 0, "MADV_FREE range: each page zero or its old contents",
	     "%zu of %zu pages hold something else", garbage, q);
	check("worker", "untouched half", buf, 2 * q, npages - 2 * q, SEED_MADV);
	return 0;
}

static void run_phase(const char *name, const char *cgname,
		      int (*fn)(const char *cg, void *arg))
{
	long long stored0 = zswap_stat("stored_pages");

	cg_phase(name, cgname, 64 * MiB, fn, NULL);
	zswap_check_stored_back(name, stored0);
	if (env.mode == SWAP_VSWAP)
		vswap_check_used_back(name, 0);
	else
		t_diag("%s: after exit %s Used %lld pages", name, env.dev, swap_env_used(&env));
}

int main(int argc, char **argv)
{
	t_init("vswap_fork");
	swap_env_setup(&env, argc, argv);
	run_phase("fork", "vswap_fork1", fork_worker);
	run_phase("madvise", "vswap_fork2", madv_worker);
	swap_env_teardown(&env);
	return t_done();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * vswap_shmem: tmpfs files, memfd and SysV shared memory swap into zswap
 * through vswap with no swap device, as anonymous memory does.
 *
 *   vswap_shmem [DEVICE]  vswap=on with nothing in /proc/swaps; regression
 *                         mode (vswap=off, or the unpatched kernel): a swap
 *                         area on DEVICE (default /dev/vda), where 6.12
 *                         swaps shmem through zswap already
 *
 * Each phase runs a worker in its own 24 MiB cgroup and writes 64 MiB of
 * compressible pages into one kind of shared memory, so reclaim must swap
 * most of them out:
 *  - tmpfs: write() a file on a tmpfs mount, read() it back byte-exact;
 *    punch a hole over a quarter and truncate off the last quarter: the
 *    hole reads as zeroes, the rest byte-exact, and (vswap) the swap slots
 *    in use fall to at most the half that is left;
 *  - memfd: memfd_create(), written and checked through a shared mapping;
 *  - sysv: shmget()/shmat(), the same;
 *  - shared: a tmpfs file mapped shared by the worker and by a child that
 *    opens it itself; the cgroup's memory.reclaim pushes the pages out;
 *    the child reads the worker's bytes and overwrites them, and after a
 *    second push-out the worker reads the child's.
 * Every phase: the worker completes with no OOM kill (with vswap and no
 * device, 6.12 OOM-kills it: shmem had no swap), the cgroup's zswpout and
 * memory.zswap.current show the pages in zswap, and with vswap
 * memory.swap.current stays 0 (only physical slots are charged) and
 * debugfs vswap "zswap" counts them; once the object is gone, vswap
 * "used" and zswap stored_pages are back where they started.
 */
#define _GNU_SOURCE
#include "lib.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define SEED		0x5eed1801ULL
#define SEED2		0x5eed1802ULL
#define MAX		(24 * MiB)
#define SIZE		(64 * MiB)
#define MNT		"/vswap_shmem"
#define FILE_PATH	MNT "/file"
/* Slack for a worker's own anonymous pages that reclaim swaps out. */
#define OWN_PAGES	64

static struct swap_env env;

static size_t npages(void)
{
	return SIZE / page_size();
}

static int vswap_mode(void)
{
	return env.mode != SWAP_DISK;
}

/* What a worker saw while its pages were out, for the parent's checks. */
struct seen {
	long long zswpout;	/* the cgroup's, after the writes */
	long long zswap_cur;	/* memory.zswap.current, bytes */
	long long swap_cur;	/* memory.swap.current, bytes */
	long long vzswap;	/* debugfs vswap "zswap" */
};

static struct seen *seen;
/* vswap "used" before the phase, for the workers. */
static long long used0;

static void note_out(const char *cg)
{
	seen->zswpout = cg_stat(cg, "zswpout");
	seen->zswap_cur = cg_ll(cg, "memory.zswap.current");
	seen->swap_cur = cg_ll(cg, "memory.swap.current");
	seen->vzswap = vswap_mode() ? vswap_stat("zswap") : -1;
	t_diag("out: zswpout %lld, memory.zswap.current %lld KiB, memory.swap.current %lld KiB, "
	       "vswap zswap %lld, used %lld", seen->zswpout, seen->zswap_cur >> 10,
	       seen->swap_cur >> 10, seen->vzswap, vswap_mode() ? vswap_stat("used") : -1);
}

static int tmpfs_worker(const char *cg, void *arg)
{
	size_t n = npages(), q = n / 4, bad;
	long long used;
	int fd, r;

	(void)arg;
	fd = open(FILE_PATH, O_CREAT | O_RDWR | O_TRUNC, 0600);
	if (fd < 0)
		return t_fail("tmpfs: create file", "%s", strerror(errno)), 1;
	r = pat_write_fd(fd, 0, n, SEED, PAT_COMPRESSIBLE);
	if (r)
		return t_fail("tmpfs: write file", "%s", strerror(-r)), 1;
	note_out(cg);
	bad = pat_verify_fd(fd, 0, n, SEED, PAT_COMPRESSIBLE);
	t_ok(bad == 0, "tmpfs: file reads back byte-exact", "%zu of %zu pages differ", bad, n);

	/* Push it out again before the hole: the freed slots are the claim. */
	cg_write(cg, "memory.reclaim", "64M");
	if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)(q * page_size()),
		      (off_t)(q * page_size())) || ftruncate(fd, (off_t)(3 * q * page_size())))
		return t_fail("tmpfs: punch a hole and truncate", "%s", strerror(errno)), 1;
	if (vswap_mode()) {
		/*
		 * The worker's own anonymous pages (heap, stack) went out with
		 * the file: allow OWN_PAGES of them.  The hole and the cut
		 * tail are 2 * q = 8192 pages.
		 */
		used = vswap_wait_used(used0 + 2 * q + OWN_PAGES, 5000);
		t_ok(used >= 0 && used <= used0 + (long long)(2 * q) + OWN_PAGES,
		     "tmpfs: hole and truncate free their vswap slots",
		     "vswap used %lld after 5 s with %zu pages left in the file (%lld before)",
		     used, 2 * q, used0);
	}
	bad = zero_verify_fd(fd, q, q);
	t_ok(bad == 0, "tmpfs: the hole reads as zeroes", "%zu of %zu pages not zero", bad, q);
	bad = pat_verify_fd(fd, 0, q, SEED, PAT_COMPRESSIBLE) +
	      pat_verify_fd(fd, 2 * q, q, SEED, PAT_COMPRESSIBLE);
	t_ok(bad == 0, "tmpfs: the rest reads back byte-exact", "%zu of %zu pages differ", bad,
	     2 * q);
	close(fd);
	return 0;
}

/* Fill, check and punch a shared mapping of fd (memfd). */
static int memfd_worker(const char *cg, void *arg)
{
	size_t n = npages(), bad;
	char *p;
	int fd;

	(void)arg;
	fd = memfd_create("vswap_shmem", 0);
	if (fd < 0 || ftruncate(fd, SIZE))
		return t_fail("memfd: create", "%s", strerror(errno)), 1;
	p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return t_fail("memfd: map", "%s", strerror(errno)), 1;
	pat_fill(p, n, SEED, PAT_COMPRESSIBLE);
	note_out(cg);
	bad = pat_verify(p, n, SEED, PAT_COMPRESSIBLE);
	t_ok(bad == 0, "memfd: reads back byte-exact", "%zu of %zu pages differ", bad, n);
	munmap(p, SIZE);
	close(fd);
	return 0;
}

static int sysv_worker(const char *cg, void *arg)
{
	size_t n = npages(), bad;
	int id;
	char *p;

	(void)arg;
	id = shmget(IPC_PRIVATE, SIZE, IPC_CREAT | 0600);
	if (id < 0)
		return t_fail("sysv: shmget", "%s", strerror(errno)), 1;
	p = shmat(id, NULL, 0);
	shmctl(id, IPC_RMID, NULL);	/* goes with the last detach */
	if (p == (void *)-1)
		return t_fail("sysv: shmat", "%s", strerror(errno)), 1;
	pat_fill(p, n, SEED, PAT_COMPRESSIBLE);
	note_out(cg);
	bad = pat_verify(p, n, SEED, PAT_COMPRESSIBLE);
	t_ok(bad == 0, "sysv: reads back byte-exact", "%zu of %zu pages differ", bad, n);
	shmdt(p);
	return 0;
}

/* The shared phase's second process: its own mapping of the file. */
static int shared_child(size_t n)
{
	size_t bad;
	char *p;
	int fd;

	fd = open(FILE_PATH, O_RDWR);
	p = fd < 0 ? MAP_FAILED : mmap(NULL, n * page_size(), PROT_READ | PROT_WRITE,
					MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return t_fail("shared: child maps the file", "%s", strerror(errno)), 1;
	bad = pat_verify(p, n, SEED, PAT_COMPRESSIBLE);
	t_ok(bad == 0, "shared: the other process reads the pages back byte-exact",
	     "%zu of %zu pages differ", bad, n);
	pat_fill(p, n, SEED2, PAT_COMPRESSIBLE);
	munmap(p, n * page_size());
	close(fd);
	return bad != 0;
}

static int shared_worker(const char *cg, void *arg)
{
	size_t n = npages() / 2, bad, res;
	int fd, status;
	pid_t pid;
	char *p;

	(void)arg;
	fd = open(FILE_PATH, O_CREAT | O_RDWR | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)(n * page_size())))
		return t_fail("shared: create file", "%s", strerror(errno)), 1;
	p = mmap(NULL, n * page_size(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return t_fail("shared: map", "%s", strerror(errno)), 1;
	pat_fill(p, n, SEED, PAT_COMPRESSIBLE);
	cg_write(cg, "memory.reclaim", "64M");
	note_out(cg);

	pid = fork();
	if (pid == 0)
		_exit(shared_child(n));
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return t_fail("shared: child", "%s", strerror(errno)), 1;
	t_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "shared: child completed", "%s",
	     status_str(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status)));

	/* Out again with both mappings' changes, then in through this one. */
	cg_write(cg, "memory.reclaim", "64M");
	res = 0;
	for (size_t i = 0; i < n; i += 64) {
		unsigned char vec[64];
		size_t k = n - i < 64 ? n - i : 64;

		if (!mincore(p + i * page_size(), k * page_size(), vec))
			for (size_t j = 0; j < k; j++)
				res += vec[j] & 1;
	}
	t_diag("shared: %zu of %zu pages resident after the second push-out", res, n);
	t_ok(res < n / 2, "shared: the shared pages were pushed out", "%zu of %zu resident",
	     res, n);
	bad = pat_verify(p, n, SEED2, PAT_COMPRESSIBLE);
	t_ok(bad == 0, "shared: this process reads the other's bytes", "%zu of %zu pages differ",
	     bad, n);
	munmap(p, n * page_size());
	close(fd);
	return 0;
}

static void phase(const char *label, int (*fn)(const char *cg, void *arg), int file)
{
	long long stored0 = zswap_stat("stored_pages");
	char name[64], *cg;

	memset(seen, 0, sizeof(*seen));
	used0 = vswap_mode() ? vswap_stat("used") : -1;
	snprintf(name, sizeof(name), "vswap_shmem_%s", label);
	cg = cg_create(name, MAX);
	if (!cg) {
		t_fail(t_name(label, "create cgroup"), "%s", strerror(errno));
		return;
	}
	cg_run_ok(cg, label, fn, NULL);
	t_ok(seen->zswpout > 0 && seen->zswap_cur > 0, t_name(label, "pages went to zswap"),
	     "zswpout %lld, memory.zswap.current %lld", seen->zswpout, seen->zswap_cur);
	if (env.mode == SWAP_VSWAP) {
		t_ok(seen->swap_cur == 0, t_name(label, "memory.swap.current stays 0"),
		     "%lld bytes", seen->swap_cur);
		t_ok(seen->vzswap > 0, t_name(label, "debugfs vswap counts them in zswap"),
		     "vswap zswap %lld", seen->vzswap);
	}
	if (file)
		unlink(FILE_PATH);
	if (vswap_mode())
		vswap_check_used_back(label, used0);
	zswap_check_stored_back(label, stored0);
	cg_destroy(cg);
}

int main(int argc, char **argv)
{
	t_init("vswap_shmem");
	swap_env_setup(&env, argc, argv);
	t_diag("mode: %s", swap_env_name(&env));
	seen = mmap(NULL, sizeof(*seen), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (seen == MAP_FAILED)
		t_bail("map", "%s", strerror(errno));
	mkdir(MNT, 0700);
	if (mount("tmpfs", MNT, "tmpfs", 0, "huge=never"))
		t_bail("mount tmpfs", "%s", strerror(errno));

	phase("tmpfs", tmpfs_worker, 1);
	phase("memfd", memfd_worker, 0);
	phase("sysv", sysv_worker, 0);
	phase("shared", shared_worker, 1);

	umount(MNT);
	swap_env_teardown(&env);
	return t_done();
}

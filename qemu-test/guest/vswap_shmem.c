// SPDX-License-Identifier: GPL-2.0
/*
 * vswap_shmem: tmpfs files, memfd and SysV shared memory swap into zswap
 * through vswap with no swap device, as anonymous memory does.
 *
 *   vswap_shmem [DEVICE]  vswap=on with nothing in /proc/swaps; regression
 *                         mode (vswap=off, or the unpatched kernel): a swap
 *                         area on DEVICE (default /dev/vda), where 6.12
 *                         swaps shmem through zswap already
 *   vswap_shmem global    vswap=on, no swap area, no cgroup limit: a tmpfs
 *                         file of 5/4 of MemTotal, written and read back
 *                         under global pressure (kswapd, direct reclaim)
 *
 * Each phase runs a worker in its own 24 MiB cgroup and writes 64 MiB of
 * compressible pages into one kind of shared memory, so reclaim must swap
 * most of them out:
 *  - tmpfs: write() a file on a tmpfs mount, read() it back byte-exact;
 *    punch a hole over a quarter and truncate off the last quarter: the
 *    hole reads as zeroes, the rest byte-exact, and (vswap) the swap slots
 *    in use fall to at most the half that is left; fallocate() over the
 *    first quarter, pushed out again, keeps its bytes;
 *  - memfd: memfd_create(), written and checked through a shared mapping;
 *  - sysv: shmget()/shmat(), the same;
 *  - shared: a tmpfs file mapped shared by the worker and by a child that
 *    opens it itself; the cgroup's memory.reclaim pushes the pages out;
 *    the child reads the worker's bytes and overwrites them, and after a
 *    second push-out the worker reads the child's;
 *  - zero: a memfd written with zeroes swaps out as zero pages
 *    (swpout_zero, vswap "zero"), with no zswap entry;
 *  - huge: a file on a huge=always tmpfs gets PMD folios; with vswap and
 *    no swap area shmem_writepage() splits them for vswap slots.
 * Every phase but zero: the worker completes with no OOM kill (with vswap and no
 * device, 6.12 OOM-kills it: shmem had no swap), the cgroup's zswpout and
 * memory.zswap.current show the pages in zswap, and with vswap
 * memory.swap.current stays 0 (only physical slots are charged) and
 * debugfs vswap "zswap" counts them; once the object is gone, vswap
 * "used" and zswap stored_pages are back where they started.
 *
 * global: the file must be written and read back byte-exact with no OOM
 * kill, /proc/vmstat zswpout must rise by half of the quarter of RAM that
 * cannot stay, vswap "used" must be above 0 while it is out, and once the
 * file is removed used falls to 1/64 of its pages or below (slots of
 * folios still in the swap cache go when reclaim drops them), plus the
 * pages of the initramfs's tmpfs root the pressure swapped out as well
 * (shmem_out_pages()) and what was in use before.
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
#define MNT_HUGE	"/vswap_shmem_huge"
#define HUGE_PATH	MNT_HUGE "/file"
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
	long long used, bad;	/* global: vswap "used" while out, bad pages */
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

	/* fallocate() over the first quarter, pushed out again first. */
	cg_write(cg, "memory.reclaim", "64M");
	if (fallocate(fd, 0, 0, (off_t)(q * page_size())))
		return t_fail("tmpfs: fallocate over swapped pages", "%s", strerror(errno)), 1;
	bad = pat_verify_fd(fd, 0, q, SEED, PAT_COMPRESSIBLE) + zero_verify_fd(fd, q, q);
	t_ok(bad == 0, "tmpfs: fallocate over swapped pages keeps their bytes",
	     "%zu of %zu pages differ", bad, 2 * q);
	close(fd);
	return 0;
}

/*
 * A memfd of SIZE, mapped shared: the mapping, with its fd in @fd, or NULL
 * after a failed check "LABEL: create memfd".
 */
static char *memfd_map(const char *label, int *fd)
{
	char *p;

	*fd = memfd_create("vswap_shmem", 0);
	if (*fd < 0 || ftruncate(*fd, SIZE)) {
		t_fail(t_name(label, "create memfd"), "%s", strerror(errno));
		return NULL;
	}
	p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	if (p == MAP_FAILED) {
		t_fail(t_name(label, "create memfd"), "mmap: %s", strerror(errno));
		return NULL;
	}
	return p;
}

/*
 * zero: a memfd whose pages are all zero (written as zeroes, so they are
 * dirty): they swap out as zero pages, no zswap entry (swpout_zero, vswap
 * "zero"), and read back as zeroes.
 */
static int zero_worker(const char *cg, void *arg)
{
	size_t n = npages(), bad = 0, i;
	long long stored0 = zswap_stat("stored_pages"), zero, vzero, stored;
	char *p;
	int fd;

	(void)arg;
	p = memfd_map("zero", &fd);
	if (!p)
		return 1;
	for (i = 0; i < n; i++)
		memset(p + i * page_size(), 0, page_size());
	cg_write(cg, "memory.reclaim", "64M");
	note_out(cg);
	zero = cg_stat(cg, "swpout_zero");
	vzero = vswap_mode() ? vswap_stat("zero") : -1;
	stored = zswap_stat("stored_pages") - stored0;
	t_diag("zero: swpout_zero %lld, vswap zero %lld, stored_pages +%lld", zero, vzero, stored);
	t_ok(zero >= (long long)n / 2, "zero: pages swapped out as zero pages",
	     "swpout_zero %lld for %zu pages", zero, n);
	if (vswap_mode())
		t_ok(vzero >= (long long)n / 2, "zero: debugfs vswap counts them as zero",
		     "vswap zero %lld for %zu pages", vzero, n);
	t_ok(stored < 64, "zero: no zswap entry for them", "stored_pages +%lld", stored);
	for (i = 0; i < n; i++)
		bad += !page_is_zero(p + i * page_size());
	t_ok(bad == 0, "zero: they read back as zeroes", "%zu of %zu pages not zero", bad, n);
	munmap(p, SIZE);
	close(fd);
	return 0;
}

/*
 * huge: a file on a huge=always tmpfs, written through write(): shmem
 * allocates PMD folios (thp_file_alloc); with vswap and no swap area no
 * physical cluster takes one whole, so shmem_writepage() splits them
 * (thp_split_page) and the pages take vswap slots.  Read back byte-exact.
 */
static int huge_worker(const char *cg, void *arg)
{
	long long alloc0 = vmstat("thp_file_alloc"), split0 = vmstat("thp_split_page");
	size_t n = npages(), bad;
	int fd, r;

	(void)arg;
	fd = open(HUGE_PATH, O_CREAT | O_RDWR | O_TRUNC, 0600);
	if (fd < 0)
		return t_fail("huge: create file", "%s", strerror(errno)), 1;
	r = pat_write_fd(fd, 0, n, SEED, PAT_COMPRESSIBLE);
	if (r)
		return t_fail("huge: write file", "%s", strerror(-r)), 1;
	/*
	 * The PMD folios written last fill the cgroup, on the active list.
	 * Reclaim deactivates it only when the memcg's LRU statistics, which
	 * are flushed lazily, show it: memory.reclaim right after the writes
	 * leaves them, one after a read of memory.stat (which flushes) takes
	 * them.  Read memory.stat (shmem_thp) before each try, 4 at most.
	 */
	for (int i = 0; i < 4 && cg_stat(cg, "shmem_thp") > 0; i++)
		cg_write(cg, "memory.reclaim", "64M");
	note_out(cg);
	t_diag("huge: thp_file_alloc +%lld, thp_split_page +%lld", vmstat("thp_file_alloc") - alloc0,
	       vmstat("thp_split_page") - split0);
	t_ok(vmstat("thp_file_alloc") > alloc0, "huge: shmem allocated PMD folios",
	     "thp_file_alloc +%lld", vmstat("thp_file_alloc") - alloc0);
	if (env.mode == SWAP_VSWAP)
		t_ok(vmstat("thp_split_page") > split0, "huge: they were split to take vswap slots",
		     "thp_split_page +%lld", vmstat("thp_split_page") - split0);
	bad = pat_verify_fd(fd, 0, n, SEED, PAT_COMPRESSIBLE);
	t_ok(bad == 0, "huge: file reads back byte-exact", "%zu of %zu pages differ", bad, n);
	close(fd);
	return 0;
}

/* Fill and check a shared mapping of a memfd. */
static int memfd_worker(const char *cg, void *arg)
{
	size_t n = npages(), bad;
	char *p;
	int fd;

	(void)arg;
	p = memfd_map("memfd", &fd);
	if (!p)
		return 1;
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

/* What a phase leaves for phase() to check and remove. */
#define P_FILE		1u	/* FILE_PATH, to remove */
#define P_HUGE_FILE	2u	/* HUGE_PATH, to remove */
#define P_ZERO		4u	/* zero pages: no zswap entry expected */

static void phase(const char *label, int (*fn)(const char *cg, void *arg), unsigned int flags)
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
	if (!(flags & P_ZERO))
		t_ok(seen->zswpout > 0 && seen->zswap_cur > 0,
		     t_name(label, "pages went to zswap"),
		     "zswpout %lld, memory.zswap.current %lld", seen->zswpout, seen->zswap_cur);
	if (env.mode == SWAP_VSWAP) {
		t_ok(seen->swap_cur == 0, t_name(label, "memory.swap.current stays 0"),
		     "%lld bytes", seen->swap_cur);
		if (!(flags & P_ZERO))
			t_ok(seen->vzswap > 0, t_name(label, "debugfs vswap counts them in zswap"),
			     "vswap zswap %lld", seen->vzswap);
	}
	if (flags & P_FILE)
		unlink(FILE_PATH);
	if (flags & P_HUGE_FILE)
		unlink(HUGE_PATH);
	if (vswap_mode())
		vswap_check_used_back(label, used0);
	zswap_check_stored_back(label, stored0);
	cg_destroy(cg);
}

/* The global mode's writer, in a child so that an OOM kill is seen. */
static int global_child(size_t n)
{
	long long zout0 = vmstat("zswpout");
	int fd, r;

	fd = open(FILE_PATH, O_CREAT | O_RDWR | O_TRUNC, 0600);
	if (fd < 0)
		return t_fail("global: create file", "%s", strerror(errno)), 1;
	r = pat_write_fd(fd, 0, n, SEED, PAT_COMPRESSIBLE);
	if (r)
		return t_fail("global: write file", "%s", strerror(-r)), 1;
	seen->zswpout = vmstat("zswpout") - zout0;
	seen->used = vswap_stat("used");
	seen->bad = (long long)pat_verify_fd(fd, 0, n, SEED, PAT_COMPRESSIBLE);
	close(fd);
	return 0;
}

static void global_mode(void)
{
	long long total = meminfo_kb("MemTotal"), shmem0 = meminfo_kb("Shmem");
	long long used0 = vswap_stat("used");
	long long want, used, shm, limit;
	size_t n = (size_t)total * 1024 / 4 * 5 / page_size();
	double t0 = mono_now();
	int st;
	pid_t pid;

	if (!path_exists(VSWAP_DIR))
		t_bail("vswap device present", "%s missing (vswap=on?)", VSWAP_DIR);
	t_ok(swaps_count() == 0, "global: no swap area in /proc/swaps", "%d listed",
	     swaps_count());
	zswap_check_enabled(1);
	want = (long long)(n / 5 / 2);
	seen->bad = -1;
	pid = fork();
	if (pid == 0)
		_exit(global_child(n));
	st = pid < 0 ? -errno : cg_wait(pid);
	t_diag("global: %zu MiB written and read back in %.1fs (MemTotal %lld MiB): "
	       "zswpout +%lld, vswap used %lld", n * page_size() / MiB, mono_now() - t0,
	       total >> 10, seen->zswpout, seen->used);
	t_ok(st == 0, "global: the writer completed (no OOM kill)", "%s", status_str(st));
	t_ok(seen->zswpout >= want, "global: pages left RAM through zswap (vmstat zswpout)",
	     "zswpout +%lld, want %lld", seen->zswpout, want);
	t_ok(seen->used > 0, "global: vswap used > 0 while the file was out", "used %lld",
	     seen->used);
	t_ok(seen->bad == 0, "global: the file reads back byte-exact",
	     "%lld of %zu pages differ", seen->bad, n);
	unlink(FILE_PATH);
	shm = shmem_out_pages(shmem0);
	limit = used0 + (long long)n / 64 + (shm > 0 ? shm : 0);
	used = vswap_wait_used(limit, 5000);
	t_ok(used >= 0 && used0 >= 0 && shm >= 0 && used <= limit,
	     "global: file removed, vswap used back to at most 1/64 of its pages",
	     "used is %lld after 5 s, at most %lld before + %zu + %lld shmem pages out",
	     used, used0, n / 64, shm);
}

int main(int argc, char **argv)
{
	int global = argc > 1 && !strcmp(argv[1], "global");

	t_init("vswap_shmem");
	seen = mmap(NULL, sizeof(*seen), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (seen == MAP_FAILED)
		t_bail("map", "%s", strerror(errno));
	mkdir(MNT, 0700);
	if (mount("tmpfs", MNT, "tmpfs", 0, global ? "huge=never,size=200%" : "huge=never"))
		t_bail("mount tmpfs", "%s", strerror(errno));
	if (global) {
		global_mode();
		umount(MNT);
		return t_done();
	}
	swap_env_setup(&env, argc, argv);
	t_diag("mode: %s", swap_env_name(&env));

	phase("tmpfs", tmpfs_worker, P_FILE);
	phase("memfd", memfd_worker, 0);
	phase("sysv", sysv_worker, 0);
	phase("shared", shared_worker, P_FILE);
	phase("zero", zero_worker, P_ZERO);
	mkdir(MNT_HUGE, 0700);
	if (mount("tmpfs", MNT_HUGE, "tmpfs", 0, "huge=always"))
		t_fail("huge: mount tmpfs huge=always", "%s", strerror(errno));
	else
		phase("huge", huge_worker, P_HUGE_FILE);
	umount(MNT_HUGE);

	umount(MNT);
	swap_env_teardown(&env);
	return t_done();
}

// SPDX-License-Identifier: GPL-2.0
/* Helper library for the in-guest vswap tests; see lib.h. */
#define _GNU_SOURCE
#include "lib.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- results ---------------------------------------------------------- */

/*
 * Counters live in a shared mapping so that a forked child (running in a
 * cgroup) can report results itself and the numbering stays right.
 */
struct t_state {
	int n;		/* results printed */
	int failed;
	int skipped;
	int plan;	/* -1: none announced */
};
static struct t_state *ts;
static const char *t_name = "test";

void t_init(const char *name)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	setvbuf(stderr, NULL, _IONBF, 0);
	ts = mmap(NULL, sizeof(*ts), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ts == MAP_FAILED) {
		printf("Bail out! mmap: %s\n", strerror(errno));
		exit(1);
	}
	ts->plan = -1;
	t_name = name;
	printf("TAP version 13\n# %s\n", name);
}

void t_plan(int n)
{
	ts->plan = n;
	printf("1..%d\n", n);
}

static void vdiag(const char *fmt, va_list ap)
{
	char buf[2048];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	/* One "# " per line, so multi-line text never looks like a result. */
	for (char *line = buf, *nl; line && *line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = 0;
		printf("# %s\n", line);
	}
}

void t_diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(fmt, ap);
	va_end(ap);
}

static void result(int ok, const char *name, const char *directive, const char *why)
{
	int n = __atomic_add_fetch(&ts->n, 1, __ATOMIC_SEQ_CST);
	char buf[512];

	snprintf(buf, sizeof(buf), "%s", why ? why : "");
	for (char *p = buf; *p; p++)
		if (*p == '\n')
			*p = ' ';
	if (!ok)
		__atomic_add_fetch(&ts->failed, 1, __ATOMIC_SEQ_CST);
	printf("%s %d %s%s%s%s\n", ok ? "ok" : "not ok", n, name,
	       (*buf || directive) ? " # " : "", directive ? directive : "", buf);
}

#define VFORMAT(buf, fmt) do {					\
		va_list ap;					\
		va_start(ap, fmt);				\
		vsnprintf(buf, sizeof(buf), fmt ? fmt : "", ap);	\
		va_end(ap);					\
	} while (0)

void t_pass(const char *name)
{
	result(1, name, NULL, NULL);
}

int t_fail(const char *name, const char *why_fmt, ...)
{
	char why[512];

	VFORMAT(why, why_fmt);
	result(0, name, NULL, why);
	return 0;
}

void t_skip(const char *name, const char *why_fmt, ...)
{
	char why[512];

	VFORMAT(why, why_fmt);
	__atomic_add_fetch(&ts->skipped, 1, __ATOMIC_SEQ_CST);
	result(1, name, "SKIP ", why);
}

int t_ok(int cond, const char *name, const char *why_fmt, ...)
{
	char why[512];

	if (cond) {
		result(1, name, NULL, NULL);
		return 1;
	}
	VFORMAT(why, why_fmt);
	result(0, name, NULL, why);
	return 0;
}

int t_failures(void)
{
	return ts->failed;
}

int t_done(void)
{
	if (ts->plan < 0)
		printf("1..%d\n", ts->n);
	else if (ts->plan != ts->n)
		printf("# %s: planned %d results, reported %d\n", t_name, ts->plan, ts->n);
	printf("# %s: %d results, %d failed, %d skipped\n", t_name, ts->n,
	       ts->failed, ts->skipped);
	return (ts->failed || (ts->plan >= 0 && ts->plan != ts->n)) ? 1 : 0;
}

void t_bail(const char *name, const char *why_fmt, ...)
{
	char why[512];

	VFORMAT(why, why_fmt);
	result(0, name, NULL, why);
	t_done();
	exit(1);
}

/* ---- files -------------------------------------------------------------- */

ssize_t read_file(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (len + 1 < size && (r = read(fd, buf + len, size - 1 - len)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			close(fd);
			return r;
		}
		len += r;
	}
	buf[len] = 0;
	close(fd);
	return len;
}

int write_file(const char *path, const char *str)
{
	size_t len = strlen(str);
	ssize_t r;
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	r = write(fd, str, len);
	if (r < 0)
		r = -errno;
	else if ((size_t)r != len)
		r = -EIO;
	else
		r = 0;
	close(fd);
	return r;
}

int write_filef(const char *path, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return write_file(path, buf);
}

static int parse_ll(const char *s, long long *val)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	if (!strncmp(s, "max", 3)) {
		*val = INT64_MAX;
		return 0;
	}
	errno = 0;
	*val = strtoll(s, &end, 0);
	if (end == s || errno)
		return -EINVAL;
	return 0;
}

int read_ll(const char *path, long long *val)
{
	char buf[256];
	ssize_t r = read_file(path, buf, sizeof(buf));

	if (r < 0)
		return r;
	return parse_ll(buf, val);
}

int read_key(const char *path, const char *key, long long *val)
{
	static char buf[1 << 16];
	size_t klen = strlen(key);
	ssize_t r = read_file(path, buf, sizeof(buf));

	if (r < 0)
		return r;
	for (char *line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		if (strncmp(line, key, klen))
			continue;
		if (line[klen] != ':' && line[klen] != ' ' && line[klen] != '\t')
			continue;
		return parse_ll(line + klen + (line[klen] == ':'), val);
	}
	return -ENOENT;
}

long long vmstat(const char *key)
{
	long long v;

	return read_key("/proc/vmstat", key, &v) ? -1 : v;
}

int path_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

int is_mounted(const char *dir, const char *fstype)
{
	char buf[16384], d[256], t[64];
	char *line;

	if (read_file("/proc/mounts", buf, sizeof(buf)) < 0)
		return 0;
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		if (sscanf(line, "%*s %255s %63s", d, t) == 2 &&
		    !strcmp(d, dir) && !strcmp(t, fstype))
			return 1;
	return 0;
}

int cmdline_get(const char *key, char *buf, size_t size)
{
	char cl[4096];
	size_t klen = strlen(key);
	int found = 0;

	if (read_file("/proc/cmdline", cl, sizeof(cl)) < 0)
		return 0;
	for (char *tok = strtok(cl, " \t\n"); tok; tok = strtok(NULL, " \t\n")) {
		if (strncmp(tok, key, klen) || tok[klen] != '=')
			continue;
		snprintf(buf, size, "%s", tok + klen + 1);
		found = 1;	/* the last one wins, as for the kernel */
	}
	return found;
}

/* ---- swap ----------------------------------------------------------------- */

static char *swaps_lines(char *buf, size_t size)
{
	if (read_file("/proc/swaps", buf, size) < 0)
		return NULL;
	char *nl = strchr(buf, '\n');	/* skip the header */

	return nl ? nl + 1 : buf + strlen(buf);
}

int swaps_count(void)
{
	char buf[8192];
	char *p = swaps_lines(buf, sizeof(buf));
	int n = 0;

	if (!p)
		return -1;
	for (; *p; p++)
		if (*p == '\n')
			n++;
	return n;
}

/* Size, Used (KiB) or Priority column (col 0, 1, 2) of name's /proc/swaps line. */
static int swaps_column(const char *name, int col, long long *val)
{
	char buf[8192], fname[512], type[64];
	long long v[3];
	char *p = swaps_lines(buf, sizeof(buf));

	if (!p)
		return -EIO;
	for (char *line = strtok(p, "\n"); line; line = strtok(NULL, "\n"))
		if (sscanf(line, "%511s %63s %lld %lld %lld", fname, type, &v[0], &v[1],
			   &v[2]) == 5 && !strcmp(fname, name)) {
			*val = v[col];
			return 0;
		}
	return -ENOENT;
}

long long swaps_used_kb(const char *name)
{
	long long v;

	return swaps_column(name, 1, &v) ? -1 : v;
}

long long swaps_size_kb(const char *name)
{
	long long v;

	return swaps_column(name, 0, &v) ? -1 : v;
}

long long swaps_used_pages(const char *name)
{
	long long kb = swaps_used_kb(name);

	return kb < 0 ? -1 : kb * 1024 / (long long)page_size();
}

int swaps_prio(const char *name, long long *prio)
{
	return swaps_column(name, 2, prio);
}

int swaps_contains(const char *substr)
{
	char buf[8192];
	char *p = swaps_lines(buf, sizeof(buf));

	return p && strstr(p, substr) != NULL;
}

int make_swap(const char *path)
{
	size_t ps = page_size();
	unsigned long long bytes;
	struct stat st;
	char *page;
	int fd, ret = 0;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		goto out;
	}
	if (S_ISBLK(st.st_mode)) {
		if (ioctl(fd, BLKGETSIZE64, &bytes) < 0) {
			ret = -errno;
			goto out;
		}
	} else {
		bytes = st.st_size;
	}
	if (bytes / ps < 10) {
		ret = -ENOSPC;
		goto out;
	}
	page = calloc(1, ps);
	if (!page) {
		ret = -ENOMEM;
		goto out;
	}
	/* union swap_header: info starts after 1024 boot bytes. */
	uint32_t *info = (uint32_t *)(page + 1024);

	info[0] = 1;				/* version */
	info[1] = bytes / ps - 1;		/* last_page */
	info[2] = 0;				/* nr_badpages */
	memcpy(page + 1024 + 12, "vtest-swap-uuid!", 16);	/* sws_uuid */
	memcpy(page + 1024 + 28, "vtest", 5);			/* sws_volume */
	memcpy(page + ps - 10, "SWAPSPACE2", 10);
	if (pwrite(fd, page, ps, 0) != (ssize_t)ps || fsync(fd) < 0)
		ret = errno ? -errno : -EIO;
	free(page);
out:
	close(fd);
	return ret;
}

int swap_area_on(const char *dev, int prio)
{
	struct stat st;
	int flags = 0, r;

	if (stat(dev, &st))
		return -errno;
	if (!S_ISBLK(st.st_mode))
		return -ENOTBLK;
	if (swaps_used_kb(dev) >= 0 && swapoff(dev))
		return -errno;
	r = make_swap(dev);
	if (r)
		return r;
	if (prio >= 0)
		flags = SWAP_FLAG_PREFER | ((prio << SWAP_FLAG_PRIO_SHIFT) & SWAP_FLAG_PRIO_MASK);
	return swapon(dev, flags) ? -errno : 0;
}

/* ---- cgroups -------------------------------------------------------------- */

static char *cg_path(const char *cg, const char *file)
{
	static char buf[1024];

	snprintf(buf, sizeof(buf), "%s/%s", cg, file);
	return buf;
}

int cg_write(const char *cg, const char *file, const char *val)
{
	return write_file(cg_path(cg, file), val);
}

int cg_read_ll(const char *cg, const char *file, long long *val)
{
	return read_ll(cg_path(cg, file), val);
}

int cg_read_key(const char *cg, const char *file, const char *key, long long *val)
{
	return read_key(cg_path(cg, file), key, val);
}

long long cg_stat(const char *cg, const char *key)
{
	long long v;

	return cg_read_key(cg, "memory.stat", key, &v) ? -1 : v;
}

int cg_enter(const char *cg)
{
	char pid[32];

	snprintf(pid, sizeof(pid), "%d", getpid());
	return cg_write(cg, "cgroup.procs", pid);
}

int cg_destroy(const char *cg)
{
	for (int i = 0; i < 500; i++) {
		if (!rmdir(cg) || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -errno;
		cg_write(cg, "cgroup.kill", "1");
		usleep(10000);
	}
	return -EBUSY;
}

char *cg_create(const char *name, unsigned long max_bytes)
{
	char path[256];
	char val[32];
	int r;

	/* /init already did this; harmless when repeated. */
	write_file(CGROOT "/cgroup.subtree_control", "+memory");
	snprintf(path, sizeof(path), "%s/%s", CGROOT, name);
	if (mkdir(path, 0755) < 0) {
		if (errno != EEXIST)
			return NULL;
		r = cg_destroy(path);
		if (r || mkdir(path, 0755) < 0) {
			errno = r ? -r : errno;
			return NULL;
		}
	}
	if (max_bytes) {
		snprintf(val, sizeof(val), "%lu", max_bytes);
		r = cg_write(path, "memory.max", val);
		if (r) {
			rmdir(path);
			errno = -r;
			return NULL;
		}
	}
	return strdup(path);
}

pid_t cg_spawn(const char *cg, int (*fn)(const char *cg, void *arg), void *arg)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int r = cg_enter(cg);

		if (r) {
			t_diag("cannot enter %s: %s", cg, strerror(-r));
			_exit(125);
		}
		r = fn(cg, arg);
		fflush(NULL);
		_exit(r & 0xff);
	}
	return pid;
}

int cg_wait(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

int cg_run(const char *cg, int (*fn)(const char *cg, void *arg), void *arg)
{
	pid_t pid = cg_spawn(cg, fn, arg);

	return pid < 0 ? pid : cg_wait(pid);
}

const char *status_str(int status)
{
	static char buf[64];

	if (status < 0)
		snprintf(buf, sizeof(buf), "error %s", strerror(-status));
	else if (status == 128 + SIGKILL)
		snprintf(buf, sizeof(buf), "killed by SIGKILL (OOM kill?)");
	else if (status > 128)
		snprintf(buf, sizeof(buf), "killed by signal %d (%s)", status - 128,
			 strsignal(status - 128));
	else
		snprintf(buf, sizeof(buf), "exit status %d", status);
	return buf;
}

/* ---- patterned memory ---------------------------------------------------- */

#define PAT_MAGIC 0x7673776170746573ULL	/* "vswaptes" */

size_t page_size(void)
{
	static size_t ps;

	if (!ps)
		ps = sysconf(_SC_PAGESIZE);
	return ps;
}

void *map_anon(size_t npages)
{
	void *p = mmap(NULL, npages * page_size(), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

static uint64_t page_sum(const uint64_t *w, size_t nw)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < nw; i++)
		h = (h ^ w[i]) * 0x100000001b3ULL;
	return h;
}

static void fill_page(uint64_t *w, size_t nw, uint64_t seed, uint64_t idx,
		      enum pat_kind kind)
{
	int random = kind == PAT_RANDOM || (kind == PAT_MIXED && (idx & 1)) ||
		     (kind == PAT_MIX3 && idx % 3 == 1);
	uint64_t s = mix(seed ^ mix(idx + 1));

	if (kind == PAT_ZERO || (kind == PAT_MIX3 && idx % 3 == 2)) {
		memset(w, 0, nw * 8);
		return;
	}
	w[0] = PAT_MAGIC;
	w[1] = seed;
	w[2] = idx;
	for (size_t j = 3; j < nw - 1; j++) {
		if (random) {
			/* xorshift64 */
			s ^= s << 13;
			s ^= s >> 7;
			s ^= s << 17;
			w[j] = s;
		} else if (kind == PAT_REPEAT) {
			/* one word: ~76 bytes in zswap's pool, not same-filled */
			w[j] = s;
		} else {
			/* eight distinct words, repeated: compresses well */
			w[j] = s + (j & 7);
		}
	}
	w[nw - 1] = page_sum(w, nw - 1);
}

void pat_fill_from(void *buf, size_t first, size_t npages, uint64_t seed,
		   enum pat_kind kind)
{
	size_t nw = page_size() / 8;

	for (size_t i = first; i < first + npages; i++)
		fill_page((uint64_t *)buf + i * nw, nw, seed, i, kind);
}

void pat_fill(void *buf, size_t npages, uint64_t seed, enum pat_kind kind)
{
	pat_fill_from(buf, 0, npages, seed, kind);
}

static void describe_bad(const uint64_t *got, const uint64_t *want, size_t nw,
			 size_t idx, uint64_t seed)
{
	const unsigned char *g = (const void *)got, *e = (const void *)want;
	size_t bytes = nw * 8, first = bytes, diff = 0, zero = 1;

	for (size_t b = 0; b < bytes; b++) {
		if (g[b])
			zero = 0;
		if (g[b] != e[b]) {
			diff++;
			if (first == bytes)
				first = b;
		}
	}
	if (zero) {
		t_diag("page %zu: all zero", idx);
	} else if (got[0] == PAT_MAGIC && got[nw - 1] == page_sum(got, nw - 1) &&
		   (got[2] != idx || got[1] != seed)) {
		t_diag("page %zu: holds an intact copy of page %llu (seed %#llx)",
		       idx, (unsigned long long)got[2], (unsigned long long)got[1]);
	} else {
		t_diag("page %zu: %zu bytes differ, first at offset %zu (got %02x want %02x)%s",
		       idx, diff, first, g[first], e[first],
		       got[nw - 1] == page_sum(got, nw - 1) ? "" : ", checksum bad");
	}
}

size_t pat_verify_from(const void *buf, size_t first, size_t npages, uint64_t seed,
		       enum pat_kind kind)
{
	size_t nw = page_size() / 8, bad = 0;
	uint64_t *want = malloc(page_size());

	if (!want) {
		t_diag("pat_verify: out of memory");
		return npages;
	}
	for (size_t i = first; i < first + npages; i++) {
		const uint64_t *got = (const uint64_t *)buf + i * nw;

		fill_page(want, nw, seed, i, kind);
		if (!memcmp(got, want, page_size()))
			continue;
		if (bad++ < 5)
			describe_bad(got, want, nw, i, seed);
	}
	if (bad > 5)
		t_diag("... %zu bad pages in all", bad);
	free(want);
	return bad;
}

size_t pat_verify(const void *buf, size_t npages, uint64_t seed, enum pat_kind kind)
{
	return pat_verify_from(buf, 0, npages, seed, kind);
}

void *map_anon_4k(size_t npages)
{
	void *p = map_anon(npages);

	if (p && madvise(p, npages * page_size(), MADV_NOHUGEPAGE)) {
		munmap(p, npages * page_size());
		return NULL;
	}
	return p;
}

int pageout(void *buf, size_t npages)
{
	return madvise(buf, npages * page_size(), MADV_PAGEOUT) ? -errno : 0;
}

int blk_set_nonrot(const char *dev)
{
	const char *base = strrchr(dev, '/');
	char path[128];

	snprintf(path, sizeof(path), "/sys/block/%s/queue/rotational", base ? base + 1 : dev);
	return write_file(path, "0");
}

long long proc_status_kb(pid_t pid, const char *key)
{
	char path[64];
	long long v;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	return read_key(path, key, &v) ? -1 : v;
}

int blk_sectors(const char *dev, long long *rd, long long *wr)
{
	char path[256], buf[512];
	const char *name = strrchr(dev, '/') ? strrchr(dev, '/') + 1 : dev;
	long long f[7];
	ssize_t r;

	snprintf(path, sizeof(path), "/sys/block/%s/stat", name);
	r = read_file(path, buf, sizeof(buf));
	if (r < 0)
		return r;
	/* reads, merged, sectors read, ms, writes, merged, sectors written */
	if (sscanf(buf, "%lld %lld %lld %lld %lld %lld %lld", &f[0], &f[1], &f[2],
		   &f[3], &f[4], &f[5], &f[6]) != 7)
		return -EINVAL;
	*rd = f[2];
	*wr = f[6];
	return 0;
}

/* ---- swap backends -------------------------------------------------------- */

long long vswap_stat(const char *name)
{
	char path[256];
	long long v;

	snprintf(path, sizeof(path), "%s/%s", VSWAP_DIR, name);
	return read_ll(path, &v) ? -1 : v;
}

long long vswap_wait_used(long long target, int ms)
{
	long long used = vswap_stat("used");

	for (int i = 0; i < ms / 100 && used > target; i++) {
		usleep(100000);
		used = vswap_stat("used");
	}
	return used;
}

long long cg_wait_le(const char *cg, const char *file, long long target, int ms)
{
	long long v = -1;

	for (int i = 0; cg_read_ll(cg, file, &v) || v > target; i++) {
		if (i >= ms / 100)
			return cg_read_ll(cg, file, &v) ? -1 : v;
		usleep(100000);
	}
	return v;
}

long long zswap_stat(const char *name)
{
	char path[256];
	long long v;

	snprintf(path, sizeof(path), "%s/zswap/%s", DEBUGFS, name);
	return read_ll(path, &v) ? -1 : v;
}

/* The swap area of SWAP_DISK and SWAP_VSWAP_DISK: a fresh header, swapon. */
static void swap_env_disk(struct swap_env *env)
{
	struct stat st;
	int r;

	if (stat(env->dev, &st) || !S_ISBLK(st.st_mode))
		t_bail("swap disk present", "%s%s is not a block device (scenario disks=?)",
		       env->mode == SWAP_DISK ? "no vswap device and " : "", env->dev);
	if (swaps_used_kb(env->dev) >= 0 && swapoff(env->dev))
		t_bail("swapoff a stale swap area", "%s: %s", env->dev, strerror(errno));
	r = make_swap(env->dev);
	if (r)
		t_bail("write swap header", "%s: %s", env->dev, strerror(-r));
	errno = 0;
	if (swapon(env->dev, 0))
		t_bail("swapon", "%s: %s", env->dev, strerror(errno));
	env->size_kb = swaps_size_kb(env->dev);
	t_ok(env->size_kb > 0 && swaps_count() == 1,
	     env->mode == SWAP_DISK ? "regression mode: swap area on the disk is the only one" :
	     "vswap + swap area mode: the swap area on the disk is the only one",
	     "%s size %lld KiB, %d areas listed", env->dev, env->size_kb, swaps_count());
}

void swap_env_setup_flags(struct swap_env *env, int argc, char **argv, unsigned int flags)
{
	char val[16] = "";

	read_file("/sys/module/zswap/parameters/enabled", val, sizeof(val));
	t_ok(val[0] == 'Y', "zswap enabled", "zswap.enabled is '%.1s'", val);
	env->dev = argc > 1 ? argv[1] : "/dev/vda";
	env->size_kb = -1;
	if (!path_exists(VSWAP_DIR)) {
		env->mode = SWAP_DISK;
		t_diag("regression mode: no %s, swap area on %s", VSWAP_DIR, env->dev);
		swap_env_disk(env);
		return;
	}
	if ((flags & SWAP_ENV_DISK) || ((flags & SWAP_ENV_DISK_ARG) && argc > 1)) {
		env->mode = SWAP_VSWAP_DISK;
		t_diag("vswap + swap area mode: %s exists, swap area on %s behind it",
		       VSWAP_DIR, env->dev);
		t_ok(swaps_count() == 0, "vswap + swap area mode: no swap area before the test",
		     "%d listed", swaps_count());
		swap_env_disk(env);
		return;
	}
	env->mode = SWAP_VSWAP;
	t_diag("vswap mode: %s exists, pages can only go to zswap", VSWAP_DIR);
	t_ok(swaps_count() == 0, "vswap mode: no swap area in /proc/swaps",
	     "%d listed", swaps_count());
}

void swap_env_setup(struct swap_env *env, int argc, char **argv)
{
	swap_env_setup_flags(env, argc, argv, 0);
}

void swap_env_teardown(struct swap_env *env)
{
	if (env->mode == SWAP_VSWAP)
		return;
	errno = 0;
	t_ok(!swapoff(env->dev) && swaps_count() == 0, "swapoff, no swap area left",
	     "swapoff %s: %s, %d areas listed", env->dev, strerror(errno), swaps_count());
}

const char *swap_env_name(const struct swap_env *env)
{
	static char buf[128];

	if (env->mode == SWAP_VSWAP)
		return "vswap";
	snprintf(buf, sizeof(buf), "%sswap area on %s",
		 env->mode == SWAP_VSWAP_DISK ? "vswap + " : "", env->dev);
	return buf;
}

long long swap_env_used(const struct swap_env *env)
{
	if (env->mode != SWAP_DISK)
		return vswap_stat("used");
	return swaps_used_pages(env->dev);
}

/* ---- kernel log ----------------------------------------------------------- */

int kmsg_each(int (*fn)(const char *msg, void *arg), void *arg)
{
	char rec[8192 + 1];
	int fd, n = 0;

	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t r = read(fd, rec, sizeof(rec) - 1);
		char *msg, *nl;

		if (r < 0) {
			if (errno == EINTR || errno == EPIPE)	/* EPIPE: records overwritten */
				continue;
			break;	/* EAGAIN: end of the log */
		}
		if (r == 0)
			break;
		rec[r] = 0;
		msg = strchr(rec, ';');
		if (!msg)
			continue;
		msg++;
		nl = strchr(msg, '\n');
		if (nl)
			*nl = 0;
		n++;
		if (fn(msg, arg))
			break;
	}
	close(fd);
	return n;
}

struct kmsg_match {
	const char *str;
	int anchored;
	int count;
	char *buf;
	size_t size;
};

static int match_cb(const char *msg, void *arg)
{
	struct kmsg_match *m = arg;
	int hit = m->anchored ? !strncmp(msg, m->str, strlen(m->str)) : !!strstr(msg, m->str);

	if (!hit)
		return 0;
	m->count++;
	if (m->buf) {
		snprintf(m->buf, m->size, "%s", msg);
		return 1;
	}
	return 0;
}

int kmsg_count(const char *str, int anchored)
{
	struct kmsg_match m = { .str = str, .anchored = anchored };
	int r = kmsg_each(match_cb, &m);

	return r < 0 ? r : m.count;
}

int kmsg_find(const char *str, char *buf, size_t size)
{
	struct kmsg_match m = { .str = str, .buf = buf, .size = size };

	kmsg_each(match_cb, &m);
	return m.count > 0;
}

void kmsg_mark(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	n = snprintf(buf, sizeof(buf), "vtest: ");
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);
	va_end(ap);
	strcat(buf, "\n");
	write_file("/dev/kmsg", buf);
}

/* What counts as a splat: anything a kernel developer would want to read. */
static const char *const splat_patterns[] = {
	"WARNING:",
	"BUG:",
	"kernel BUG at",
	"KASAN:",
	"UBSAN:",
	"KFENCE:",
	"Oops:",
	"general protection fault",
	"Unable to handle kernel",
	"possible circular locking",
	"possible recursive locking",
	"inconsistent lock state",
	"suspicious RCU usage",
	"INFO: lockdep",
	"DEBUG_LOCKS_WARN_ON",
	"detected stall",
	"blocked for more than",
	"Call Trace",
	"Kernel panic",
	"list_add corruption",
	"list_del corruption",
	"refcount_t:",
	"Bad page",
	"Bad swap",
	"Unused swap",
	"invoked oom-killer",
	"cut here",
	NULL,
};

#define OOM_BEGIN	"vtest: oom-expected: "
#define OOM_END		"vtest: oom-expected-end"

struct splat_state {
	char marker[160];
	char oom_why[160];	/* inside an oom_expect_begin() bracket */
	int hits;
	char *first;
	size_t size;
};

static int splat_cb(const char *msg, void *arg)
{
	struct splat_state *s = arg;
	const char *const *p;

	if (!strncmp(msg, OOM_BEGIN, strlen(OOM_BEGIN))) {
		snprintf(s->oom_why, sizeof(s->oom_why), "%s", msg + strlen(OOM_BEGIN));
		return 0;
	}
	if (!strncmp(msg, OOM_END, strlen(OOM_END))) {
		s->oom_why[0] = 0;
		return 0;
	}
	if (!strncmp(msg, "vtest: ", 7)) {
		snprintf(s->marker, sizeof(s->marker), "%s", msg + 7);
		s->oom_why[0] = 0;
		return 0;
	}
	for (p = splat_patterns; *p; p++)
		if (strstr(msg, *p))
			break;
	if (s->oom_why[0]) {
		/* Expected: a memcg OOM report.  A global OOM is a splat. */
		if (strstr(msg, "oom-kill:constraint=") &&
		    !strstr(msg, "constraint=CONSTRAINT_MEMCG")) {
			p = NULL;
		} else if (*p && (!strcmp(*p, "invoked oom-killer") || !strcmp(*p, "Call Trace"))) {
			t_diag("expected [%s, %s]: %s", s->marker, s->oom_why, msg);
			return 0;
		}
	}
	if (p && !*p)
		return 0;
	if (!s->hits && s->first)
		snprintf(s->first, s->size, "%s", msg);
	if (s->hits++ < 40)
		t_diag("splat [%s]: %s", s->marker[0] ? s->marker : "boot", msg);
	return 0;
}

int kmsg_splats(char *first, size_t size)
{
	struct splat_state s = { .first = first, .size = size };
	int r = kmsg_each(splat_cb, &s);

	if (r < 0)
		return r;
	if (s.hits > 40)
		t_diag("... %d splat lines in all", s.hits);
	return s.hits;
}

void oom_expect_begin(const char *why)
{
	kmsg_mark("oom-expected: %s", why);
}

void oom_expect_end(void)
{
	kmsg_mark("oom-expected-end");
}

int oom_kills_logged(void)
{
	return kmsg_count("invoked oom-killer", 0);
}

/* ---- kernel selftests ------------------------------------------------------ */

static double kst_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int kst_parse_result(const char *line, enum kst_res *r, char *name, size_t size)
{
	for (const char *p = strstr(line, "ok "); p; p = strstr(p + 1, "ok ")) {
		const char *q = p + 3, *n;
		int skip = 0;

		if (!isdigit((unsigned char)*q))
			continue;
		while (isdigit((unsigned char)*q))
			q++;
		if (*q++ != ' ')
			continue;
		if (!strncmp(q, "# SKIP ", 7)) {
			skip = 1;
			q += 7;
		}
		if (strncmp(q, "test_", 5))
			continue;
		for (n = q; *n && !isspace((unsigned char)*n); n++)
			;
		snprintf(name, size, "%.*s", (int)(n - q), q);
		if (p - line >= 4 && !strncmp(p - 4, "not ", 4))
			*r = KR_FAIL;
		else
			*r = skip ? KR_SKIP : KR_OK;
		return 1;
	}
	return 0;
}

const char *kst_res_str(enum kst_res r)
{
	return r == KR_OK ? "ok" : r == KR_FAIL ? "not ok" : r == KR_SKIP ? "SKIP" : "no result";
}

static void kst_child(const char *bin, int fd)
{
	dup2(fd, 1);
	dup2(fd, 2);
	setpgid(0, 0);
	write_file("/proc/self/oom_score_adj", "0");
	execl(bin, bin, (char *)NULL);
	printf("kst_run: exec %s: %s\n", bin, strerror(errno));
	_exit(127);
}

void kst_run(struct kst_run *run)
{
	size_t cap = 1 << 20;
	double end = kst_now() + run->secs;
	int fds[2];
	pid_t pid;

	run->out = calloc(1, cap);
	run->len = 0;
	run->killed = run->stopped = 0;
	if (!run->out || pipe2(fds, O_CLOEXEC)) {
		run->status = -errno;
		return;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		run->status = -errno;
		return;
	}
	if (pid == 0)
		kst_child(run->bin, fds[1]);
	close(fds[1]);
	setpgid(pid, pid);

	for (size_t scanned = 0;;) {
		struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
		int left = (end - kst_now()) * 1000;
		ssize_t r;

		if (left <= 0 || (run->tick && run->tick(run->arg))) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			run->killed = left <= 0;
			run->stopped = !run->killed;
			break;
		}
		if (poll(&pfd, 1, left > 100 ? 100 : left) <= 0)
			continue;
		r = read(fds[0], run->out + run->len, cap - 1 - run->len);
		if (r <= 0)
			break;	/* EOF: it exited */
		run->len += r;
		run->out[run->len] = 0;
		/* Parse whole lines as they arrive. */
		for (char *nl; (nl = strchr(run->out + scanned, '\n')); scanned = nl + 1 - run->out) {
			char line[1024], name[128];
			enum kst_res res;

			snprintf(line, sizeof(line), "%.*s", (int)(nl - run->out - scanned),
				 run->out + scanned);
			if (kst_parse_result(line, &res, name, sizeof(name)) && run->result)
				run->result(name, res, run->arg);
		}
		if (run->len + 1 >= cap)
			break;
	}
	close(fds[0]);
	run->status = cg_wait(pid);
	/* Reap what it left behind. */
	kill(-pid, SIGKILL);
}

void kst_show_output(const struct kst_run *run)
{
	char *copy = strdup(run->out ? run->out : ""), *save = NULL;
	char **seen = NULL;
	size_t nseen = 0, dup = 0;

	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t i;

		for (i = 0; i < nseen && strcmp(seen[i], line); i++)
			;
		if (i < nseen) {
			dup++;
			continue;
		}
		seen = realloc(seen, (nseen + 1) * sizeof(*seen));
		seen[nseen++] = line;
		t_diag("| %s", line);
	}
	if (dup)
		t_diag("%zu duplicated lines left out", dup);
	t_diag("%s: %s%s", run->bin, status_str(run->status),
	       run->killed ? " (killed at the time limit)" : run->stopped ? " (stopped early)" : "");
	free(seen);
	free(copy);
}

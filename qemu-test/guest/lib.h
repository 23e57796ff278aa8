/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helper library for the in-guest vswap tests (qemu-test/guest/).
 *
 * Every test is one static C program making one claim, built from its own
 * .c file plus lib.c.  It reports TAP:
 *
 *	TAP version 13
 *	# diagnostics
 *	ok 1 name
 *	not ok 2 name # reason
 *	ok 3 name # SKIP reason
 *	1..3
 *
 * The plan line comes first when the test calls t_plan(), otherwise t_done()
 * prints it at the end.  /init counts the result lines against the plan, so
 * a test that dies half-way is a failure, never a pass.
 */
#ifndef VTEST_LIB_H
#define VTEST_LIB_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CGROOT		"/sys/fs/cgroup"
#define DEBUGFS		"/sys/kernel/debug"
#define VSWAP_DIR	DEBUGFS "/vswap"
#define MiB		(1024UL * 1024UL)

#ifndef __printf
#define __printf(a, b) __attribute__((format(printf, a, b)))
#endif

/* ---- results ---------------------------------------------------------- */

/* Start the TAP stream (unbuffered stdout, version line).  name is the test. */
void t_init(const char *name);
/* Optional: announce the number of results up front. */
void t_plan(int n);
/* Diagnostic line "# ...". */
void t_diag(const char *fmt, ...) __printf(1, 2);
void t_pass(const char *name);
/* "not ok N name # why"; returns 0. */
int t_fail(const char *name, const char *why_fmt, ...) __printf(2, 3);
/* "ok N name # SKIP why". */
void t_skip(const char *name, const char *why_fmt, ...) __printf(2, 3);
/* ok if cond, else not ok with the formatted reason.  Returns !!cond. */
int t_ok(int cond, const char *name, const char *why_fmt, ...) __printf(3, 4);
/* Print the plan if not yet printed and return the exit status (0: all ok). */
int t_done(void);
/* Fatal: "not ok N name # why", then the plan and exit(1). */
void t_bail(const char *name, const char *why_fmt, ...) __printf(2, 3)
	__attribute__((noreturn));
int t_failures(void);

/* ---- files -------------------------------------------------------------- */

/* Read a whole (small) file into buf, NUL-terminated.  Returns length or -errno. */
ssize_t read_file(const char *path, char *buf, size_t size);
/* Write str to path (one write()).  Returns 0 or -errno. */
int write_file(const char *path, const char *str);
int write_filef(const char *path, const char *fmt, ...) __printf(2, 3);
/* First integer in the file ("max" reads as INT64_MAX).  0 or -errno. */
int read_ll(const char *path, long long *val);
/*
 * Value of a "key value" or "key: value" line (/proc/vmstat, /proc/meminfo,
 * memory.stat, ...).  0, -ENOENT if the key is missing, or -errno.
 */
int read_key(const char *path, const char *key, long long *val);
/* /proc/vmstat key, -1 if missing. */
long long vmstat(const char *key);
int path_exists(const char *path);
/* Is a filesystem of this type mounted at dir (from /proc/mounts)? */
int is_mounted(const char *dir, const char *fstype);

/* Last value of "key=value" on /proc/cmdline into buf; 1 found, 0 not. */
int cmdline_get(const char *key, char *buf, size_t size);

/* ---- swap ----------------------------------------------------------------- */

/* Number of swap areas listed in /proc/swaps (lines after the header). */
int swaps_count(void);
/* Used column (KiB) of the /proc/swaps entry for name, -1 if not listed. */
long long swaps_used_kb(const char *name);
/* Size column (KiB) of the entry for name, -1 if not listed. */
long long swaps_size_kb(const char *name);
/* Used column in pages, -1 if not listed. */
long long swaps_used_pages(const char *name);
/* Priority column of the entry for name: 0, or -ENOENT if not listed. */
int swaps_prio(const char *name, long long *prio);
/* Does any /proc/swaps line contain substr? */
int swaps_contains(const char *substr);
/* Write a version-1 swap header ("SWAPSPACE2") over a block device or file. */
int make_swap(const char *path);
/*
 * Make a block device a swap area and swapon it: swapoff first if it is
 * listed, a fresh header, then swapon with priority prio (SWAP_FLAG_PREFER;
 * prio < 0: the kernel's default).  0 or -errno; reports nothing.
 */
int swap_area_on(const char *dev, int prio);

/* ---- cgroups -------------------------------------------------------------- */

/*
 * Create CGROOT/name (removing a stale one), memory controller enabled in
 * the root, memory.max = max_bytes (0: leave at "max"), memory.swap.max
 * untouched.  Returns a malloc'ed path or NULL (errno set).
 */
char *cg_create(const char *name, unsigned long max_bytes);
int cg_write(const char *cg, const char *file, const char *val);
int cg_read_ll(const char *cg, const char *file, long long *val);
/* Key of a flat-keyed cgroup file (memory.stat, memory.events). */
int cg_read_key(const char *cg, const char *file, const char *key, long long *val);
/*
 * memory.stat key, -1 if missing.  Per-cgroup events (zswpout, zswpin,
 * pgmajfault, swpout_zero, ...) are counted even without
 * CONFIG_VM_EVENT_COUNTERS.
 */
long long cg_stat(const char *cg, const char *key);
/*
 * Poll the integer file of cg until it reads <= target or ms pass (freed
 * swap is uncharged asynchronously).  The last value, -1 if unreadable.
 */
long long cg_wait_le(const char *cg, const char *file, long long target, int ms);
/* Move the calling process into cg. */
int cg_enter(const char *cg);
/* Kill what is left in cg and rmdir it. */
int cg_destroy(const char *cg);
/*
 * Fork, move the child into cg, run fn(arg) there and _exit with its
 * return value.  Returns the child's exit status, 128+signal if it was
 * killed (an OOM kill is 128+9), or -errno.
 */
int cg_run(const char *cg, int (*fn)(const char *cg, void *arg), void *arg);
/* The same in two steps: cg_spawn returns the child's pid (or -errno). */
pid_t cg_spawn(const char *cg, int (*fn)(const char *cg, void *arg), void *arg);
int cg_wait(pid_t pid);
/* Human-readable form of a cg_run/cg_wait status ("exit 1", "SIGKILL (OOM kill?)"). */
const char *status_str(int status);

/* ---- patterned memory ---------------------------------------------------- */

enum pat_kind {
	PAT_COMPRESSIBLE,	/* a few distinct words per page: zswap stores it */
	PAT_RANDOM,		/* xorshift noise: zswap rejects it, goes to disk */
	PAT_MIXED,		/* even pages compressible, odd pages random */
	PAT_REPEAT,		/* one word repeated: ~76 bytes of zswap pool a page */
	PAT_ZERO,		/* all zero: swapped out as zero, no zswap entry, no I/O */
	PAT_MIX3,		/* page i % 3: 0 compressible, 1 random, 2 zero */
};

size_t page_size(void);
/* Anonymous private mapping of npages (MAP_POPULATE not used). */
void *map_anon(size_t npages);
/*
 * The same with MADV_NOHUGEPAGE: order-0 pages only.  Zswap in 6.12 stores
 * no large folio, and splitting an anonymous THP maps its zero-filled
 * subpages to the shared zero page, so a test of the order-0 swap path
 * must not get THPs (the guest kernels have THP "always").
 */
void *map_anon_4k(size_t npages);
/*
 * Fill page i with a pattern derived from (seed, i, kind).  Each page
 * starts with a header {magic, seed, index} and ends with a checksum of
 * the rest, so a mismatch can be told apart: wrong page, zeroed, corrupt.
 */
void pat_fill(void *buf, size_t npages, uint64_t seed, enum pat_kind kind);
/*
 * Compare every byte against the regenerated pattern.  Returns the number
 * of bad pages; the first few are described with t_diag().
 */
size_t pat_verify(const void *buf, size_t npages, uint64_t seed, enum pat_kind kind);
/*
 * The same for pages first .. first + npages - 1 of a region starting at
 * buf (page i of the region is filled and checked as index i).
 */
void pat_fill_from(void *buf, size_t first, size_t npages, uint64_t seed,
		   enum pat_kind kind);
size_t pat_verify_from(const void *buf, size_t first, size_t npages, uint64_t seed,
		       enum pat_kind kind);
/* madvise(MADV_PAGEOUT) over the range; 0 or -errno. */
int pageout(void *buf, size_t npages);
/*
 * Sectors read and written by a block device, from /sys/block/NAME/stat
 * (dev may be "/dev/vda" or "vda").  Direct evidence of disk I/O, and
 * there on a tinyconfig kernel, whose /proc/vmstat has no event counters
 * (CONFIG_VM_EVENT_COUNTERS=n: no pswpin/pswpout).  0 or -errno.
 */
int blk_sectors(const char *dev, long long *rd, long long *wr);
/* A "Key:  N kB" line of /proc/PID/status (VmSwap, VmRSS, ...), -1 if missing. */
long long proc_status_kb(pid_t pid, const char *key);
/*
 * Mark a disk non-rotational (/sys/block/NAME/queue/rotational = 0), before
 * its swapon: 6.12 gives rotational areas the old linear slot scan, without
 * clusters for large folios or the reclaim of full clusters.  0 or -errno.
 */
int blk_set_nonrot(const char *dev);

/* ---- swap backends -------------------------------------------------------- */

/* VSWAP_DIR/name ("used", "clusters", "phys"), -1 if missing. */
long long vswap_stat(const char *name);
/* Poll vswap "used" until it is <= target or ms pass; the last value (-1: missing). */
long long vswap_wait_used(long long target, int ms);
/* /sys/kernel/debug/zswap/name ("stored_pages", "reject_compress_poor", ...), -1 if missing. */
long long zswap_stat(const char *name);

/*
 * Where a test's pages can go.  SWAP_VSWAP: VSWAP_DIR exists, nothing in
 * /proc/swaps (zswap with no swap device).  SWAP_DISK: no vswap device; the
 * test made a swap area on a disk and swapon'ed it (regression mode, also
 * the unpatched kernel).  SWAP_VSWAP_DISK: VSWAP_DIR exists and the test
 * swapon'ed a swap area too: pages take vswap slots, zswap stores what it
 * can, the area backs the rest (physical swap as a vswap backend).
 */
enum swap_mode { SWAP_VSWAP, SWAP_DISK, SWAP_VSWAP_DISK };

struct swap_env {
	enum swap_mode mode;
	const char *dev;	/* SWAP_DISK, SWAP_VSWAP_DISK: the swap area */
	long long size_kb;	/* SWAP_DISK, SWAP_VSWAP_DISK: its size in /proc/swaps */
};

/*
 * Pick the mode and report its checks: with VSWAP_DIR, no swap area may be
 * listed; otherwise dev (argv[1], default /dev/vda) gets a fresh swap
 * header and is swapon'ed (swapoff'ed first if a previous test left it
 * on).  Zswap must be enabled in both modes.  Bails out when neither works.
 * The same as swap_env_setup_flags(env, argc, argv, 0).
 */
void swap_env_setup(struct swap_env *env, int argc, char **argv);
/*
 * With VSWAP_DIR, flags choose SWAP_VSWAP_DISK over SWAP_VSWAP:
 * SWAP_ENV_DISK_ARG when a DEVICE argument (argv[1]) is given,
 * SWAP_ENV_DISK always (argv[1] or /dev/vda).  The area is made as in
 * regression mode; /proc/swaps must be empty before.
 */
#define SWAP_ENV_DISK_ARG	1u
#define SWAP_ENV_DISK		2u
void swap_env_setup_flags(struct swap_env *env, int argc, char **argv, unsigned int flags);
/* Swapoff the area and report it; nothing for SWAP_VSWAP. */
void swap_env_teardown(struct swap_env *env);
/* "vswap", "swap area on /dev/vda" or "vswap + swap area on /dev/vda". */
const char *swap_env_name(const struct swap_env *env);
/*
 * Slots in use: vswap "used" (both vswap modes) or the area's Used column
 * in pages; -1 unknown.
 */
long long swap_env_used(const struct swap_env *env);

/* ---- kernel log ----------------------------------------------------------- */

/*
 * Call fn(msg, arg) for every record in /dev/kmsg, oldest first (message
 * text only, without the "prio,seq,ts;" prefix; leading spaces kept).
 * Stops early when fn returns non-zero.  Returns the number of records
 * read or -errno.
 */
int kmsg_each(int (*fn)(const char *msg, void *arg), void *arg);
/* Number of records starting with prefix (if anchored) or containing it. */
int kmsg_count(const char *str, int anchored);
/* Copy the first record containing str into buf; 1 found, 0 not. */
int kmsg_find(const char *str, char *buf, size_t size);
/* Append a line to the kernel log (marks test phases for the splat scan). */
void kmsg_mark(const char *fmt, ...) __printf(1, 2);
/*
 * Look for warnings, BUGs, KASAN/lockdep/RCU reports, oopses, stalls and
 * OOM kills.  Each hit is reported with t_diag (with the last "vtest:"
 * marker seen before it); the first hit is copied into first (may be
 * NULL).  Returns the number of hits or -errno.
 */
int kmsg_splats(char *first, size_t size);
/*
 * A test that may legitimately OOM-kill its own cgroup (a worker with no
 * place to put its pages) brackets that part with these markers.  Between
 * them kmsg_splats() lists the OOM report ("invoked oom-killer" and its
 * "Call Trace") as expected instead of counting it, but still counts every
 * other splat and any OOM kill not constrained to a memory cgroup (a
 * global OOM is never clean).  A test's start or end marker from /init
 * closes the bracket too.
 */
void oom_expect_begin(const char *why);
void oom_expect_end(void);
/* Number of "invoked oom-killer" records in the log so far. */
int oom_kills_logged(void);

/* ---- kernel selftests ------------------------------------------------------ */

/*
 * Run a kselftest binary of tools/testing/selftests (built static into the
 * initramfs) and collect its per-test results.
 */
enum kst_res { KR_NONE, KR_OK, KR_FAIL, KR_SKIP };

struct kst_run {
	const char *bin;	/* in: the binary, run with no arguments */
	int secs;		/* in: time limit; then its process group is killed */
	/*
	 * in, optional: called about every 100 ms while it runs; non-zero
	 * stops it (stopped is set).
	 */
	int (*tick)(void *arg);
	/* in, optional: every result line, in order (duplicates included) */
	void (*result)(const char *name, enum kst_res res, void *arg);
	void *arg;
	int killed;		/* out: at the time limit */
	int stopped;		/* out: by tick() */
	int status;		/* out: as cg_wait() */
	char *out;		/* out: everything it printed (malloc'ed) */
	size_t len;
};

/*
 * Fork and exec run->bin with stdout and stderr into a pipe, in its own
 * process group and with oom_score_adj 0 (the wrapper may be unkillable),
 * and read until it exits, run->secs pass or tick() says stop.
 */
void kst_run(struct kst_run *run);
/*
 * Find "ok N NAME", "not ok N NAME" or "ok N # SKIP NAME" (NAME starting
 * with "test_") anywhere in a line: a ksft_print_msg() without a newline
 * glues the next result to it.  1 if found.
 */
int kst_parse_result(const char *line, enum kst_res *r, char *name, size_t size);
/* "ok", "not ok", "SKIP" or "no result". */
const char *kst_res_str(enum kst_res r);
/* Show run->out as diagnostics, each distinct line once, then its status. */
void kst_show_output(const struct kst_run *run);

#endif

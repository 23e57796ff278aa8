/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Readers of files and kernel counters: whole files, integers, "key value"
 * lines (/proc/vmstat, /proc/meminfo, memory.stat), /proc/cmdline,
 * /proc/PID/status, /sys/block statistics; the monotonic clock and a poll
 * of a counter until it reaches a value.
 */
#ifndef VTEST_SYSFS_H
#define VTEST_SYSFS_H

#include <stddef.h>
#include <sys/types.h>

#include "defs.h"

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
/*
 * /proc/vmstat key, -1 if missing.  The guest kernels have
 * CONFIG_VM_EVENT_COUNTERS=y: pswpin, pswpout, zswpin, zswpout, zswpwb,
 * swpin_zero and swpout_zero are there (6.12).
 */
long long vmstat(const char *key);
/* /proc/meminfo key in KiB, -1 if missing. */
long long meminfo_kb(const char *key);
int path_exists(const char *path);
/* Is a filesystem of this type mounted at dir (from /proc/mounts)? */
int is_mounted(const char *dir, const char *fstype);

/* Last value of "key=value" on /proc/cmdline into buf; 1 found, 0 not. */
int cmdline_get(const char *key, char *buf, size_t size);
/* vtest.timeout= of /proc/cmdline (the per-test limit /init applies), else def. */
int vtest_timeout(int def);

/* A "Key:  N kB" line of /proc/PID/status (VmSwap, VmRSS, ...), -1 if missing. */
long long proc_status_kb(pid_t pid, const char *key);
/*
 * Sectors read and written by a block device, from /sys/block/NAME/stat
 * (dev may be "/dev/vda" or "vda"): direct evidence of disk I/O.  The
 * counts are made when a request completes, after the swap-out counters.
 * 0, or -errno with both set to -1.
 */
int blk_sectors(const char *dev, long long *rd, long long *wr);
/*
 * Mark a disk non-rotational (/sys/block/NAME/queue/rotational = 0), before
 * its swapon: 6.12 gives rotational areas the old linear slot scan, without
 * clusters for large folios or the reclaim of full clusters.  0 or -errno.
 */
int blk_set_nonrot(const char *dev);

/* CLOCK_MONOTONIC in seconds. */
double mono_now(void);

/*
 * Poll a counter: get(arg) is called at once and then every 100 ms until
 * its value compares with target as cmp says or timeout_ms have passed.
 * get() returns a negative value when it cannot read the counter; that
 * never satisfies the condition.  Returns the last value read.
 */
enum until { UNTIL_LE, UNTIL_GE, UNTIL_EQ };
long long poll_value(long long (*get)(void *arg), void *arg, enum until cmp,
		     long long target, int timeout_ms);
/* Readers for poll_value(): an integer file (arg: its path); -1 unreadable. */
long long get_file_ll(void *path);
/* Sectors written to a block device (arg: "/dev/vda" or "vda"); -1 unreadable. */
long long get_blk_written(void *dev);

#endif

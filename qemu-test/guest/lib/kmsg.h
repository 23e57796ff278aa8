/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel log: /dev/kmsg records, phase markers, the splat scan of
 * dmesg_check and the expected-OOM bracket.
 */
#ifndef VTEST_KMSG_H
#define VTEST_KMSG_H

#include <stddef.h>

#include "defs.h"

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
/*
 * The same for a test that drives the whole machine out of memory on
 * purpose: an OOM kill of any constraint is expected up to the end marker.
 */
void oom_expect_global_begin(const char *why);
void oom_expect_end(void);
/* Number of "invoked oom-killer" records in the log so far. */
int oom_kills_logged(void);

#endif

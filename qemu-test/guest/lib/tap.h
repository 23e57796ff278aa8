/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TAP output of a guest test.  Every test is one static C program making
 * one claim; it reports
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
 * a test that dies half-way is a failure, never a pass.  The counters are
 * shared with forked children (a worker in a cgroup reports its own
 * results and the numbering stays right).
 */
#ifndef VTEST_TAP_H
#define VTEST_TAP_H

#include "defs.h"

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

/*
 * One line, newline added, to the result port /dev/ttyS1 (opened on first
 * use; nothing is written if it cannot be) for the host to read, as
 * bench's VBENCH and profile's VPROF lines; echo != 0 also prints it as a
 * TAP comment.  Lines longer than 2 KiB are cut.
 */
void t_result_line(int echo, const char *fmt, ...) __printf(2, 3);
int t_failures(void);
/*
 * A check's name, "label: what", or what alone when label is NULL or "".
 * The result lives in one of four static buffers: use it at once.
 */
const char *t_name(const char *label, const char *what);

#endif

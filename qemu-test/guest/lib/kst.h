/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's own selftests (tools/testing/selftests, built static into
 * the initramfs): run one, parse its result lines, merge them per
 * sub-test, print them for the host's comparison.
 */
#ifndef VTEST_KST_H
#define VTEST_KST_H

#include <stddef.h>

#include "defs.h"

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

/*
 * A sub-test's result, from every line the selftest printed for it.  A
 * forking selftest can print a line twice (a child flushing its parent's
 * output) and the copies can disagree: the worst line counts, "not ok"
 * over SKIP over "ok", so that a later conflicting "not ok" is never lost.
 */
struct kst_result {
	enum kst_res res;	/* the worst line */
	enum kst_res first;	/* the first line */
	int lines;		/* result lines seen */
	int conflict;		/* lines that disagreed with an earlier one */
};
/*
 * Fold one result line of sub-test name (of the selftest test) into kr; a
 * conflict is reported with t_diag.
 */
void kst_merge(const char *test, const char *name, struct kst_result *kr, enum kst_res r);
/*
 * " (result lines conflicted: first ok, counted not ok)" when kr had a
 * conflict, "" otherwise: for the reason of a check.
 */
const char *kst_conflict_str(const struct kst_result *kr);
/*
 * The line checks/compare-kst.sh compares between kernels:
 * "# kst TEST NAME ok|fail|skip|none".
 */
void kst_report(const char *test, const char *name, const struct kst_result *kr);
/* Show run->out as diagnostics, each distinct line once, then its status. */
void kst_show_output(const struct kst_run *run);

#endif

// SPDX-License-Identifier: GPL-2.0
/* TAP output of the guest tests; see tap.h. */
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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
static const char *test_name = "test";

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
	test_name = name;
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
		printf("# %s: planned %d results, reported %d\n", test_name, ts->plan, ts->n);
	printf("# %s: %d results, %d failed, %d skipped\n", test_name, ts->n,
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

const char *t_name(const char *label, const char *what)
{
	static char buf[4][256];
	static unsigned int next;
	char *b = buf[next++ % 4];

	if (label && *label)
		snprintf(b, sizeof(buf[0]), "%s: %s", label, what);
	else
		snprintf(b, sizeof(buf[0]), "%s", what);
	return b;
}

void t_result_line(int echo, const char *fmt, ...)
{
	static int fd = -2;
	char buf[2048];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	buf[n] = 0;
	if (fd == -2)
		fd = open("/dev/ttyS1", O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0 && write(fd, buf, n) < 0)
		fd = -1;
	if (echo)
		printf("# %s", buf);
}

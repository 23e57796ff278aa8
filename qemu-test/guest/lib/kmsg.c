// SPDX-License-Identifier: GPL-2.0
/* Kernel log scanning of the guest tests; see kmsg.h. */
#include "kmsg.h"
#include "sysfs.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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
#define OOM_GLOBAL	"vtest: oom-expected-global: "
#define OOM_END		"vtest: oom-expected-end"

struct splat_state {
	char marker[160];
	char oom_why[160];	/* inside an oom_expect_begin() bracket */
	int oom_global;		/* ... of oom_expect_global_begin() */
	int hits;
	char *first;
	size_t size;
};

static int splat_cb(const char *msg, void *arg)
{
	struct splat_state *s = arg;
	const char *const *p;
	int global;

	global = !strncmp(msg, OOM_GLOBAL, strlen(OOM_GLOBAL));
	if (global || !strncmp(msg, OOM_BEGIN, strlen(OOM_BEGIN))) {
		snprintf(s->oom_why, sizeof(s->oom_why), "%s",
			 msg + strlen(global ? OOM_GLOBAL : OOM_BEGIN));
		s->oom_global = global;
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
		/*
		 * Expected: a memcg OOM report.  A global OOM is a splat,
		 * unless the bracket asked for one.
		 */
		if (strstr(msg, "oom-kill:constraint=") && !s->oom_global &&
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

void oom_expect_global_begin(const char *why)
{
	kmsg_mark("oom-expected-global: %s", why);
}

void oom_expect_end(void)
{
	kmsg_mark("oom-expected-end");
}

int oom_kills_logged(void)
{
	return kmsg_count("invoked oom-killer", 0);
}

// SPDX-License-Identifier: GPL-2.0
/* The kernel selftest runner of the guest tests; see kst.h. */
#define _GNU_SOURCE
#include "kst.h"
#include "cgroup.h"
#include "sysfs.h"
#include "tap.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* Worse results are higher. */
static int kst_rank(enum kst_res r)
{
	return r == KR_FAIL ? 3 : r == KR_SKIP ? 2 : r == KR_OK ? 1 : 0;
}

void kst_merge(const char *test, const char *name, struct kst_result *kr, enum kst_res r)
{
	if (!kr->lines++) {
		kr->res = kr->first = r;
		return;
	}
	if (r == kr->res || r == KR_NONE)
		return;
	kr->conflict++;
	t_diag("%s: conflicting result lines for %s: %s, then %s: %s counts", test, name,
	       kst_res_str(kr->res), kst_res_str(r),
	       kst_res_str(kst_rank(r) > kst_rank(kr->res) ? r : kr->res));
	if (kst_rank(r) > kst_rank(kr->res))
		kr->res = r;
}

const char *kst_conflict_str(const struct kst_result *kr)
{
	static char buf[96];

	if (!kr->conflict)
		return "";
	snprintf(buf, sizeof(buf), " (result lines conflicted: first %s, counted %s)",
		 kst_res_str(kr->first), kst_res_str(kr->res));
	return buf;
}

void kst_report(const char *test, const char *name, const struct kst_result *kr)
{
	enum kst_res r = kr->res;

	t_diag("kst %s %s %s", test, name, r == KR_OK ? "ok" : r == KR_FAIL ? "fail" :
	       r == KR_SKIP ? "skip" : "none");
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
	double end = mono_now() + run->secs;
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
		int left = (end - mono_now()) * 1000;
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

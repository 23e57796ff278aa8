// SPDX-License-Identifier: GPL-2.0
/* cgroup helpers of the guest tests; see cgroup.h. */
#define _GNU_SOURCE
#include "cgroup.h"
#include "sysfs.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* A waitpid() status as cg_wait() returns it. */
static int exit_status(int status)
{
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

int cg_wait(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return exit_status(status);
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

long long cg_ll(const char *cg, const char *file)
{
	long long v;

	return cg_read_ll(cg, file, &v) ? -1 : v;
}

struct cg_file {
	const char *cg, *file;
};

static long long get_cg_file(void *arg)
{
	struct cg_file *f = arg;

	return cg_ll(f->cg, f->file);
}

long long cg_wait_le(const char *cg, const char *file, long long target, int ms)
{
	struct cg_file f = { cg, file };

	return poll_value(get_cg_file, &f, UNTIL_LE, target, ms);
}

long long cg_oom_kills(const char *cg)
{
	long long v;

	return cg_read_key(cg, "memory.events", "oom_kill", &v) ? -1 : v;
}

int cg_no_oom_kill(const char *cg, const char *label)
{
	long long v;
	int r = cg_read_key(cg, "memory.events", "oom_kill", &v);

	if (r)
		return t_fail(t_name(label, "no OOM kill"), "cannot read oom_kill of %s/memory.events: %s",
			      cg, strerror(-r));
	return t_ok(v == 0, t_name(label, "no OOM kill"), "memory.events oom_kill %lld", v);
}

int cg_run_ok(const char *cg, const char *label,
	      int (*fn)(const char *cg, void *arg), void *arg)
{
	int st = cg_run(cg, fn, arg);
	int ok = t_ok(st == 0, t_name(label, "worker completed"), "worker %s", status_str(st));

	return cg_no_oom_kill(cg, label) && ok;
}

int cg_phase(const char *label, const char *cgname, unsigned long max_bytes,
	     int (*fn)(const char *cg, void *arg), void *arg)
{
	char *cg = cg_create(cgname, max_bytes);
	int ok;

	if (!cg)
		return t_fail(t_name(label, "create cgroup"), "%s: %s", cgname, strerror(errno));
	ok = cg_run_ok(cg, label, fn, arg);
	cg_destroy(cg);
	free(cg);
	return ok;
}

/* ---- workers with a handshake ------------------------------------------------ */

/* The worker's ends of its handshake pipes (in the worker's process only). */
static int wk_up = -1, wk_down = -1;

struct wk_start {
	int (*fn)(const char *cg, void *arg);
	void *arg;
	int up[2], down[2];
};

static int wk_trampoline(const char *cg, void *p)
{
	struct wk_start *s = p;

	close(s->up[0]);
	close(s->down[1]);
	wk_up = s->up[1];
	wk_down = s->down[0];
	return s->fn(cg, s->arg);
}

int worker_spawn(struct cg_worker *w, const char *cg,
		 int (*fn)(const char *cg, void *arg), void *arg)
{
	struct wk_start s = { .fn = fn, .arg = arg };

	w->pid = -1;
	w->up = w->down = -1;
	w->reaped = 0;
	w->status = -1;
	signal(SIGPIPE, SIG_IGN);
	if (pipe2(s.up, O_CLOEXEC))
		return -errno;
	if (pipe2(s.down, O_CLOEXEC)) {
		int r = -errno;

		close(s.up[0]);
		close(s.up[1]);
		return r;
	}
	w->pid = cg_spawn(cg, wk_trampoline, &s);
	close(s.up[1]);
	close(s.down[0]);
	if (w->pid < 0) {
		int r = w->pid;

		close(s.up[0]);
		close(s.down[1]);
		return r;
	}
	w->up = s.up[0];
	w->down = s.down[1];
	return 0;
}

/* One byte from the worker without blocking: 1 read, 0 none. */
static int wk_poll_byte(struct cg_worker *w, int ms)
{
	struct pollfd pfd = { .fd = w->up, .events = POLLIN };
	char c;

	if (poll(&pfd, 1, ms) <= 0 || !(pfd.revents & (POLLIN | POLLHUP)))
		return 0;
	return read(w->up, &c, 1) == 1;
}

int worker_wait_ready(struct cg_worker *w)
{
	int st;

	if (w->up < 0 || w->reaped)
		return 0;
	for (;;) {
		struct pollfd pfd = { .fd = w->up, .events = POLLIN };
		char c;
		ssize_t r;

		if (poll(&pfd, 1, 100) > 0) {
			r = read(w->up, &c, 1);
			if (r == 1)
				return 1;
			if (r == 0 || (r < 0 && errno != EINTR))
				break;	/* EOF: it exited (or closed its end) */
			continue;
		}
		/*
		 * Its own children may hold its end of the pipe open: see
		 * whether it is gone.
		 */
		if (waitpid(w->pid, &st, WNOHANG) == w->pid) {
			w->reaped = 1;
			w->status = exit_status(st);
			return wk_poll_byte(w, 0);
		}
	}
	w->status = cg_wait(w->pid);
	w->reaped = 1;
	return 0;
}

int worker_start(struct cg_worker *w, const char *cg, const char *label,
		 int (*fn)(const char *cg, void *arg), void *arg)
{
	int r = worker_spawn(w, cg, fn, arg);

	if (r)
		return t_fail(t_name(label, "worker ready"), "cannot spawn it: %s", strerror(-r));
	if (worker_wait_ready(w)) {
		t_pass(t_name(label, "worker ready"));
		return 1;
	}
	return t_fail(t_name(label, "worker ready"), "worker %s before it was ready",
		      status_str(worker_finish(w, 1)));
}

int worker_release(struct cg_worker *w, int go)
{
	char c = go ? 'g' : 's';

	if (w->down < 0)
		return -EBADF;
	return write(w->down, &c, 1) == 1 ? 0 : -errno;
}

int worker_finish(struct cg_worker *w, int kill_it)
{
	if (w->up >= 0)
		close(w->up);
	if (w->down >= 0)
		close(w->down);
	w->up = w->down = -1;
	if (w->pid < 0)
		return w->pid;
	if (!w->reaped) {
		if (kill_it)
			kill(w->pid, SIGKILL);
		w->status = cg_wait(w->pid);
		w->reaped = 1;
	}
	return w->status;
}

void worker_ready(void)
{
	char c = 'r';

	if (wk_up < 0 || write(wk_up, &c, 1) != 1)
		t_diag("worker_ready: %s", wk_up < 0 ? "not a worker_spawn() worker" :
		       strerror(errno));
}

int worker_await(void)
{
	char c = 0;

	while (wk_down >= 0 && read(wk_down, &c, 1) < 0 && errno == EINTR)
		;
	return c == 'g';
}

int worker_sync(void)
{
	worker_ready();
	return worker_await();
}

char *cg_enter_new(const char *name)
{
	char *cg = cg_create(name, 0);

	if (!cg || cg_enter(cg))
		t_bail("cgroup", "%s: %s", name, strerror(errno));
	return cg;
}

void cg_leave(char *cg)
{
	if (cg_enter(CGROOT) || cg_destroy(cg))
		t_fail("cgroup removed", "%s", strerror(errno));
	free(cg);
}

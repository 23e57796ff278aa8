/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgroup v2 helpers: create, read and write a test cgroup, run a worker in
 * it (with or without a handshake), and the checks every phase makes: the
 * worker completed and nothing in its cgroup was OOM-killed.
 */
#ifndef VTEST_CGROUP_H
#define VTEST_CGROUP_H

#include <sys/types.h>

#include "defs.h"

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
/* memory.stat key, -1 if missing. */
long long cg_stat(const char *cg, const char *key);
/* An integer file of cg (memory.swap.current, ...), -1 if unreadable. */
long long cg_ll(const char *cg, const char *file);
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
 * Move the calling test into a fresh cgroup @name with no memory limit, so
 * that memory.reclaim there reaches only its pages; bails out on failure.
 */
char *cg_enter_new(const char *name);
/* Move the calling test back to the root and remove @cg (a FAIL if not). */
void cg_leave(char *cg);

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

/* oom_kill of cg's memory.events, -1 if it cannot be read. */
long long cg_oom_kills(const char *cg);
/*
 * The check "[label: ]no OOM kill": cg's memory.events can be read and its
 * oom_kill is 0.  A failed read fails the check.  Returns 1 if it held.
 */
int cg_no_oom_kill(const char *cg, const char *label);
/*
 * cg_run(cg, fn, arg) and two checks: "[label: ]worker completed" (exit
 * status 0) and cg_no_oom_kill(cg, label).  Returns 1 if both held.
 */
int cg_run_ok(const char *cg, const char *label,
	      int (*fn)(const char *cg, void *arg), void *arg);
/*
 * A phase in a fresh cgroup: cg_create(cgname, max_bytes) (a failure is a
 * failed check "[label: ]create cgroup"), cg_run_ok(), cg_destroy().
 * Returns 1 if every check held.
 */
int cg_phase(const char *label, const char *cgname, unsigned long max_bytes,
	     int (*fn)(const char *cg, void *arg), void *arg);

/*
 * A worker with a handshake.  The parent spawns it with worker_spawn(); the
 * worker calls worker_ready() once its setup is done (pages written and
 * pushed out, ...) and, if the parent has something to do first,
 * worker_await() to block until the parent's worker_release().  The
 * parent's worker_wait_ready() blocks until the worker is ready or has
 * died.  One byte per step over two pipes; a worker's own children
 * inherit its side and may call worker_await() too (one release each).
 */
struct cg_worker {
	pid_t pid;
	int up;			/* parent's read end: worker -> parent */
	int down;		/* parent's write end: parent -> worker */
	int reaped;		/* it exited and was waited for ... */
	int status;		/* ... with this cg_wait() status */
};

/*
 * Spawn fn(cg, arg) in cg as cg_spawn() does, with the handshake pipes.
 * 0, or -errno and nothing runs.  SIGPIPE is ignored from then on (a
 * release to a dead worker is an error, not the end of the test).
 */
int worker_spawn(struct cg_worker *w, const char *cg,
		 int (*fn)(const char *cg, void *arg), void *arg);
/*
 * Block until the worker called worker_ready() (1) or exited without it
 * (0: reaped, w->status says how it ended).
 */
int worker_wait_ready(struct cg_worker *w);
/*
 * worker_spawn() and worker_wait_ready(), reported as the check
 * "[label: ]worker ready": 1 if it is; 0 if it could not be spawned or
 * died first (then it is reaped and the check says how it ended).
 */
int worker_start(struct cg_worker *w, const char *cg, const char *label,
		 int (*fn)(const char *cg, void *arg), void *arg);
/* Let a worker blocked in worker_await() go on (go = 1) or give up (go = 0).  0 or -errno. */
int worker_release(struct cg_worker *w, int go);
/*
 * Close the parent's ends (a worker in worker_await() then gives up), kill
 * the worker first if kill_it, wait for it and return its status as
 * cg_wait() does.
 */
int worker_finish(struct cg_worker *w, int kill_it);

/* In the worker: the setup is done. */
void worker_ready(void);
/* In the worker: block until released.  1: go on; 0: the parent gave up or is gone. */
int worker_await(void);
/* In the worker: worker_ready(), then worker_await(). */
int worker_sync(void);

#endif

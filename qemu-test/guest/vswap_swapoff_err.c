// SPDX-License-Identifier: GPL-2.0
/*
 * vswap_swapoff_err: swapoff that cannot finish at once says so the way
 * 6.12 does, and loses nothing.
 *
 *   vswap_swapoff_err [DEVICE]   the swap area (default /dev/vda), in both
 *                                modes (swap_env_setup_flags, SWAP_ENV_DISK)
 *
 * restart: a worker in a 64 MiB cgroup holds 32 MiB of random pages (zswap
 * rejects them: the device), pushed out and reclaimed out of the swap
 * cache.  The test catches SIGALRM with SA_RESTART and arms a one-shot
 * 20 ms timer, then swapoffs the device, which takes far longer under
 * TCG: the signal arrives during swapoff, swapoff is restarted (6.12
 * returns -ERESTARTSYS) and returns 0, the device leaves /proc/swaps, and
 * the worker reads every page back byte-exact.
 *
 * enomem: the device swapon'ed again, the only area.  A worker with
 * oom_score_adj -1000 in a 16 MiB cgroup holds 48 MiB of random pages on
 * it.  swapoff must bring them back into memory charged to that cgroup,
 * which cannot hold them and has nothing it may kill: swapoff fails with
 * ENOMEM (6.12: unuse_pte_range()), in well under the 8 s alarm that
 * would otherwise interrupt it, and the device is still listed.  With the
 * cgroup's memory.max lifted, swapoff succeeds and the worker reads every
 * page back byte-exact.
 */
#include "lib.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/swap.h>
#include <sys/time.h>
#include <unistd.h>

#define SEED_R	0x5eed0a01ULL
#define SEED_N	0x5eed0a02ULL

static struct swap_env env;
static volatile sig_atomic_t alarms;
static volatile double alarm_at;	/* mono_now() of the last signal */

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
	alarm_at = mono_now();
}

static void catch_alarm(int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	alarms = 0;
}

/* What a holder holds: @mib MiB of random pages from @seed. */
struct hold {
	const char *label;
	size_t mib;
	uint64_t seed;
};

static const struct hold restart_hold = { "restart", 32, SEED_R };
static const struct hold enomem_hold = { "enomem", 48, SEED_N };

/* A worker: its pages pushed out, then held until released, then verified. */
static int hold_worker(const char *cg, void *arg)
{
	const struct hold *h = arg;
	size_t npages = h->mib * MiB / page_size(), bad;
	char *buf = map_anon_4k(npages);

	(void)cg;
	if (!buf)
		return t_fail(t_name(h->label, "map"), "mmap: %s", strerror(errno)), 1;
	if (write_file("/proc/self/oom_score_adj", "-1000"))
		return t_fail(t_name(h->label, "oom_score_adj"), "%s", strerror(errno)), 1;
	pat_fill(buf, npages, h->seed, PAT_RANDOM);
	pageout(buf, npages);
	if (!worker_sync())
		return 0;	/* the parent gave up and says why */
	bad = pat_verify(buf, npages, h->seed, PAT_RANDOM);
	t_ok(bad == 0, t_name(h->label, "every page read back byte-exact"),
	     "%zu of %zu pages differ", bad, npages);
	return 0;
}

/*
 * Start a holder in @cg and get its pages out of memory: 1 if it runs
 * (the worker must then be finished), 0 if not.
 */
static int start_holder(struct cg_worker *w, const char *cg, const struct hold *h)
{
	long long used;

	if (!worker_start(w, cg, h->label, hold_worker, (void *)h))
		return 0;
	/* Written pages stay in the swap cache until reclaim takes them. */
	cg_write(cg, "memory.reclaim", "64M");
	used = swaps_used_pages(env.dev);
	t_ok(used >= (long long)(h->mib * MiB / page_size()) * 3 / 4,
	     t_name(h->label, "the pages are on the device"), "Used %lld pages for %zu MiB",
	     used, h->mib);
	return 1;
}

static void restart_phase(void)
{
	struct itimerval it = { .it_value = { .tv_usec = 20000 } };
	char *cg = cg_create("vswap_swapoff_err1", 64 * MiB);
	struct cg_worker w;
	double t0, took, t1;
	int r, err, st;

	if (!cg) {
		t_fail("restart: create cgroup", "%s", strerror(errno));
		return;
	}
	if (!start_holder(&w, cg, &restart_hold))
		goto out;
	/* Let swapoff bring the pages in without reclaiming them again. */
	cg_write(cg, "memory.max", "max");
	catch_alarm(SA_RESTART);
	t0 = mono_now();
	setitimer(ITIMER_REAL, &it, NULL);
	errno = 0;
	r = swapoff(env.dev);
	t1 = mono_now();
	err = errno;
	took = t1 - t0;
	t_diag("restart: swapoff took %.2fs, %d SIGALRM", took, (int)alarms);
	t_ok(alarms == 1 && alarm_at < t1, "restart: the signal arrived during swapoff",
	     "%d signals, swapoff took %.3fs", (int)alarms, took);
	t_ok(r == 0, "restart: swapoff interrupted by a SA_RESTART signal completes",
	     "swapoff: %s", strerror(err));
	t_ok(swaps_used_kb(env.dev) < 0, "restart: the device left /proc/swaps",
	     "%d areas listed", swaps_count());
	worker_release(&w, 1);
	st = worker_finish(&w, 0);
	t_ok(st == 0, "restart: worker completed", "worker %s", status_str(st));
out:
	signal(SIGALRM, SIG_DFL);
	cg_no_oom_kill(cg, "restart");
	cg_destroy(cg);
	free(cg);
}

static void enomem_phase(void)
{
	char *cg = cg_create("vswap_swapoff_err2", 16 * MiB);
	struct cg_worker w;
	double t0, took;
	int r, err, st;

	if (!cg) {
		t_fail("enomem: create cgroup", "%s", strerror(errno));
		return;
	}
	if (!swap_area_check_on("enomem", env.dev, -1))
		goto out;
	if (!start_holder(&w, cg, &enomem_hold)) {
		swap_area_check_off("enomem", env.dev);
		goto out;
	}
	oom_expect_begin("swapoff into a full cgroup with nothing to kill");
	catch_alarm(0);
	t0 = mono_now();
	alarm(8);
	errno = 0;
	r = swapoff(env.dev);
	err = errno;
	alarm(0);
	took = mono_now() - t0;
	oom_expect_end();
	t_diag("enomem: swapoff took %.2fs: %s, %d SIGALRM", took,
	       r ? strerror(err) : "done", (int)alarms);
	t_ok(r == -1 && err == ENOMEM && !alarms,
	     "enomem: swapoff into a cgroup that cannot hold the pages fails with ENOMEM",
	     "swapoff: %s after %.2fs, %d alarms", r ? strerror(err) : "succeeded", took,
	     (int)alarms);
	t_ok(r == 0 || swaps_used_kb(env.dev) >= 0, "enomem: the failed swapoff left the device on",
	     "%d areas listed", swaps_count());
	cg_write(cg, "memory.max", "max");
	if (swaps_used_kb(env.dev) >= 0) {
		errno = 0;
		r = swapoff(env.dev);
		t_ok(r == 0, "enomem: swapoff succeeds once the cgroup has room", "swapoff: %s",
		     strerror(errno));
	}
	worker_release(&w, 1);
	st = worker_finish(&w, 0);
	t_ok(st == 0, "enomem: worker completed", "worker %s", status_str(st));
out:
	signal(SIGALRM, SIG_DFL);
	cg_destroy(cg);
	free(cg);
}

int main(int argc, char **argv)
{
	t_init("vswap_swapoff_err");
	swap_env_setup_flags(&env, argc, argv, SWAP_ENV_DISK);
	restart_phase();
	enomem_phase();
	/* Both phases swapped the area off; teardown must not fail on it. */
	if (swaps_used_kb(env.dev) >= 0)
		swap_env_teardown(&env);
	if (env.mode != SWAP_DISK)
		vswap_check_used_back("end", 0);
	return t_done();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * vswap_meta_churn: vswap's metadata shrinks and grows under load while
 * swap entries are looked up without their page table lock, and nothing
 * reads freed metadata (run on the KASAN + lockdep kernel).
 *
 *   vswap_meta_churn DEVICE   a physical swap area for the incompressible pages
 *
 * For SECONDS seconds, at once:
 *  - cycle: map 4 MiB, fill it with PAT_MIX4 (compressible, zero and
 *    random pages: zswap, the zeromap and the physical area), push it
 *    out, check with mincore() that it left memory, read it back
 *    byte-exact, unmap it: clusters fill and empty all the time, and the
 *    delayed shrink unmaps their metadata;
 *  - fork (a process of its own): a 2 MiB region pushed out; children
 *    read it back byte-exact, push part of it out again and exit (swap
 *    counts shared and dropped);
 *  - reader: faults random pages of an 8 MiB region that the zapper keeps
 *    dropping (MADV_DONTNEED), refilling and pushing out; every fault
 *    reads the neighbouring page table entries locklessly for readahead,
 *    entries the zapper may just have freed.  Each page reads as its
 *    pattern or as zero, never anything else;
 *  - swapoff: the physical area is swapped off and on again;
 *  - burst: 32 MiB pushed out and unmapped, then a wait (12 s at most)
 *    for the shrink to give metadata back, over and over: the space grows
 *    past everything else and its free tail is unmapped again.
 * Then every check above held, the metadata was given back during the run
 * ("unmapped_total" in VSWAP_DIR/metadata rose), and the guest's dmesg has
 * no splat (dmesg_check, after the test).
 */
#include "lib.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <unistd.h>

#define SECONDS		40
#define SEED_CYCLE	0x5eed1711ULL
#define SEED_FORK	0x5eed1712ULL
#define SEED_ZAP	0x5eed1713ULL
#define SEED_BURST	0x5eed1714ULL
#define BURST_PAGES	8192
#define CYCLE_PAGES	1024
#define FORK_PAGES	512
#define ZAP_PAGES	2048
#define ZAP_RUN		16
#define META		VSWAP_DIR "/metadata"

static atomic_int stop;
static const char *dev;
static char *zap_buf;
/* A run of ZAP_RUN pages is zapped and refilled under its lock. */
static pthread_mutex_t run_lock[ZAP_PAGES / ZAP_RUN];

struct result {
	long rounds, bad, other, out;
	const char *what;
};

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void *cycle(void *arg)
{
	struct result *r = arg;
	size_t ps = page_size();
	unsigned char vec[CYCLE_PAGES];

	while (!stop) {
		char *p = map_anon_4k(CYCLE_PAGES);
		size_t resident = 0;

		if (!p) {
			r->other++;
			break;
		}
		pat_fill(p, CYCLE_PAGES, SEED_CYCLE + r->rounds, PAT_MIX4);
		pageout(p, CYCLE_PAGES);
		/*
		 * Swap cache folios count as resident, and swapoff brings
		 * pages back: count the rounds whose pages mostly left.
		 */
		if (!mincore(p, CYCLE_PAGES * ps, vec))
			for (size_t i = 0; i < CYCLE_PAGES; i++)
				resident += vec[i] & 1;
		r->out += resident <= CYCLE_PAGES / 2;
		r->bad += pat_verify(p, CYCLE_PAGES, SEED_CYCLE + r->rounds, PAT_MIX4);
		munmap(p, CYCLE_PAGES * ps);
		r->rounds++;
	}
	return NULL;
}

/*
 * In a process of its own, forked before the threads start: a fork copies
 * every mapping, and MADV_PAGEOUT skips pages mapped twice, so forking the
 * threads' process would keep their pages in memory.
 */
static void forker(struct result *r)
{
	char *p = map_anon_4k(FORK_PAGES);
	double t0 = mono_now();

	if (!p) {
		r->other++;
		return;
	}
	pat_fill(p, FORK_PAGES, SEED_FORK, PAT_MIXED);
	while (mono_now() - t0 < SECONDS) {
		pid_t pid;
		int status;

		pageout(p, FORK_PAGES);
		pid = fork();
		if (pid == 0) {
			size_t bad = pat_verify(p, FORK_PAGES, SEED_FORK, PAT_MIXED);

			pageout(p, FORK_PAGES / 2);
			_exit(bad ? 1 : 0);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid) {
			r->other++;
			break;
		}
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			r->bad++;
		r->rounds++;
	}
	r->bad += pat_verify(p, FORK_PAGES, SEED_FORK, PAT_MIXED);
	munmap(p, FORK_PAGES * page_size());
}

/* Run forker() in a child; its result comes back over a pipe. */
static pid_t forker_start(int *fd)
{
	int pfd[2];
	pid_t pid;

	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid == 0) {
		struct result r = { 0 };

		close(pfd[0]);
		forker(&r);
		_exit(write(pfd[1], &r, sizeof(r)) == sizeof(r) ? 0 : 1);
	}
	close(pfd[1]);
	*fd = pfd[0];
	return pid;
}

static void forker_finish(pid_t pid, int fd, struct result *r)
{
	int status;

	if (pid < 0 || read(fd, r, sizeof(*r)) != sizeof(*r))
		r->other++;
	if (pid > 0 && (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
			WEXITSTATUS(status)))
		r->other++;
	close(fd);
}

static void *reader(void *arg)
{
	struct result *r = arg;
	size_t ps = page_size();
	uint64_t s = 0x9e3779b97f4a7c15ULL;

	while (!stop) {
		size_t i = rnd(&s) % ZAP_PAGES;
		const char *pg = zap_buf + i * ps;

		/*
		 * Its own run is not zapped meanwhile; the neighbours that
		 * readahead looks at may be.
		 */
		pthread_mutex_lock(&run_lock[i / ZAP_RUN]);
		if (!page_is_zero(pg) && pat_verify_from(zap_buf, i, 1, SEED_ZAP, PAT_MIXED))
			r->bad++;
		pthread_mutex_unlock(&run_lock[i / ZAP_RUN]);
		r->rounds++;
	}
	return NULL;
}

static void *zapper(void *arg)
{
	struct result *r = arg;
	size_t ps = page_size();
	uint64_t s = 0x2545f4914f6cdd1dULL;

	while (!stop) {
		size_t i = rnd(&s) % (ZAP_PAGES / ZAP_RUN) * ZAP_RUN;
		char *p = zap_buf + i * ps;

		pthread_mutex_lock(&run_lock[i / ZAP_RUN]);
		madvise(p, ZAP_RUN * ps, MADV_DONTNEED);
		/* Half the time the run stays zero (dropped), else it is refilled. */
		if (rnd(&s) & 1)
			pat_fill_from(zap_buf, i, ZAP_RUN, SEED_ZAP, PAT_MIXED);
		pthread_mutex_unlock(&run_lock[i / ZAP_RUN]);
		pageout(p, ZAP_RUN);
		/* Push the neighbours out too, so faults find swap entries. */
		pageout(zap_buf + (rnd(&s) % (ZAP_PAGES / 64)) * 64 * ps, 64);
		r->rounds++;
	}
	return NULL;
}

/*
 * Grow the space past everything else and give it back: the shrink, a
 * second later, unmaps the free tail and lowers si->max while the others
 * look entries up.
 */
static void *burst(void *arg)
{
	struct result *r = arg;
	long long u0;

	while (!stop) {
		char *p = map_anon_4k(BURST_PAGES);

		if (!p) {
			r->other++;
			break;
		}
		pat_fill(p, BURST_PAGES, SEED_BURST, PAT_REPEAT);
		pageout(p, BURST_PAGES);
		r->bad += pat_verify(p, BURST_PAGES / 8, SEED_BURST, PAT_REPEAT);
		u0 = vswap_meta("unmapped_total");
		munmap(p, BURST_PAGES * page_size());
		r->rounds++;
		/* The shrink runs a second after frees pause, ten at most. */
		for (int i = 0; i < 120 && !stop; i++) {
			usleep(100 * 1000);
			if (vswap_meta("unmapped_total") > u0) {
				r->out++;
				break;
			}
		}
	}
	return NULL;
}

static void *swapper(void *arg)
{
	struct result *r = arg;

	while (!stop) {
		sleep(2);
		if (stop)
			break;
		if (swapoff(dev) || swap_area_on(dev, -1))
			r->bad++;
		r->rounds++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct result res[] = {
		{ .what = "cycle" }, { .what = "fork" }, { .what = "reader" },
		{ .what = "zapper" }, { .what = "swapoff" }, { .what = "burst" },
	};
	/* res[1] is the forker process's. */
	void *(*fn[])(void *) = { cycle, NULL, reader, zapper, swapper, burst };
	pthread_t th[6];
	int fork_fd = -1;
	pid_t fork_pid;
	long long used0, unmapped0, unmapped1;
	char name[128], *cg;

	t_init("vswap_meta_churn");
	if (argc < 2)
		t_bail("usage", "vswap_meta_churn DEVICE");
	dev = argv[1];
	if (!path_exists(META))
		t_bail("vswap metadata file", "%s missing: needs vswap=on", META);
	if (!swap_area_check_on(NULL, dev, -1))
		t_bail("swap area", "cannot swapon %s", dev);
	cg = cg_enter_new("vswap_meta_churn");
	used0 = vswap_stat("used");
	unmapped0 = vswap_meta("unmapped_total");

	/* Before anything else is mapped: the forker shares nothing. */
	fork_pid = forker_start(&fork_fd);
	zap_buf = map_anon_4k(ZAP_PAGES);
	if (!zap_buf)
		t_bail("map", "%s", strerror(errno));
	pat_fill(zap_buf, ZAP_PAGES, SEED_ZAP, PAT_MIXED);
	pageout(zap_buf, ZAP_PAGES);

	for (size_t i = 0; i < ZAP_PAGES / ZAP_RUN; i++)
		pthread_mutex_init(&run_lock[i], NULL);
	for (int i = 0; i < 6; i++)
		if (fn[i] && pthread_create(&th[i], NULL, fn[i], &res[i]))
			t_bail("pthread_create", "%s", res[i].what);
	sleep(SECONDS);
	stop = 1;
	for (int i = 0; i < 6; i++)
		if (fn[i])
			pthread_join(th[i], NULL);
	forker_finish(fork_pid, fork_fd, &res[1]);
	unmapped1 = vswap_meta("unmapped_total");

	for (int i = 0; i < 6; i++)
		t_diag("%s: %ld rounds, %ld bad, %ld other, %ld out", res[i].what, res[i].rounds,
		       res[i].bad, res[i].other, res[i].out);
	t_ok(res[0].rounds >= 5 && !res[0].bad && !res[0].other && res[0].out >= res[0].rounds / 2,
	     "cycle: every round read back byte-exact, most after leaving memory",
	     "%ld rounds, %ld bad pages, %ld failures, %ld rounds left memory", res[0].rounds,
	     res[0].bad, res[0].other, res[0].out);
	t_ok(res[1].rounds >= 5 && !res[1].bad && !res[1].other,
	     "fork: every child and the parent read the region back byte-exact",
	     "%ld rounds, %ld bad, %ld failures", res[1].rounds, res[1].bad, res[1].other);
	t_ok(res[2].rounds >= 100 && !res[2].bad,
	     "reader: every page read as its pattern or as zero",
	     "%ld reads, %ld bad", res[2].rounds, res[2].bad);
	t_ok(res[3].rounds >= 5, "zapper: ranges dropped, refilled and pushed out",
	     "%ld rounds", res[3].rounds);
	t_ok(res[4].rounds >= 2 && !res[4].bad, "swapoff and swapon of the area under load",
	     "%ld cycles, %ld failed", res[4].rounds, res[4].bad);
	t_ok(res[5].rounds >= 2 && res[5].out >= 1 && !res[5].bad && !res[5].other,
	     "burst: the space grew and metadata was given back after it, byte-exact",
	     "%ld rounds, %ld followed by a shrink, %ld bad pages, %ld failures", res[5].rounds,
	     res[5].out, res[5].bad, res[5].other);
	snprintf(name, sizeof(name), "metadata given back during the run (unmapped_total %lld -> %lld)",
		 unmapped0, unmapped1);
	t_ok(unmapped0 >= 0 && unmapped1 - unmapped0 >= 8 * (long long)page_size(), name,
	     "%lld pages unmapped", (unmapped1 - unmapped0) / (long long)page_size());

	munmap(zap_buf, ZAP_PAGES * page_size());
	swap_area_check_off(NULL, dev);
	t_ok(vswap_wait_used(used0, 10000) <= used0, "vswap used back to where it started",
	     "used %lld, started at %lld", vswap_stat("used"), used0);
	cg_leave(cg);
	return t_done();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * vswap_thp: large folios swap out and back in without loss, on the path
 * the series gives them.
 *
 *   vswap_thp            vswap mode (no swap area): reclaim must split them
 *   vswap_thp DEVICE     a swap area on DEVICE, with vswap (vswap=on) or
 *                        without (regression mode)
 *
 * 6.12's zswap stores no large folio and vswap slots are order 0, so a
 * large anonymous folio never takes a vswap slot:
 *  - with a swap area (both modes) it swaps out whole to a physical
 *    cluster, as in 6.12: thp_swpout (PMD) and the 64 KiB mTHP size's
 *    swpout count every folio pushed out, no fallback is counted, and in
 *    vswap mode vswap "used" does not move;
 *  - with no swap area it is split and its pages go to vswap and zswap:
 *    thp_swpout_fallback (and the mTHP swpout_fallback) count the folios,
 *    vswap "used" covers the pages.
 * Swapin is order 0 (6.12 swaps in large folios only from synchronous
 * devices); every byte reads back.
 *
 * Each phase runs in a worker in a 64 MiB cgroup on a 16 MiB region of
 * mixed pages: PMD THPs first (MADV_HUGEPAGE on a 2 MiB-aligned region),
 * then 64 KiB mTHPs (that size "always", the PMD size "never" for the
 * phase, "never" and "inherit" again after it).
 */
#include "lib.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SEED	0x5eed0a01ULL
#define PMD_SZ	(2 * MiB)
#define REGION	(16 * MiB)
#define THP	"/sys/kernel/mm/transparent_hugepage"
#define MTHP	THP "/hugepages-64kB"
#define PMDTHP	THP "/hugepages-2048kB"

static struct swap_env env;

/* An anonymous region of REGION bytes aligned to 2 MiB, or NULL. */
static char *map_aligned(void)
{
	char *p = mmap(NULL, REGION + PMD_SZ, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t a;

	if (p == MAP_FAILED)
		return NULL;
	a = ((uintptr_t)p + PMD_SZ - 1) & ~(PMD_SZ - 1);
	return (char *)a;
}

static long long mthp_stat(const char *name)
{
	char path[160];
	long long v;

	snprintf(path, sizeof(path), MTHP "/stats/%s", name);
	return read_ll(path, &v) ? -1 : v;
}

struct phase {
	const char *name;
	int pmd;		/* PMD THPs, else 64 KiB mTHPs */
	const char *out, *fallback;	/* counters: vmstat or mTHP stats */
};

static long long counter(const struct phase *ph, const char *name)
{
	return ph->pmd ? vmstat(name) : mthp_stat(name);
}

static int worker(const char *cg, void *arg)
{
	const struct phase *ph = arg;
	size_t n = REGION / page_size(), bad;
	long long folios = REGION / (ph->pmd ? PMD_SZ : 64 * 1024);
	long long out0, fb0, used0, out, fb, used, large;
	char *buf = map_aligned(), t[160];

	(void)cg;
	if (!buf)
		return t_fail(ph->name, "mmap: %s", strerror(errno)), 1;
	if (ph->pmd && madvise(buf, REGION, MADV_HUGEPAGE))
		return t_fail(ph->name, "MADV_HUGEPAGE: %s", strerror(errno)), 1;
	out0 = counter(ph, ph->out);
	fb0 = counter(ph, ph->fallback);
	used0 = vswap_stat("used");
	pat_fill(buf, n, SEED, PAT_MIXED);
	if (ph->pmd) {
		if (read_key("/proc/self/smaps_rollup", "AnonHugePages", &large))
			large = -1;
		snprintf(t, sizeof(t), "%s: the region is backed by THPs", ph->name);
		t_ok(large >= (long long)(REGION >> 10) / 2, t, "AnonHugePages %lld KiB", large);
	}
	t_ok(pageout(buf, n) == 0, "MADV_PAGEOUT accepted", "madvise: %s", strerror(errno));
	usleep(500000);
	out = counter(ph, ph->out) - out0;
	fb = counter(ph, ph->fallback) - fb0;
	used = vswap_stat("used") - used0;
	t_diag("%s: %lld folios of %s: %s +%lld, %s +%lld, vswap used +%lld, %s Used %lld KiB",
	       ph->name, folios, ph->pmd ? "2 MiB" : "64 KiB", ph->out, out, ph->fallback, fb,
	       used, env.dev ? env.dev : "-", env.dev ? swaps_used_kb(env.dev) : -1);

	if (env.mode == SWAP_VSWAP) {
		snprintf(t, sizeof(t), "%s: no swap area: large folios split (%s)", ph->name,
			 ph->fallback);
		t_ok(fb >= folios / 2 && out == 0, t, "%s +%lld, %s +%lld for %lld folios",
		     ph->fallback, fb, ph->out, out, folios);
		snprintf(t, sizeof(t), "%s: their pages went to vswap", ph->name);
		t_ok(used >= (long long)n / 2, t, "vswap used +%lld for %zu pages", used, n);
	} else {
		snprintf(t, sizeof(t), "%s: swapped out whole to the area (%s)", ph->name,
			 ph->out);
		t_ok(out >= folios / 2 && fb == 0, t, "%s +%lld, %s +%lld for %lld folios",
		     ph->out, out, ph->fallback, fb, folios);
		if (env.mode == SWAP_VSWAP_DISK) {
			snprintf(t, sizeof(t), "%s: large folios took no vswap slot", ph->name);
			t_ok(used <= 64, t, "vswap used +%lld", used);
		}
	}
	bad = pat_verify(buf, n, SEED, PAT_MIXED);
	snprintf(t, sizeof(t), "%s: every page reads back byte-exact", ph->name);
	t_ok(bad == 0, t, "%zu of %zu pages differ", bad, n);
	return t_failures() ? 1 : 0;
}

static void run_phase(const struct phase *ph)
{
	cg_phase(ph->name, "vswap_thp", 64 * MiB, worker, (void *)ph);
	if (env.mode != SWAP_DISK)
		vswap_check_used_back(ph->name, 0);
}

int main(int argc, char **argv)
{
	static const struct phase pmd = { "PMD THP", 1, "thp_swpout", "thp_swpout_fallback" };
	static const struct phase mthp = { "64K mTHP", 0, "swpout", "swpout_fallback" };
	char old[32] = "";

	t_init("vswap_thp");
	/* A cluster for each large folio: non-rotational areas only (6.12). */
	if (argc > 1)
		t_ok(blk_set_nonrot(argv[1]) == 0, "area is non-rotational",
		     "cannot write the queue/rotational of %s", argv[1]);
	swap_env_setup_flags(&env, argc, argv, SWAP_ENV_DISK_ARG);
	/* THP is off by default below 512 MiB of RAM: on for the test. */
	t_ok(write_file(THP "/enabled", "always") == 0, "THP enabled", "cannot write %s/enabled",
	     THP);
	if (env.mode == SWAP_VSWAP)
		env.dev = NULL;
	run_phase(&pmd);

	/* 64 KiB folios only: PMD THPs off for the phase. */
	if (read_file(MTHP "/enabled", old, sizeof(old)) <= 0) {
		t_fail("64K mTHP", "no %s", MTHP);
	} else {
		t_ok(write_file(PMDTHP "/enabled", "never") == 0 &&
		     write_file(MTHP "/enabled", "always") == 0, "64K mTHP on, PMD THP off",
		     "cannot write %s/enabled or %s/enabled", MTHP, PMDTHP);
		run_phase(&mthp);
		write_file(MTHP "/enabled", "never");
		write_file(PMDTHP "/enabled", "inherit");
	}
	write_file(THP "/enabled", "never");
	swap_env_teardown(&env);
	return t_done();
}

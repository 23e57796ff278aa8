// SPDX-License-Identifier: GPL-2.0
/*
 * profile: where the kernel spends its time while a workload swaps, by the
 * ftrace function profiler (make profile, checks/profile.sh).  Not a test:
 * it measures, and never judges a time.
 *
 *	profile limit=64M swap=/dev/vda size=2 passes=2
 *	profile limit=64M swap=zram size=2 passes=2
 *	profile limit=64M swap=zram size=1.5 passes=1 random=2
 *
 * random=X: then X x pages accesses to random pages, each reading a word
 * and dirtying the page (make bench's random workload).
 * swap=zram: zram0 of disksize RAM/2 is the swap area and zswap is off,
 * as in make bench's zram columns: every page takes the physical path.
 *
 * The workload is memhog's: in a cgroup with memory.max = limit, one
 * process writes size x limit of PAT_MIX4 pages (compressible, zero and
 * random pages: zswap, the zeromap and the swap area all get some) passes
 * times, then reads every page back and checks it byte for byte.  The
 * profiler (function_profile_enabled, graph-time off: a function's own
 * time, without its callees) runs for exactly the workload.
 *
 * Results go to /dev/ttyS1, one line each:
 *	VPROF-INFO kernel= vswap= real_s= pswpout= pswpin= zswpout= zswpin=
 *	           pgmajfault= bad_pages=          the workload and its counters
 *	VPROF fn=NAME hits=N ns=T                   every function profiled, summed
 *	                                            over the CPUs
 *	VPROF-END
 */
#define _GNU_SOURCE
#include "lib.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/swap.h>
#include <sys/utsname.h>
#include <unistd.h>

#define SEED		0x5eedf00dULL
#define MAX_FN		32768
#define TRACING		"/sys/kernel/tracing"

static unsigned long limit = 64 * MiB;
static const char *swapdev;
static double size_x = 2;
static int passes = 2;
static double random_x;	/* random=X: X x pages random accesses after the writes */

struct fn {
	char name[64];
	long long hits;
	double ns;
};
static struct fn fns[MAX_FN];
static int nfn;
static int slot[2 * MAX_FN];	/* open addressing: index + 1 into fns, 0 free */

static struct fn *fn_get(const char *name)
{
	unsigned int h = 5381;

	for (const char *p = name; *p; p++)
		h = h * 33 + (unsigned char)*p;
	for (h %= 2 * MAX_FN; slot[h]; h = (h + 1) % (2 * MAX_FN))
		if (!strcmp(fns[slot[h] - 1].name, name))
			return &fns[slot[h] - 1];
	if (nfn == MAX_FN)
		return NULL;
	snprintf(fns[nfn].name, sizeof(fns[0].name), "%s", name);
	slot[h] = ++nfn;
	return &fns[nfn - 1];
}

/* One result line for the host (thousands of them: not echoed). */
#define emit(...) t_result_line(0, __VA_ARGS__)

static int tracing(const char *file, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), TRACING "/%s", file);
	return write_file(path, val);
}

/* Add one CPU's trace_stat/functionN: "name hits time us avg us s^2 us". */
static int add_stats(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512], name[64], unit[8];
	long long hits;
	struct fn *fn;
	double t;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, " %63s %lld %lf %7s", name, &hits, &t, unit) != 4)
			continue;
		if (strcmp(unit, "us"))
			continue;
		fn = fn_get(name);
		if (!fn)
			continue;
		fn->hits += hits;
		fn->ns += t * 1000;
	}
	fclose(f);
	return 0;
}

static int worker(const char *cg, void *arg)
{
	size_t npages = (size_t)(size_x * limit) / page_size(), bad;
	void *buf = map_anon(npages);
	int *badp = arg;

	(void)cg;
	if (!buf)
		return 2;
	for (int p = 0; p < passes; p++)
		pat_fill(buf, npages, SEED + p, PAT_MIX4);
	if (random_x > 0) {
		/*
		 * make bench's random workload: each access reads a word of a
		 * random page and dirties the page, here by writing the same
		 * value back, so that the pages still verify.
		 */
		size_t nw = page_size() / sizeof(uint64_t), acc = npages * random_x;
		uint64_t s = 0x9e3779b97f4a7c15ULL, sum = 0;

		for (size_t a = 0; a < acc; a++) {
			volatile uint64_t *w;

			s ^= s << 13;
			s ^= s >> 7;
			s ^= s << 17;
			w = (volatile uint64_t *)buf + (s % npages) * nw + (s >> 32) % nw;
			sum += *w;
			*w = *w;
		}
		if (sum == 1)	/* keep the reads */
			fputc(' ', stderr);
	}
	bad = pat_verify(buf, npages, SEED + passes - 1, PAT_MIX4);
	/* the parent reads it from the result line: exit codes are 8 bits */
	*badp = bad > 1000000 ? 1000000 : (int)bad;
	return 0;
}

static int parse_arg(char *a)
{
	char *v = strchr(a, '=');

	if (!v)
		return -1;
	*v++ = 0;
	if (!strcmp(a, "limit"))
		limit = strtoul(v, NULL, 0) * MiB;
	else if (!strcmp(a, "swap"))
		swapdev = strcmp(v, "none") ? strdup(v) : NULL;
	else if (!strcmp(a, "size"))
		size_x = atof(v);
	else if (!strcmp(a, "passes"))
		passes = atoi(v);
	else if (!strcmp(a, "random"))
		random_x = atof(v);
	else
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	long long c0[5], c1[5];
	static const char *const ctr[5] = { "pswpout", "pswpin", "zswpout", "zswpin", "pgmajfault" };
	int *bad = map_anon(1), status, r;
	struct utsname u;
	char path[64], *cg;
	double t0, t1;

	t_init("profile");
	for (int i = 1; i < argc; i++) {
		char arg[256];

		snprintf(arg, sizeof(arg), "%s", argv[i]);
		if (parse_arg(arg))
			t_bail("arguments", "cannot parse '%s'", argv[i]);
	}
	if (!path_exists(TRACING "/trace_stat") &&
	    mount("tracefs", TRACING, "tracefs", 0, NULL) && errno != EBUSY)
		t_bail("tracefs", "mount %s: %s", TRACING, strerror(errno));
	if (!path_exists(TRACING "/function_profile_enabled"))
		t_bail("profiler", "no %s/function_profile_enabled (CONFIG_FUNCTION_PROFILER?)",
		       TRACING);
	if (swapdev && !strcmp(swapdev, "zram")) {
		zram_swap_setup();
		swapdev = "/dev/zram0";
	}
	if (swapdev) {
		r = make_swap(swapdev);
		if (r || swapon(swapdev, 0))
			t_bail("swapon", "%s: %s", swapdev, strerror(r ? -r : errno));
	}
	cg = cg_create("profile", limit);
	if (!cg || !bad)
		t_bail("cgroup", "%s", strerror(errno));
	/* a function's own time: what it costs, not what it calls */
	tracing("options/graph-time", "0");
	for (int i = 0; i < 5; i++)
		c0[i] = vmstat(ctr[i]);
	r = tracing("function_profile_enabled", "1");
	if (r)
		t_bail("profiler", "function_profile_enabled: %s", strerror(-r));
	t0 = mono_now();
	status = cg_run(cg, worker, bad);
	t1 = mono_now();
	tracing("function_profile_enabled", "0");
	for (int i = 0; i < 5; i++)
		c1[i] = vmstat(ctr[i]);
	t_ok(status == 0, "workload", "%s", status_str(status));
	t_ok(*bad == 0, "data read back byte-exact", "%d pages differ", *bad);
	for (int cpu = 0; ; cpu++) {
		snprintf(path, sizeof(path), TRACING "/trace_stat/function%d", cpu);
		if (add_stats(path))
			break;
	}
	t_ok(nfn > 0, "profile read", "%d functions", nfn);
	uname(&u);
	emit("VPROF-INFO kernel=%s vswap=%s real_s=%.3f pswpout=%lld pswpin=%lld zswpout=%lld "
	     "zswpin=%lld pgmajfault=%lld bad_pages=%d functions=%d status=%d",
	     u.release, path_exists(VSWAP_DIR) ? "on" : "off", t1 - t0,
	     c1[0] - c0[0], c1[1] - c0[1], c1[2] - c0[2], c1[3] - c0[3], c1[4] - c0[4],
	     *bad, nfn, status);
	for (int i = 0; i < nfn; i++)
		emit("VPROF fn=%s hits=%lld ns=%.0f", fns[i].name, fns[i].hits, fns[i].ns);
	emit("VPROF-END");
	cg_destroy(cg);
	return t_done();
}

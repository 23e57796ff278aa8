// SPDX-License-Identifier: GPL-2.0
/*
 * bench: the in-guest runner of make bench (checks/bench.sh).  Not a test:
 * it measures, and never judges a time.  Its TAP says only whether each
 * workload ran to completion (an OOM kill is reported, not hidden).
 *
 * Everything it runs comes from its arguments, which checks/bench.sh makes
 * from qemu-test/bench/bench.conf and qemu-test/bench/workloads.conf:
 *
 *	bench OPTION=VALUE ... NAME/KEY=VALUE/KEY=VALUE ...
 *
 * options:   limit=64M      memory.max of every workload's cgroup
 *            swap=/dev/vda  make a swap area there and swapon it (none: no
 *                           swapon; zram: zram0 of disksize RAM/2, zswap off)
 *            mglru=1        switch MGLRU on (/sys/kernel/mm/lru_gen/enabled)
 *            data=12/10     % incompressible bytes per page / % zero-filled pages
 *            round=N        seed of the data (and a label)
 *            wtimeout=S     a workload still running after S seconds is killed
 *            sample_ms=M    how often the swap counters are sampled
 *            scale=F        multiply sizes given in RAM (1.2mem) by F (tiny runs)
 * workloads: NAME/kind=seq|usemem|random|swapoff/size=3x/procs=N/passes=N/
 *            accesses=Nx/memcg=0/data=R-Z
 *            size is a multiple of limit (3x), of the guest's RAM (1.2mem)
 *            or bytes (96M), split over procs; procs run at the same time in
 *            the same cgroup.  memcg=0: the cgroup has no memory.max, so the
 *            pressure is global.  data= replaces the option for one
 *            workload.  kind=swapoff writes the data, then raises the
 *            cgroup's limit and times swapoff of the swap area (which reads
 *            back whatever of it is on the area) and swapons it again; with
 *            no swap area it reports status=n/a.
 *
 * Results go to /dev/ttyS1 (the result port, see qemu-test/init), one line
 * each, key=value:
 *	VBENCH-INFO ...          kernel, swap area, static swapon cost
 *	VBENCH wl=NAME status=ok|oom|timeout|... real_s= user_s= sys_s= ...
 *	VBENCH-END
 */
#define _GNU_SOURCE
#include "lib.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/swap.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_WL		16
#define MAX_PROCS	8

enum kind { K_SEQ, K_USEMEM, K_RANDOM, K_SWAPOFF, K_NR };
static const char *const kind_name[K_NR] = { "seq", "usemem", "random", "swapoff" };

struct workload {
	char name[32];
	enum kind kind;
	double size_x;		/* multiple of limit, or ... */
	double size_mem;	/* ... of MemTotal, or ... */
	unsigned long size;	/* ... bytes, if non-zero */
	int procs, passes;
	double accesses_x;	/* random: accesses as a multiple of the pages */
	int memcg;		/* 0: no memory.max (global pressure) */
	int rnd_pct, zero_pct;	/* -1: the option's */
};

static unsigned long limit = 64 * MiB;
static const char *swapdev;
static int use_zram, mglru;
static double scale = 1;
static int rnd_pct = 12, zero_pct = 10, round_no = 1;
static int wtimeout = 120, sample_ms = 50;
static struct workload wls[MAX_WL];
static int nwl;

/* ---- output ------------------------------------------------------------- */

/* One result line for the host, echoed in the TAP output. */
#define emit(...) t_result_line(1, __VA_ARGS__)

static unsigned long parse_size(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	switch (*end) {
	case 'G': case 'g': v *= 1024;	/* fall through */
	case 'M': case 'm': v *= 1024;	/* fall through */
	case 'K': case 'k': v *= 1024;
	}
	return v;
}

/* ---- the data ------------------------------------------------------------ */

/*
 * A page of "realistic" data: zero_pct % of the pages are zero-filled, the
 * others start with rnd_pct % incompressible bytes followed by runs of
 * words drawn from a small per-page dictionary (like text or repeated
 * structures).  The ratio zswap gets (zswapped / pool_total_size) is
 * reported; bench.conf's data= is tuned for about 2.5-3:1 with lzo.
 */
static void fill(uint64_t *w, size_t idx, uint64_t seed, int rnd, int zero)
{
	size_t nw = page_size() / 8, nrnd = nw * rnd / 100;
	uint64_t s = pat_mix64(seed ^ pat_mix64(idx + 1)), dict[16];

	if ((s % 100) < (uint64_t)zero) {
		memset(w, 0, page_size());
		return;
	}
	for (int i = 0; i < 16; i++)
		dict[i] = pat_mix64(s + i);
	for (size_t j = 0; j < nw; ) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		if (j < nrnd) {
			w[j++] = s;
			continue;
		}
		/* a dictionary word, repeated 1 to 4 times */
		for (int run = 1 + ((s >> 56) & 3); run-- && j < nw; )
			w[j++] = dict[(s >> 60) & 15];
	}
}

/* ---- what is sampled ------------------------------------------------------ */

struct sample {
	long long swap_cur;	/* memory.swap.current, bytes */
	long long zswapped;	/* memory.stat zswapped, bytes */
	long long pool;		/* zswap pool_total_size, bytes */
	long long stored;	/* zswap stored_pages */
	long long swaps_used;	/* /proc/swaps used, KiB, all areas */
	long long vswap_used;	/* debugfs vswap/used, -1 without vswap */
	long long vmeta;	/* debugfs vswap/metadata total, bytes, -1 without */
	long long slab, sunreclaim, vmalloc, pagetables;	/* /proc/meminfo, KiB */
};

static long long swaps_used_all(void)
{
	char buf[8192], name[256], type[64];
	long long size, used, sum = 0;
	char *line, *p;

	if (read_file("/proc/swaps", buf, sizeof(buf)) < 0)
		return -1;
	p = strchr(buf, '\n');
	for (line = p ? strtok(p + 1, "\n") : NULL; line; line = strtok(NULL, "\n"))
		if (sscanf(line, "%255s %63s %lld %lld", name, type, &size, &used) == 4)
			sum += used;
	return sum;
}

static void sample(const char *cg, struct sample *s)
{
	s->swap_cur = -1;
	if (cg)
		cg_read_ll(cg, "memory.swap.current", &s->swap_cur);
	s->zswapped = cg ? cg_stat(cg, "zswapped") : -1;
	s->pool = zswap_stat("pool_total_size");
	s->stored = zswap_stat("stored_pages");
	s->swaps_used = swaps_used_all();
	s->vswap_used = vswap_stat("used");
	s->vmeta = vswap_meta("total");
	s->slab = meminfo_kb("Slab");
	s->sunreclaim = meminfo_kb("SUnreclaim");
	s->vmalloc = meminfo_kb("VmallocUsed");
	s->pagetables = meminfo_kb("PageTables");
}

static long long swapped(const struct sample *s)
{
	long long a = s->swap_cur > 0 ? s->swap_cur : 0;
	long long b = s->zswapped > 0 ? s->zswapped : 0;

	return a > b ? a : b;
}

/*
 * /proc/slabinfo, if the kernel has it (not with SLUB_TINY): bytes per
 * cache, to name the caches that grew.
 */
#define MAX_CACHES 256
struct slabs {
	int n;
	char name[MAX_CACHES][32];
	long long bytes[MAX_CACHES];
};

static int slabinfo(struct slabs *sl)
{
	static char buf[1 << 17];
	char *line;

	sl->n = 0;
	if (read_file("/proc/slabinfo", buf, sizeof(buf)) < 0)
		return -1;
	for (line = strtok(buf, "\n"); line && sl->n < MAX_CACHES; line = strtok(NULL, "\n")) {
		long long active, num, objsize;

		if (line[0] == '#' || !strncmp(line, "slabinfo", 8))
			continue;
		if (sscanf(line, "%31s %lld %lld %lld", sl->name[sl->n], &active, &num, &objsize) == 4)
			sl->bytes[sl->n++] = num * objsize;
	}
	return 0;
}

/* "name:+KiB,name:+KiB" for the caches that grew most. */
static void slab_growth(const struct slabs *a, const struct slabs *b, char *out, size_t size)
{
	long long d[MAX_CACHES];
	size_t len = 0;

	out[0] = 0;
	for (int i = 0; i < b->n; i++) {
		d[i] = b->bytes[i];
		for (int j = 0; j < a->n; j++)
			if (!strcmp(a->name[j], b->name[i]))
				d[i] -= a->bytes[j];
	}
	for (int k = 0; k < 5; k++) {
		int best = -1;

		for (int i = 0; i < b->n; i++)
			if (d[i] > 0 && (best < 0 || d[i] > d[best]))
				best = i;
		if (best < 0)
			break;
		len += snprintf(out + len, size - len, "%s%s:%lld", len ? "," : "",
				b->name[best], d[best] >> 10);
		d[best] = 0;
		if (len >= size)
			break;
	}
}

/* ---- the workloads ------------------------------------------------------- */

struct shared {
	double free_s[MAX_PROCS];	/* usemem: time of the munmap */
	double work_s[MAX_PROCS];	/* time of the timed phase */
	int done[MAX_PROCS];
	int ready[MAX_PROCS];		/* swapoff: data written */
	int go;				/* swapoff: free it and exit */
};

struct job {
	const struct workload *wl;
	int proc;
	size_t npages;
	struct shared *sh;
};

static int worker(const char *cg, void *arg)
{
	struct job *j = arg;
	const struct workload *wl = j->wl;
	size_t ps = page_size(), nw = ps / 8, n = j->npages;
	uint64_t seed = ((uint64_t)round_no << 32) ^ ((uint64_t)j->proc << 24) ^ 0xbe4c;
	uint64_t *buf = map_anon(n);
	int rnd = wl->rnd_pct >= 0 ? wl->rnd_pct : rnd_pct;
	int zero = wl->zero_pct >= 0 ? wl->zero_pct : zero_pct;
	double t0 = mono_now(), t1;

	(void)cg;
	if (!buf)
		return 2;
	for (int p = 0; p < wl->passes; p++)
		for (size_t i = 0; i < n; i++)
			fill(buf + i * nw, i, seed + p, rnd, zero);
	if (wl->kind == K_SWAPOFF) {
		/* The parent times the swapoff while the data is out. */
		__atomic_store_n(&j->sh->ready[j->proc], 1, __ATOMIC_RELEASE);
		while (!__atomic_load_n(&j->sh->go, __ATOMIC_ACQUIRE))
			usleep(10000);
	}
	if (wl->kind == K_RANDOM) {
		uint64_t s = pat_mix64(seed) | 1, sum = 0;
		size_t acc = n * wl->accesses_x;

		for (size_t a = 0; a < acc; a++) {
			uint64_t *w;

			s ^= s << 13;
			s ^= s >> 7;
			s ^= s << 17;
			w = buf + (s % n) * nw;
			sum += w[(s >> 32) % nw];
			w[(s >> 40) % nw] = sum;	/* dirty: it must go out again */
		}
	}
	t1 = mono_now();
	j->sh->work_s[j->proc] = t1 - t0;
	munmap(buf, n * ps);
	j->sh->free_s[j->proc] = mono_now() - t1;
	j->sh->done[j->proc] = 1;
	return 0;
}

/* Every worker has written its data: time swapoff and swapon again. */
static double time_swapoff(const char *cg, struct shared *sh, int procs, char *st, size_t len)
{
	double t, s;

	for (int p = 0; p < procs; p++)
		if (!__atomic_load_n(&sh->ready[p], __ATOMIC_ACQUIRE))
			return -1;
	/* swapoff reads the data back: into the cgroup, so let it. */
	cg_write(cg, "memory.max", "max");
	t = mono_now();
	if (swapoff(swapdev)) {
		snprintf(st, len, "swapoff-failed:%s", strerror(errno));
		s = 0;
	} else {
		s = mono_now() - t;
		if (swapon(swapdev, 0))
			snprintf(st, len, "swapon-failed:%s", strerror(errno));
	}
	__atomic_store_n(&sh->go, 1, __ATOMIC_RELEASE);
	return s;
}

static void run_workload(const struct workload *wl)
{
	unsigned long total = wl->size ? wl->size :
		wl->size_mem ? (unsigned long)(wl->size_mem * scale * meminfo_kb("MemTotal") * 1024) :
		(unsigned long)(wl->size_x * limit);
	size_t npages = total / wl->procs / page_size();
	struct sample before, cur, peak, maxs;
	struct slabs *sl0 = calloc(2, sizeof(*sl0)), *sl1 = sl0 ? sl0 + 1 : NULL;
	int have_slabinfo = sl0 && slabinfo(sl0) == 0;
	struct shared *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct job jobs[MAX_PROCS];
	struct timespec tick = { sample_ms / 1000, (sample_ms % 1000) * 1000000L };
	sigset_t chld, oldmask;
	pid_t pids[MAX_PROCS];
	int status[MAX_PROCS], running = 0, timed_out = 0;
	double user = 0, sys = 0, t0, t1, last_slab = 0, swapoff_s = -1;
	long long oom, zout, zin, majflt;
	char grown[256] = "", st[64] = "ok";
	char *cg;

	kmsg_mark("bench: %s round %d", wl->name, round_no);
	if (wl->kind == K_SWAPOFF && !swapdev) {
		emit("VBENCH wl=%s kind=%s round=%d status=n/a:no-swap-area", wl->name,
		     kind_name[wl->kind], round_no);
		t_skip(wl->name, "no swap area to swapoff");
		return;
	}
	cg = cg_create("bench", wl->memcg ? limit : 0);
	if (!cg || sh == MAP_FAILED) {
		emit("VBENCH wl=%s round=%d status=setup-failed:%s", wl->name, round_no,
		     strerror(errno));
		t_fail(wl->name, "cannot set up the cgroup: %s", strerror(errno));
		return;
	}
	memset(sh, 0, sizeof(*sh));
	sample(cg, &before);
	peak = before;
	maxs = before;

	/*
	 * SIGCHLD stays pending while blocked, so the sampling loop below
	 * wakes as soon as a worker exits, not at its next tick: real time
	 * would otherwise be rounded up to sample_ms (50 ms, 1.5 % of a
	 * 3.5 s workload, by chance in each round).
	 */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &oldmask);
	t0 = mono_now();
	for (int p = 0; p < wl->procs; p++) {
		jobs[p] = (struct job){ .wl = wl, .proc = p, .npages = npages, .sh = sh };
		pids[p] = cg_spawn(cg, worker, &jobs[p]);
		status[p] = -1;
		if (pids[p] > 0)
			running++;
		else
			status[p] = pids[p];
	}
	while (running) {
		for (int p = 0; p < wl->procs; p++) {
			struct rusage ru;
			int ws;
			pid_t r;

			if (status[p] != -1)
				continue;
			r = wait4(pids[p], &ws, WNOHANG, &ru);
			if (r == 0)
				continue;
			if (r < 0) {
				status[p] = 255;
			} else {
				status[p] = WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : WEXITSTATUS(ws);
				user += ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
				sys += ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
			}
			running--;
			/* a swapoff worker died before its data was out: let the rest go */
			if (wl->kind == K_SWAPOFF && !sh->ready[p])
				__atomic_store_n(&sh->go, 1, __ATOMIC_RELEASE);
		}
		if (!running)
			break;
		sample(cg, &cur);
		if (wl->kind == K_SWAPOFF && swapoff_s < 0 && strcmp(st, "ok") == 0) {
			/* at the peak: the sample just taken is what is out */
			if (swapped(&cur) >= swapped(&peak))
				peak = cur;
			swapoff_s = time_swapoff(cg, sh, wl->procs, st, sizeof(st));
		}
		if (swapped(&cur) > swapped(&peak)) {
			peak = cur;
			/* slabinfo is long: at most twice a second */
			if (have_slabinfo && mono_now() - last_slab > 0.5) {
				slabinfo(sl1);
				last_slab = mono_now();
			}
		}
#define MAXF(f) do { if (cur.f > maxs.f) maxs.f = cur.f; } while (0)
		MAXF(pool); MAXF(stored); MAXF(swaps_used); MAXF(vswap_used);
		MAXF(swap_cur); MAXF(zswapped); MAXF(vmeta);
		if (!timed_out && mono_now() - t0 > wtimeout) {
			timed_out = 1;
			cg_write(cg, "cgroup.kill", "1");
		}
		sigtimedwait(&chld, NULL, &tick);
	}
	t1 = mono_now();
	sigprocmask(SIG_SETMASK, &oldmask, NULL);

	oom = cg_oom_kills(cg);
	zout = cg_stat(cg, "zswpout");
	zin = cg_stat(cg, "zswpin");
	majflt = cg_stat(cg, "pgmajfault");
	for (int p = 0; p < wl->procs; p++) {
		if (status[p] == 0 && sh->done[p])
			continue;
		if (timed_out)
			snprintf(st, sizeof(st), "timeout:%ds", wtimeout);
		else if (oom > 0 || status[p] == 128 + SIGKILL)
			snprintf(st, sizeof(st), "oom:%lld-kills", oom);
		else if (status[p] > 128)
			snprintf(st, sizeof(st), "signal:%d", status[p] - 128);
		else
			snprintf(st, sizeof(st), "exit:%d", status[p]);
		break;
	}
	/* An OOM kill that cannot be counted is not "ok". */
	if (!strcmp(st, "ok") && oom < 0)
		snprintf(st, sizeof(st), "error:memory.events-unreadable");
	if (have_slabinfo && peak.slab != before.slab)
		slab_growth(sl0, sl1, grown, sizeof(grown));

	double free_s = 0, work_s = 0;

	for (int p = 0; p < wl->procs; p++) {
		if (sh->free_s[p] > free_s)
			free_s = sh->free_s[p];
		if (sh->work_s[p] > work_s)
			work_s = sh->work_s[p];
	}
	unsigned long long bytes = (unsigned long long)npages * page_size() * wl->procs *
		(wl->passes + (wl->kind == K_RANDOM ? wl->accesses_x : 0));
	emit("VBENCH wl=%s kind=%s round=%d status=%s procs=%d size_mb=%lu limit_mb=%lu "
	     "real_s=%.3f user_s=%.3f sys_s=%.3f work_s=%.3f free_ms=%.1f swapoff_ms=%.1f "
	     "bytes=%llu memcg=%d "
	     "swap_peak_kb=%lld zswapped_peak_kb=%lld pool_peak_kb=%lld stored_peak=%lld "
	     "swaps_used_peak_kb=%lld vswap_used_peak=%lld "
	     "at_peak_swapped_kb=%lld at_peak_pool_kb=%lld "
	     "slab_kb=%lld sunreclaim_kb=%lld vmalloc_kb=%lld pagetables_kb=%lld "
	     "oom_kill=%lld zswpout=%lld zswpin=%lld pgmajfault=%lld slabinfo=%s",
	     wl->name, kind_name[wl->kind], round_no, st, wl->procs,
	     npages * page_size() * wl->procs / MiB, limit / MiB,
	     t1 - t0, user, sys, work_s, free_s * 1e3, swapoff_s * 1e3, bytes, wl->memcg,
	     maxs.swap_cur >> 10, maxs.zswapped >> 10, maxs.pool >> 10, maxs.stored,
	     maxs.swaps_used, maxs.vswap_used,
	     swapped(&peak) >> 10, peak.pool >> 10,
	     peak.slab - before.slab, peak.sunreclaim - before.sunreclaim,
	     peak.vmalloc - before.vmalloc, peak.pagetables - before.pagetables,
	     oom, zout, zin, majflt,
	     have_slabinfo ? (grown[0] ? grown : "none") : "unavailable");
	t_ok(!strcmp(st, "ok"), wl->name, "%s", st);
	cg_destroy(cg);
	free(cg);
	free(sl0);
	munmap(sh, sizeof(*sh));
	/* Let freed swap entries and zswap settle before the next one. */
	for (int i = 0; i < 20 && zswap_stat("stored_pages") > 0; i++)
		usleep(100000);
	/* vswap gives its metadata back a second after clusters empty. */
	if (maxs.vmeta >= 0) {
		long long after = -1, prev;

		for (int i = 0; i < 30; i++) {
			prev = after;
			usleep(200000);
			after = vswap_meta("total");
			if (i >= 7 && after == prev)
				break;
		}
		emit("VBENCH-META wl=%s round=%d before_kb=%lld peak_kb=%lld after_kb=%lld "
		     "vswap_used_peak=%lld", wl->name, round_no, before.vmeta >> 10,
		     maxs.vmeta >> 10, after >> 10, maxs.vswap_used);
	}
}

/* ---- arguments ------------------------------------------------------------ */

static int parse_workload(char *spec)
{
	struct workload *wl = &wls[nwl];
	char *tok, *save;

	if (nwl >= MAX_WL)
		return -1;
	*wl = (struct workload){ .kind = K_SEQ, .size_x = 2, .procs = 1, .passes = 1,
				 .accesses_x = 2, .memcg = 1, .rnd_pct = -1, .zero_pct = -1 };
	tok = strtok_r(spec, "/", &save);
	snprintf(wl->name, sizeof(wl->name), "%s", tok);
	while ((tok = strtok_r(NULL, "/", &save))) {
		char *v = strchr(tok, '=');

		if (!v)
			return -1;
		*v++ = 0;
		if (!strcmp(tok, "kind")) {
			int k;

			for (k = 0; k < K_NR && strcmp(v, kind_name[k]); k++)
				;
			if (k == K_NR)
				return -1;
			wl->kind = k;
		} else if (!strcmp(tok, "size")) {
			size_t l = strlen(v);

			if (v[l - 1] == 'x')
				wl->size_x = atof(v);
			else if (l > 3 && !strcmp(v + l - 3, "mem"))
				wl->size_mem = atof(v);
			else
				wl->size = parse_size(v);
		} else if (!strcmp(tok, "memcg")) {
			wl->memcg = atoi(v);
		} else if (!strcmp(tok, "data")) {
			if (sscanf(v, "%d-%d", &wl->rnd_pct, &wl->zero_pct) != 2)
				return -1;
		} else if (!strcmp(tok, "procs")) {
			wl->procs = atoi(v);
		} else if (!strcmp(tok, "passes")) {
			wl->passes = atoi(v);
		} else if (!strcmp(tok, "accesses")) {
			wl->accesses_x = atof(v);
		} else {
			return -1;
		}
	}
	if (wl->procs < 1 || wl->procs > MAX_PROCS || wl->passes < 1)
		return -1;
	nwl++;
	return 0;
}

static int parse_arg(char *a)
{
	char *v = strchr(a, '=');

	if (strchr(a, '/') && (!v || strchr(a, '/') < v))
		return parse_workload(a);
	if (!v)
		return -1;
	*v++ = 0;
	if (!strcmp(a, "limit"))
		limit = parse_size(v);
	else if (!strcmp(a, "swap"))
		swapdev = strcmp(v, "none") ? strdup(v) : NULL;
	else if (!strcmp(a, "mglru"))
		mglru = atoi(v);
	else if (!strcmp(a, "scale"))
		scale = atof(v);
	else if (!strcmp(a, "data"))
		return sscanf(v, "%d/%d", &rnd_pct, &zero_pct) == 2 ? 0 : -1;
	else if (!strcmp(a, "round"))
		round_no = atoi(v);
	else if (!strcmp(a, "wtimeout"))
		wtimeout = atoi(v);
	else if (!strcmp(a, "sample_ms"))
		sample_ms = atoi(v);
	else
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	struct sample s0, s1;
	struct utsname u;
	long long swap_kb = 0;
	char zon[8] = "?", comp[32] = "?", pool_pct[16] = "?", lru_gen[16] = "none";

	t_init("bench");
	for (int i = 1; i < argc; i++) {
		char arg[512];

		snprintf(arg, sizeof(arg), "%s", argv[i]);
		if (parse_arg(arg))
			t_bail("arguments", "cannot parse '%s'", argv[i]);
	}
	if (!nwl)
		t_bail("arguments", "no workload given");
	read_file("/sys/module/zswap/parameters/enabled", zon, sizeof(zon));
	read_file("/sys/module/zswap/parameters/compressor", comp, sizeof(comp));
	read_file("/sys/module/zswap/parameters/max_pool_percent", pool_pct, sizeof(pool_pct));
	for (char *p = zon; *p; p++)
		if (*p == '\n')
			*p = 0;
	comp[strcspn(comp, "\n")] = 0;
	pool_pct[strcspn(pool_pct, "\n")] = 0;
	uname(&u);

	if (mglru) {
		int r = write_file("/sys/kernel/mm/lru_gen/enabled", "y");

		if (r)
			t_bail("mglru", "/sys/kernel/mm/lru_gen/enabled: %s", strerror(-r));
	}
	read_file("/sys/kernel/mm/lru_gen/enabled", lru_gen, sizeof(lru_gen));
	lru_gen[strcspn(lru_gen, "\n")] = 0;
	if (swapdev && !strcmp(swapdev, "zram")) {
		zram_swap_setup();
		use_zram = 1;
		swapdev = "/dev/zram0";
		snprintf(zon, sizeof(zon), "N");
	}
	sample(NULL, &s0);
	if (swapdev) {
		int r = make_swap(swapdev);

		if (r || swapon(swapdev, 0)) {
			emit("VBENCH-INFO round=%d kernel=%s status=swapon-failed:%s", round_no,
			     u.release, strerror(r ? -r : errno));
			t_bail("swapon", "%s: %s", swapdev, strerror(r ? -r : errno));
		}
		t_pass("swapon");
		swap_kb = 0;
		{
			char buf[4096], name[256], type[64];
			long long size, used;
			char *p;

			if (read_file("/proc/swaps", buf, sizeof(buf)) > 0 && (p = strchr(buf, '\n')) &&
			    sscanf(p + 1, "%255s %63s %lld %lld", name, type, &size, &used) == 4)
				swap_kb = size;
		}
	}
	sample(NULL, &s1);
	emit("VBENCH-INFO round=%d kernel=%s swap=%s swap_kb=%lld vswap=%s zswap=%s "
	     "compressor=%s max_pool_percent=%s limit_mb=%lu data=%d/%d mem_total_kb=%lld "
	     "slabinfo=%s swapon_slab_kb=%lld swapon_vmalloc_kb=%lld lru_gen=%s zram=%d",
	     round_no, u.release, swapdev ? swapdev : "none", swap_kb,
	     path_exists(VSWAP_DIR) ? "on" : "off", zon, comp, pool_pct, limit / MiB,
	     rnd_pct, zero_pct, meminfo_kb("MemTotal"),
	     path_exists("/proc/slabinfo") ? "yes" : "no",
	     s1.slab - s0.slab, s1.vmalloc - s0.vmalloc, lru_gen, use_zram);

	for (int i = 0; i < nwl; i++)
		run_workload(&wls[i]);
	emit("VBENCH-END round=%d", round_no);
	/* A failed workload is a result, not a harness failure. */
	t_done();
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * vswap_growth: the swap space grows with what is swapped out, far past
 * what guest RAM would need, and shrinks back to nothing.
 *
 *   vswap_growth [DEVICE]     regression mode: the swap disk (default /dev/vda)
 *
 * A worker in a 64 MiB cgroup maps (MAP_NORESERVE: see map_big) and
 * writes a working set of PAT_REPEAT pages (one repeated word: about 76
 * bytes each in the zswap pool, so it holds them in little memory), 32 MiB
 * at a time, pushing each chunk out with
 * MADV_PAGEOUT.  The working set is 3x MemTotal in vswap mode (about
 * 1 GiB with 384 MiB) and 3/4 of the swap area in regression mode (a
 * physical slot per page: the area bounds it).  With everything out:
 *  - zswpout counts at least 9/10 of the pages, and the disk got less than
 *    1/10 of them (regression mode): zswap holds the data;
 *  - vswap mode: "used" covers 9/10 of the pages and is more than MemTotal
 *    in pages, and "clusters" is more than MemTotal needs (a cluster is
 *    SWAPFILE_CLUSTER = 512 pages);
 *  - regression mode: the area's Used column covers 9/10 of the pages.
 * Every chunk then reads back byte-exact and is pushed out again, so the
 * worker exits with the working set in zswap.  No OOM kill.  Afterwards
 * vswap "used" and "clusters" are 0 (vswap mode) and zswap's stored_pages
 * is back to its starting value.
 */
#include "lib.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#define SEED 0x5eed0501ULL
#define MAX (64 * MiB)
#define CHUNK (32 * MiB)
#define CLUSTER_PAGES 512	/* SWAPFILE_CLUSTER with THP on x86-64 */

struct work {
	struct swap_env *env;
	size_t npages;
	long long ram_pages;	/* MemTotal */
};

/*
 * map_anon_4k() with MAP_NORESERVE: the heuristic overcommit check
 * (vm.overcommit_memory=0) refuses one mapping larger than RAM plus swap
 * space, and the vswap device adds nothing to the swap space it counts.
 */
static char *map_big(size_t npages)
{
	size_t len = npages * page_size();
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (madvise(p, len, MADV_NOHUGEPAGE)) {
		munmap(p, len);
		return NULL;
	}
	return p;
}

static int worker(const char *cg, void *arg)
{
	struct work *w = arg;
	size_t per = CHUNK / page_size(), ps = page_size(), bad = 0;
	long long rd0 = 0, wr0 = 0, rd1 = 0, wr1 = 0, zout, used, clusters, stored;
	long long ram_clusters = (w->ram_pages + CLUSTER_PAGES - 1) / CLUSTER_PAGES;
	int disk = w->env->mode == SWAP_DISK;
	double t0 = mono_now(), t1, t2;
	char *buf = map_big(w->npages);

	if (!buf)
		return t_fail("map working set", "mmap: %s", strerror(errno)), 1;
	if (disk && blk_sectors(w->env->dev, &rd0, &wr0))
		return t_fail("block statistics", "cannot read stat of %s", w->env->dev), 1;
	for (size_t i = 0; i < w->npages; i += per) {
		size_t n = w->npages - i < per ? w->npages - i : per;

		pat_fill(buf + i * ps, n, SEED + i, PAT_REPEAT);
		pageout(buf + i * ps, n);
	}
	t1 = mono_now();
	zout = cg_stat(cg, "zswpout");
	used = swap_env_used(w->env);
	clusters = vswap_stat("clusters");
	stored = zswap_stat("stored_pages");
	if (disk)
		blk_sectors(w->env->dev, &rd1, &wr1);
	t_diag("%zu MiB written and pushed out in %.1fs: zswpout %lld, zswapped %lld MiB, "
	       "zswap pool %lld KiB (memory.stat zswap), stored_pages %lld, %s used %lld pages, "
	       "vswap clusters %lld (MemTotal needs %lld), %lld KiB written to disk",
	       w->npages * ps / MiB, t1 - t0, zout, cg_stat(cg, "zswapped") / (long long)MiB,
	       cg_stat(cg, "zswap") >> 10, stored, swap_env_name(w->env), used, clusters,
	       ram_clusters, (wr1 - wr0) / 2);
	t_ok(zout >= (long long)w->npages * 9 / 10, "zswap took the pages (zswpout)",
	     "zswpout %lld for %zu pages", zout, w->npages);
	t_ok(used >= (long long)w->npages * 9 / 10, "swap slots cover the pages pushed out",
	     "%s used %lld pages for %zu pages", swap_env_name(w->env), used, w->npages);
	if (disk) {
		t_ok(wr1 >= 0 && wr1 - wr0 < (long long)(w->npages * ps / 512 / 10),
		     "zswap held the data: less than 1/10 of it written to the disk",
		     "%lld KiB written for %zu KiB", (wr1 - wr0) / 2, w->npages * ps >> 10);
	} else {
		t_ok(used > w->ram_pages, "vswap used is more than MemTotal in pages",
		     "used %lld, MemTotal %lld pages", used, w->ram_pages);
		t_ok(clusters > ram_clusters, "vswap clusters grew past what MemTotal needs",
		     "clusters %lld, MemTotal needs %lld", clusters, ram_clusters);
	}

	for (size_t i = 0; i < w->npages; i += per) {
		size_t n = w->npages - i < per ? w->npages - i : per;

		bad += pat_verify(buf + i * ps, n, SEED + i, PAT_REPEAT);
		pageout(buf + i * ps, n);
	}
	t2 = mono_now();
	t_diag("read back and pushed out again in %.1fs: zswpin %lld, zswpout %lld, "
	       "%s used %lld pages, vswap clusters %lld", t2 - t1, cg_stat(cg, "zswpin"),
	       cg_stat(cg, "zswpout"), swap_env_name(w->env), swap_env_used(w->env),
	       vswap_stat("clusters"));
	t_ok(bad == 0, "working set read back byte-exact", "%zu of %zu pages differ",
	     bad, w->npages);
	t_ok(cg_stat(cg, "zswpin") >= (long long)w->npages * 9 / 10,
	     "pages came back from zswap (zswpin)", "zswpin %lld for %zu pages",
	     cg_stat(cg, "zswpin"), w->npages);
	return 0;
}

int main(int argc, char **argv)
{
	struct swap_env env;
	struct work w = { .env = &env };
	long long memtotal, clusters, stored0;
	size_t per = CHUNK / page_size();

	t_init("vswap_growth");
	swap_env_setup(&env, argc, argv);
	memtotal = meminfo_kb("MemTotal");
	if (memtotal <= 0)
		t_bail("read MemTotal", "no MemTotal in /proc/meminfo");
	w.ram_pages = memtotal * 1024 / (long long)page_size();
	if (env.mode == SWAP_VSWAP)
		w.npages = 3 * w.ram_pages;
	else
		w.npages = env.size_kb * 1024 / page_size() * 3 / 4;
	w.npages = (w.npages + per - 1) / per * per;
	t_diag("%s: working set %zu MiB, MemTotal %lld MiB, memory.max %lu MiB",
	       swap_env_name(&env), w.npages * page_size() / MiB, memtotal >> 10, MAX / MiB);
	stored0 = zswap_stat("stored_pages");

	cg_phase(NULL, "vswap_growth", MAX, worker, &w);
	zswap_check_stored_back(NULL, stored0);
	if (env.mode == SWAP_VSWAP) {
		vswap_check_used_back(NULL, 0);
		clusters = vswap_stat("clusters");
		t_ok(clusters == 0, "vswap clusters back to 0", "clusters is %lld", clusters);
	} else {
		t_diag("after the worker exited: %s Used %lld pages", env.dev, swap_env_used(&env));
	}
	swap_env_teardown(&env);
	return t_done();
}

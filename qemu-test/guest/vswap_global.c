// SPDX-License-Identifier: GPL-2.0
/*
 * vswap_global: zswap with no swap device under global memory pressure, no
 * cgroup limit involved (reclaim by kswapd and direct reclaim of the whole
 * machine, as on a kernel without memory cgroups).
 *
 * With vswap=on, zswap enabled and nothing in /proc/swaps, a child of this
 * test writes compressible pages worth 5/4 of MemTotal, so at least a
 * quarter of RAM must leave it, then reads them all back.  It must not be
 * killed (a kernel that cannot reclaim anonymous memory into vswap OOMs
 * here), /proc/vmstat zswpout must rise by at least half of that quarter,
 * vswap "used" must be above 0 while the pages are out, every byte must
 * read back and used must fall to 1/64 of the pages written or below
 * after the child exits (what is left are slots of folios still in the
 * swap cache, freed when reclaim drops them, as on a swap device), plus
 * the shmem pages the pressure swapped out as well: the initramfs's
 * tmpfs root, which stays out until it is read (shmem_out_pages()), and
 * what was in use before (an earlier test's pressure swapped the root
 * out already).
 *
 * Needs no memory cgroup: it is the zswap-only check of the nomemcg
 * kernel.
 */
#include "lib.h"

#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define SEED	0x5eed1001ULL

struct result {
	long long zout, used;
	size_t bad;
};

static int child(size_t npages, int fd)
{
	struct result r = { 0 };
	long long zout0 = vmstat("zswpout");
	char *buf = map_anon_4k(npages);

	if (!buf)
		return 1;
	pat_fill(buf, npages, SEED, PAT_COMPRESSIBLE);
	r.zout = vmstat("zswpout") - zout0;
	r.used = vswap_stat("used");
	r.bad = pat_verify(buf, npages, SEED, PAT_COMPRESSIBLE);
	return write(fd, &r, sizeof(r)) == sizeof(r) ? 0 : 1;
}

int main(void)
{
	long long total = meminfo_kb("MemTotal");
	size_t npages = (size_t)total * 1024 / 4 * 5 / page_size();
	long long want = (long long)(npages / 5 / 2);
	struct result r = { .used = -1, .bad = (size_t)-1 };
	long long shmem0 = meminfo_kb("Shmem"), used0 = vswap_stat("used"), shm, limit;
	double t0 = mono_now();
	int fds[2], st;
	pid_t pid;

	t_init("vswap_global");
	if (!path_exists(VSWAP_DIR))
		t_bail("vswap device present", "%s missing (vswap=on?)", VSWAP_DIR);
	t_ok(swaps_count() == 0, "no swap area in /proc/swaps", "%d listed", swaps_count());
	zswap_check_enabled(1);
	if (total <= 0 || pipe(fds))
		t_bail("set up", "MemTotal %lld, pipe: %s", total, strerror(errno));

	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		_exit(child(npages, fds[1]));
	}
	close(fds[1]);
	if (pid < 0 || read(fds[0], &r, sizeof(r)) != sizeof(r))
		r.used = -1;
	st = pid < 0 ? -errno : cg_wait(pid);
	t_diag("%zu MiB written and read back in %.1fs (MemTotal %lld MiB): zswpout +%lld, "
	       "vswap used %lld", npages * page_size() / MiB, mono_now() - t0, total >> 10,
	       r.zout, r.used);
	t_ok(st == 0, "the writer completed (no OOM kill)", "%s", status_str(st));
	t_ok(r.zout >= want, "pages left RAM through zswap (vmstat zswpout)",
	     "zswpout +%lld, want %lld", r.zout, want);
	t_ok(r.used > 0, "vswap used > 0 while the pages were out", "used %lld", r.used);
	t_ok(r.bad == 0, "every byte read back", "%zu of %zu pages differ", r.bad, npages);
	/*
	 * Slots whose folios were still in the swap cache when the writer
	 * exited are only freed when reclaim drops those folios, as on a
	 * swap device; no reclaim follows here.  The rest must be free.
	 */
	shm = shmem_out_pages(shmem0);
	limit = used0 + (long long)npages / 64 + (shm > 0 ? shm : 0);
	r.used = vswap_wait_used(limit, 5000);
	t_ok(r.used >= 0 && used0 >= 0 && shm >= 0 && r.used <= limit,
	     "after the writer exited: vswap used back to at most 1/64 of the pages",
	     "used is %lld after 5 s, at most %lld before + %zu + %lld shmem pages out",
	     r.used, used0, npages / 64, shm);
	return t_done();
}

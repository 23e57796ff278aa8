// SPDX-License-Identifier: GPL-2.0
/*
 * vswap_meta: vswap's metadata is given back when its clusters empty.
 *
 *   vswap_meta                zswap with no swap device (vswap=on)
 *
 * Reads VSWAP_DIR/metadata (bytes mapped behind each array) and "device"
 * (mapped_pages: si->max).  640 MiB of PAT_REPEAT pages are written and
 * pushed out 32 MiB at a time (MADV_PAGEOUT: zswap holds them in a few
 * MiB).  At the peak the virtual table maps a page per cluster in use.
 * Then the pages whose slots are in odd-numbered clusters (their swap
 * offsets, from /proc/self/pagemap) are dropped with MADV_DONTNEED: once
 * the delayed shrink has run, the virtual table maps exactly one page per
 * cluster still in use.  Then the pages of every other group of four
 * clusters (which share a page of swap cgroup ids) go too: the swap
 * cgroup ids map no more pages than the groups still in use need.  The
 * rest reads back byte-exact, the dropped pages as zero.  Then everything
 * is unmapped: "used" back to where it started, every array back to at
 * most one page (but the swap cache address spaces, which stay at their
 * peak by design), and si->max back to at most two clusters.
 */
#include "lib.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SEED		0x5eed1701ULL
#define TOTAL		(640 * MiB)
#define CHUNK		(32 * MiB)
#define CLUSTER_PAGES	512	/* SWAPFILE_CLUSTER with THP on x86-64 */
#define META		VSWAP_DIR "/metadata"

static const char *const arrays[] = {
	"swap_map", "cluster_info", "zeromap", "address_spaces", "vtable",
	"swap_cgroup",
};
#define NR_ARRAYS (sizeof(arrays) / sizeof(arrays[0]))

static long long mapped_pages(void)
{
	long long v;

	return read_key(VSWAP_DIR "/device", "mapped_pages", &v) ? -1 : v;
}

static void show(const char *when)
{
	char line[512];
	int n = 0;

	for (size_t i = 0; i < NR_ARRAYS; i++)
		n += snprintf(line + n, sizeof(line) - n, " %s %lld KiB,", arrays[i],
			      vswap_meta(arrays[i]) >> 10);
	t_diag("%s: used %lld, clusters %lld, mapped_pages %lld;%s total %lld KiB", when,
	       vswap_stat("used"), vswap_stat("clusters"), mapped_pages(), line,
	       vswap_meta("total") >> 10);
}

/* The swap offset of each page of buf (pagemap), -1 for one not swapped out. */
static int swap_offsets(const char *buf, size_t npages, long long *off)
{
	size_t ps = page_size(), done = 0;
	uint64_t e[512];
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		return -errno;
	while (done < npages) {
		size_t n = npages - done < 512 ? npages - done : 512;
		off_t pos = (off_t)((uintptr_t)buf / ps + done) * 8;

		if (pread(fd, e, n * 8, pos) != (ssize_t)(n * 8)) {
			close(fd);
			return -EIO;
		}
		for (size_t i = 0; i < n; i++)
			/* bit 62: swapped; bits 5-54: the swap offset */
			off[done + i] = (e[i] >> 62 & 1) ? (long long)(e[i] >> 5 & ((1ULL << 50) - 1)) : -1;
		done += n;
	}
	close(fd);
	return 0;
}

/* Is a page whose slot is at @off dropped at @stage (1: odd clusters, 2: also every other four)? */
static int dropped(long long off, int stage)
{
	long long c = off / CLUSTER_PAGES;

	return off >= 0 && (c % 2 || (stage == 2 && c / 4 % 2));
}

static void drop(char *buf, size_t npages, const long long *off, int stage)
{
	for (size_t i = 0; i < npages; i++)
		if (dropped(off[i], stage))
			madvise(buf + i * page_size(), page_size(), MADV_DONTNEED);
}

/* Distinct groups of @per clusters that hold a page kept after stage 2. */
static long long count_kept(const long long *off, size_t npages, int per)
{
	long long n = 0, max = 0;
	char *seen;

	for (size_t i = 0; i < npages; i++)
		max = off[i] > max ? off[i] : max;
	seen = calloc(max / CLUSTER_PAGES / per + 1, 1);
	if (!seen)
		return -1;
	for (size_t i = 0; i < npages; i++) {
		long long g = off[i] / CLUSTER_PAGES / per;

		if (off[i] < 0 || dropped(off[i], 2) || seen[g])
			continue;
		seen[g] = 1;
		n++;
	}
	free(seen);
	return n;
}

/* The shrink runs a second after a cluster is freed: wait for vtable == clusters. */
static long long vt_excess(void *arg)
{
	long long vt = vswap_meta("vtable"), clusters = vswap_stat("clusters");

	(void)arg;
	if (vt < 0 || clusters < 0)
		return -1;
	return vt / (long long)page_size() - clusters;
}

/*
 * Pages mapped beyond one per array, once everything is freed.  The swap
 * cache address spaces (about 200 bytes per 64 MiB, more with lockdep)
 * stay at their peak by design.
 */
static long long over_one_page(void *arg)
{
	long long over = 0, v;

	(void)arg;
	for (size_t i = 0; i < NR_ARRAYS; i++) {
		if (!strcmp(arrays[i], "address_spaces"))
			continue;
		v = vswap_meta(arrays[i]);
		if (v < 0)
			return -1;
		if (v > (long long)page_size())
			over += v / (long long)page_size() - 1;
	}
	return over;
}

int main(void)
{
	size_t ps = page_size(), npages = TOTAL / ps, per = CHUNK / ps;
	size_t bad = 0, kept = 0, not_out = 0;
	long long *off;
	long long used0, clusters_peak, vt_peak, cg_peak, clusters_half, left;
	long long kept_clusters, kept_groups, cgp;
	char *cg, *buf;

	t_init("vswap_meta");
	if (!path_exists(VSWAP_DIR "/device"))
		t_bail("vswap device", "%s/device missing: needs vswap=on", VSWAP_DIR);
	/* Without it (a series that never gives metadata back) its checks fail. */
	t_ok(path_exists(META), "vswap reports its mapped metadata", "%s missing", META);
	cg = cg_enter_new("vswap_meta");
	used0 = vswap_stat("used");
	show("start");

	buf = mmap(NULL, TOTAL, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (buf == MAP_FAILED || madvise(buf, TOTAL, MADV_NOHUGEPAGE))
		t_bail("map 640 MiB", "%s", strerror(errno));
	for (size_t i = 0; i < npages; i += per) {
		pat_fill_from(buf, i, per, SEED, PAT_REPEAT);
		pageout(buf + i * ps, per);
	}
	show("640 MiB pushed out");
	clusters_peak = vswap_stat("clusters");
	vt_peak = vswap_meta("vtable");
	cg_peak = vswap_meta("swap_cgroup");
	t_ok(vswap_stat("used") - used0 >= (long long)npages * 9 / 10,
	     "vswap slots hold the 640 MiB pushed out", "used %lld (started at %lld) for %zu pages",
	     vswap_stat("used"), used0, npages);
	t_ok(vt_peak >= clusters_peak * (long long)ps,
	     "the virtual table maps a page per cluster in use",
	     "vtable %lld bytes, %lld clusters", vt_peak, clusters_peak);
	t_ok(mapped_pages() >= (long long)npages, "si->max grew over the slots in use",
	     "mapped_pages %lld for %zu pages", mapped_pages(), npages);

	/* Stage 1: drop the pages whose slots are in odd clusters. */
	off = calloc(npages, sizeof(*off));
	if (!off || swap_offsets(buf, npages, off))
		t_bail("read /proc/self/pagemap", "cannot read the swap offsets");
	for (size_t i = 0; i < npages; i++)
		not_out += off[i] < 0;
	t_ok(not_out <= npages / 100, "pagemap shows the pages swapped out",
	     "%zu of %zu pages not swapped out", not_out, npages);
	drop(buf, npages, off, 1);
	left = poll_value(vt_excess, NULL, UNTIL_EQ, 0, 15000);
	show("odd clusters dropped");
	clusters_half = vswap_stat("clusters");
	t_ok(clusters_half <= clusters_peak * 6 / 10,
	     "dropping the odd clusters' pages freed about half of the clusters",
	     "%lld clusters in use of %lld at the peak", clusters_half, clusters_peak);
	t_ok(left == 0, "the virtual table maps exactly one page per cluster in use",
	     "%lld pages more than the %lld clusters in use", left, clusters_half);

	/*
	 * Stage 2: also drop every other group of four clusters, which share
	 * a page of swap cgroup ids (2 bytes a slot).
	 */
	drop(buf, npages, off, 2);
	left = poll_value(vt_excess, NULL, UNTIL_EQ, 0, 15000);
	show("every other group of four clusters dropped");
	kept_clusters = count_kept(off, npages, 1);
	kept_groups = count_kept(off, npages, 4);
	cgp = vswap_meta("swap_cgroup") / (long long)ps;
	t_ok(left == 0, "the virtual table still maps one page per cluster in use",
	     "%lld pages more than the %lld clusters in use", left, vswap_stat("clusters"));
	t_ok(cgp >= kept_groups &&
	     cgp <= kept_groups + vswap_stat("clusters") - kept_clusters &&
	     cgp < cg_peak / (long long)ps,
	     "the swap cgroup ids of empty groups of clusters are given back",
	     "%lld pages (peak %lld) for %lld groups holding our %lld clusters, %lld clusters in use",
	     cgp, cg_peak / (long long)ps, kept_groups, kept_clusters, vswap_stat("clusters"));

	for (size_t i = 0; i < npages; i++) {
		if (dropped(off[i], 2)) {
			bad += !page_is_zero(buf + i * ps);
			continue;
		}
		bad += pat_verify_from(buf, i, 1, SEED, PAT_REPEAT);
		kept++;
	}
	t_ok(bad == 0, "the pages kept read back byte-exact, the dropped ones as zero",
	     "%zu of %zu pages differ", bad, npages);
	t_diag("%zu pages kept", kept);

	munmap(buf, TOTAL);
	free(off);
	t_ok(vswap_wait_used(used0, 10000) <= used0, "vswap used back to where it started",
	     "used %lld, started at %lld", vswap_stat("used"), used0);
	left = poll_value(over_one_page, NULL, UNTIL_EQ, 0, 15000);
	show("all unmapped");
	t_ok(left == 0, "every metadata array but the address spaces back to at most one page",
	     "%lld pages more than one per array", left);
	t_ok(mapped_pages() >= 0 && mapped_pages() <= 2 * CLUSTER_PAGES,
	     "si->max back to at most two clusters", "mapped_pages %lld", mapped_pages());
	cg_leave(cg);
	return t_done();
}

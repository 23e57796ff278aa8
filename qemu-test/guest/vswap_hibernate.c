// SPDX-License-Identifier: GPL-2.0
/*
 * vswap_hibernate: a hibernation image written to a nearly full swap area
 * does not take the slots of pages that are in memory, clean and still
 * backed by those slots; after resume every page reads back byte-exact,
 * even once reclaim dropped it in favour of its slot, and so do pages that
 * were in zswap across the hibernation.
 *
 *   vswap_hibernate [DEVICE]   the swap area and resume device (default
 *                              /dev/vda); vswap=on or off, hibernate=nocompress
 *
 * On one CPU, so that slots are handed out in order: with the area's slots
 * S, P (S/4 pages) and Q (3 S/4 pages) of random data (zswap rejects it)
 * are pushed out interleaved, page P[i] then Q[3i..3i+2], until the area
 * is full.  Q is discarded: every cluster keeps a quarter of its slots,
 * those of P, and no cluster is free.  P is read back: its pages are
 * mapped, clean, in the swap cache and still backed by their slots (the
 * area is 25 % used, so swapin keeps them).  Z (S/32 pages, compressible)
 * is then pushed out to zswap.
 *
 * With /sys/power/disk = test_resume, hibernation writes the image (of
 * more pages than P has: reported from "Saving image data pages") and at
 * once reads it back and restores it.  While the image is written the
 * area passes 50 % use, and the allocator reclaims slots held only by the
 * swap cache: it must not free P's, as 6.12 does not
 * (folio_swapcache_freeable() and pm_suspended_storage()), because the
 * image written there is not the data the restored system expects there.
 * After resume, P is pushed out (clean pages are dropped, not written)
 * and read back: byte-exact; Z reads back from zswap byte-exact.
 *
 * The image is written and restored in one boot (test_resume) rather
 * than across two QEMU runs: the restored kernel is the same one, and the
 * slots at stake are the same.
 */
#define _GNU_SOURCE
#include "lib.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/swap.h>
#include <unistd.h>

#define SEED_P	0x5eed0b01ULL
#define SEED_Q	0x5eed0b02ULL
#define SEED_Z	0x5eed0b03ULL

/* "MAJ:MIN" of block device @dev, from sysfs. */
static int dev_majmin(const char *dev, char *buf, size_t size)
{
	const char *name = strrchr(dev, '/');
	char path[128];
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/class/block/%s/dev", name ? name + 1 : dev);
	n = read_file(path, buf, size);
	if (n <= 0)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int setup_hibernation(const char *dev)
{
	char majmin[32], val[32];

	if (!path_exists("/sys/power/disk"))
		return t_fail("hibernation configured", "no /sys/power/disk"), 0;
	if (dev_majmin(dev, majmin, sizeof(majmin)))
		return t_fail("resume device", "no sysfs dev of %s", dev), 0;
	snprintf(val, sizeof(val), "%lld", meminfo_kb("MemTotal") * 1024);
	if (write_file("/sys/power/resume", majmin) ||
	    write_file("/sys/power/image_size", val) ||
	    write_file("/sys/power/disk", "test_resume"))
		return t_fail("hibernation set up", "resume %s, image_size %s, disk "
			      "test_resume: %s", majmin, val, strerror(errno)), 0;
	t_pass("hibernation set up: resume from the area, test_resume");
	return 1;
}

int main(int argc, char **argv)
{
	const char *dev = argc > 1 ? argv[1] : "/dev/vda";
	size_t ps = page_size(), np, nz, i, bad;
	long long used, out0, out1, zs0, npages = -1;
	char *p, *q, *z, rec[256];
	const char *s;
	cpu_set_t cpus;
	int r;

	t_init("vswap_hibernate");
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus))
		t_bail("pin to CPU 0", "%s", strerror(errno));
	if (!swap_area_check_on(NULL, dev, -1) || !setup_hibernation(dev))
		return t_done();
	np = (size_t)(swaps_size_kb(dev) / (long long)(ps >> 10)) / 4;
	nz = np / 8;
	p = map_anon_4k(np);
	q = map_anon_4k(3 * np);
	z = map_anon_4k(nz);
	if (!p || !q || !z)
		t_bail("map", "mmap: %s", strerror(errno));

	for (i = 0; i < np; i++) {
		pat_fill_from(p, i, 1, SEED_P, PAT_RANDOM);
		pageout(p + i * ps, 1);
		pat_fill_from(q, 3 * i, 3, SEED_Q, PAT_RANDOM);
		pageout(q + 3 * i * ps, 3);
	}
	used = swaps_used_pages(dev);
	t_ok(used >= (long long)(4 * np - np / 16), "the area is full, P and Q interleaved",
	     "Used %lld pages, %zu in P and Q", used, 4 * np);
	madvise(q, 3 * np * ps, MADV_DONTNEED);
	bad = pat_verify(p, np, SEED_P, PAT_RANDOM);
	t_ok(bad == 0, "P reads back before hibernation", "%zu of %zu pages differ", bad, np);
	pat_fill_from(z, 0, nz, SEED_Z, PAT_COMPRESSIBLE);
	zs0 = vmstat("zswpout");
	pageout(z, nz);
	t_ok(vmstat("zswpout") - zs0 >= (long long)nz, "Z is in zswap",
	     "zswpout +%lld for %zu pages", vmstat("zswpout") - zs0, nz);
	/* With vswap=off, Z's zswap entries hold slots of the area too. */
	used = swaps_used_pages(dev);
	t_ok(used >= (long long)(np - np / 16) &&
	     used <= (long long)(np + nz + np / 16),
	     "P's slots stay allocated with the swap cache, Q's are free",
	     "Used %lld pages, P has %zu, Z %zu", used, np, nz);

	kmsg_mark("vtest: vswap_hibernate: hibernating");
	errno = 0;
	r = write_file("/sys/power/state", "disk");
	t_ok(r == 0, "hibernation image written, read back and restored (test_resume)",
	     "echo disk > /sys/power/state: %s", strerror(-r));
	/* The log as snapshotted: what was printed while saving is gone. */
	if (kmsg_find("hibernation: Need to copy ", rec, sizeof(rec)) &&
	    (s = strstr(rec, "copy ")))
		npages = atoll(s + 5);
	t_ok(npages > (long long)np, "the image outgrows P: the area passes 50 % use",
	     "image %lld pages, P %zu pages", npages, np);

	out0 = vmstat("pswpout");
	pageout(p, np);
	out1 = vmstat("pswpout");
	t_diag("after resume: P pushed out again, pswpout +%lld for %zu pages, Used %lld",
	       out1 - out0, np, swaps_used_pages(dev));
	bad = pat_verify(p, np, SEED_P, PAT_RANDOM);
	t_ok(bad == 0, "every page of P reads back byte-exact after resume and reclaim",
	     "%zu of %zu pages differ", bad, np);
	bad = pat_verify(z, nz, SEED_Z, PAT_COMPRESSIBLE);
	t_ok(bad == 0, "every page of Z reads back byte-exact from zswap after resume",
	     "%zu of %zu pages differ", bad, nz);
	swap_area_check_off(NULL, dev);
	return t_done();
}

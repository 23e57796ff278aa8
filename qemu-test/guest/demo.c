// SPDX-License-Identifier: GPL-2.0
/*
 * demo: what a user sees of vswap on a booted kernel (make demo).  Shows the
 * kernel's vswap messages, /proc/swaps, the debugfs files and what swapon and
 * swapoff of the device answer, then swaps 128 MiB of anonymous memory out
 * of a 32 MiB cgroup into zswap with no swap area configured and reads it
 * back.  It checks each step as it goes, so a demo that shows something
 * broken also says so.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/swap.h>
#include <unistd.h>

#include "lib.h"

#define DEVICE VSWAP_DIR "/device"

static void show_file(const char *path)
{
	char buf[4096], *line, *save;

	if (read_file(path, buf, sizeof(buf)) < 0) {
		t_diag("  %s: (cannot read: %s)", path, strerror(errno));
		return;
	}
	t_diag("  %s:", path);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		t_diag("      %s", line);
}

static int show_kernel_lines(void)
{
	static char log[1 << 20];
	char *line, *save;
	int n, found = 0;

	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, sizeof(log) - 1);
	if (n < 0)
		return 0;
	log[n] = '\0';
	t_diag("kernel messages about vswap:");
	for (line = strtok_r(log, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		/* The command line and build host also say vswap. */
		if (strstr(line, "vswap") && !strstr(line, "ommand line") &&
		    !strstr(line, "Linux version")) {
			t_diag("  %s", line);
			found += !!strstr(line, "virtual swap device ready");
		}
	}
	return found;
}

#define DEMO_SEED 0xdeb0ULL
#define DEMO_MAX (32 * MiB)
#define DEMO_SIZE (128 * MiB)

static long long dbg(const char *file)
{
	return get_file_ll((void *)file);
}

static int demo_worker(const char *cg, void *arg)
{
	size_t npages = DEMO_SIZE / page_size(), bad;
	long long swcur, stored;
	void *buf = map_anon(npages);

	(void)arg;
	if (!buf)
		return t_fail("map 128 MiB", "%s", strerror(errno)), 1;
	t_diag("writing 128 MiB of compressible pages in a cgroup with memory.max = 32 MiB");
	pat_fill(buf, npages, DEMO_SEED, PAT_COMPRESSIBLE);
	pageout(buf, npages);
	stored = dbg(DEBUGFS "/zswap/stored_pages");
	swcur = cg_ll(cg, "memory.swap.current");
	t_diag("while the pages are out:");
	t_diag("  /proc/swaps areas:             %d", swaps_count());
	t_diag("  vswap used (slots):            %lld", dbg(VSWAP_DIR "/used"));
	t_diag("  vswap clusters:                %lld", dbg(VSWAP_DIR "/clusters"));
	t_diag("  zswap stored_pages:            %lld", stored);
	t_diag("  zswap pool_total_size (KiB):   %lld", dbg(DEBUGFS "/zswap/pool_total_size") >> 10);
	t_diag("  memory.stat zswpout:           %lld", cg_stat(cg, "zswpout"));
	t_diag("  memory.stat anon (KiB):        %lld", cg_stat(cg, "anon") >> 10);
	t_diag("  memory.swap.current (KiB):     %lld", swcur >> 10);
	t_ok(stored > 0 && dbg(VSWAP_DIR "/used") > 0,
	     "pages swapped into zswap through vswap, no swap area",
	     "stored_pages %lld, used %lld", stored, dbg(VSWAP_DIR "/used"));
	bad = pat_verify(buf, npages, DEMO_SEED, PAT_COMPRESSIBLE);
	t_diag("read back: %zu of %zu pages differ; memory.stat zswpin %lld",
	       bad, npages, cg_stat(cg, "zswpin"));
	t_ok(bad == 0, "every byte read back", "%zu pages differ", bad);
	return 0;
}

static void demo_swap(void)
{
	long long used;

	cg_phase("the demo process", "demo", DEMO_MAX, demo_worker, NULL);
	used = vswap_wait_used(0, 5000);
	t_diag("after the process exited: vswap used %lld, zswap stored_pages %lld",
	       used, dbg(DEBUGFS "/zswap/stored_pages"));
	t_ok(used == 0, "every vswap slot freed at exit", "used %lld", used);
}

int main(void)
{
	long long used, clusters;
	int err;

	t_init("demo");
	t_ok(show_kernel_lines() == 1, "dmesg announces the virtual swap device",
	     "no 'virtual swap device ready' line");

	t_diag("/proc/swaps (vswap is never listed; no swap area is configured):");
	show_file("/proc/swaps");
	t_ok(swaps_count() == 0, "/proc/swaps lists no area", "%d areas listed", swaps_count());

	t_diag("debugfs:");
	show_file(DEVICE);
	show_file(VSWAP_DIR "/used");
	show_file(VSWAP_DIR "/clusters");
	t_ok(!read_ll(VSWAP_DIR "/used", &used) && !read_ll(VSWAP_DIR "/clusters", &clusters),
	     "debugfs counters readable", "cannot read %s", VSWAP_DIR);

	err = swapon(DEVICE, 0) ? errno : 0;
	t_diag("swapon(%s) -> %s", DEVICE, err ? strerror(err) : "succeeded");
	t_ok(err == EBUSY, "swapon of the device is refused with EBUSY", "got %s", strerror(err));
	err = swapoff(DEVICE) ? errno : 0;
	t_diag("swapoff(%s) -> %s", DEVICE, err ? strerror(err) : "succeeded");
	t_ok(err == EPERM, "swapoff of the device is refused with EPERM", "got %s", strerror(err));

	demo_swap();
	return t_done();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * demo: what a user sees of vswap on a booted kernel (make demo).  Shows the
 * kernel's vswap messages, /proc/swaps, the debugfs files and what swapon and
 * swapoff of the device answer, and checks each as it goes, so a demo that
 * shows something broken also says so.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/swap.h>

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
	return t_done();
}

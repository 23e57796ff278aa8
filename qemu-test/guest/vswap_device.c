// SPDX-License-Identifier: GPL-2.0
/*
 * vswap_device: the vswap device is there exactly when asked for, and is
 * never a swap area users manage.
 *
 *   vswap_device series     patched kernel: the state comes from vswap= on
 *                           /proc/cmdline (absent: off, the Kconfig default;
 *                           anything but on/off: "vswap: invalid" and off)
 *   vswap_device baseline   unpatched kernel: no vswap anywhere
 *
 * On:  /sys/kernel/debug/vswap/{device,used,clusters} exist, dmesg has
 *      "vswap: virtual swap device ready", used reads 0 at idle,
 *      swapon(device) fails with EBUSY and swapoff(device) with EPERM.
 * Off: no /sys/kernel/debug/vswap, no "ready" line.
 * Always: /proc/swaps lists no vswap entry and, since nothing has been
 *      swapon'ed before this test runs, nothing at all.
 */
#include "lib.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/swap.h>
#include <unistd.h>

#define DEVICE VSWAP_DIR "/device"
#define READY "vswap: virtual swap device ready"

static void check_swaps(void)
{
	t_ok(!swaps_contains("vswap"), "/proc/swaps lists no vswap entry",
	     "/proc/swaps mentions vswap");
	t_ok(swaps_count() == 0, "/proc/swaps has only its header",
	     "%d swap areas listed", swaps_count());
}

static void check_on(void)
{
	static const char *const files[] = { "device", "used", "clusters" };
	char path[128], line[512];
	long long used, val;
	int r;

	t_ok(path_exists(VSWAP_DIR), "debugfs vswap/ exists", "%s missing", VSWAP_DIR);
	for (unsigned int i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", VSWAP_DIR, files[i]);
		t_ok(path_exists(path), files[i], "%s missing", path);
	}
	if (kmsg_find(READY, line, sizeof(line)))
		t_diag("%s", line);
	t_ok(kmsg_count(READY, 1) > 0, "dmesg: " READY, "no such line in the kernel log");
	t_ok(kmsg_count("vswap: invalid", 0) == 0, "dmesg: no 'vswap: invalid'",
	     "vswap=on reported as invalid");

	used = vswap_wait_used(0, 5000);
	if (used < 0)
		t_fail("used reads 0 at idle", "cannot read %s/used", VSWAP_DIR);
	else
		t_ok(used == 0, "used reads 0 at idle", "used is %lld", used);
	r = read_ll(VSWAP_DIR "/clusters", &val);
	if (r)
		t_fail("clusters reads an integer", "read: %s", strerror(-r));
	else
		t_diag("clusters: %lld", val), t_pass("clusters reads an integer");

	errno = 0;
	r = swapon(DEVICE, 0);
	t_ok(r < 0 && errno == EBUSY, "swapon(device) fails with EBUSY",
	     "swapon returned %d, errno %d (%s)", r, errno, strerror(errno));
	if (r == 0)
		swapoff(DEVICE);
	errno = 0;
	r = swapoff(DEVICE);
	t_ok(r < 0 && errno == EPERM, "swapoff(device) fails with EPERM",
	     "swapoff returned %d, errno %d (%s)", r, errno, strerror(errno));
	t_ok(path_exists(DEVICE), "device still there after swapon/swapoff attempts",
	     "%s vanished", DEVICE);
}

static void check_off(int invalid, const char *val)
{
	char line[512];

	t_ok(!path_exists(VSWAP_DIR), "debugfs vswap/ absent", "%s exists", VSWAP_DIR);
	t_ok(kmsg_count(READY, 1) == 0, "dmesg: no 'device ready' line",
	     "found '" READY "'");
	if (invalid) {
		if (kmsg_find("vswap: invalid", line, sizeof(line)))
			t_diag("%s", line);
		t_ok(kmsg_count("vswap: invalid", 0) > 0, "dmesg: 'vswap: invalid' for vswap=",
		     "no 'vswap: invalid' line for vswap=%s", val);
	} else {
		t_ok(kmsg_count("vswap: invalid", 0) == 0, "dmesg: no 'vswap: invalid'",
		     "found a 'vswap: invalid' line");
	}
}

int main(int argc, char **argv)
{
	const char *kernel = argc > 1 ? argv[1] : "";
	char val[64] = "";
	int have = cmdline_get("vswap", val, sizeof(val));

	t_init("vswap_device");
	if (strcmp(kernel, "series") && strcmp(kernel, "baseline"))
		t_bail("usage", "vswap_device series|baseline (got '%s')", kernel);
	if (!is_mounted(DEBUGFS, "debugfs"))
		t_bail("debugfs mounted", "cannot tell whether %s exists", VSWAP_DIR);

	if (!strcmp(kernel, "baseline")) {
		t_diag("unpatched kernel%s%s: expecting no vswap", have ? ", vswap=" : "", val);
		t_ok(!path_exists(VSWAP_DIR), "debugfs vswap/ absent", "%s exists", VSWAP_DIR);
		t_ok(kmsg_count("vswap:", 1) == 0, "dmesg: no vswap lines",
		     "the unpatched kernel printed 'vswap:' lines");
	} else if (have && !strcmp(val, "on")) {
		t_diag("vswap=on: expecting the device");
		check_on();
	} else {
		int invalid = have && strcmp(val, "off");

		t_diag("%s: expecting no device", !have ? "no vswap= (default off)" :
		       invalid ? "invalid vswap= (default off)" : "vswap=off");
		check_off(invalid, val);
	}
	check_swaps();
	return t_done();
}

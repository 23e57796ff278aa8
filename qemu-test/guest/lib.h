/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helper library for the in-guest vswap tests (qemu-test/guest/).
 *
 * Every test is one static C program making one claim, built from its own
 * NAME.c and every .c file of lib/ (initramfs.sh).  The library, one header per
 * concern, all included here:
 *
 *	lib/tap.h	TAP results (t_ok, t_fail, t_skip, t_diag, t_done)
 *	lib/sysfs.h	files, /proc/vmstat, /proc/meminfo, /proc/cmdline,
 *			/proc/PID/status, block device statistics, the clock,
 *			poll_value() (a counter until a value or a timeout)
 *	lib/cgroup.h	test cgroups: create, run a worker in one (cg_run,
 *			cg_phase, workers with a ready handshake), the
 *			"worker completed" and "no OOM kill" checks
 *	lib/pattern.h	patterned pages with per-page checksums, byte-exact
 *			verify, the mappings, MADV_PAGEOUT
 *	lib/swap.h	/proc/swaps, making swap areas, vswap and zswap
 *			debugfs counters, the modes of the zswap tests
 *			(swap_env_setup)
 *	lib/kmsg.h	/dev/kmsg scanning, the splat list, the expected-OOM
 *			bracket
 *	lib/kst.h	running a kernel selftest and merging its results
 */
#ifndef VTEST_LIB_H
#define VTEST_LIB_H

#include "lib/defs.h"
#include "lib/tap.h"
#include "lib/sysfs.h"
#include "lib/cgroup.h"
#include "lib/pattern.h"
#include "lib/swap.h"
#include "lib/kmsg.h"
#include "lib/kst.h"

#endif

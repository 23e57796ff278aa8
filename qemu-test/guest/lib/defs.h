/* SPDX-License-Identifier: GPL-2.0 */
/* Paths and sizes every part of the guest test library uses. */
#ifndef VTEST_DEFS_H
#define VTEST_DEFS_H

#define CGROOT		"/sys/fs/cgroup"
#define DEBUGFS		"/sys/kernel/debug"
#define VSWAP_DIR	DEBUGFS "/vswap"
#define ZSWAP_DIR	DEBUGFS "/zswap"
#define ZSWAP_PARAM	"/sys/module/zswap/parameters"
#define MiB		(1024UL * 1024UL)

#ifndef __printf
#define __printf(a, b) __attribute__((format(printf, a, b)))
#endif

#endif

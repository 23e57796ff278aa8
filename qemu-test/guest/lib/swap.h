/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Swap areas (/proc/swaps, making and swapon'ing one), the vswap and zswap
 * debugfs counters, and the modes of the zswap tests (struct swap_env).
 */
#ifndef VTEST_SWAP_H
#define VTEST_SWAP_H

#include "defs.h"

/* ---- swap areas ------------------------------------------------------------ */

/* Number of swap areas listed in /proc/swaps (lines after the header), -1 unreadable. */
int swaps_count(void);
/* Used column (KiB) of the /proc/swaps entry for name, -1 if not listed. */
long long swaps_used_kb(const char *name);
/* Size column (KiB) of the entry for name, -1 if not listed. */
long long swaps_size_kb(const char *name);
/* Used column in pages, -1 if not listed. */
long long swaps_used_pages(const char *name);
/* Priority column of the entry for name: 0, or -ENOENT if not listed. */
int swaps_prio(const char *name, long long *prio);
/* Does any /proc/swaps line contain substr? */
int swaps_contains(const char *substr);
/* Write a version-1 swap header ("SWAPSPACE2") over a block device or file. */
int make_swap(const char *path);
/*
 * Make a block device a swap area and swapon it: swapoff first if it is
 * listed, a fresh header, then swapon with priority prio (SWAP_FLAG_PREFER;
 * prio < 0: the kernel's default).  0 or -errno; reports nothing.
 */
int swap_area_on(const char *dev, int prio);
/*
 * The same, reported as the check "[label: ]swap area on DEV": it worked
 * and /proc/swaps lists DEV.  Returns 1 if so.
 */
int swap_area_check_on(const char *label, const char *dev, int prio);
/*
 * swapoff(dev), reported as "[label: ]swapoff DEV": it succeeded and DEV
 * left /proc/swaps.  Returns 1 if so.
 */
int swap_area_check_off(const char *label, const char *dev);
/* Reader for poll_value(): the Used column of arg (a device) in pages. */
long long get_swaps_used_pages(void *dev);

/* ---- vswap and zswap counters ---------------------------------------------- */

/* VSWAP_DIR/name ("used", "clusters", "phys", ...), -1 if missing. */
long long vswap_stat(const char *name);
/* Key of VSWAP_DIR/metadata (bytes mapped per array, "total", ...), -1 if missing. */
long long vswap_meta(const char *key);
/* Poll vswap "used" until it is <= target or ms pass; the last value (-1: missing). */
long long vswap_wait_used(long long target, int ms);
/*
 * Poll vswap "used" until it is <= target (5 s at most) and report it as
 * "[label: ]vswap used back to 0" (or "... back to N"); a missing counter
 * fails.  Returns 1 if it held.
 */
int vswap_check_used_back(const char *label, long long target);
/*
 * Pages of shmem (the initramfs's tmpfs root among them) that have left
 * memory since /proc/meminfo's Shmem read shmem0_kb: global pressure
 * swaps them out too, and their slots stay in use until they are read.
 * 0 if Shmem has not fallen; -1 if it cannot be read.
 */
long long shmem_out_pages(long long shmem0_kb);
/* ZSWAP_DIR/name ("stored_pages", "reject_compress_poor", ...), -1 if missing. */
long long zswap_stat(const char *name);
/*
 * Pages zswap refused because they do not compress: lzo reports an
 * incompressible page as an error (reject_compress_fail), a compressor
 * that reports -ENOSPC or a too large result counts reject_compress_poor.
 * -1 if the counters are missing.
 */
long long zswap_rejected(void);
/*
 * Poll zswap stored_pages until it is <= stored0 (5 s at most) and report
 * "[label: ]zswap stored_pages back to its starting value".  Returns 1 if so.
 */
int zswap_check_stored_back(const char *label, long long stored0);
/* Readers for poll_value(): vswap or zswap debugfs counter arg (a name). */
long long get_vswap(void *name);
long long get_zswap(void *name);
/* zswap.enabled: 1 Y, 0 N, -errno unreadable. */
int zswap_enabled(void);
/* Set zswap.enabled; 0 or -errno. */
int zswap_set_enabled(int on);
/* The check "zswap enabled" (on) or "zswap disabled": zswap.enabled reads Y or N. */
int zswap_check_enabled(int on);
/*
 * make bench's zram set-up: zswap off and zram0 of disksize RAM/2, ready
 * for make_swap("/dev/zram0").  Bails out (t_bail) if either step fails.
 */
void zram_swap_setup(void);

/* ---- the modes of the zswap tests ------------------------------------------ */

/*
 * Where a test's pages can go.  SWAP_VSWAP: VSWAP_DIR exists, nothing in
 * /proc/swaps (zswap with no swap device).  SWAP_DISK: no vswap device; the
 * test made a swap area on a disk and swapon'ed it (regression mode, also
 * the unpatched kernel).  SWAP_VSWAP_DISK: VSWAP_DIR exists and the test
 * swapon'ed a swap area too: pages take vswap slots, zswap stores what it
 * can, the area backs the rest (physical swap as a vswap backend).
 */
enum swap_mode { SWAP_VSWAP, SWAP_DISK, SWAP_VSWAP_DISK };

struct swap_env {
	enum swap_mode mode;
	const char *dev;	/* SWAP_DISK, SWAP_VSWAP_DISK: the swap area */
	long long size_kb;	/* SWAP_DISK, SWAP_VSWAP_DISK: its size in /proc/swaps */
};

/*
 * Pick the mode and report its checks: with VSWAP_DIR, no swap area may be
 * listed; otherwise dev (argv[1], default /dev/vda) gets a fresh swap
 * header and is swapon'ed (swapoff'ed first if a previous test left it
 * on).  Zswap must be enabled in both modes.  Bails out when neither works.
 * The same as swap_env_setup_flags(env, argc, argv, 0).
 */
void swap_env_setup(struct swap_env *env, int argc, char **argv);
/*
 * With VSWAP_DIR, flags choose SWAP_VSWAP_DISK over SWAP_VSWAP:
 * SWAP_ENV_DISK_ARG when a DEVICE argument (argv[1]) is given,
 * SWAP_ENV_DISK always (argv[1] or /dev/vda).  The area is made as in
 * regression mode; /proc/swaps must be empty before.
 */
#define SWAP_ENV_DISK_ARG	1u
#define SWAP_ENV_DISK		2u
void swap_env_setup_flags(struct swap_env *env, int argc, char **argv, unsigned int flags);
/* Swapoff the area and report it; nothing for SWAP_VSWAP. */
void swap_env_teardown(struct swap_env *env);
/* "vswap", "swap area on /dev/vda" or "vswap + swap area on /dev/vda". */
const char *swap_env_name(const struct swap_env *env);
/*
 * Slots in use: vswap "used" (both vswap modes) or the area's Used column
 * in pages; -1 unknown.
 */
long long swap_env_used(const struct swap_env *env);

#endif

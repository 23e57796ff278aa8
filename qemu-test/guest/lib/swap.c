// SPDX-License-Identifier: GPL-2.0
/* Swap areas, vswap and zswap counters, the zswap tests' modes; see swap.h. */
#include "swap.h"
#include "pattern.h"
#include "sysfs.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <unistd.h>

/* ---- swap areas ------------------------------------------------------------ */

static char *swaps_lines(char *buf, size_t size)
{
	if (read_file("/proc/swaps", buf, size) < 0)
		return NULL;
	char *nl = strchr(buf, '\n');	/* skip the header */

	return nl ? nl + 1 : buf + strlen(buf);
}

int swaps_count(void)
{
	char buf[8192];
	char *p = swaps_lines(buf, sizeof(buf));
	int n = 0;

	if (!p)
		return -1;
	for (; *p; p++)
		if (*p == '\n')
			n++;
	return n;
}

/* Size, Used (KiB) or Priority column (col 0, 1, 2) of name's /proc/swaps line. */
static int swaps_column(const char *name, int col, long long *val)
{
	char buf[8192], fname[512], type[64];
	long long v[3];
	char *p = swaps_lines(buf, sizeof(buf));

	if (!p)
		return -EIO;
	for (char *line = strtok(p, "\n"); line; line = strtok(NULL, "\n"))
		if (sscanf(line, "%511s %63s %lld %lld %lld", fname, type, &v[0], &v[1],
			   &v[2]) == 5 && !strcmp(fname, name)) {
			*val = v[col];
			return 0;
		}
	return -ENOENT;
}

long long swaps_used_kb(const char *name)
{
	long long v;

	return swaps_column(name, 1, &v) ? -1 : v;
}

long long swaps_size_kb(const char *name)
{
	long long v;

	return swaps_column(name, 0, &v) ? -1 : v;
}

long long swaps_used_pages(const char *name)
{
	long long kb = swaps_used_kb(name);

	return kb < 0 ? -1 : kb * 1024 / (long long)page_size();
}

int swaps_prio(const char *name, long long *prio)
{
	return swaps_column(name, 2, prio);
}

int swaps_contains(const char *substr)
{
	char buf[8192];
	char *p = swaps_lines(buf, sizeof(buf));

	return p && strstr(p, substr) != NULL;
}

int make_swap(const char *path)
{
	size_t ps = page_size();
	unsigned long long bytes;
	struct stat st;
	char *page;
	int fd, ret = 0;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		goto out;
	}
	if (S_ISBLK(st.st_mode)) {
		if (ioctl(fd, BLKGETSIZE64, &bytes) < 0) {
			ret = -errno;
			goto out;
		}
	} else {
		bytes = st.st_size;
	}
	if (bytes / ps < 10) {
		ret = -ENOSPC;
		goto out;
	}
	page = calloc(1, ps);
	if (!page) {
		ret = -ENOMEM;
		goto out;
	}
	/* union swap_header: info starts after 1024 boot bytes. */
	uint32_t *info = (uint32_t *)(page + 1024);

	info[0] = 1;				/* version */
	info[1] = bytes / ps - 1;		/* last_page */
	info[2] = 0;				/* nr_badpages */
	memcpy(page + 1024 + 12, "vtest-swap-uuid!", 16);	/* sws_uuid */
	memcpy(page + 1024 + 28, "vtest", 5);			/* sws_volume */
	memcpy(page + ps - 10, "SWAPSPACE2", 10);
	if (pwrite(fd, page, ps, 0) != (ssize_t)ps || fsync(fd) < 0)
		ret = errno ? -errno : -EIO;
	free(page);
out:
	close(fd);
	return ret;
}

int swap_area_on(const char *dev, int prio)
{
	struct stat st;
	int flags = 0, r;

	if (stat(dev, &st))
		return -errno;
	if (!S_ISBLK(st.st_mode))
		return -ENOTBLK;
	if (swaps_used_kb(dev) >= 0 && swapoff(dev))
		return -errno;
	r = make_swap(dev);
	if (r)
		return r;
	if (prio >= 0)
		flags = SWAP_FLAG_PREFER | ((prio << SWAP_FLAG_PRIO_SHIFT) & SWAP_FLAG_PRIO_MASK);
	return swapon(dev, flags) ? -errno : 0;
}

int swap_area_check_on(const char *label, const char *dev, int prio)
{
	char what[160];
	int r = swap_area_on(dev, prio);

	snprintf(what, sizeof(what), "swap area on %s", dev);
	if (r)
		return t_fail(t_name(label, what), "%s: %s", dev, strerror(-r));
	return t_ok(swaps_used_kb(dev) >= 0, t_name(label, what), "%s not in /proc/swaps", dev);
}

int swap_area_check_off(const char *label, const char *dev)
{
	char what[160];
	int r;

	snprintf(what, sizeof(what), "swapoff %s", dev);
	errno = 0;
	r = swapoff(dev);
	if (r)
		return t_fail(t_name(label, what), "%s", strerror(errno));
	return t_ok(swaps_used_kb(dev) < 0, t_name(label, what), "%s still in /proc/swaps", dev);
}

long long get_swaps_used_pages(void *dev)
{
	return swaps_used_pages(dev);
}

/* ---- vswap and zswap counters ---------------------------------------------- */

/* The integer file dir/name, -1 if missing. */
static long long dir_stat(const char *dir, const char *name)
{
	char path[256];
	long long v;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return read_ll(path, &v) ? -1 : v;
}

long long vswap_stat(const char *name)
{
	return dir_stat(VSWAP_DIR, name);
}

long long vswap_meta(const char *key)
{
	long long v;

	return read_key(VSWAP_DIR "/metadata", key, &v) ? -1 : v;
}

long long get_vswap(void *name)
{
	return vswap_stat(name);
}

long long vswap_wait_used(long long target, int ms)
{
	return poll_value(get_vswap, "used", UNTIL_LE, target, ms);
}

int vswap_check_used_back(const char *label, long long target)
{
	long long used = vswap_wait_used(target, 5000);
	char what[64];

	snprintf(what, sizeof(what), "vswap used back to %lld", target);
	if (used < 0)
		return t_fail(t_name(label, what), "cannot read %s/used", VSWAP_DIR);
	return t_ok(used <= target, t_name(label, what), "used is %lld after 5 s", used);
}

long long shmem_out_pages(long long shmem0_kb)
{
	long long now = meminfo_kb("Shmem");

	if (shmem0_kb < 0 || now < 0)
		return -1;
	return now < shmem0_kb ? (shmem0_kb - now) * 1024 / (long long)page_size() : 0;
}

long long zswap_stat(const char *name)
{
	return dir_stat(ZSWAP_DIR, name);
}

long long get_zswap(void *name)
{
	return zswap_stat(name);
}

long long zswap_rejected(void)
{
	long long poor = zswap_stat("reject_compress_poor");
	long long fail = zswap_stat("reject_compress_fail");

	return poor < 0 || fail < 0 ? -1 : poor + fail;
}

int zswap_check_stored_back(const char *label, long long stored0)
{
	long long stored = poll_value(get_zswap, "stored_pages", UNTIL_LE, stored0, 5000);
	const char *name = t_name(label, "zswap stored_pages back to its starting value");

	if (stored0 < 0 || stored < 0)
		return t_fail(name, "cannot read %s/stored_pages", ZSWAP_DIR);
	return t_ok(stored <= stored0, name, "stored_pages %lld, was %lld", stored, stored0);
}

int zswap_enabled(void)
{
	char val[16] = "";
	ssize_t r = read_file(ZSWAP_PARAM "/enabled", val, sizeof(val));

	if (r < 0)
		return r;
	return val[0] == 'Y';
}

int zswap_set_enabled(int on)
{
	return write_file(ZSWAP_PARAM "/enabled", on ? "Y" : "N");
}

void zram_swap_setup(void)
{
	int r = zswap_set_enabled(0);

	if (r)
		t_bail("zram", "cannot turn zswap off: %s", strerror(-r));
	r = write_filef("/sys/block/zram0/disksize", "%lldK", meminfo_kb("MemTotal") / 2);
	if (r)
		t_bail("zram", "/sys/block/zram0/disksize: %s", strerror(-r));
}

int zswap_check_enabled(int on)
{
	int r = zswap_enabled();

	if (r < 0)
		return t_fail(on ? "zswap enabled" : "zswap disabled",
			      "cannot read %s/enabled: %s", ZSWAP_PARAM, strerror(-r));
	return t_ok(r == !!on, on ? "zswap enabled" : "zswap disabled", "zswap.enabled is %c",
		    r ? 'Y' : 'N');
}

/* ---- the modes of the zswap tests ------------------------------------------ */

/* The swap area of SWAP_DISK and SWAP_VSWAP_DISK: a fresh header, swapon. */
static void swap_env_disk(struct swap_env *env)
{
	struct stat st;
	int r;

	if (stat(env->dev, &st) || !S_ISBLK(st.st_mode))
		t_bail("swap disk present", "%s%s is not a block device (scenario disks=?)",
		       env->mode == SWAP_DISK ? "no vswap device and " : "", env->dev);
	r = swap_area_on(env->dev, -1);
	if (r)
		t_bail("swapon a fresh swap area", "%s: %s", env->dev, strerror(-r));
	env->size_kb = swaps_size_kb(env->dev);
	t_ok(env->size_kb > 0 && swaps_count() == 1,
	     env->mode == SWAP_DISK ? "regression mode: swap area on the disk is the only one" :
	     "vswap + swap area mode: the swap area on the disk is the only one",
	     "%s size %lld KiB, %d areas listed", env->dev, env->size_kb, swaps_count());
}

void swap_env_setup_flags(struct swap_env *env, int argc, char **argv, unsigned int flags)
{
	zswap_check_enabled(1);
	env->dev = argc > 1 ? argv[1] : "/dev/vda";
	env->size_kb = -1;
	if (!path_exists(VSWAP_DIR)) {
		env->mode = SWAP_DISK;
		t_diag("regression mode: no %s, swap area on %s", VSWAP_DIR, env->dev);
		swap_env_disk(env);
		return;
	}
	if ((flags & SWAP_ENV_DISK) || ((flags & SWAP_ENV_DISK_ARG) && argc > 1)) {
		env->mode = SWAP_VSWAP_DISK;
		t_diag("vswap + swap area mode: %s exists, swap area on %s behind it",
		       VSWAP_DIR, env->dev);
		t_ok(swaps_count() == 0, "vswap + swap area mode: no swap area before the test",
		     "%d listed", swaps_count());
		swap_env_disk(env);
		return;
	}
	env->mode = SWAP_VSWAP;
	t_diag("vswap mode: %s exists, pages can only go to zswap", VSWAP_DIR);
	t_ok(swaps_count() == 0, "vswap mode: no swap area in /proc/swaps",
	     "%d listed", swaps_count());
}

void swap_env_setup(struct swap_env *env, int argc, char **argv)
{
	swap_env_setup_flags(env, argc, argv, 0);
}

void swap_env_teardown(struct swap_env *env)
{
	if (env->mode == SWAP_VSWAP)
		return;
	errno = 0;
	t_ok(!swapoff(env->dev) && swaps_count() == 0, "swapoff, no swap area left",
	     "swapoff %s: %s, %d areas listed", env->dev, strerror(errno), swaps_count());
}

const char *swap_env_name(const struct swap_env *env)
{
	static char buf[128];

	if (env->mode == SWAP_VSWAP)
		return "vswap";
	snprintf(buf, sizeof(buf), "%sswap area on %s",
		 env->mode == SWAP_VSWAP_DISK ? "vswap + " : "", env->dev);
	return buf;
}

long long swap_env_used(const struct swap_env *env)
{
	if (env->mode != SWAP_DISK)
		return vswap_stat("used");
	return swaps_used_pages(env->dev);
}

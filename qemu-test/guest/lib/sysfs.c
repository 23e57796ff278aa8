// SPDX-License-Identifier: GPL-2.0
/* File and counter readers of the guest tests; see sysfs.h. */
#include "sysfs.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

ssize_t read_file(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (len + 1 < size && (r = read(fd, buf + len, size - 1 - len)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			close(fd);
			return r;
		}
		len += r;
	}
	buf[len] = 0;
	close(fd);
	return len;
}

int write_file(const char *path, const char *str)
{
	size_t len = strlen(str);
	ssize_t r;
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	r = write(fd, str, len);
	if (r < 0)
		r = -errno;
	else if ((size_t)r != len)
		r = -EIO;
	else
		r = 0;
	close(fd);
	return r;
}

int write_filef(const char *path, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return write_file(path, buf);
}

static int parse_ll(const char *s, long long *val)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	if (!strncmp(s, "max", 3)) {
		*val = INT64_MAX;
		return 0;
	}
	errno = 0;
	*val = strtoll(s, &end, 0);
	if (end == s || errno)
		return -EINVAL;
	return 0;
}

int read_ll(const char *path, long long *val)
{
	char buf[256];
	ssize_t r = read_file(path, buf, sizeof(buf));

	if (r < 0)
		return r;
	return parse_ll(buf, val);
}

int read_key(const char *path, const char *key, long long *val)
{
	static char buf[1 << 16];
	size_t klen = strlen(key);
	ssize_t r = read_file(path, buf, sizeof(buf));

	if (r < 0)
		return r;
	for (char *line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		if (strncmp(line, key, klen))
			continue;
		if (line[klen] != ':' && line[klen] != ' ' && line[klen] != '\t')
			continue;
		return parse_ll(line + klen + (line[klen] == ':'), val);
	}
	return -ENOENT;
}

long long vmstat(const char *key)
{
	long long v;

	return read_key("/proc/vmstat", key, &v) ? -1 : v;
}

int path_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

int is_mounted(const char *dir, const char *fstype)
{
	char buf[16384], d[256], t[64];
	char *line;

	if (read_file("/proc/mounts", buf, sizeof(buf)) < 0)
		return 0;
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		if (sscanf(line, "%*s %255s %63s", d, t) == 2 &&
		    !strcmp(d, dir) && !strcmp(t, fstype))
			return 1;
	return 0;
}

int cmdline_get(const char *key, char *buf, size_t size)
{
	char cl[4096];
	size_t klen = strlen(key);
	int found = 0;

	if (read_file("/proc/cmdline", cl, sizeof(cl)) < 0)
		return 0;
	for (char *tok = strtok(cl, " \t\n"); tok; tok = strtok(NULL, " \t\n")) {
		if (strncmp(tok, key, klen) || tok[klen] != '=')
			continue;
		snprintf(buf, size, "%s", tok + klen + 1);
		found = 1;	/* the last one wins, as for the kernel */
	}
	return found;
}


int vtest_timeout(int def)
{
	char buf[32];

	return cmdline_get("vtest.timeout", buf, sizeof(buf)) && atoi(buf) > 0 ? atoi(buf) : def;
}

long long meminfo_kb(const char *key)
{
	long long v;

	return read_key("/proc/meminfo", key, &v) ? -1 : v;
}

long long proc_status_kb(pid_t pid, const char *key)
{
	char path[64];
	long long v;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	return read_key(path, key, &v) ? -1 : v;
}

int blk_sectors(const char *dev, long long *rd, long long *wr)
{
	char path[256], buf[512];
	const char *name = strrchr(dev, '/') ? strrchr(dev, '/') + 1 : dev;
	long long f[7];
	ssize_t r;

	*rd = *wr = -1;
	snprintf(path, sizeof(path), "/sys/block/%s/stat", name);
	r = read_file(path, buf, sizeof(buf));
	if (r < 0)
		return r;
	/* reads, merged, sectors read, ms, writes, merged, sectors written */
	if (sscanf(buf, "%lld %lld %lld %lld %lld %lld %lld", &f[0], &f[1], &f[2],
		   &f[3], &f[4], &f[5], &f[6]) != 7)
		return -EINVAL;
	*rd = f[2];
	*wr = f[6];
	return 0;
}

int blk_set_nonrot(const char *dev)
{
	const char *base = strrchr(dev, '/');
	char path[128];

	snprintf(path, sizeof(path), "/sys/block/%s/queue/rotational", base ? base + 1 : dev);
	return write_file(path, "0");
}

double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int satisfied(long long v, enum until cmp, long long target)
{
	if (v < 0)
		return 0;
	switch (cmp) {
	case UNTIL_LE:
		return v <= target;
	case UNTIL_GE:
		return v >= target;
	case UNTIL_EQ:
		return v == target;
	}
	return 0;
}

long long poll_value(long long (*get)(void *arg), void *arg, enum until cmp,
		     long long target, int timeout_ms)
{
	double end = mono_now() + timeout_ms / 1000.0;
	long long v = get(arg);

	while (!satisfied(v, cmp, target) && mono_now() < end) {
		usleep(100000);
		v = get(arg);
	}
	return v;
}

long long get_file_ll(void *path)
{
	long long v;

	return read_ll(path, &v) ? -1 : v;
}

long long get_blk_written(void *dev)
{
	long long rd, wr;

	return blk_sectors(dev, &rd, &wr) ? -1 : wr;
}

// SPDX-License-Identifier: GPL-2.0
/* Patterned pages of the guest tests; see pattern.h. */
#include "pattern.h"
#include "tap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAT_MAGIC 0x7673776170746573ULL	/* "vswaptes" */

size_t page_size(void)
{
	static size_t ps;

	if (!ps)
		ps = sysconf(_SC_PAGESIZE);
	return ps;
}

void *map_anon(size_t npages)
{
	void *p = mmap(NULL, npages * page_size(), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

uint64_t pat_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

static uint64_t page_sum(const uint64_t *w, size_t nw)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < nw; i++)
		h = (h ^ w[i]) * 0x100000001b3ULL;
	return h;
}

static void fill_page(uint64_t *w, size_t nw, uint64_t seed, uint64_t idx,
		      enum pat_kind kind)
{
	int random = kind == PAT_RANDOM || (kind == PAT_MIXED && (idx & 1)) ||
		     (kind == PAT_MIX3 && idx % 3 == 1) || (kind == PAT_MIX4 && idx % 4 == 3);
	uint64_t s = pat_mix64(seed ^ pat_mix64(idx + 1));

	if (kind == PAT_ZERO || (kind == PAT_MIX3 && idx % 3 == 2) ||
	    (kind == PAT_MIX4 && idx % 4 == 2)) {
		memset(w, 0, nw * 8);
		return;
	}
	w[0] = PAT_MAGIC;
	w[1] = seed;
	w[2] = idx;
	for (size_t j = 3; j < nw - 1; j++) {
		if (random) {
			/* xorshift64 */
			s ^= s << 13;
			s ^= s >> 7;
			s ^= s << 17;
			w[j] = s;
		} else if (kind == PAT_REPEAT) {
			/* one word: ~76 bytes in zswap's pool, not same-filled */
			w[j] = s;
		} else {
			/* eight distinct words, repeated: compresses well */
			w[j] = s + (j & 7);
		}
	}
	w[nw - 1] = page_sum(w, nw - 1);
}

void pat_fill_from(void *buf, size_t first, size_t npages, uint64_t seed,
		   enum pat_kind kind)
{
	size_t nw = page_size() / 8;

	for (size_t i = first; i < first + npages; i++)
		fill_page((uint64_t *)buf + i * nw, nw, seed, i, kind);
}

void pat_fill(void *buf, size_t npages, uint64_t seed, enum pat_kind kind)
{
	pat_fill_from(buf, 0, npages, seed, kind);
}

static void describe_bad(const uint64_t *got, const uint64_t *want, size_t nw,
			 size_t idx, uint64_t seed)
{
	const unsigned char *g = (const void *)got, *e = (const void *)want;
	size_t bytes = nw * 8, first = bytes, diff = 0, zero = 1;

	for (size_t b = 0; b < bytes; b++) {
		if (g[b])
			zero = 0;
		if (g[b] != e[b]) {
			diff++;
			if (first == bytes)
				first = b;
		}
	}
	if (zero) {
		t_diag("page %zu: all zero", idx);
	} else if (got[0] == PAT_MAGIC && got[nw - 1] == page_sum(got, nw - 1) &&
		   (got[2] != idx || got[1] != seed)) {
		t_diag("page %zu: holds an intact copy of page %llu (seed %#llx)",
		       idx, (unsigned long long)got[2], (unsigned long long)got[1]);
	} else {
		t_diag("page %zu: %zu bytes differ, first at offset %zu (got %02x want %02x)%s",
		       idx, diff, first, g[first], e[first],
		       got[nw - 1] == page_sum(got, nw - 1) ? "" : ", checksum bad");
	}
}

size_t pat_verify_from(const void *buf, size_t first, size_t npages, uint64_t seed,
		       enum pat_kind kind)
{
	size_t nw = page_size() / 8, bad = 0;
	uint64_t *want = malloc(page_size());

	if (!want) {
		t_diag("pat_verify: out of memory");
		return npages;
	}
	for (size_t i = first; i < first + npages; i++) {
		const uint64_t *got = (const uint64_t *)buf + i * nw;

		fill_page(want, nw, seed, i, kind);
		if (!memcmp(got, want, page_size()))
			continue;
		if (bad++ < 5)
			describe_bad(got, want, nw, i, seed);
	}
	if (bad > 5)
		t_diag("... %zu bad pages in all", bad);
	free(want);
	return bad;
}

size_t pat_verify(const void *buf, size_t npages, uint64_t seed, enum pat_kind kind)
{
	return pat_verify_from(buf, 0, npages, seed, kind);
}

void *map_anon_4k(size_t npages)
{
	void *p = map_anon(npages);

	if (p && madvise(p, npages * page_size(), MADV_NOHUGEPAGE)) {
		munmap(p, npages * page_size());
		return NULL;
	}
	return p;
}

int page_is_zero(const void *p)
{
	const uint64_t *w = p;
	uint64_t or = 0;

	for (size_t j = 0; j < page_size() / 8; j++)
		or |= w[j];
	return !or;
}

int pageout(void *buf, size_t npages)
{
	return madvise(buf, npages * page_size(), MADV_PAGEOUT) ? -errno : 0;
}

/* Pages a file helper moves per read or write. */
#define FD_CHUNK	64

int pat_write_fd(int fd, size_t first, size_t npages, uint64_t seed, enum pat_kind kind)
{
	size_t ps = page_size(), nw = ps / 8, i, n, k;
	uint64_t *buf = malloc(FD_CHUNK * ps);
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	for (i = first; i < first + npages && !ret; i += n) {
		n = first + npages - i < FD_CHUNK ? first + npages - i : FD_CHUNK;
		for (k = 0; k < n; k++)
			fill_page(buf + k * nw, nw, seed, i + k, kind);
		if (pwrite(fd, buf, n * ps, (off_t)(i * ps)) != (ssize_t)(n * ps))
			ret = errno ? -errno : -EIO;
	}
	free(buf);
	return ret;
}

/* Read pages [i, i + n) of fd into buf: 0 or -errno (a short read is -EIO). */
static int read_pages(int fd, void *buf, size_t i, size_t n)
{
	ssize_t r = pread(fd, buf, n * page_size(), (off_t)(i * page_size()));

	if (r == (ssize_t)(n * page_size()))
		return 0;
	return r < 0 ? -errno : -EIO;
}

size_t pat_verify_fd(int fd, size_t first, size_t npages, uint64_t seed, enum pat_kind kind)
{
	size_t ps = page_size(), nw = ps / 8, bad = 0, i, n, k;
	uint64_t *buf = malloc(FD_CHUNK * ps), *want = malloc(ps);
	int r;

	if (!buf || !want) {
		t_diag("pat_verify_fd: out of memory");
		bad = npages;
		goto out;
	}
	for (i = first; i < first + npages; i += n) {
		n = first + npages - i < FD_CHUNK ? first + npages - i : FD_CHUNK;
		r = read_pages(fd, buf, i, n);
		if (r) {
			t_diag("pages %zu-%zu: read: %s", i, i + n - 1, strerror(-r));
			bad += n;
			continue;
		}
		for (k = 0; k < n; k++) {
			fill_page(want, nw, seed, i + k, kind);
			if (!memcmp(buf + k * nw, want, ps))
				continue;
			if (bad++ < 5)
				describe_bad(buf + k * nw, want, nw, i + k, seed);
		}
	}
	if (bad > 5)
		t_diag("... %zu bad pages in all", bad);
out:
	free(buf);
	free(want);
	return bad;
}

size_t zero_verify_fd(int fd, size_t first, size_t npages)
{
	size_t ps = page_size(), nw = ps / 8, bad = 0, i, n, k;
	uint64_t *buf = malloc(FD_CHUNK * ps);
	int r;

	if (!buf)
		return npages;
	for (i = first; i < first + npages; i += n) {
		n = first + npages - i < FD_CHUNK ? first + npages - i : FD_CHUNK;
		r = read_pages(fd, buf, i, n);
		for (k = 0; k < n; k++) {
			if (!r && page_is_zero(buf + k * nw))
				continue;
			if (bad++ < 5)
				t_diag("page %zu: %s", i + k, r ? strerror(-r) : "not zero");
		}
	}
	free(buf);
	return bad;
}

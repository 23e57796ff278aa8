/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Patterned anonymous memory: every page derived from (seed, index, kind),
 * with a header and a checksum, written and verified byte for byte; the
 * mappings the tests use and MADV_PAGEOUT.
 */
#ifndef VTEST_PATTERN_H
#define VTEST_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#include "defs.h"

enum pat_kind {
	PAT_COMPRESSIBLE,	/* a few distinct words per page: zswap stores it */
	PAT_RANDOM,		/* xorshift noise: zswap rejects it, goes to disk */
	PAT_MIXED,		/* even pages compressible, odd pages random */
	PAT_REPEAT,		/* one word repeated: ~76 bytes of zswap pool a page */
	PAT_ZERO,		/* all zero: swapped out as zero, no zswap entry, no I/O */
	PAT_MIX3,		/* page i % 3: 0 compressible, 1 random, 2 zero */
	PAT_MIX4,		/* page i % 4: 0, 1 compressible, 2 zero, 3 random */
};

size_t page_size(void);
/* The 64-bit mixer the patterns are made from (splitmix64's finalizer). */
uint64_t pat_mix64(uint64_t x);
/* Anonymous private mapping of npages (MAP_POPULATE not used). */
void *map_anon(size_t npages);
/*
 * The same with MADV_NOHUGEPAGE: order-0 pages only.  Zswap in 6.12 stores
 * no large folio, and splitting an anonymous THP maps its zero-filled
 * subpages to the shared zero page, so a test of the order-0 swap path
 * must not get THPs.
 */
void *map_anon_4k(size_t npages);
/*
 * Fill page i with a pattern derived from (seed, i, kind).  Each page
 * starts with a header {magic, seed, index} and ends with a checksum of
 * the rest, so a mismatch can be told apart: wrong page, zeroed, corrupt.
 */
void pat_fill(void *buf, size_t npages, uint64_t seed, enum pat_kind kind);
/*
 * Compare every byte against the regenerated pattern.  Returns the number
 * of bad pages; the first few are described with t_diag().
 */
size_t pat_verify(const void *buf, size_t npages, uint64_t seed, enum pat_kind kind);
/*
 * The same for pages first .. first + npages - 1 of a region starting at
 * buf (page i of the region is filled and checked as index i).
 */
void pat_fill_from(void *buf, size_t first, size_t npages, uint64_t seed,
		   enum pat_kind kind);
size_t pat_verify_from(const void *buf, size_t first, size_t npages, uint64_t seed,
		       enum pat_kind kind);
/* Is the page at p all zero? */
int page_is_zero(const void *p);
/* madvise(MADV_PAGEOUT) over the range; 0 or -errno. */
int pageout(void *buf, size_t npages);
/*
 * The same patterns in a file, through pwrite()/pread() (no mapping):
 * page i of the file is filled and checked as index i.  pat_write_fd()
 * returns 0 or -errno; pat_verify_fd() the number of bad pages (pages it
 * could not read count as bad); zero_verify_fd() the number of pages that
 * are not all zero (a punched hole reads as zeroes).
 */
int pat_write_fd(int fd, size_t first, size_t npages, uint64_t seed, enum pat_kind kind);
size_t pat_verify_fd(int fd, size_t first, size_t npages, uint64_t seed, enum pat_kind kind);
size_t zero_verify_fd(int fd, size_t first, size_t npages);

#endif

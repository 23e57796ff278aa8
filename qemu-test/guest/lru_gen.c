// SPDX-License-Identifier: GPL-2.0
/*
 * lru_gen: turn the multi-gen LRU on for the tests that follow it in a
 * scenario, so that they reclaim through lru_gen (its own anon aging and
 * swappiness checks) instead of the active/inactive lists.
 *
 * Writes "y" to /sys/kernel/mm/lru_gen/enabled; it must then read back
 * with the core bit (0x0001) set.  Needs CONFIG_LRU_GEN=y.
 */
#include "lib.h"

#include <string.h>

#define LRU_GEN "/sys/kernel/mm/lru_gen/enabled"

int main(void)
{
	long long v = -1;
	int r;

	t_init("lru_gen");
	if (!path_exists(LRU_GEN))
		t_bail("multi-gen LRU available", "%s missing (CONFIG_LRU_GEN?)", LRU_GEN);
	r = write_file(LRU_GEN, "y");
	if (read_ll(LRU_GEN, &v))
		v = -1;
	t_ok(!r && v > 0 && (v & 1), "the multi-gen LRU is on",
	     "write: %s, %s reads %#llx", r ? strerror(-r) : "ok", LRU_GEN, v);
	return t_done();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest_memcontrol: the kernel's own tools/testing/selftests/cgroup/
 * test_memcontrol (built static from the tree by initramfs.sh, unchanged,
 * as /tests/test_memcontrol) gives the same swap results with vswap=off
 * as on the unpatched kernel: its sub-tests that swap or limit swap pass.
 *
 *   kselftest_memcontrol [DEVICE]   the swap disk (default /dev/vda)
 *
 * Regression mode only (vswap=off or the unpatched kernel: no vswap
 * device): a swap area is made on DEVICE and swapon'ed, and test_memcontrol
 * runs once at the cgroup2 root.  test_memcg_swap_max_peak, the sub-test
 * about swap (memory.swap.max limits swapped-out anonymous memory,
 * memory.swap.peak tracks it and can be reset), must pass; a SKIP of it
 * fails too, as a swap area is on, and so does no result (test_memcontrol
 * died or hit the time limit).
 *
 * Every sub-test's outcome is also printed as "# kst test_memcontrol NAME
 * RESULT", which checks/compare-kst.sh compares between the series with
 * vswap=off and the unpatched kernel (both in phys-regress): they must be
 * the same for all of them.  Not all pass in this guest on either kernel:
 * the page cache sub-tests (current_peak, min, low, high, high_sync, max,
 * reclaim) make their files in the current directory, the initramfs, whose
 * pages cannot be reclaimed, and test_memcg_sock needs CONFIG_NET.
 *
 * A sub-test printed more than once (a forking sub-test's child can repeat
 * its parent's lines) counts as its worst line: a "not ok" wins over a
 * conflicting "ok" or SKIP, and the conflict is shown (kst_merge).
 *
 * With vswap=on, memory.swap.* counts physical swap only and
 * test_memcg_swap_max_peak's expectations no longer hold by design (see
 * vswap_memcg), so the wrapper refuses to run there.
 */
#include "lib.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define BIN "/tests/test_memcontrol"

static const struct sub {
	const char *name;
	int judged;		/* about swap: must pass here */
	const char *why;
} subs[] = {
	{ "test_memcg_subtree_control", 0, "subtree_control propagation" },
	{ "test_memcg_current_peak", 0, "memory.current and .peak" },
	{ "test_memcg_min", 0, "memory.min protects, with memory.swap.max=0" },
	{ "test_memcg_low", 0, "memory.low protects, with memory.swap.max=0" },
	{ "test_memcg_high", 0, "memory.high throttles, with memory.swap.max=0" },
	{ "test_memcg_high_sync", 0, "memory.high reclaim, with memory.swap.max=0" },
	{ "test_memcg_max", 0, "memory.max holds, with memory.swap.max=0" },
	{ "test_memcg_reclaim", 0, "memory.reclaim reclaims anon through swap" },
	{ "test_memcg_oom_events", 0, "oom and oom_kill events" },
	{ "test_memcg_swap_max_peak", 1,
	  "memory.swap.max limits swapped anon memory, memory.swap.peak tracks it" },
	{ "test_memcg_sock", 0, "socket memory accounting" },
	{ "test_memcg_oom_group_leaf_events", 0, "memory.oom.group, leaf" },
	{ "test_memcg_oom_group_parent_events", 0, "memory.oom.group, parent" },
	{ "test_memcg_oom_group_score_events", 0, "memory.oom.group and oom_score_adj" },
};
#define NSUBS (sizeof(subs) / sizeof(subs[0]))

static struct kst_result res[NSUBS];

/* Every line for a sub-test counts: a "not ok" among them wins (kst_merge). */
static void result(const char *name, enum kst_res r, void *arg)
{
	(void)arg;
	for (size_t i = 0; i < NSUBS; i++) {
		if (!strcmp(subs[i].name, name)) {
			kst_merge("test_memcontrol", name, &res[i], r);
			return;
		}
	}
	t_diag("test_memcontrol: result for an unknown sub-test %s: %s", name, kst_res_str(r));
}

/* The cgroups test_memcontrol makes under its root, if a killed run left them. */
static void cleanup_root(void)
{
	static const char *const names[] = {
		"memcg_test", "memcg_test_0", "memcg_test_1", "memcg_test_2",
	};
	char path[512];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", CGROOT, names[i]);
		if (path_exists(path))
			t_diag("left behind by test_memcontrol: %s", path);
	}
}

int main(int argc, char **argv)
{
	struct kst_run run = { .bin = BIN, .result = result };
	struct swap_env env;
	int tmo, secs;
	double t0;

	t_init("kselftest_memcontrol");
	tmo = vtest_timeout(300);
	swap_env_setup(&env, argc, argv);
	if (env.mode != SWAP_DISK)
		t_bail("regression mode", "the vswap device exists: test_memcontrol's swap "
		       "expectations are those of vswap=off and the unpatched kernel");
	if (access(BIN, X_OK))
		t_bail("test_memcontrol in the initramfs", "%s: %s (initramfs.sh builds it "
		       "from the kernel tree)", BIN, strerror(errno));
	write_file("/proc/self/oom_score_adj", "-1000");

	/* Its OOM sub-tests kill in their own cgroups by design. */
	oom_expect_begin("test_memcontrol: the oom sub-tests OOM their cgroups");
	t0 = mono_now();
	secs = tmo > 40 ? tmo - 15 : tmo * 2 / 3;
	run.secs = secs;
	kst_run(&run);
	oom_expect_end();
	kst_show_output(&run);
	t_diag("test_memcontrol took %.1fs", mono_now() - t0);
	cleanup_root();

	for (size_t i = 0; i < NSUBS; i++) {
		const struct sub *s = &subs[i];
		const char *conflict = kst_conflict_str(&res[i]);
		enum kst_res r = res[i].res;
		char name[160];

		snprintf(name, sizeof(name), "test_memcontrol: %s", s->name);
		t_diag("%s: %s%s; it checks: %s", s->name, kst_res_str(r), conflict, s->why);
		/* One word per result, for checks/compare-kst.sh to compare kernels. */
		kst_report("test_memcontrol", s->name, &res[i]);
		if (!s->judged)
			continue;
		if (r == KR_OK)
			t_pass(name);
		else if (r == KR_NONE)
			t_fail(name, "no result from test_memcontrol (%s%s)",
			       status_str(run.status),
			       run.killed ? ", killed at the time limit" : "");
		else if (r == KR_SKIP)
			t_fail(name, "test_memcontrol skipped it with a swap area on%s", conflict);
		else
			t_fail(name, "test_memcontrol: not ok (%s)%s", s->why, conflict);
	}
	swap_env_teardown(&env);
	return t_done();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest_zswap: the kernel's own tools/testing/selftests/cgroup/
 * test_zswap (built static from the tree by initramfs.sh, unchanged, as
 * /tests/test_zswap) passes, with and without a swap device.
 *
 *   kselftest_zswap [DEVICE]     the swap disk: regression mode (default
 *                                /dev/vda), or vswap + swap area with vswap=on
 *
 * Mode as in the other zswap tests (swap_env_setup_flags with
 * SWAP_ENV_DISK_ARG): vswap mode with the vswap device and no swap area
 * (no DEVICE given), vswap + swap area with the vswap device and DEVICE
 * swapon'ed behind it (physical swap as a vswap backend), regression mode
 * with a swap area on DEVICE and no vswap device.  test_zswap runs once,
 * at the cgroup2 root as it expects; each of its sub-tests gives one
 * result here:
 *  - regression mode: every sub-test must pass;
 *  - vswap + swap area: every sub-test must pass, the writeback ones too,
 *    and a kselftest SKIP is a failure (everything can run there); vswap
 *    "used" and "phys", sampled every 100 ms while it runs, must have
 *    been above 0 (the pages went through vswap to the swap area, not to
 *    the swap area directly);
 *  - vswap mode: test_zswap_usage, test_zswapin,
 *    test_zswap_writeback_disabled and test_no_kmem_bypass must pass:
 *    zswap alone does what they check.  test_swapin_nozswap
 *    (memory.zswap.max=0: the pages can only go to a device),
 *    test_zswap_writeback_enabled and test_no_invasive_cgroup_shrink
 *    (both need zswap writeback to a device, zswpwb > 0) cannot pass
 *    without a physical device: a "not ok" from them is reported as a SKIP
 *    saying so, an "ok" as a pass.  Their cgroups OOM by design, so the
 *    run is bracketed for dmesg_check (oom_expect_begin).
 * The series adds test_vswap_* sub-tests (its kselftest patch), which
 * skip with vswap off; a SKIP of any other sub-test in regression mode is
 * a failure.  With vswap on they must run where they can:
 * test_vswap_no_swap_device only with no swap area (its SKIP with one is
 * expected), test_vswap_writeback_charged only with one.
 * A sub-test with no result (test_zswap died or was killed at the time
 * limit) fails in every mode; a kselftest SKIP is reported as a SKIP
 * (but with vswap + swap area, see above).
 *
 * The selftest's stdout is line-buffered (kselftest/linebuf.c), and a
 * sub-test printed more than once (a forked child can print the parent's
 * unflushed lines again) counts as its worst line: a "not ok" wins over a
 * conflicting "ok" or SKIP, before or after it, and the conflict is shown
 * (kst_merge).  Every sub-test's result is also printed as "# kst
 * test_zswap NAME RESULT", the form checks/compare-kst.sh compares
 * between kernels.  test_no_kmem_bypass raises vm.min_free_kbytes
 * to half of RAM, which wedges a guest that cannot swap (global OOM, then
 * a panic): in vswap mode with no device the wrapper stops test_zswap
 * before it when the earlier sub-tests show that zswap stores nothing
 * (see stop_early), it restores the value afterwards, and the scenarios
 * run this test last.
 *
 * test_no_kmem_bypass is timing-sensitive: kswapd must have stored a fifth
 * of RAM in zswap within twenty 100 ms rounds of the test's own
 * allocations, and zswap must hold little else.  Under a loaded host it
 * can run out of rounds (seen once in CI on a kernel that passed it 5 of
 * 5 times alone).  A "not ok" from it is retried once with a fresh
 * test_zswap run; it fails only if it fails both times, and the first
 * failure is shown.
 */
#define _GNU_SOURCE
#include "lib.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BIN "/tests/test_zswap"
#define MIN_FREE "/proc/sys/vm/min_free_kbytes"

static const struct sub {
	const char *name;
	int needs_disk;		/* cannot pass without a physical swap device */
	const char *why;
	int vswap_only;		/* the series' own: skips with vswap off */
	int nodisk_only;	/* skips when a swap area is on */
} subs[] = {
	{ "test_zswap_usage", 0, "4 MiB through a 1 MiB cgroup raise zswpout" },
	{ "test_swapin_nozswap", 1,
	  "memory.zswap.max=0: 32 MiB through an 8 MiB cgroup go to the swap device, not zswap" },
	{ "test_zswapin", 0, "32 MiB through an 8 MiB cgroup come back from zswap" },
	{ "test_zswap_writeback_enabled", 1,
	  "zswap writes back to the swap device (zswpwb > 0)" },
	{ "test_zswap_writeback_disabled", 0,
	  "writeback off: reclaim over memory.zswap.max fails, zswpwb stays 0" },
	{ "test_no_kmem_bypass", 0, "kswapd's zswap stores are charged to the memcg" },
	{ "test_no_invasive_cgroup_shrink", 1,
	  "only the over-limit cgroup's zswap pages are written back (zswpwb > 0)" },
	{ "test_vswap_no_swap_device", 0,
	  "no swap area: 32 MiB through an 8 MiB cgroup go to zswap and come back", 1, 1 },
	{ "test_vswap_zswap_uncharged", 0,
	  "pages in zswap through vswap leave memory.swap.peak at 0", 1, 0 },
	{ "test_vswap_writeback_charged", 1,
	  "pages forced onto the swap area are charged to memory.swap.current", 1, 0 },
};
#define NSUBS (sizeof(subs) / sizeof(subs[0]))

struct run {
	struct kst_run kst;
	struct kst_result res[NSUBS];
	int vswap;		/* vswap mode, no device */
	long long used_peak;	/* highest vswap "used" seen while it ran */
	long long phys_peak;	/* highest vswap "phys" seen while it ran */
};

static int sub_index(const char *name)
{
	for (size_t i = 0; i < NSUBS; i++)
		if (!strcmp(subs[i].name, name))
			return i;
	return -1;
}

/* Remove a cgroup and everything below it. */
static void cg_remove_tree(const char *path)
{
	char sub[512];
	struct dirent *de;
	DIR *d = opendir(path);

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		cg_remove_tree(sub);
	}
	closedir(d);
	cg_destroy(path);
}

/* The cgroups test_zswap makes under its root, if a killed run left them. */
static void cleanup_root(const char *root)
{
	static const char *const names[] = {
		"no_shrink_test", "no_zswap_test", "zswapin_test", "zswap_writeback_test",
		"per_memcg_wb_test1", "per_memcg_wb_test2", "kmem_bypass_test",
		"vswap_nodev_test", "vswap_charge_test", "vswap_writeback_test",
	};
	char path[512];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, names[i]);
		cg_remove_tree(path);
	}
}

/*
 * test_no_kmem_bypass fills half of RAM and then raises vm.min_free_kbytes
 * to half of RAM: on a guest where nothing can be swapped out the global
 * OOM killer then takes every process and the kernel panics ("System is
 * deadlocked on memory"), losing all results.  In vswap mode, when the
 * sub-tests before it show that zswap stores nothing without a device
 * (test_zswap_usage or test_zswapin not ok), test_zswap is stopped before
 * it: the remaining sub-tests then fail with "no result".
 */
static int stop_early(const struct run *run)
{
	int usage = sub_index("test_zswap_usage"), in = sub_index("test_zswapin");
	int last = sub_index("test_zswap_writeback_disabled");

	return run->vswap && run->res[last].res != KR_NONE &&
	       (run->res[usage].res == KR_FAIL || run->res[in].res == KR_FAIL);
}

/* Every 100 ms: the sub-tests hold their pages for seconds. */
static int tick(void *arg)
{
	struct run *run = arg;
	long long used = vswap_stat("used"), phys = vswap_stat("phys");

	if (used > run->used_peak)
		run->used_peak = used;
	if (phys > run->phys_peak)
		run->phys_peak = phys;
	return stop_early(run);
}

/* Every line for a sub-test counts: a "not ok" among them wins (kst_merge). */
static void result(const char *name, enum kst_res res, void *arg)
{
	struct run *run = arg;
	int i = sub_index(name);

	if (i >= 0)
		kst_merge("test_zswap", name, &run->res[i], res);
	else
		t_diag("test_zswap: result for an unknown sub-test %s: %s", name,
		       kst_res_str(res));
}

/* See the top: one more test_zswap run if only its kswapd test timed out. */
static void retry_kmem_bypass(struct run *run, const char *min_free)
{
	int k = sub_index("test_no_kmem_bypass");
	struct run again = { .kst = { .bin = BIN, .tick = tick, .result = result },
			     .vswap = run->vswap, .used_peak = -1, .phys_peak = -1 };

	if (run->res[k].res != KR_FAIL || run->kst.killed || run->kst.stopped)
		return;
	t_diag("test_no_kmem_bypass: not ok on the first run; running test_zswap once more");
	again.kst.arg = &again;
	/* test_zswap takes 3 to 10 s under TCG. */
	again.kst.secs = run->kst.secs < 30 ? run->kst.secs : 30;
	kst_run(&again.kst);
	cleanup_root(CGROOT);
	if (min_free[0])
		write_file(MIN_FREE, min_free);
	t_diag("test_no_kmem_bypass on the second run: %s", kst_res_str(again.res[k].res));
	if (again.res[k].res == KR_OK)
		run->res[k] = again.res[k];
	else
		kst_show_output(&again.kst);
}

int main(int argc, char **argv)
{
	struct run run = { .kst = { .bin = BIN, .tick = tick, .result = result },
			   .used_peak = -1, .phys_peak = -1 };
	char buf[64], min_free[64] = "";
	struct swap_env env;
	int tmo, vswap, secs;
	double t0;

	t_init("kselftest_zswap");
	tmo = vtest_timeout(120);
	swap_env_setup_flags(&env, argc, argv, SWAP_ENV_DISK_ARG);
	/* Only vswap with no device lacks what some sub-tests need. */
	vswap = env.mode == SWAP_VSWAP;
	if (access(BIN, X_OK))
		t_bail("test_zswap in the initramfs", "%s: %s (initramfs.sh builds it from the "
		       "kernel tree)", BIN, strerror(errno));
	read_file(MIN_FREE, min_free, sizeof(min_free));
	write_file("/proc/self/oom_score_adj", "-1000");

	if (vswap)
		oom_expect_begin("test_zswap: sub-tests that need a swap device OOM their cgroups");
	t0 = mono_now();
	/*
	 * It takes about 10 s under TCG.  At most 150 s, and time left to
	 * report, restore and clean up before /init's limit.
	 */
	secs = tmo > 40 ? tmo - 15 : tmo * 2 / 3;
	run.vswap = vswap;
	run.kst.arg = &run;
	run.kst.secs = secs < 150 ? secs : 150;
	kst_run(&run.kst);
	cleanup_root(CGROOT);
	if (min_free[0])
		write_file(MIN_FREE, min_free);
	kst_show_output(&run.kst);
	retry_kmem_bypass(&run, min_free);
	if (vswap)
		oom_expect_end();
	t_diag("test_zswap took %.1fs", mono_now() - t0);
	read_file(MIN_FREE, buf, sizeof(buf));
	t_ok(!strcmp(buf, min_free), "vm.min_free_kbytes restored",
	     "is %.20s, was %.20s", buf, min_free);
	if (env.mode != SWAP_DISK)
		t_diag("while test_zswap ran: vswap used peaked at %lld, phys at %lld",
		       run.used_peak, run.phys_peak);
	if (env.mode == SWAP_VSWAP_DISK) {
		/* Otherwise the sub-tests may have passed on physical swap alone. */
		t_ok(run.used_peak > 0, "test_zswap's pages took vswap slots",
		     "vswap used peaked at %lld", run.used_peak);
		t_ok(run.phys_peak > 0, "test_zswap's pages reached the swap area behind vswap",
		     "vswap phys peaked at %lld%s", run.phys_peak,
		     run.phys_peak < 0 ? " (no phys counter)" : "");
	}

	for (size_t i = 0; i < NSUBS; i++) {
		const struct sub *s = &subs[i];
		enum kst_res r = run.res[i].res;
		const char *conflict = kst_conflict_str(&run.res[i]);
		char name[160];

		snprintf(name, sizeof(name), "test_zswap: %s", s->name);
		t_diag("%s: %s%s; it checks: %s%s", s->name, kst_res_str(r), conflict, s->why,
		       s->needs_disk ? " (needs a swap device)" : "");
		kst_report("test_zswap", s->name, &run.res[i]);
		if (r == KR_NONE && run.kst.stopped)
			t_fail(name, "not run: zswap stored nothing without a swap device "
			       "(test_zswap_usage or test_zswapin failed), so test_zswap was "
			       "stopped before test_no_kmem_bypass, which would wedge the guest");
		else if (r == KR_NONE)
			t_fail(name, "no result from test_zswap (%s%s)", status_str(run.kst.status),
			       run.kst.killed ? ", killed at the time limit" : "");
		else if (r == KR_SKIP && env.mode == SWAP_VSWAP_DISK && !s->nodisk_only)
			t_fail(name, "test_zswap skipped it; with vswap and a swap area every "
			       "sub-test must run%s", conflict);
		else if (r == KR_SKIP && env.mode == SWAP_VSWAP && s->vswap_only && !s->needs_disk)
			t_fail(name, "test_zswap skipped it; with vswap on it must run%s", conflict);
		else if (r == KR_SKIP && env.mode == SWAP_DISK && !s->vswap_only)
			t_fail(name, "test_zswap skipped it; with a swap area it must run%s",
			       conflict);
		else if (r == KR_SKIP)
			t_skip(name, "test_zswap skipped it%s", conflict);
		else if (r == KR_OK)
			t_pass(name);
		else if (vswap && s->needs_disk)
			t_skip(name, "cannot pass without a physical swap device (%s); "
			       "test_zswap: not ok%s", s->why, conflict);
		else
			t_fail(name, "test_zswap: not ok (%s)%s", s->why, conflict);
	}
	swap_env_teardown(&env);
	return t_done();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * kunit: the KUnit suite "vswap" (CONFIG_VSWAP_KUNIT_TEST) ran at boot
 * and its result matches the vswap= state.
 *
 * vswap=on:  every case passes (fail 0, skip 0, total > 0).
 * otherwise: every case is skipped (skip == total > 0).  A skip is not a
 *            pass: a case that passes or fails with vswap off fails here.
 *
 * Parses the KTAP that lib/kunit prints to the kernel log:
 *	    KTAP version 1
 *	    # Subtest: vswap
 *	    1..N
 *	    ok 1 case_a
 *	    ok 2 case_b # SKIP reason
 *	# vswap: pass:1 fail:0 skip:1 total:2     (only when total > 1)
 *	ok 1 vswap
 * Only results at the case level (one indent) count; parameterised
 * sub-results are deeper and ignored.
 */
#include "lib.h"

#include <stdio.h>
#include <string.h>

#define SUITE "vswap"

struct suite {
	int state;		/* 0 before, 1 inside, 2 done */
	int indent;		/* of the "# Subtest:" line */
	int planned;
	int pass, fail, skip;
	int stats_seen, s_pass, s_fail, s_skip, s_total;
	int suite_ok, suite_skip;
	char fails[256], passes[256];
	int on;
};

static void add_name(char *list, size_t size, const char *name)
{
	size_t len = strlen(list);

	if (len + strlen(name) + 3 < size)
		snprintf(list + len, size - len, "%s%s", len ? ", " : "", name);
}

static int kmsg_cb(const char *msg, void *arg)
{
	struct suite *s = arg;
	int indent = strspn(msg, " ");
	const char *p = msg + indent;
	char name[128] = "", rest[256] = "";
	int n, ok;

	if (s->state == 0) {
		if (!strncmp(p, "# Subtest: ", 11) && !strcmp(p + 11, SUITE)) {
			s->state = 1;
			s->indent = indent;
		}
		return 0;
	}
	if (s->state != 1)
		return 0;
	if (indent == s->indent && sscanf(p, "1..%d", &n) == 1) {
		s->planned = n;
		return 0;
	}
	if (sscanf(p, "# " SUITE ": pass:%d fail:%d skip:%d total:%d",
		   &s->s_pass, &s->s_fail, &s->s_skip, &s->s_total) == 4) {
		s->stats_seen = 1;
		return 0;
	}
	ok = !strncmp(p, "ok ", 3);
	if (!ok && strncmp(p, "not ok ", 7))
		return 0;
	if (sscanf(p + (ok ? 3 : 7), "%d %127s%255[^\n]", &n, name, rest) < 2)
		return 0;
	if (indent < s->indent && !strcmp(name, SUITE)) {
		/* the suite's own result line ends the block */
		s->suite_ok = ok;
		s->suite_skip = !!strstr(rest, "# SKIP");
		s->state = 2;
		return 1;
	}
	if (indent != s->indent)
		return 0;
	if (!ok) {
		s->fail++;
		add_name(s->fails, sizeof(s->fails), name);
		t_diag("case %s failed", name);
	} else if (strstr(rest, "# SKIP")) {
		s->skip++;
		if (s->on)
			add_name(s->fails, sizeof(s->fails), name);
	} else {
		s->pass++;
		add_name(s->passes, sizeof(s->passes), name);
	}
	return 0;
}

int main(void)
{
	struct suite s = { 0 };
	char val[64] = "";
	int total, r;

	t_init("kunit");
	s.on = cmdline_get("vswap", val, sizeof(val)) && !strcmp(val, "on");
	r = kmsg_each(kmsg_cb, &s);
	if (r < 0)
		t_bail("read /dev/kmsg", "%s", strerror(-r));
	if (!t_ok(s.state > 0, "KUnit suite '" SUITE "' ran at boot",
		  "no '# Subtest: " SUITE "' in the kernel log (CONFIG_VSWAP_KUNIT_TEST?)"))
		return t_done();
	t_ok(s.state == 2, "suite finished", "no 'ok N " SUITE "' result line");
	total = s.pass + s.fail + s.skip;
	t_diag("vswap=%s: %d cases: pass %d fail %d skip %d (planned %d)",
	       val[0] ? val : "(unset)", total, s.pass, s.fail, s.skip, s.planned);
	t_ok(total > 0 && total == s.planned, "all planned cases reported",
	     "%d of %d cases reported", total, s.planned);
	if (s.stats_seen)
		t_ok(s.s_pass == s.pass && s.s_fail == s.fail && s.s_skip == s.skip &&
		     s.s_total == total, "suite stats line agrees",
		     "stats say pass:%d fail:%d skip:%d total:%d", s.s_pass, s.s_fail,
		     s.s_skip, s.s_total);
	if (s.on) {
		t_ok(total > 0 && s.pass == total, "vswap=on: every case passes",
		     "fail %d skip %d of %d: %s", s.fail, s.skip, total, s.fails);
		t_ok(s.suite_ok && !s.suite_skip, "vswap=on: suite result ok",
		     "suite result is %s", s.suite_ok ? "ok # SKIP" : "not ok");
	} else {
		t_ok(total > 0 && s.skip == total, "vswap off: every case skipped",
		     "pass %d fail %d of %d (passed: %s; failed: %s)", s.pass, s.fail,
		     total, s.passes, s.fails);
		t_ok(s.suite_ok && s.suite_skip, "vswap off: suite result is a skip",
		     "suite result is %s", !s.suite_ok ? "not ok" : "ok (not a skip)");
	}
	return t_done();
}

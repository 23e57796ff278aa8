// SPDX-License-Identifier: GPL-2.0
/*
 * dmesg_check: the kernel log has no splat.  /init runs it after every
 * other test; each hit is shown with the test that was running
 * ("vtest: start NAME" markers written by /init).
 */
#include "lib.h"

#include <string.h>

int main(void)
{
	char first[256] = "";
	int n;

	t_init("dmesg_check");
	n = kmsg_splats(first, sizeof(first));
	if (n < 0)
		t_bail("read /dev/kmsg", "%s", strerror(-n));
	t_ok(n == 0, "kernel log has no warnings, BUGs, lockdep/KASAN reports or OOM kills",
	     "%d suspicious lines, first: %s", n, first);
	return t_done();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Linked into the kernel's selftests built for the guest (initramfs.sh):
 * line-buffered stdout before main().  Their output goes to a pipe, where
 * stdio would buffer it whole; a forked child then prints the parent's
 * unflushed results again when it exits, and a test that is killed loses
 * every result it had not flushed.  The selftest sources stay untouched.
 */
#include <stdio.h>

static void __attribute__((constructor)) ksft_stdout_linebuf(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}

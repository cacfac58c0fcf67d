// SPDX-License-Identifier: GPL-2.0
/*
 * Ported from LLVM compiler-rt, test/lsan/TestCases/stale_stack_leak.cpp
 * (LeakSanitizer): the only pointer lies in a frame that has returned
 * (below the stack pointer): no root.
 * cflags: -O1
 * peer: detected
 * want: definitely 1337/1
 */
#include "peer.h"

void **pp;

__attribute__((noinline)) void *put_pointer_on_stale_stack(void *p)
{
	void *locals[2048];

	locals[0] = p;
	pp = &locals[0];
	__asm__ volatile("" : : "r"(locals) : "memory");
	return NULL;
}

int main(void)
{
	peer_start();
	put_pointer_on_stale_stack(malloc(1337));
	pp = NULL;
	return 0;
}

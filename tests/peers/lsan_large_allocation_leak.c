// SPDX-License-Identifier: GPL-2.0
/*
 * Ported from LLVM compiler-rt, test/lsan/TestCases/large_allocation_leak.cpp
 * (LeakSanitizer): a block of 18,000,000 bytes (from mmap) with no pointer
 * to it.
 * peer: detected
 * want: definitely 18000000/1
 */
#include "peer.h"

__attribute__((noinline)) static void leak(void)
{
	void *volatile p = malloc(18000000);

	(void)p;
}

int main(void)
{
	peer_start();
	leak();
	return 0;
}

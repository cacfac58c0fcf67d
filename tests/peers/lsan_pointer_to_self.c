// SPDX-License-Identifier: GPL-2.0
/*
 * Ported from LLVM compiler-rt, test/lsan/TestCases/pointer_to_self.cpp
 * (LeakSanitizer): a block that points to itself and nothing else does: a
 * pointer from inside the block keeps nothing reachable.
 * peer: detected
 * want: definitely 1337/1
 */
#include "peer.h"

__attribute__((noinline)) static void make(void)
{
	void *p = malloc(1337);

	*(void **)p = p;
}

int main(void)
{
	peer_start();
	make();
	return 0;
}

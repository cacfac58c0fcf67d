// SPDX-License-Identifier: GPL-2.0
/*
 * Ported from LLVM compiler-rt, test/lsan/TestCases/use_stacks.cpp
 * (LeakSanitizer): a block whose only pointer is a local of a frame still
 * live at the check (exit() called from inside it).
 * peer: not detected
 * want: definitely 0/0
 */
#include "peer.h"

int main(void)
{
	void *volatile stack_var;

	peer_start();
	stack_var = malloc(1337);
	exit(stack_var == NULL);
}

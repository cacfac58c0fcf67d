// SPDX-License-Identifier: GPL-2.0
/*
 * Ported from LLVM compiler-rt, test/lsan/TestCases/swapcontext.cpp
 * (LeakSanitizer), its second run: the coroutine's stack is an array on
 * main's stack, cleared after the coroutine ends: its 2,664-byte block is
 * lost.
 * peer: detected
 * want: definitely 2664/1
 */
#include <string.h>
#include <ucontext.h>
#include "peer.h"

#define STACK_SIZE (1 << 20)

static void child(void)
{
	int *volatile leaked = malloc(666 * sizeof(int));

	(void)leaked;
}

int main(void)
{
	static ucontext_t orig, ctx;
	char stack_memory[STACK_SIZE + 1] __attribute__((aligned(16)));

	peer_start();
	getcontext(&ctx);
	ctx.uc_stack.ss_sp = stack_memory;
	ctx.uc_stack.ss_size = STACK_SIZE / 2;
	ctx.uc_link = &orig;
	makecontext(&ctx, child, 0);
	if (swapcontext(&orig, &ctx) < 0)
		return 1;
	memset(stack_memory, 0, sizeof(stack_memory));
	return 0;
}

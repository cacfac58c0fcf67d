// SPDX-License-Identifier: GPL-2.0
/*
 * Ported from LLVM compiler-rt, test/lsan/TestCases/swapcontext.cpp
 * (LeakSanitizer), its first run: a coroutine (makecontext, swapcontext) on
 * a stack in the heap leaves the only pointer to its 2,664-byte block on
 * that stack, which is then freed.
 * peer: not detected
 * want: definitely 2664/1
 * differs: LeakSanitizer keeps quiet here on purpose (it cannot tell a
 *   coroutine's stack in the heap from data, and would rather miss a leak
 *   than report a false one). Nothing points to the block once the stack's
 *   memory is freed: it is lost, and a check that sees the heap as it is
 *   says so.
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
	char *heap_memory;
	ucontext_t orig, ctx;

	peer_start();
	heap_memory = malloc(STACK_SIZE + 1);
	getcontext(&ctx);
	ctx.uc_stack.ss_sp = heap_memory;
	ctx.uc_stack.ss_size = STACK_SIZE / 2;
	ctx.uc_link = &orig;
	makecontext(&ctx, child, 0);
	if (swapcontext(&orig, &ctx) < 0)
		return 1;
	free(heap_memory);
	return 0;
}

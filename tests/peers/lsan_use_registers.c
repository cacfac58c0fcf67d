// SPDX-License-Identifier: GPL-2.0
/*
 * Ported from LLVM compiler-rt, test/lsan/TestCases/use_registers.cpp
 * (LeakSanitizer): the only pointer is in a register (r15) of a thread that
 * still runs when the process exits.
 * peer: not detected
 * want: definitely 0/0
 */
#include <pthread.h>
#include <sched.h>
#include "peer.h"

static int sync_flag;

static void *registers_thread_func(void *arg)
{
	void *p = malloc(1337);

	(void)arg;
	__asm__ volatile("mov %0, %%r15" : : "r"(p) : "r15");
	p = NULL;
	__sync_fetch_and_xor(&sync_flag, 1);
	for (;;)
		sched_yield();
	return NULL;
}

int main(void)
{
	pthread_t t;

	peer_start();
	if (pthread_create(&t, NULL, registers_thread_func, NULL))
		return 1;
	while (!__sync_fetch_and_xor(&sync_flag, 0))
		sched_yield();
	return 0;
}

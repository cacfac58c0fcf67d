// SPDX-License-Identifier: GPL-2.0
/*
 * Ported from LLVM compiler-rt, test/lsan/TestCases/use_stacks_threaded.cpp
 * (LeakSanitizer): the only pointer is a local of a thread that still runs
 * when the process exits.
 * peer: not detected
 * want: definitely 0/0
 */
#include <pthread.h>
#include <sched.h>
#include "peer.h"

static int sync_flag;

static void *stacks_thread_func(void *arg)
{
	void *volatile p = malloc(1337);

	(void)arg;
	__sync_fetch_and_xor(&sync_flag, 1);
	for (;;)
		sched_yield();
	return (void *)p;
}

int main(void)
{
	pthread_t t;

	peer_start();
	if (pthread_create(&t, NULL, stacks_thread_func, NULL))
		return 1;
	while (!__sync_fetch_and_xor(&sync_flag, 0))
		sched_yield();
	return 0;
}

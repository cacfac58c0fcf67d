// SPDX-License-Identifier: GPL-2.0
/*
 * altstack: blocks given to sigaltstack(), as rustc's signal handler gives
 * its own: while a block is a thread's alternate signal stack the kernel
 * holds its address, and the program need keep none (rustc keeps none). A leak check that sees only the process's memory would
 * call such a block lost.
 *
 *   site_main_stack     malloc(40000): the main thread's alternate stack,
 *                       no pointer kept: still reachable
 *   site_thread_stack   malloc(50000): a waiting thread's, no pointer
 *                       kept: still reachable
 *   site_disabled       malloc(30000): an alternate stack given up
 *                       (SS_DISABLE), no pointer kept: definitely lost
 *   site_exited_stack   malloc(20000): the alternate stack of a thread that
 *                       ended, no pointer kept: definitely lost
 *
 *   altstack [wait]
 *
 * Returns from main (exit(0)) once the blocks are made; with "wait",
 * writes "ready PID" to $TL_READY instead and sleeps until killed.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>

#include "ledger.h"

static pthread_mutex_t g_hold = PTHREAD_MUTEX_INITIALIZER;
static volatile int g_thread_ready;

SITE void *site_main_stack(size_t n) { return malloc(n); }
SITE void *site_thread_stack(size_t n) { return malloc(n); }
SITE void *site_disabled(size_t n) { return malloc(n); }
SITE void *site_exited_stack(size_t n) { return malloc(n); }

/* the block at p becomes this thread's alternate signal stack */
__attribute__((noinline)) static void use_as_sig_stack(void *p, size_t n)
{
	stack_t st = { .ss_sp = p, .ss_size = n };

	lg_check(p && !sigaltstack(&st, NULL), "sigaltstack");
}

/* a thread with one, blocked until the process exits */
static void *waiter(void *arg)
{
	use_as_sig_stack(site_thread_stack(50000), 50000);
	g_thread_ready = 1;
	pthread_mutex_lock(&g_hold);
	pthread_mutex_unlock(&g_hold);
	return NULL;
}

/* a thread with one, which ends: its stack goes with it, the block stays */
static void *leaver(void *arg)
{
	use_as_sig_stack(site_exited_stack(20000), 20000);
	return NULL;
}

__attribute__((noinline)) static void make_blocks(void)
{
	stack_t off = { .ss_flags = SS_DISABLE };
	pthread_t t;

	lg_check(!pthread_create(&t, NULL, leaver, NULL), "pthread_create");
	lg_check(!pthread_join(t, NULL), "pthread_join");
	/* given up: the kernel forgets it */
	use_as_sig_stack(site_disabled(30000), 30000);
	lg_check(!sigaltstack(&off, NULL), "sigaltstack(SS_DISABLE)");
	use_as_sig_stack(site_main_stack(40000), 40000);
	pthread_mutex_lock(&g_hold);
	lg_check(!pthread_create(&t, NULL, waiter, NULL), "pthread_create");
	while (!g_thread_ready)
		usleep(1000);
}

int main(int argc, char **argv)
{
	make_blocks();
	lg_sink = NULL;
	lg_scrub_stack();
	if (argc > 1 && !strcmp(argv[1], "wait")) {
		tl_ready();
		for (;;)
			pause();
	}
	return 0;
}

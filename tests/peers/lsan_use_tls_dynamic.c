// SPDX-License-Identifier: GPL-2.0
/*
 * Ported from LLVM compiler-rt, test/lsan/TestCases/Linux/use_tls_dynamic.cpp
 * (LeakSanitizer): the only pointer is a TLS variable of a library loaded
 * by dlopen (dynamic TLS, reached through the thread's DTV), in the main
 * thread and in a thread that still runs at the exit.
 * peer: not detected
 * want: definitely 0/0
 */
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include "peer.h"

static void (*store)(void *);
static int sync_flag;

static void *tls_thread(void *arg)
{
	(void)arg;
	store(malloc(1337));
	__sync_fetch_and_xor(&sync_flag, 1);
	for (;;)
		sched_yield();
	return NULL;
}

int main(int argc, char **argv)
{
	char path[4096];
	pthread_t t;
	void *h;

	(void)argc;
	peer_start();
	snprintf(path, sizeof(path), "%s", argv[0]);
	*strrchr(path, '/') = '\0';
	strncat(path, "/libpeer_tls.so", sizeof(path) - strlen(path) - 1);
	h = dlopen(path, RTLD_NOW);
	if (!h || !(store = (void (*)(void *))dlsym(h, "peer_tls_store")))
		return 2;
	store(malloc(1337));
	if (pthread_create(&t, NULL, tls_thread, NULL))
		return 1;
	while (!__sync_fetch_and_xor(&sync_flag, 0))
		sched_yield();
	return 0;
}

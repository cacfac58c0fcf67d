// SPDX-License-Identifier: GPL-2.0
/*
 * reachable: the target of the leak check's benchmark (make bench, section
 * 17). Prints "ready PID", and on SIGUSR1 allocates MIB MiB in blocks of
 * BLOCK bytes, every one held by a global array (all reachable), writes
 * each, and prints "allocated N". A heartbeat thread ticks every 1 ms and
 * keeps the longest gap between two ticks: SIGUSR2 prints "gap MS" and
 * starts it afresh. SIGTERM ends it.
 *
 *   reachable MIB BLOCK
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void **blocks;
static volatile double longest_ms;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void *heartbeat(void *arg)
{
	struct timespec tick = { 0, 1000000 };
	double last = now_ms(), t;

	for (;;) {
		nanosleep(&tick, NULL);
		t = now_ms();
		if (t - last > longest_ms)
			longest_ms = t - last;
		last = t;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 64;
	size_t bsize = argc > 2 ? strtoul(argv[2], NULL, 10) : 65536;
	size_t n = (mib << 20) / (bsize ? bsize : 1), i;
	pthread_t t;
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);
	pthread_create(&t, NULL, heartbeat, NULL);
	printf("ready %d\n", getpid());
	fflush(stdout);
	for (;;) {
		if (sigwait(&set, &sig))
			return 1;
		if (sig == SIGUSR2) {
			printf("gap %.2f\n", longest_ms);
			fflush(stdout);
			longest_ms = 0;
			continue;
		}
		if (blocks)
			continue;
		blocks = calloc(n, sizeof(*blocks));
		for (i = 0; blocks && i < n; i++) {
			blocks[i] = malloc(bsize);
			if (blocks[i])
				memset(blocks[i], 1, bsize);
		}
		printf("allocated %zu\n", n);
		fflush(stdout);
	}
}

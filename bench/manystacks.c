// SPDX-License-Identifier: GPL-2.0
/*
 * 2^DEPTH distinct call stacks, one leaked block each, DEPTH + 5 frames deep:
 * for measuring how long symbolizing and writing a profile of that many
 * stacks takes, and what it costs a trace that goes on meanwhile.
 *
 *   manystacks DEPTH [SECS [THREADS]]
 *
 * Leaks the blocks, says "manystacks: leaked N blocks" on stderr, then sleeps
 * SECS seconds, so the profile can be written more than once:
 *   tracelloc -v -f out.fg -- manystacks 17 10   (then kill -USR1 it, twice)
 * With THREADS, it first says "manystacks: ready" and waits for SIGUSR1 (a
 * page of the heap before the leak reads the debug information it names),
 * and after the leak that many threads call malloc and free at full speed for
 * SECS seconds (3 frames below the loop), then it says
 *   manystacks: churn threads=T calls=N wall_s=W
 * (bench/scrape.sh fetches pages of the leak while that goes on).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 16

static void *volatile sink;
static double churn_end;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void a(int depth, unsigned path);
__attribute__((noinline)) static void b(int depth, unsigned path);

/* one frame per level: a and b each call either, from two call sites, so
 * the return addresses spell the path */
__attribute__((noinline)) static void a(int depth, unsigned path)
{
	if (depth == 0) {
		sink = malloc(16);
		return;
	}
	if (path & 1)
		a(depth - 1, path >> 1);
	else
		b(depth - 1, path >> 1);
	sink = sink;
}

__attribute__((noinline)) static void b(int depth, unsigned path)
{
	if (depth == 0) {
		sink = malloc(16);
		return;
	}
	if (path & 1)
		a(depth - 1, path >> 1);
	else
		b(depth - 1, path >> 1);
	sink = sink;
}

__attribute__((noinline)) static void *churn1(size_t n) { void *p = malloc(n); sink = p; return p; }
__attribute__((noinline)) static void *churn2(size_t n) { void *p = churn1(n); sink = p; return p; }
__attribute__((noinline)) static void *churn3(size_t n) { void *p = churn2(n); sink = p; return p; }

static void *churn(void *arg)
{
	unsigned long *calls = arg, i = 0;

	while (now_s() < churn_end) {
		/* the clock every 64 pairs: the loop is the allocator, not the clock */
		for (unsigned j = 0; j < 64; j++, i++)
			free(churn3(16 + i % 256));
	}
	*calls = 2 * i;
	return NULL;
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 17, secs = argc > 2 ? atoi(argv[2]) : 0;
	int nthreads = argc > 3 ? atoi(argv[3]) : 0, t;
	unsigned long calls[MAX_THREADS] = {}, total = 0;
	pthread_t threads[MAX_THREADS];
	unsigned path;
	sigset_t usr1;
	double start;
	int sig;

	if (nthreads > 0) {
		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		sigprocmask(SIG_BLOCK, &usr1, NULL);
		/* a stack through libc, for that page to name */
		sink = malloc(1);
		fprintf(stderr, "manystacks: ready\n");
		sigwait(&usr1, &sig);
	}
	for (path = 0; path < (1u << depth); path++)
		a(depth, path);
	fprintf(stderr, "manystacks: leaked %u blocks\n", 1u << depth);
	if (nthreads <= 0) {
		/* stay alive, so the profile can be written more than once (SIGUSR1) */
		sleep(secs);
		return 0;
	}
	if (nthreads > MAX_THREADS)
		nthreads = MAX_THREADS;
	start = now_s();
	churn_end = start + secs;
	for (t = 0; t < nthreads; t++)
		if (pthread_create(&threads[t], NULL, churn, &calls[t]))
			return 1;
	for (t = 0; t < nthreads; t++) {
		pthread_join(threads[t], NULL);
		total += calls[t];
	}
	fprintf(stderr, "manystacks: churn threads=%d calls=%lu wall_s=%.3f\n", nthreads, total,
		now_s() - start);
	return 0;
}

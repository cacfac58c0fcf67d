/*
 * leakstacks: a large profile, scraped while the target goes on allocating.
 *
 *   leakstacks LEVELS SECS
 *
 * Allocates one block from main (a stack through libc, for a first page to
 * name), writes "ready PID" to $TL_READY and waits for SIGUSR1. Then leaks
 * 2^LEVELS blocks from site_stacks_leak, each through its own call stack of
 * LEVELS + 6 frames (a path of LEVELS calls of a() and b(), each from one of
 * two call sites), says "leakstacks: leaked N" on stderr, and 2 threads churn
 * for SECS seconds: malloc and free from site_stacks_churn, throttled (a short
 * sleep every 16 pairs). Then it writes its ledger and exits.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <time.h>

#include "ledger.h"

#define NT 2

SITE void *site_stacks_leak(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

SITE void *site_stacks_churn(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

static long long leaked_bytes;

static size_t leak_size(unsigned path)
{
	return 16 + path % 64;
}

__attribute__((noinline)) static void a(int depth, unsigned path, size_t size);
__attribute__((noinline)) static void b(int depth, unsigned path, size_t size);

/* the return addresses spell the path: every stack is another */
__attribute__((noinline)) static void a(int depth, unsigned path, size_t size)
{
	if (depth == 0) {
		lg_check(site_stacks_leak(size) != NULL, "leak failed");
		return;
	}
	if (path & 1)
		a(depth - 1, path >> 1, size);
	else
		b(depth - 1, path >> 1, size);
	lg_sink = lg_sink;
}

__attribute__((noinline)) static void b(int depth, unsigned path, size_t size)
{
	if (depth == 0) {
		lg_check(site_stacks_leak(size) != NULL, "leak failed");
		return;
	}
	if (path & 1)
		a(depth - 1, path >> 1, size);
	else
		b(depth - 1, path >> 1, size);
	lg_sink = lg_sink;
}

static double t_end;
static sem_t done;
static long long churned[NT], churned_bytes[NT];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *churn(void *arg)
{
	size_t t = (size_t)(long)arg, n;
	struct timespec pause_ts = { 0, 100 * 1000 };
	long long i;

	for (i = 0; now() < t_end; i++) {
		n = 16 + (size_t)(i + 100 * t) % 500;
		free(site_stacks_churn(n));
		churned[t]++;
		churned_bytes[t] += (long long)n;
		if (i % 16 == 15)
			nanosleep(&pause_ts, NULL);
	}
	sem_post(&done);
	for (;;)
		pause(); /* park: no thread exit (see threads.c) */
	return NULL;
}

int main(int argc, char **argv)
{
	int levels = argc > 1 ? atoi(argv[1]) : 10, sig, t;
	double secs = argc > 2 ? atof(argv[2]) : 1;
	struct lg_site *site;
	unsigned path;
	pthread_t th;
	sigset_t usr1;

	if (levels < 0 || levels > 24)
		return 2;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	lg_sink = malloc(1);
	lg_declare("site_stacks_leak");
	lg_declare("site_stacks_churn");
	tl_ready();
	sigwait(&usr1, &sig);

	for (path = 0; path < (1u << levels); path++) {
		a(levels, path, leak_size(path));
		leaked_bytes += (long long)leak_size(path);
	}
	pthread_mutex_lock(&lg_mu);
	site = lg_get_locked("site_stacks_leak");
	site->count = site->live_count = 1LL << levels;
	site->allocated = site->live = leaked_bytes;
	pthread_mutex_unlock(&lg_mu);
	fprintf(stderr, "leakstacks: leaked %u\n", 1u << levels);

	sem_init(&done, 0, 0);
	t_end = now() + secs;
	for (t = 0; t < NT; t++)
		if (pthread_create(&th, NULL, churn, (void *)(long)t) != 0)
			return 1;
	for (t = 0; t < NT; t++)
		while (sem_wait(&done) != 0)
			;
	pthread_mutex_lock(&lg_mu);
	site = lg_get_locked("site_stacks_churn");
	for (t = 0; t < NT; t++) {
		site->count += churned[t];
		site->allocated += churned_bytes[t];
	}
	pthread_mutex_unlock(&lg_mu);
	lg_extra_line("churned %lld", churned[0] + churned[1]);
	return lg_write();
}

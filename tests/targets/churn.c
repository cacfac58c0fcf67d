/*
 * churn: NT threads cycling through malloc / calloc / realloc / memalign /
 * free on a ring of RING slots each, so that at most RING blocks per thread
 * are live at any time.
 *
 *   churn ITERS          each thread does ITERS operations, then the
 *                        ledger is written (exact, for launch mode)
 *   churn 0 SECS         each thread runs for SECS seconds (for attach
 *                        mode: attach and detach while it churns); "ready
 *                        PID" goes to $TL_READY once the threads run
 *
 * Operation i of thread t on slot s = i % RING, by i % 5:
 *   0: free(slot); slot = site_churn_malloc(16 + (7 i + 100 t) % 500)
 *   1: free(slot); slot = site_churn_calloc(1 + i % 10, 24 + 8 t)
 *   2: slot = site_churn_realloc(slot, 32 + (13 i + 50 t) % 2000)
 *   3: free(slot); slot = NULL
 *   4: free(slot); slot = site_churn_memalign(64, 100 + (i + t) % 300)
 * Threads throttle themselves (a short sleep every 16 operations) so that
 * a tracer is not flooded.  They park instead of exiting (see threads.c).
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "ledger.h"

#define NT 3
#define RING 8

SITE void *site_churn_malloc(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

SITE void *site_churn_calloc(size_t n, size_t m)
{
	void *p = calloc(n, m);
	lg_sink = p;
	return p;
}

SITE void *site_churn_realloc(void *old, size_t n)
{
	void *p = realloc(old, n);
	lg_sink = p;
	return p;
}

SITE void *site_churn_memalign(size_t align, size_t n)
{
	void *p = memalign(align, n);
	lg_sink = p;
	return p;
}

static long iters;
static double secs;
static double t_end;
static sem_t started, done;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct slot {
	void *p;
	const char *site;
	size_t size;
};

static void release(struct slot *s)
{
	if (s->p) {
		free(s->p);
		lg_free(s->site, s->size);
	}
	s->p = NULL;
}

static void *worker(void *arg)
{
	size_t t = (size_t)(long)arg;
	struct slot ring[RING] = { { 0 } };
	struct timespec pause_ts = { 0, 200 * 1000 };
	long i;

	sem_post(&started);
	for (i = 0; iters ? i < iters : now() < t_end; i++) {
		struct slot *s = &ring[i % RING];
		size_t ui = (size_t)i, n;
		void *p;

		switch (i % 5) {
		case 0:
			release(s);
			n = 16 + (7 * ui + 100 * t) % 500;
			p = site_churn_malloc(n);
			lg_alloc("site_churn_malloc", n);
			*s = (struct slot){ p, "site_churn_malloc", n };
			break;
		case 1:
			release(s);
			n = (1 + ui % 10) * (24 + 8 * t);
			p = site_churn_calloc(1 + ui % 10, 24 + 8 * t);
			lg_alloc("site_churn_calloc", n);
			*s = (struct slot){ p, "site_churn_calloc", n };
			break;
		case 2:
			n = 32 + (13 * ui + 50 * t) % 2000;
			p = site_churn_realloc(s->p, n);
			if (s->p)
				lg_free(s->site, s->size);
			lg_alloc("site_churn_realloc", n);
			*s = (struct slot){ p, "site_churn_realloc", n };
			break;
		case 3:
			release(s);
			break;
		default:
			release(s);
			n = 100 + (ui + t) % 300;
			p = site_churn_memalign(64, n);
			lg_alloc("site_churn_memalign", n);
			*s = (struct slot){ p, "site_churn_memalign", n };
			break;
		}
		lg_check(i % 5 == 3 || s->p != NULL, "allocation failed");
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
	pthread_t th;
	int i;

	iters = argc >= 2 ? atol(argv[1]) : 2000;
	secs = argc >= 3 ? atof(argv[2]) : 0;
	if (iters <= 0 && secs <= 0)
		secs = 10;
	t_end = now() + secs;
	sem_init(&started, 0, 0);
	sem_init(&done, 0, 0);
	for (i = 0; i < NT; i++)
		if (pthread_create(&th, NULL, worker, (void *)(long)i) != 0)
			return 1;
	for (i = 0; i < NT; i++)
		while (sem_wait(&started) != 0)
			;
	tl_ready();
	for (i = 0; i < NT; i++)
		while (sem_wait(&done) != 0)
			;
	lg_extra_line("max-live-count %d", NT * RING);
	return lg_write();
}

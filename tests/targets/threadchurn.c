/*
 * threadchurn: thousands of short-lived threads, each allocating and freeing
 * a little, a few dozen alive at a time. Per-thread state in the tracer must
 * follow each of them and go away with them.
 *
 *   threadchurn [THREADS]   (default 2000, in waves of 50)
 *
 * Ledger (all exact; see ledger.h), thread i of THREADS:
 *   site_thread_keep    1 x malloc(16 + i % 64) each, kept until main frees
 *                       them all at the end
 *   site_thread_temp    2 x malloc(200) each, freed by the thread
 */
#include <pthread.h>
#include <stdlib.h>

#include "ledger.h"

#define WAVE 50

SITE void *site_thread_keep(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

SITE void *site_thread_temp(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

static void **kept;

static void *worker(void *arg)
{
	long i = (long)arg;
	size_t n = 16 + (size_t)(i % 64);
	void *a, *b;

	kept[i] = site_thread_keep(n);
	lg_check(kept[i] != NULL, "malloc(%zu) failed", n);
	lg_alloc("site_thread_keep", n);
	a = site_thread_temp(200);
	b = site_thread_temp(200);
	lg_check(a && b, "malloc(200) failed");
	lg_alloc("site_thread_temp", 200);
	lg_alloc("site_thread_temp", 200);
	free(a);
	lg_free("site_thread_temp", 200);
	free(b);
	lg_free("site_thread_temp", 200);
	return NULL;
}

int main(int argc, char **argv)
{
	long threads = argc > 1 ? atol(argv[1]) : 2000, i, j;
	pthread_t wave[WAVE];

	lg_check(threads > 0, "usage: threadchurn [THREADS]");
	kept = calloc((size_t)threads, sizeof(*kept));
	lg_check(kept != NULL, "calloc failed");
	for (i = 0; i < threads; i += WAVE) {
		for (j = 0; j < WAVE && i + j < threads; j++)
			lg_check(pthread_create(&wave[j], NULL, worker, (void *)(i + j)) == 0,
				 "pthread_create failed");
		for (j = 0; j < WAVE && i + j < threads; j++)
			pthread_join(wave[j], NULL);
	}
	for (i = 0; i < threads; i++) {
		free(kept[i]);
		lg_free("site_thread_keep", 16 + (size_t)(i % 64));
	}
	free(kept);
	return lg_write();
}

/*
 * reuse: an address freed by one thread is returned by the next malloc of
 * another thread.  A tracer that applies thread A's free after thread B's
 * allocation of the same address (events handled out of order) loses B's
 * block (live bytes too low) or counts an unknown free.
 *
 * To make reuse happen: one arena (mallopt(M_ARENA_MAX, 1)), run with
 * GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (no per-thread cache), a size
 * above the fastbin range, and A and B strictly alternating on semaphores:
 *
 *   A: p = site_reuse_a(SZ); free(p); post(B)          then waits for B
 *   B: q = site_reuse_b(SZ); reused += (q == p);
 *      free(q) except on the last iteration; post(A)
 *
 * so A's malloc also tends to get B's freed block back.
 * The expect file says "reused N" (iterations where B got A's address) and
 * "reused_back N" (A got B's previous address).  The ledger is exact either
 * way; the harness requires reused >= 1.
 *
 * A and B exit (and are joined): their glibc caches are freed, which are
 * not unknown frees (see threads.c).
 */
#include <malloc.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>

#include "ledger.h"

#define ITERS 200
#define SZ 1200

SITE void *site_reuse_a(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

SITE void *site_reuse_b(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

static sem_t sem_a, sem_b;
static void *volatile last_a, *volatile last_b;
static int reused, reused_back;
static void *final_b;

static void *thread_a(void *arg)
{
	int it;

	(void)arg;
	for (it = 0; it < ITERS; it++) {
		void *p = site_reuse_a(SZ);

		lg_check(p != NULL, "malloc in A");
		lg_alloc("site_reuse_a", SZ);
		if (it > 0 && p == last_b)
			reused_back++;
		last_a = p;
		free(p);
		lg_free("site_reuse_a", SZ);
		sem_post(&sem_b);
		while (sem_wait(&sem_a) != 0)
			;
	}
	return NULL;
}

static void *thread_b(void *arg)
{
	int it;

	(void)arg;
	for (it = 0; it < ITERS; it++) {
		void *q;

		while (sem_wait(&sem_b) != 0)
			;
		q = site_reuse_b(SZ);
		lg_check(q != NULL, "malloc in B");
		lg_alloc("site_reuse_b", SZ);
		if (q == last_a)
			reused++;
		last_b = q;
		if (it < ITERS - 1) {
			free(q);
			lg_free("site_reuse_b", SZ);
		} else {
			final_b = q;
		}
		sem_post(&sem_a);
	}
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	mallopt(M_ARENA_MAX, 1);
	sem_init(&sem_a, 0, 0);
	sem_init(&sem_b, 0, 0);
	pthread_create(&a, NULL, thread_a, NULL);
	pthread_create(&b, NULL, thread_b, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	lg_extra_line("reused %d", reused);
	lg_extra_line("reused_back %d", reused_back);
	lg_sink = final_b;
	return lg_write();
}

/*
 * threads: NT threads allocate concurrently, each with its own sizes (a
 * tracer that keeps the size seen at malloc entry in one shared slot instead
 * of per thread gets the bytes wrong), and free blocks that a *different*
 * thread allocated.
 *
 * Worker i, for each of ROUNDS rounds (all workers start a round together):
 *   PER   x site_thread<i>_malloc(MSIZE[i])        (malloc)
 *   1     x site_thread<i>_calloc(i + 2, CSIZE[i])  (calloc)
 *   barrier, then it frees the round's malloc blocks of worker (i+1) % NT
 *   whose index k is not a multiple of 4 (cross-thread frees).
 * After joining the workers, main frees the calloc blocks of the odd
 * workers (cross-thread again).
 *
 * The workers exit.  An exiting thread makes glibc call free() on every
 * block sitting in its per-thread cache (tcache: blocks the program had
 * already freed) and on the cache struct itself (allocated by glibc
 * internally, never through malloc).  None of those is a block allocated
 * before tracing began, so unknown frees must stay 0 (and they are not
 * frees of known blocks either: the invariant live = calls - frees holds).
 */
#include <pthread.h>
#include <stdlib.h>

#include "ledger.h"

#define NT 5
#define ROUNDS 16
#define PER 8

static const size_t MSIZE[NT] = { 40, 136, 520, 1400, 3000 };
static const size_t CSIZE[NT] = { 8, 24, 56, 88, 120 };

#define DEF_SITES(i)                                                          \
	SITE void *site_thread##i##_malloc(size_t n)                          \
	{                                                                     \
		void *p = malloc(n);                                          \
		lg_sink = p;                                                  \
		return p;                                                     \
	}                                                                     \
	SITE void *site_thread##i##_calloc(size_t nmemb, size_t size)        \
	{                                                                     \
		void *p = calloc(nmemb, size);                                \
		lg_sink = p;                                                  \
		return p;                                                     \
	}

DEF_SITES(0)
DEF_SITES(1)
DEF_SITES(2)
DEF_SITES(3)
DEF_SITES(4)

typedef void *(*malloc_site_fn)(size_t);
typedef void *(*calloc_site_fn)(size_t, size_t);

static malloc_site_fn const msite[NT] = {
	site_thread0_malloc, site_thread1_malloc, site_thread2_malloc,
	site_thread3_malloc, site_thread4_malloc,
};
static calloc_site_fn const csite[NT] = {
	site_thread0_calloc, site_thread1_calloc, site_thread2_calloc,
	site_thread3_calloc, site_thread4_calloc,
};
static const char *const mname[NT] = {
	"site_thread0_malloc", "site_thread1_malloc", "site_thread2_malloc",
	"site_thread3_malloc", "site_thread4_malloc",
};
static const char *const cname[NT] = {
	"site_thread0_calloc", "site_thread1_calloc", "site_thread2_calloc",
	"site_thread3_calloc", "site_thread4_calloc",
};

static void *mblocks[NT][ROUNDS][PER];
static void *cblocks[NT][ROUNDS];
static pthread_barrier_t bar;

static void *worker(void *arg)
{
	int i = (int)(long)arg;
	int j = (i + 1) % NT;
	int r, k;

	for (r = 0; r < ROUNDS; r++) {
		pthread_barrier_wait(&bar);
		for (k = 0; k < PER; k++) {
			void *p = msite[i](MSIZE[i]);

			lg_check(p != NULL, "malloc in thread %d", i);
			lg_alloc(mname[i], MSIZE[i]);
			mblocks[i][r][k] = p;
			if (k == PER / 2) {
				size_t nm = (size_t)i + 2;

				p = csite[i](nm, CSIZE[i]);
				lg_check(p != NULL, "calloc in thread %d", i);
				lg_alloc(cname[i], nm * CSIZE[i]);
				cblocks[i][r] = p;
			}
		}
		pthread_barrier_wait(&bar);
		for (k = 0; k < PER; k++) {
			if (k % 4 == 0)
				continue;
			free(mblocks[j][r][k]);
			lg_free(mname[j], MSIZE[j]);
			mblocks[j][r][k] = NULL;
		}
	}
	return NULL;
}

int main(void)
{
	pthread_t th[NT];
	int i, r;

	pthread_barrier_init(&bar, NULL, NT);
	for (i = 0; i < NT; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)(long)i) != 0) {
			perror("pthread_create");
			return 1;
		}
	for (i = 0; i < NT; i++)
		pthread_join(th[i], NULL);

	for (i = 1; i < NT; i += 2)
		for (r = 0; r < ROUNDS; r++) {
			free(cblocks[i][r]);
			lg_free(cname[i], ((size_t)i + 2) * CSIZE[i]);
		}

	lg_sink = mblocks;
	return lg_write();
}

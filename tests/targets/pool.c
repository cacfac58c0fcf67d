/*
 * pool: threads with names, as a server's pools have them (--per-thread).
 * Each thread names itself (pthread_setname_np) and allocates; the ledger
 * books the bytes per site and, as "thread NAME BYTES" lines, per thread
 * name: a block belongs to the thread that allocated it, wherever it is
 * freed and whether or not that thread still runs.
 *
 *   site_main        main thread ("pool"): 2 x malloc(100), kept
 *   site_worker      3 threads "worker": malloc(1000) kept and malloc(10)
 *                    freed by the main thread after they exit
 *   site_io          2 threads "io": malloc(300), kept
 *   site_late        1 thread allocates 50 before it names itself (so as
 *                    "pool", the name it inherits) and 70 after ("late")
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>

#include "ledger.h"

SITE void *site_main(size_t n) { void *p = malloc(n); lg_sink = p; return p; }
SITE void *site_worker(size_t n) { void *p = malloc(n); lg_sink = p; return p; }
SITE void *site_io(size_t n) { void *p = malloc(n); lg_sink = p; return p; }
SITE void *site_late(size_t n) { void *p = malloc(n); lg_sink = p; return p; }

static void *freed_later[3];

static void *worker(void *arg)
{
	long i = (long)arg;

	pthread_setname_np(pthread_self(), "worker");
	lg_check(site_worker(1000) != NULL, "malloc");
	lg_alloc("site_worker", 1000);
	freed_later[i] = site_worker(10);
	lg_alloc("site_worker", 10);
	return NULL;
}

static void *io(void *arg)
{
	pthread_setname_np(pthread_self(), "io");
	lg_check(site_io(300) != NULL, "malloc");
	lg_alloc("site_io", 300);
	return arg;
}

static void *late(void *arg)
{
	lg_check(site_late(50) != NULL, "malloc");
	lg_alloc("site_late", 50);
	pthread_setname_np(pthread_self(), "late");
	lg_check(site_late(70) != NULL, "malloc");
	lg_alloc("site_late", 70);
	return arg;
}

static void run(void *(*fn)(void *), long arg)
{
	pthread_t t;

	lg_check(pthread_create(&t, NULL, fn, (void *)arg) == 0, "pthread_create");
	pthread_join(t, NULL);
}

int main(void)
{
	long i;

	for (i = 0; i < 2; i++) {
		lg_check(site_main(100) != NULL, "malloc");
		lg_alloc("site_main", 100);
	}
	for (i = 0; i < 3; i++)
		run(worker, i);
	for (i = 0; i < 3; i++) {
		free(freed_later[i]);
		lg_free("site_worker", 10);
	}
	for (i = 0; i < 2; i++)
		run(io, i);
	run(late, 0);
	lg_extra_line("thread pool %d", 2 * 100 + 50);
	lg_extra_line("thread worker %d", 3 * 1000);
	lg_extra_line("thread io %d", 2 * 300);
	lg_extra_line("thread late %d", 70);
	return lg_write();
}

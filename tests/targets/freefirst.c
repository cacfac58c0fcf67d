/*
 * freefirst: threads whose first allocator call is free(). glibc sets up
 * a thread's cache, and with it a new arena (a 64 MiB reservation), inside
 * that free; other allocators set up their own state in it too. Those
 * mappings are the allocator's, not the program's: no mmap is counted.
 *
 *   site_ff_main     NT x malloc(200) by main, each freed by a thread as
 *                    its first allocator call: nothing live
 *   site_ff_thread   then 1 x malloc(100) per thread, kept: NT x 100 live
 */
#include <pthread.h>
#include <stdlib.h>

#include "ledger.h"

#define NT 4

static void *blocks[NT];
static void *kept[NT];

SITE void *site_ff_main(size_t n)
{
	void *p = malloc(n);

	lg_sink = p;
	return p;
}

SITE void *site_ff_thread(size_t n)
{
	void *p = malloc(n);

	lg_sink = p;
	return p;
}

static void *worker(void *arg)
{
	long i = (long)arg;

	free(blocks[i]);
	kept[i] = site_ff_thread(100);
	return NULL;
}

int main(void)
{
	pthread_t th[NT];
	int i;

	for (i = 0; i < NT; i++)
		if ((blocks[i] = site_ff_main(200)))
			lg_alloc("site_ff_main", 200);
	/* alive together: each one's first free makes an arena of its own */
	for (i = 0; i < NT; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)(long)i) != 0) {
			perror("pthread_create");
			return 1;
		}
	for (i = 0; i < NT; i++) {
		pthread_join(th[i], NULL);
		lg_free("site_ff_main", 200);
		if (kept[i])
			lg_alloc("site_ff_thread", 100);
	}
	lg_sink = kept;
	return lg_write();
}

/*
 * nofp_chain: built without frame pointers (NOFP_CFLAGS), as distributions
 * build their code: a frame-pointer walk loses the callers, the unwind
 * tables find every one of them.
 *
 * Ledger (all exact; see ledger.h):
 *   chain5    3 x malloc(40) from main through chain1..chain5, and 2 x
 *             malloc(55) from a thread (worker) through the same chain; leaked
 *   dup_site  2 x strdup of a 29-character string (30 bytes): glibc's
 *             __strdup uses rbp as a general register; leaked
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ledger.h"

/* each frame holds locals of its own size: its CFA is rsp plus that */
#define CHAIN(name, next, locals)                          \
	SITE void *name(size_t n)                          \
	{                                                  \
		volatile char buf[locals];                 \
		void *p;                                   \
                                                           \
		buf[0] = (char)n;                          \
		p = next(n + buf[0] - (char)n);            \
		buf[locals - 1] = buf[0];                  \
		lg_sink = p;                               \
		return p;                                  \
	}

CHAIN(chain5, malloc, 24)
CHAIN(chain4, chain5, 72)
CHAIN(chain3, chain4, 200)
CHAIN(chain2, chain3, 16)
CHAIN(chain1, chain2, 520)

static const char text[] = "twenty-nine characters here!!";

SITE char *dup_site(void)
{
	char *p = strdup(text);

	lg_sink = p;
	return p;
}

static void *worker(void *arg)
{
	int i;

	for (i = 0; i < 2; i++) {
		lg_sink = chain1(55);
		lg_check(lg_sink != NULL, "malloc(55) failed");
	}
	return NULL;
}

int main(void)
{
	pthread_t thread;
	int i;

	for (i = 0; i < 3; i++) {
		lg_check(chain1(40) != NULL, "malloc(40) failed");
		lg_alloc("chain5", 40);
	}
	lg_check(pthread_create(&thread, NULL, worker, NULL) == 0, "pthread_create failed");
	lg_check(pthread_join(thread, NULL) == 0, "pthread_join failed");
	lg_alloc("chain5", 55);
	lg_alloc("chain5", 55);
	for (i = 0; i < 2; i++) {
		lg_check(dup_site() != NULL, "strdup failed");
		lg_alloc("dup_site", sizeof(text));
	}
	return lg_write();
}

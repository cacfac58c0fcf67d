/*
 * attach: for "tracelloc -p PID".
 *
 * Before the tracer attaches:
 *   - NPRE blocks malloc(512) at site_pre_alloc (the tracer never sees them),
 *   - one thread ("old thread") that will allocate only after attach,
 *   - then "ready PID" is written to $TL_READY and the target waits for
 *     SIGUSR1 (or gives up after 60 s).
 * After SIGUSR1 (the harness sends it once the tracer printed its
 * "attached to pid" line):
 *   - the NPRE pre-attach blocks are released: NPRE - NPRE_REALLOC by free()
 *     and NPRE_REALLOC by realloc() at site_realloc_unknown.  All are
 *     releases of unknown blocks (nothing else allocated before attach is
 *     released after it), and each realloc is also an allocation call at
 *     site_realloc_unknown,
 *   - site_post_alloc: 10 x malloc(256), 4 of them freed,
 *   - NEW_THREADS new threads (created after attach, so the tracer must
 *     follow new threads) each make 5 x malloc(100 * (i + 1)) at
 *     site_new_thread<i>, freeing 2,
 *   - the old thread makes 3 x malloc(700) at site_old_thread_alloc, frees 1.
 * All the threads then exit (their glibc caches are freed: not unknown
 * frees, see threads.c) and are joined.
 * site_pre_alloc must show 0 everywhere, and unknown frees must be exactly
 * NPRE.
 */
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "ledger.h"

#define NPRE 16
#define NPRE_REALLOC 2
#define NEW_THREADS 4

SITE void *site_pre_alloc(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

SITE void *site_realloc_unknown(void *old, size_t n)
{
	void *p = realloc(old, n);
	lg_sink = p;
	return p;
}

SITE void *site_post_alloc(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

SITE void *site_old_thread_alloc(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

#define NEW_THREAD_SITE(i)                                                    \
	SITE void *site_new_thread##i(size_t n)                               \
	{                                                                     \
		void *p = malloc(n);                                          \
		lg_sink = p;                                                  \
		return p;                                                     \
	}
NEW_THREAD_SITE(0)
NEW_THREAD_SITE(1)
NEW_THREAD_SITE(2)
NEW_THREAD_SITE(3)

typedef void *(*site_fn)(size_t);
static site_fn const new_site[NEW_THREADS] = {
	site_new_thread0, site_new_thread1, site_new_thread2, site_new_thread3,
};
static const char *const new_name[NEW_THREADS] = {
	"site_new_thread0", "site_new_thread1", "site_new_thread2", "site_new_thread3",
};

static sem_t go_old;
static void *keep[128];
static int nkeep;
static pthread_mutex_t keep_mu = PTHREAD_MUTEX_INITIALIZER;

static void keep_block(void *p)
{
	pthread_mutex_lock(&keep_mu);
	keep[nkeep++] = p;
	pthread_mutex_unlock(&keep_mu);
}

static void *old_thread(void *arg)
{
	int i;

	(void)arg;
	while (sem_wait(&go_old) != 0)
		;
	for (i = 0; i < 3; i++) {
		void *p = site_old_thread_alloc(700);

		lg_check(p != NULL, "malloc(700)");
		lg_alloc("site_old_thread_alloc", 700);
		if (i == 1) {
			free(p);
			lg_free("site_old_thread_alloc", 700);
		} else {
			keep_block(p);
		}
	}
	return NULL;
}

static void *new_thread(void *arg)
{
	int t = (int)(long)arg;
	size_t n = 100 * (size_t)(t + 1);
	int i;

	for (i = 0; i < 5; i++) {
		void *p = new_site[t](n);

		lg_check(p != NULL, "malloc in new thread");
		lg_alloc(new_name[t], n);
		if (i % 2 == 1) {
			free(p);
			lg_free(new_name[t], n);
		} else {
			keep_block(p);
		}
	}
	return NULL;
}

int main(void)
{
	void *pre[NPRE];
	pthread_t old, th[NEW_THREADS];
	sigset_t set;
	siginfo_t si;
	struct timespec limit = { 60, 0 };
	int i;

	/* SIGUSR1 blocked in every thread; main takes it with sigtimedwait */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	sem_init(&go_old, 0, 0);
	if (pthread_create(&old, NULL, old_thread, NULL) != 0)
		return 1;

	for (i = 0; i < NPRE; i++)
		pre[i] = site_pre_alloc(512);
	lg_declare("site_pre_alloc"); /* untraced: 0 everywhere */

	tl_ready();
	if (sigtimedwait(&set, &si, &limit) != SIGUSR1) {
		static const char msg[] = "attach: no SIGUSR1 within 60 s\n";
		ssize_t w = write(2, msg, sizeof(msg) - 1);
		(void)w;
		return 2;
	}

	/* ---- traced from here on ---- */
	for (i = 0; i < NPRE - NPRE_REALLOC; i++)
		free(pre[i]);
	for (; i < NPRE; i++) {
		void *p = site_realloc_unknown(pre[i], 2000);

		lg_check(p != NULL, "realloc of a pre-attach block");
		lg_alloc("site_realloc_unknown", 2000);
		keep_block(p);
	}
	lg_unknown_frees = NPRE;

	for (i = 0; i < 10; i++) {
		void *p = site_post_alloc(256);

		lg_check(p != NULL, "malloc(256)");
		lg_alloc("site_post_alloc", 256);
		if (i % 3 == 0 && i > 0) { /* i = 3, 6, 9 */
			free(p);
			lg_free("site_post_alloc", 256);
		} else if (i == 4) {
			free(p);
			lg_free("site_post_alloc", 256);
		} else {
			keep_block(p);
		}
	}

	for (i = 0; i < NEW_THREADS; i++)
		if (pthread_create(&th[i], NULL, new_thread, (void *)(long)i) != 0)
			return 1;
	sem_post(&go_old);
	for (i = 0; i < NEW_THREADS; i++)
		pthread_join(th[i], NULL);
	pthread_join(old, NULL);

	lg_sink = keep;
	return lg_write();
}

/*
 * hostile: names a terminal would obey. The process calls itself
 * "\033]0;pwned\007" (a window title change) and starts a thread called
 * "x\n\033[2Jy" (a newline and a clear screen), each allocating and keeping
 * a block, so that both names reach every output: a report must show them
 * escaped, never raw.
 *
 *   site_hostile_main     1 x malloc(1000), kept
 *   site_hostile_thread   1 x malloc(2000), kept
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/prctl.h>

#include "ledger.h"

SITE void *site_hostile_main(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

SITE void *site_hostile_thread(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

static void *thread(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "x\n\033[2Jy");
	site_hostile_thread(2000);
	return NULL;
}

int main(void)
{
	pthread_t t;

	prctl(PR_SET_NAME, "\033]0;pwned\007");
	site_hostile_main(1000);
	pthread_create(&t, NULL, thread, NULL);
	pthread_join(t, NULL);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The baseline mark's target: a cache filled first (10 blocks of 1000 bytes,
 * kept), then "ready"; on SIGUSR1 (sent once the harness has set the mark) a
 * leak of 20 blocks of 100 bytes (kept) and a burst of 50 blocks of 500 bytes
 * (freed), then "done" and it sleeps until killed. What is live of what was
 * allocated since the mark: the leak's 2000 bytes in 20 blocks, nothing else.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ledger.h"


static void *g_cache[10], *g_leak[20];

SITE void *site_cache(size_t n) { return malloc(n); }
SITE void *site_leak(size_t n) { return malloc(n); }
SITE void *site_burst(size_t n) { return malloc(n); }

/* $TL_READY.done made: the second phase is over */
static void done(void)
{
	const char *ready = getenv("TL_READY");
	char path[4096];
	int fd;

	if (!ready)
		return;
	snprintf(path, sizeof(path), "%s.done", ready);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0)
		close(fd);
}

int main(void)
{
	void *burst[50];
	sigset_t set;
	int i, sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	for (i = 0; i < 10; i++)
		g_cache[i] = memset(site_cache(1000), 1, 1000);
	tl_ready();
	sigwait(&set, &sig);
	for (i = 0; i < 20; i++)
		g_leak[i] = memset(site_leak(100), 2, 100);
	for (i = 0; i < 50; i++)
		burst[i] = memset(site_burst(500), 3, 500);
	for (i = 0; i < 50; i++)
		free(burst[i]);
	lg_sink = g_cache[0];
	lg_sink = g_leak[0];
	done();
	for (;;)
		pause();
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The peers' leak cases (tests/peers.sh): each case is a program of its own,
 * run under --leak-check, checked at its exit. With PEER_GO set (the -p
 * runs), a case waits for that file before it allocates: tracelloc attaches
 * first. A case whose peer checks while it runs (valgrind's
 * VALGRIND_DO_LEAK_CHECK) calls peer_check() there: it writes $PEER_READY,
 * and waits until $PEER_DONE exists (the script has had tracelloc check it
 * by SIGUSR1 meanwhile).
 */
#ifndef PEER_H
#define PEER_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static inline void wait_for(const char *path);

static inline void peer_start(void)
{
	wait_for(getenv("PEER_GO"));
}

static inline void wait_for(const char *path)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	int i;

	for (i = 0; path && i < 3000 && access(path, F_OK); i++)
		nanosleep(&tick, NULL);
}

static inline void peer_check(void)
{
	const char *ready = getenv("PEER_READY");
	FILE *f = ready ? fopen(ready, "w") : NULL;

	if (f)
		fclose(f);
	wait_for(getenv("PEER_DONE"));
}

#endif

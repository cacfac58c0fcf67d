// SPDX-License-Identifier: GPL-2.0
/*
 * atexit_drop: blocks whose fate is decided by an atexit handler, as a C++
 * program's destructors decide a container's: the leak check at the exit
 * comes once the handlers ran, as valgrind's and LeakSanitizer's do.
 *   site_dropped_at_exit  malloc(300): held by a global the handler clears
 *                         without freeing it: definitely lost
 *   site_kept             malloc(200): held by a global: still reachable
 *   site_freed_at_exit    malloc(150): freed by the handler: not live
 * With "spawn", first posix_spawn()s a program that does not exist: glibc's
 * child (sharing this process's memory, as vfork's) calls _exit when its
 * exec fails, and must not be held there.
 */
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "ledger.h"

static void *volatile g_registry, *volatile g_kept, *volatile g_scratch;

SITE void *site_dropped_at_exit(void) { return malloc(300); }
SITE void *site_kept(void) { return malloc(200); }
SITE void *site_freed_at_exit(void) { return malloc(150); }

static void at_exit(void)
{
	free(g_scratch);
	g_scratch = NULL;
	g_registry = NULL;	/* let go of, not freed */
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "spawn")) {
		char *args[] = { "/nonexistent/tracelloc-test", NULL };
		pid_t pid;
		int status;

		if (!posix_spawn(&pid, args[0], NULL, NULL, args, NULL))
			waitpid(pid, &status, 0);
	}
	g_registry = memset(site_dropped_at_exit(), 1, 300);
	g_kept = memset(site_kept(), 2, 200);
	g_scratch = memset(site_freed_at_exit(), 3, 150);
	atexit(at_exit);
	return 0;
}

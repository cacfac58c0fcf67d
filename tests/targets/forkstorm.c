/*
 * forkstorm: keeps WIDTH short-lived children alive for SECS seconds, each
 * allocating a little and exiting after 20 ms (CHILD_MS); the parent reaps them with
 * waitpid(-1), so a child left stopped hangs it.
 *
 *   forkstorm SECS WIDTH [CHILD_MS]
 *
 * Writes "ready PID" to $TL_READY before the first fork, and exits 0 after
 * SECS (when every child came back), printing "forked N".
 *
 *   site_storm_child   1 x malloc(100) in each child, freed
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ledger.h"

SITE void *site_storm_child(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 5, end;
	int width = argc > 2 ? atoi(argv[2]) : 4, alive = 0, forked = 0;
	int child_ms = argc > 3 ? atoi(argv[3]) : 20;
	pid_t child;

	tl_ready();
	end = now_s() + secs;
	while (now_s() < end || alive) {
		while (alive < width && now_s() < end) {
			child = fork();
			if (child < 0)
				break;
			if (child == 0) {
				free(site_storm_child(100));
				usleep((useconds_t)child_ms * 1000);
				_exit(0);
			}
			alive++;
			forked++;
		}
		if (wait(NULL) > 0)
			alive--;
		else
			alive = 0;
	}
	printf("forked %d\n", forked);
	return 0;
}

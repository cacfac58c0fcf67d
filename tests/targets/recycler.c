/*
 * recycler: a server that recycles its workers, as a process-per-request
 * server does (PostgreSQL's backends, prefork, a pool with
 * maxtasksperchild=1). The parent forks N workers, WIDTH at a time; each
 * makes 3 calls at site_request (64, 128 and 256 bytes), frees the first
 * two and exits holding the last: a leak that lives as long as the worker.
 * The parent holds one block of 1000 bytes at site_server from before the
 * first fork.
 *
 *   recycler N [WIDTH]
 *
 * Writes "ready PID" to $TL_READY before the first fork and exits 0 once
 * every worker came back, printing "workers N".
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ledger.h"

SITE void *site_server(size_t n)
{
	return lg_sink = malloc(n);
}

SITE void *site_request(size_t n)
{
	return lg_sink = malloc(n);
}

static void request(void)
{
	void *a = site_request(64), *b = site_request(128);

	site_request(256);
	free(a);
	free(b);
	_exit(0);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100, width = argc > 2 ? atoi(argv[2]) : 4;
	int started = 0, alive = 0, status;
	pid_t pid;

	site_server(1000);
	tl_ready();
	while (started < n || alive) {
		while (started < n && alive < width) {
			pid = fork();
			if (pid < 0)
				return 1;
			if (pid == 0)
				request();
			started++;
			alive++;
		}
		pid = waitpid(-1, &status, 0);
		if (pid < 0)
			return 1;
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			return 1;
		alive--;
	}
	printf("workers %d\n", started);
	return 0;
}

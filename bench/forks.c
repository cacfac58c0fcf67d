// SPDX-License-Identifier: GPL-2.0
/*
 * forks: what a fork costs a program traced with --follow-forks (bench
 * section 14). N times in a row: fork a child that allocates once and
 * exits, wait for it; then N posix_spawns of /bin/true, waited for.
 * Prints "fork MS spawn MS", milliseconds per child, parent's wall clock.
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 50, i;
	char *args[] = { "true", NULL };
	double t, fork_ms, spawn_ms;
	volatile char *sink;
	pid_t pid;

	if (n < 1)
		return 1;
	sink = malloc(16);
	t = now_ms();
	for (i = 0; i < n; i++) {
		pid = fork();
		if (pid == 0) {
			sink = malloc(100);
			free((void *)sink);
			_exit(0);
		}
		if (pid < 0 || waitpid(pid, NULL, 0) != pid)
			return 1;
	}
	fork_ms = (now_ms() - t) / n;
	t = now_ms();
	for (i = 0; i < n; i++) {
		if (posix_spawn(&pid, "/bin/true", NULL, NULL, args, environ) ||
		    waitpid(pid, NULL, 0) != pid)
			return 1;
	}
	spawn_ms = (now_ms() - t) / n;
	free((void *)sink);
	printf("fork %.3f spawn %.3f\n", fork_ms, spawn_ms);
	return 0;
}

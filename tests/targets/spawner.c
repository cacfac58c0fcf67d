/*
 * spawner: starts a program with posix_spawn, as make and Python's
 * subprocess do: glibc's posix_spawn clones a child that shares the
 * parent's memory (CLONE_VM | CLONE_VFORK) until it calls exec. Then
 * waits for it.
 *
 *   spawner PROGRAM [ARGS...]
 *
 * Exit status: the program's, or 1 when it could not be started.
 */
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

extern char **environ;

int main(int argc, char **argv)
{
	pid_t pid;
	int err, status;

	if (argc < 2) {
		fprintf(stderr, "usage: spawner PROGRAM [ARGS...]\n");
		return 2;
	}
	err = posix_spawn(&pid, argv[1], NULL, NULL, argv + 1, environ);
	if (err) {
		fprintf(stderr, "spawner: %s: %s\n", argv[1], strerror(err));
		return 1;
	}
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ptracer: a debugger in miniature, to run a program under ptrace as gdb
 * or strace would.
 *
 *   ptracer LOG PROGRAM [ARGS...]
 *
 * Runs PROGRAM as its tracee and passes on every signal it gets, but a
 * stop signal: each of those is written to LOG as "signal N" and not
 * passed (gdb reports such a signal and stops there; its batch mode then
 * kills the program). A tracer of allocations must never stop a process
 * that a debugger traces. Exits with the program's status.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	FILE *log;
	pid_t pid;
	int status, sig;

	if (argc < 3) {
		fprintf(stderr, "usage: ptracer LOG PROGRAM [ARGS...]\n");
		return 2;
	}
	log = fopen(argv[1], "w");
	if (!log) {
		perror(argv[1]);
		return 2;
	}
	setvbuf(log, NULL, _IOLBF, 0);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 2;
	}
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL)) {
			perror("PTRACE_TRACEME");
			_exit(2);
		}
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		_exit(127);
	}
	/* its exec's SIGTRAP first */
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
		return 2;
	ptrace(PTRACE_CONT, pid, NULL, NULL);
	for (;;) {
		if (waitpid(pid, &status, 0) != pid)
			return 2;
		if (WIFEXITED(status))
			return WEXITSTATUS(status);
		if (WIFSIGNALED(status))
			return 128 + WTERMSIG(status);
		sig = WSTOPSIG(status);
		if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU) {
			fprintf(log, "signal %d\n", sig);
			sig = 0;
		} else if (sig == SIGTRAP) {
			sig = 0;
		}
		ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig);
	}
}

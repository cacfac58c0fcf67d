// SPDX-License-Identifier: GPL-2.0
/*
 * Ported from LLVM compiler-rt, test/lsan/TestCases/Linux/fork_and_leak.cpp
 * (LeakSanitizer): a child forked without exec leaks 10 blocks of 1,337
 * bytes; its parent waits for it. Run with --follow-forks: the child's
 * check at its exit.
 * args: --follow-forks
 * peer: detected
 * want: definitely 13370/10
 */
#include <sys/wait.h>
#include "peer.h"

int main(void)
{
	pid_t pid;
	int status = 0, i;

	peer_start();
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid > 0) {
		waitpid(pid, &status, 0);
		return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
	}
	for (i = 0; i < 10; i++)
		if (!malloc(1337))
			return 1;
	return 0;
}

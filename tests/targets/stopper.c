/*
 * stopper: a parent that stops its own child on purpose, at once, as job
 * control or a supervisor does, and checks that it stays stopped.
 *
 *   stopper [ROUNDS]
 *
 * Each round forks a child that counts in shared memory (allocating as it
 * goes); the parent sends it SIGSTOP right away, waits for the stop, lets
 * 0.3 s pass, then reads the count before and after 1.5 s. Prints
 * "ran N" with N the counts made while the child should have been stopped
 * (summed over the rounds), and exits 1 when N is not 0.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ledger.h"

SITE void *site_stopped_child(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 1, r, status;
	volatile long *count;
	long ran = 0, before;
	pid_t child;

	count = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (count == MAP_FAILED)
		return 2;
	for (r = 0; r < rounds; r++) {
		*count = 0;
		child = fork();
		if (child < 0)
			return 2;
		if (child == 0) {
			for (;;) {
				free(site_stopped_child(64));
				(*count)++;
				usleep(1000);
			}
		}
		kill(child, SIGSTOP);
		if (waitpid(child, &status, WUNTRACED) != child || !WIFSTOPPED(status))
			return 2;
		usleep(300000);
		before = *count;
		usleep(1500000);
		ran += *count - before;
		kill(child, SIGKILL);
		waitpid(child, &status, 0);
	}
	printf("ran %ld\n", ran);
	return ran ? 1 : 0;
}

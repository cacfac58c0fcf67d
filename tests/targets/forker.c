/*
 * forker: the parent allocates, forks, and goes on allocating; the child
 * allocates at sites of its own and frees its copies of the parent's blocks.
 * None of the child's calls belong to the parent's accounting.
 *
 * Ledger of the parent (all exact; see ledger.h):
 *   site_parent_before  3 x malloc(500), leaked (the child frees its copies)
 *   site_parent_after   2 x malloc(900), leaked
 *   site_child          0: the child's 5 x malloc(700) are not the parent's
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ledger.h"

SITE void *site_parent_before(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

SITE void *site_parent_after(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

SITE void *site_child(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

int main(void)
{
	static void *kept[5];
	int i, status;
	pid_t child;

	lg_declare("site_child");
	for (i = 0; i < 3; i++) {
		kept[i] = site_parent_before(500);
		lg_check(kept[i] != NULL, "malloc(500) failed");
		lg_alloc("site_parent_before", 500);
	}
	child = fork();
	lg_check(child >= 0, "fork failed");
	if (child == 0) {
		static void *mine[5];

		for (i = 0; i < 5; i++)
			mine[i] = site_child(700);
		for (i = 0; i < 3; i++)
			free(kept[i]);
		lg_sink = mine;
		_exit(0);
	}
	lg_check(waitpid(child, &status, 0) == child && WIFEXITED(status) &&
		 WEXITSTATUS(status) == 0, "the child failed");
	for (i = 0; i < 2; i++) {
		kept[3 + i] = site_parent_after(900);
		lg_check(kept[3 + i] != NULL, "malloc(900) failed");
		lg_alloc("site_parent_after", 900);
	}
	lg_sink = kept;
	return lg_write();
}

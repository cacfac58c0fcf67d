/*
 * execchain: allocates, then runs itself again by exec, N times, then
 * sleeps SECS and exits 0: one process through a chain of execs.
 *
 *   execchain N [SECS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ledger.h"

SITE void *site_chain(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	const char *secs = argc > 2 ? argv[2] : "1";
	char next[16], self[4096];
	ssize_t len;

	site_chain(100);
	if (n <= 0) {
		usleep((useconds_t)(atof(secs) * 1e6));
		return 0;
	}
	snprintf(next, sizeof(next), "%d", n - 1);
	/* by its own name, so that its name stays (exec of /proc/self/exe would be "exe") */
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0)
		return 2;
	self[len] = '\0';
	execl(self, argv[0], next, secs, (char *)NULL);
	return 2;
}

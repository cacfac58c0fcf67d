/*
 * execer: allocates, then replaces itself with another program by exec.
 * tracelloc stops at the exec: what the new program allocates is not
 * counted, and its frames are not named from the old program's files.
 *
 *   execer PROGRAM [ARGS...]
 *
 * Ledger (all exact; see ledger.h):
 *   site_before_exec   4 x malloc(1000), leaked (the exec drops them)
 *   site_freed         2 x malloc(300), freed
 * The ledger is written before the exec; then PROGRAM runs in its place,
 * its standard output sent to /dev/null.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ledger.h"

SITE void *site_before_exec(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

SITE void *site_freed(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

int main(int argc, char **argv)
{
	static void *kept[4];
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: execer PROGRAM [ARGS...]\n");
		return 2;
	}
	for (i = 0; i < 4; i++) {
		kept[i] = site_before_exec(1000);
		lg_check(kept[i] != NULL, "malloc(1000) failed");
		lg_alloc("site_before_exec", 1000);
	}
	for (i = 0; i < 2; i++) {
		void *p = site_freed(300);

		lg_check(p != NULL, "malloc(300) failed");
		lg_alloc("site_freed", 300);
		free(p);
		lg_free("site_freed", 300);
	}
	lg_sink = kept;
	if (lg_write())
		return 1;
	/* the new program writes elsewhere: tracelloc stops it mid-output, and a
	 * partial line of its own would run into tracelloc's summary */
	fflush(stdout);
	if (!freopen("/dev/null", "w", stdout))
		return 1;
	execv(argv[1], argv + 1);
	perror("execv");
	return 1;
}

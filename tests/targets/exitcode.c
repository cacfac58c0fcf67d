/*
 * exitcode: ends the way it is told, after a small known ledger.
 *
 *   exitcode CODE        exit(CODE)                 (default: 3)
 *   exitcode signal SIG  kill itself with signal SIG
 *
 * If $TL_SAY is set, it first prints "$TL_SAY" on stdout and
 * "$TL_SAY (stderr)" on stderr (to check that the target's output passes
 * through tracelloc untouched).
 *
 * Ledger: site_exit_alloc 3 x malloc(2222), one freed.  The expect file is
 * written before exiting/killing itself, so a harness can also tell whether
 * the target ran at all.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ledger.h"

SITE void *site_exit_alloc(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

int main(int argc, char **argv)
{
	const char *say = getenv("TL_SAY");
	void *p[3];
	int i, r;

	for (i = 0; i < 3; i++) {
		p[i] = site_exit_alloc(2222);
		lg_check(p[i] != NULL, "malloc(2222)");
		lg_alloc("site_exit_alloc", 2222);
	}
	free(p[1]);
	lg_free("site_exit_alloc", 2222);
	lg_sink = p;

	if (say) {
		printf("%s\n", say);
		fflush(stdout);
		fprintf(stderr, "%s (stderr)\n", say);
	}

	if (argc >= 3 && strcmp(argv[1], "signal") == 0) {
		int sig = atoi(argv[2]);

		lg_extra_line("signal %d", sig);
		lg_write();
		signal(sig, SIG_DFL);
		kill(getpid(), sig);
		pause();
		return 99;
	}
	r = argc >= 2 ? atoi(argv[1]) : 3;
	lg_extra_line("status %d", r);
	if (lg_write() != 0)
		return 97;
	exit(r);
}

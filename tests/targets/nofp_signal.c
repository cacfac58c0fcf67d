/*
 * nofp_signal: an allocation in a signal handler, built without frame
 * pointers: the unwind tables go through glibc's signal trampoline
 * (__restore_rt) to the interrupted code and its callers.
 *
 * Ledger (all exact; see ledger.h):
 *   in_handler   2 x malloc(48) from the SIGUSR1 handler, leaked
 */
#include <signal.h>
#include <stdlib.h>

#include "ledger.h"

SITE void *in_handler(size_t n)
{
	void *p = malloc(n);

	lg_sink = p;
	return p;
}

static void on_usr1(int sig)
{
	lg_sink = in_handler(48);
}

SITE void interrupted(void)
{
	volatile char buf[40];

	buf[0] = 1;
	raise(SIGUSR1);
	buf[39] = buf[0];
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	int i;

	lg_check(sigaction(SIGUSR1, &sa, NULL) == 0, "sigaction failed");
	for (i = 0; i < 2; i++) {
		interrupted();
		lg_alloc("in_handler", 48);
	}
	return lg_write();
}

/*
 * deep: one allocation 200 calls deep, past the 127 frames a stack holds:
 * the stack keeps its innermost 127 frames and the summary counts it cut short.
 *
 * Ledger (all exact; see ledger.h):
 *   site_deep    1 x malloc(64), leaked
 */
#include <stdlib.h>

#include "ledger.h"

#define DEPTH 200

SITE void *site_deep(size_t n)
{
	void *p = malloc(n);

	lg_sink = p;
	return p;
}

SITE void *recurse(int depth, size_t n)
{
	void *p = depth ? recurse(depth - 1, n) : site_deep(n);

	lg_sink = p;
	return p;
}

int main(void)
{
	lg_check(recurse(DEPTH, 64) != NULL, "malloc(64) failed");
	lg_alloc("site_deep", 64);
	return lg_write();
}

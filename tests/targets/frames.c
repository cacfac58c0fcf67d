/*
 * frames: call chains whose frames are laid out so that a stack walker that
 * reads the stack in windows must move its window: one frame larger than a
 * window, and a recursion of mid-sized frames that spans several windows.
 * The test checks each whole stack, not only its leaf.
 *
 * Ledger (all exact; see ledger.h):
 *   site_after_big    3 x malloc(77), leaked, called from big_frame, whose
 *                     frame holds 8 KiB of locals
 *   site_after_mid    2 x malloc(99), leaked, called 40 frames deep through
 *                     mid_recurse, each frame holding 200 bytes of locals
 */
#include <stdlib.h>
#include <string.h>

#include "ledger.h"

#define MID_DEPTH 40

SITE void *site_after_big(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

SITE void *site_after_mid(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

SITE void *big_frame(size_t n)
{
	volatile char locals[8192];
	void *p;

	locals[0] = 1;
	p = site_after_big(n);
	locals[sizeof(locals) - 1] = locals[0];
	return p;
}

SITE void *mid_recurse(int depth, size_t n)
{
	volatile char locals[200];
	void *p;

	locals[0] = (char)depth;
	p = depth ? mid_recurse(depth - 1, n) : site_after_mid(n);
	locals[sizeof(locals) - 1] = locals[0];
	return p;
}

int main(void)
{
	static void *kept[5];
	int i;

	for (i = 0; i < 3; i++) {
		kept[i] = big_frame(77);
		lg_check(kept[i] != NULL, "malloc(77) failed");
		lg_alloc("site_after_big", 77);
	}
	for (i = 0; i < 2; i++) {
		kept[3 + i] = mid_recurse(MID_DEPTH - 1, 99);
		lg_check(kept[3 + i] != NULL, "malloc(99) failed");
		lg_alloc("site_after_mid", 99);
	}
	lg_sink = kept;
	return lg_write();
}

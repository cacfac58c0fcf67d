// SPDX-License-Identifier: GPL-2.0
/*
 * Ported from LLVM compiler-rt, test/lsan/TestCases/use_unaligned.cpp
 * (LeakSanitizer): the only pointer lies at an odd address in a global (a
 * scan of aligned words does not see it; LeakSanitizer's default does not).
 * peer: detected
 * want: definitely 1337/1
 */
#include <string.h>
#include "peer.h"

void *arr[2];

int main(void)
{
	void *p;

	peer_start();
	p = malloc(1337);
	memcpy((char *)arr + 1, &p, sizeof(p));
	p = NULL;
	return 0;
}

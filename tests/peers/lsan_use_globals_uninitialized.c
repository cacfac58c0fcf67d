// SPDX-License-Identifier: GPL-2.0
/*
 * Ported from LLVM compiler-rt, test/lsan/TestCases/use_globals_uninitialized.cpp
 * (LeakSanitizer): the only pointer is a zero-initialized global (.bss).
 * peer: not detected
 * want: definitely 0/0
 */
#include "peer.h"

void *bss_var;

int main(void)
{
	peer_start();
	bss_var = malloc(1337);
	return 0;
}

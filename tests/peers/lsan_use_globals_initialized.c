// SPDX-License-Identifier: GPL-2.0
/*
 * Ported from LLVM compiler-rt, test/lsan/TestCases/use_globals_initialized.cpp
 * (LeakSanitizer): the only pointer is an initialized global (.data).
 * peer: not detected
 * want: definitely 0/0
 */
#include "peer.h"

void *data_var = (void *)1;

int main(void)
{
	peer_start();
	data_var = malloc(1337);
	return 0;
}

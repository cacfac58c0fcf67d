// SPDX-License-Identifier: GPL-2.0
/*
 * Ported from LLVM compiler-rt, test/lsan/TestCases/Linux/use_tls_static.cpp
 * (LeakSanitizer): the only pointer is a static TLS variable of the main
 * thread (the executable's __thread).
 * peer: not detected
 * want: definitely 0/0
 */
#include "peer.h"

__thread void *tls_var;

int main(void)
{
	peer_start();
	tls_var = malloc(1337);
	return 0;
}

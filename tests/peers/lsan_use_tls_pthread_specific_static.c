// SPDX-License-Identifier: GPL-2.0
/*
 * Ported from LLVM compiler-rt,
 * test/lsan/TestCases/Linux/use_tls_pthread_specific_static.cpp
 * (LeakSanitizer): the only pointer is a thread-specific value
 * (pthread_setspecific) of the main thread, in its key's first block (the
 * thread's own struct pthread).
 * peer: not detected
 * want: definitely 0/0
 */
#include <pthread.h>
#include "peer.h"

int main(void)
{
	pthread_key_t key;

	peer_start();
	if (pthread_key_create(&key, NULL) || pthread_setspecific(key, malloc(1337)))
		return 1;
	return 0;
}

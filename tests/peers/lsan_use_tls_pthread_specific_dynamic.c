// SPDX-License-Identifier: GPL-2.0
/*
 * Ported from LLVM compiler-rt,
 * test/lsan/TestCases/Linux/use_tls_pthread_specific_dynamic.cpp
 * (LeakSanitizer): the only pointer is a thread-specific value whose key is
 * past the first 32 (glibc keeps those in a second-level array it
 * allocates itself).
 * peer: not detected
 * want: definitely 0/0
 */
#include <pthread.h>
#include "peer.h"

int main(void)
{
	pthread_key_t key;
	int i;

	peer_start();
	for (i = 0; i < 40; i++)
		if (pthread_key_create(&key, NULL))
			return 1;
	if (pthread_setspecific(key, malloc(1337)))
		return 1;
	return 0;
}

/*
 * swaplib: built twice, as libswapa.so (-DSWAP_NAME=swap_leak_a) and
 * libswapb.so (-DSWAP_NAME=swap_leak_b). The two files differ only in the
 * name of their one function, so the function lies at the same offset in
 * both: loaded at the same place, they give the very same return addresses.
 */
#include <stdlib.h>

void *volatile swap_sink;

__attribute__((noinline)) void *SWAP_NAME(size_t n)
{
	void *p = malloc(n);

	swap_sink = p;
	return p;
}

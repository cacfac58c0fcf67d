/*
 * rjem_shim: stands in for Rust's tikv-jemallocator, which links jemalloc
 * built with the _rjem_ prefix: the same API under prefixed names, here
 * forwarding to Debian's libjemalloc.so.2 (build/tests/librjem_shim.so).
 * Both its names and jemalloc's are probed: each free is two nested calls.
 */
#include <jemalloc/jemalloc.h>
#include <stdlib.h>
#include <time.h>

void *_rjem_mallocx(size_t size, int flags)
{
	return mallocx(size, flags);
}

void *_rjem_rallocx(void *ptr, size_t size, int flags)
{
	return rallocx(ptr, size, flags);
}

/* RJEM_SLOW_FREE=1: the free waits 2 ms before the free it calls, as a
 * thread that waits for a CPU there would */
void _rjem_sdallocx(void *ptr, size_t size, int flags)
{
	static const struct timespec wait = { 0, 2000000 };

	if (getenv("RJEM_SLOW_FREE"))
		nanosleep(&wait, NULL);
	sdallocx(ptr, size, flags);
}

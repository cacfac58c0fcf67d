/*
 * rjem_shim: stands in for Rust's tikv-jemallocator, which links jemalloc
 * built with the _rjem_ prefix: the same API under prefixed names, here
 * forwarding to Debian's libjemalloc.so.2 (build/tests/librjem_shim.so).
 */
#include <jemalloc/jemalloc.h>

void *_rjem_mallocx(size_t size, int flags)
{
	return mallocx(size, flags);
}

void *_rjem_rallocx(void *ptr, size_t size, int flags)
{
	return rallocx(ptr, size, flags);
}

void _rjem_sdallocx(void *ptr, size_t size, int flags)
{
	sdallocx(ptr, size, flags);
}

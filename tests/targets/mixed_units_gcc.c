/* the gcc-built unit of mixed_units (see mixed_units.c): gcc_cold is put in
 * .text.unlikely, which the linker places before every .text, so this
 * unit's ranges lie below and above the clang unit's code */
#include <stdlib.h>

__attribute__((noinline, section(".text.unlikely.gcc_cold"))) void *gcc_cold(size_t n)
{
	return malloc(n);
}

__attribute__((noinline)) void *gcc_last(size_t n)
{
	return malloc(n);
}

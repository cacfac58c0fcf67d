/*
 * family_cxx: operator new and delete of an allocator family that exports
 * its own (jemalloc, tcmalloc, mimalloc: build/tests/family_cxx_NAME).
 * Their delete is a jump to free, or calls it on a slow path: each delete
 * must count once.
 *
 * Ledger (all exact; see ledger.h):
 *   cx_new_array  5 x new long[4] (32 bytes), 2 delete[]'d
 *   cx_new        3 x new Pair (16 bytes), 1 deleted (a sized delete)
 */
#include <new>

#include "ledger.h"

struct Pair {
	long a, b;
};

SITE long *cx_new_array(void)
{
	long *p = new long[4];

	lg_sink = p;
	return p;
}

SITE Pair *cx_new(void)
{
	Pair *p = new Pair();

	lg_sink = p;
	return p;
}

int main()
{
	long *arrays[5];
	Pair *pairs[3];
	int i;

	for (i = 0; i < 5; i++) {
		arrays[i] = cx_new_array();
		lg_alloc("~^cx_new_array", 32);
	}
	for (i = 0; i < 3; i++) {
		pairs[i] = cx_new();
		lg_alloc("~^cx_new[(]", 16);
	}
	delete[] arrays[1];
	delete[] arrays[3];
	lg_free("~^cx_new_array", 32);
	lg_free("~^cx_new_array", 32);
	delete pairs[0];
	lg_free("~^cx_new[(]", 16);
	return lg_write();
}

/*
 * ctor: allocations made before main() by a constructor, and after main()
 * returns by a destructor.  Launch mode (tracelloc -- cmd) traces the
 * process from its first instruction, so it must see all three sites.
 *
 * Ledger:
 *   site_ctor_alloc   2 x malloc(4321) in a constructor, one freed in main
 *   site_main_alloc   1 x malloc(1234), leaked
 *   site_dtor_alloc   1 x malloc(777) in a destructor (after main), leaked
 * The expect file is written by main (before the destructor runs), so the
 * destructor's allocation is booked in advance.
 */
#include <stdlib.h>

#include "ledger.h"

SITE void *site_ctor_alloc(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

SITE void *site_main_alloc(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

SITE void *site_dtor_alloc(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

static void *from_ctor[2];
static void *volatile from_dtor;

__attribute__((constructor)) static void early(void)
{
	from_ctor[0] = site_ctor_alloc(4321);
	from_ctor[1] = site_ctor_alloc(4321);
}

__attribute__((destructor)) static void late(void)
{
	from_dtor = site_dtor_alloc(777);
}

int main(void)
{
	void *p;

	lg_check(from_ctor[0] != NULL && from_ctor[1] != NULL, "constructor did not run");
	lg_alloc("site_ctor_alloc", 4321);
	lg_alloc("site_ctor_alloc", 4321);
	free(from_ctor[1]);
	lg_free("site_ctor_alloc", 4321);

	p = site_main_alloc(1234);
	lg_check(p != NULL, "malloc(1234)");
	lg_alloc("site_main_alloc", 1234);
	lg_sink = p;

	lg_alloc("site_dtor_alloc", 777); /* happens in late(), after main */
	return lg_write();
}

/*
 * farcode: its allocating function lies in a code segment of its own, past
 * the program's .bss and 16 MiB from its start (the linker places section
 * .farcode there), as the hot text of a BOLT-optimised library does (rustc's
 * LLVM and driver): the loader maps the .bss anonymous, between the file's
 * first segments and that one. Its frames must be named, its stacks whole.
 *
 * Ledger (all exact; see ledger.h):
 *   site_far   malloc(777), kept; called from main through far_caller
 */
#include "ledger.h"

/* larger than a page: the loader maps it anonymous */
static char far_bss[1 << 20];

__attribute__((section(".farcode"), noinline, noipa, used)) void *site_far(size_t n)
{
	far_bss[n & 1023]++;
	return malloc(n);
}

SITE void far_caller(void)
{
	lg_sink = site_far(777);
}

int main(void)
{
	far_caller();
	lg_alloc("site_far", 777);
	return lg_write();
}

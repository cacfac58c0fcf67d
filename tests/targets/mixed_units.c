/*
 * mixed_units: a program whose units come from two compilers. This file is
 built by clang, which writes no .debug_aranges for its unit; the unit of
 * mixed_units_gcc.c is built by gcc, which does, and its ranges lie below
 * and above this one's code (its cold function goes first). libdwfl looks a
 * unit up in .debug_aranges alone and takes the arange that starts last
 * below an address for the one that holds it: this file's frames took the
 * gcc unit's file and a line of it (as a cgo program's Go frames take a gcc
 * unit's). Each frame must have its own file and line.
 *
 * Ledger (all exact; see ledger.h):
 *   site_clang  malloc(555), kept; called from main through clang_caller
 *   gcc_cold    malloc(111), kept (the gcc unit, below this one's code)
 *   gcc_last    malloc(222), kept (the gcc unit, above it)
 */
#include "ledger.h"

void *gcc_cold(size_t n);
void *gcc_last(size_t n);

SITE void *site_clang(size_t n)
{
	void *p = malloc(n);	/* LINE: site_clang */
	return p;
}

SITE void clang_caller(void)
{
	lg_sink = site_clang(555);	/* LINE: clang_caller */
}

int main(void)
{
	clang_caller();
	lg_alloc("site_clang", 555);
	lg_sink = gcc_cold(111);
	lg_alloc("gcc_cold", 111);
	lg_sink = gcc_last(222);
	lg_alloc("gcc_last", 222);
	return lg_write();
}

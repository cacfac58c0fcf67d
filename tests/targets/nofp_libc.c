/*
 * nofp_libc: built without frame pointers (NOFP_CFLAGS), allocations made
 * inside glibc on the program's behalf, and stacks through functions that
 * realign the stack. The unwind tables must give the whole chain to main.
 *
 * Ledger (all exact; see ledger.h):
 *   line_site   2 x getline() of a short line into a NULL buffer: glibc's
 *               getdelim mallocs 120 bytes (its first size); leaked
 *   cmp_alloc   one malloc(16) per comparator call of qsort() over a fixed
 *               array, from inside glibc's merge sort; leaked. The target
 *               counts the calls.
 *   aligned_site 3 x malloc(72) from a function with a 64-byte aligned local:
 *               gcc keeps rbp there and realigns rsp (CFA = rbp + 16)
 *   drap_site   2 x malloc(88) under drap_inner, built with
 *               force_align_arg_pointer and a variable-length array: gcc
 *               realigns through a copy of the incoming rsp, and the CFA is
 *               read from the stack (DW_CFA_def_cfa_expression: *(rbp - 8),
 *               rbp saved at rbp + 0)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ledger.h"

#define GETLINE_FIRST 120	/* glibc's getdelim: the buffer it starts with */

SITE char *line_site(FILE *f)
{
	char *line = NULL;
	size_t cap = 0;

	if (getline(&line, &cap, f) < 0)
		return NULL;
	lg_sink = line;
	return line;
}

static long cmp_calls;

SITE int cmp_alloc(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	lg_sink = malloc(16);
	if (lg_sink)
		cmp_calls++;
	return (x > y) - (x < y);
}

SITE void sort_site(int *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_alloc);
	lg_sink = v;
}

SITE void *aligned_site(size_t n)
{
	/* an over-aligned local: gcc realigns rsp and keeps rbp as the frame */
	volatile char buf[64] __attribute__((aligned(64)));
	void *p;

	buf[0] = (char)n;
	p = malloc(n + buf[0] - (char)n);
	buf[63] = buf[0];
	lg_sink = p;
	return p;
}

/* realigning with a variable-length array as well, gcc keeps the incoming
 * rsp in r10 and then on the stack (DRAP): the CFA is *(rbp - 8) */
SITE __attribute__((force_align_arg_pointer)) void *drap_inner(size_t n)
{
	volatile char vla[n % 64 + 1];
	volatile char buf[32] __attribute__((aligned(32)));
	void *p;

	buf[0] = (char)n;
	vla[0] = buf[0];
	p = malloc(n + vla[0] - (char)n);
	buf[31] = buf[0];
	lg_sink = p;
	return p;
}

SITE void *drap_site(size_t n)
{
	void *p = drap_inner(n);

	lg_sink = p;
	return p;
}

int main(void)
{
	int v[] = { 9, 3, 7, 1, 8, 2, 6, 4, 5, 0, 11, 10 };
	int fds[2];
	FILE *f;
	int i;

	/* the lines come from a pipe this process fills itself */
	lg_check(pipe(fds) == 0, "pipe failed");
	lg_check(write(fds[1], "first\nsecond\n", 13) == 13, "write failed");
	close(fds[1]);
	f = fdopen(fds[0], "r");
	lg_check(f != NULL, "fdopen failed");
	/* stdio's own buffer first, outside the site */
	setvbuf(f, NULL, _IONBF, 0);
	for (i = 0; i < 2; i++) {
		lg_check(line_site(f) != NULL, "getline failed");
		lg_alloc("line_site", GETLINE_FIRST);
	}
	fclose(f);

	sort_site(v, sizeof(v) / sizeof(v[0]));
	for (i = 0; i < cmp_calls; i++)
		lg_alloc("cmp_alloc", 16);
	lg_extra_line("cmp-calls %ld", cmp_calls);

	for (i = 0; i < 3; i++) {
		lg_check(aligned_site(72) != NULL, "malloc(72) failed");
		lg_alloc("aligned_site", 72);
	}
	for (i = 0; i < 2; i++) {
		lg_check(drap_site(88) != NULL, "malloc(88) failed");
		lg_alloc("drap_site", 88);
	}
	return lg_write();
}

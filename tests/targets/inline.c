/*
 * inline: malloc called from always-inlined helpers, nested two deep, so the
 * stack of the allocation has inlined frames (tests/reports.sh).
 *
 *   helper_inner(n)   static inline, always_inline: malloc(n)
 *   helper_outer(n)   static inline, always_inline: helper_inner(n + 16)
 *
 * Ledger (see ledger.h):
 *   site_inline_chain    site -> helper_outer -> helper_inner -> malloc:
 *                        3 x malloc(64 + 16), one freed
 *   site_inline_single   site -> helper_inner -> malloc: 2 x malloc(200), kept
 *   site_inline_none     malloc called by the site itself: 1 x malloc(300), kept
 *
 * So the folded stacks end in
 *   main;site_inline_chain;helper_outer_[i];helper_inner_[i]
 *   main;site_inline_single;helper_inner_[i]
 *   main;site_inline_none
 *
 * and the expect file has "line KEY N", the line of each call, taken with
 * __LINE__ on the call's own line:
 *   line inner_malloc N       the malloc in helper_inner
 *   line outer_inner N        the call of helper_inner in helper_outer
 *   line chain_outer N        the call of helper_outer in site_inline_chain
 *   line single_inner N       the call of helper_inner in site_inline_single
 *   line none_malloc N        the malloc in site_inline_none
 *   line main_chain N, line main_single N, line main_none N   the calls in main
 */
#include <stdlib.h>

#include "ledger.h"

enum {
	L_INNER_MALLOC,
	L_OUTER_INNER,
	L_CHAIN_OUTER,
	L_SINGLE_INNER,
	L_NONE_MALLOC,
	L_MAIN_CHAIN,
	L_MAIN_SINGLE,
	L_MAIN_NONE,
	L__COUNT
};

static const char *const line_names[L__COUNT] = {
	"inner_malloc", "outer_inner", "chain_outer", "single_inner",
	"none_malloc", "main_chain", "main_single", "main_none",
};

static volatile int lines[L__COUNT];

static inline __attribute__((always_inline)) void *helper_inner(size_t n)
{
	void *p = malloc(n); lines[L_INNER_MALLOC] = __LINE__;
	return p;
}

static inline __attribute__((always_inline)) void *helper_outer(size_t n)
{
	void *p = helper_inner(n + 16); lines[L_OUTER_INNER] = __LINE__;
	return p;
}

SITE void *site_inline_chain(size_t n)
{
	void *p = helper_outer(n); lines[L_CHAIN_OUTER] = __LINE__;
	lg_sink = p;
	return p;
}

SITE void *site_inline_single(size_t n)
{
	void *p = helper_inner(n); lines[L_SINGLE_INNER] = __LINE__;
	lg_sink = p;
	return p;
}

SITE void *site_inline_none(size_t n)
{
	void *p = malloc(n); lines[L_NONE_MALLOC] = __LINE__;
	lg_sink = p;
	return p;
}

static void *keep[8];

int main(void)
{
	void *first = NULL;
	int i;

	for (i = 0; i < 3; i++) {
		void *p = site_inline_chain(64); lines[L_MAIN_CHAIN] = __LINE__;

		lg_check(p != NULL, "chain malloc");
		lg_alloc("site_inline_chain", 64 + 16);
		if (i == 0)
			first = p;
		else
			keep[i] = p;
	}
	free(first);
	lg_free("site_inline_chain", 64 + 16);

	for (i = 0; i < 2; i++) {
		keep[3 + i] = site_inline_single(200); lines[L_MAIN_SINGLE] = __LINE__;
		lg_alloc("site_inline_single", 200);
	}

	keep[5] = site_inline_none(300); lines[L_MAIN_NONE] = __LINE__;
	lg_alloc("site_inline_none", 300);

	for (i = 0; i < L__COUNT; i++) {
		lg_check(lines[i] > 0, "line of %s not recorded", line_names[i]);
		lg_extra_line("line %s %d", line_names[i], lines[i]);
	}
	lg_sink = keep;
	return lg_write();
}

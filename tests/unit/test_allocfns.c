// SPDX-License-Identifier: GPL-2.0
/* allocfns.c: every traced function has its row, and a cookie says what the
 * row says (the BPF side reads nothing else) */
#include <string.h>

#include "allocfns.h"
#include "test.h"

TEST(allocfns_every_function_has_a_row)
{
	uint32_t fn;

	for (fn = FN_NONE + 1; fn < FN__COUNT; fn++) {
		const struct alloc_fn_info *f = allocfns__info(fn);

		ASSERT_TRUE(f != NULL, "a row for each function");
		/* the program's own: named.c makes their cookies (test_named.c) */
		if (f->kind != CALL_ALLOC || fn == FN_NAMED || fn == FN_POOL_CREATE)
			continue;
		ASSERT_TRUE(f->name != NULL, "an allocator has a name for the views");
		/* Go's: its size in rax (7), no return probe, no block */
		ASSERT_TRUE(f->size_arg >= 1 && f->size_arg <= (f->no_block ? 7 : 6),
			    "an allocator has a size");
		ASSERT_TRUE(!f->entry_only || f->no_block, "an allocator's return is probed");
		ASSERT_TRUE(!f->moves || f->ptr_arg, "a realloc is given its block");
	}
	ASSERT_TRUE(allocfns__info(FN_NONE) == NULL, "no row for none");
	ASSERT_TRUE(allocfns__info(FN__COUNT) == NULL, "nor past the end");
}

TEST(allocfns_cookie_says_the_row)
{
	uint64_t c = allocfns__cookie(FN_REALLOCARRAY);

	ASSERT_EQ(COOKIE_FN(c), FN_REALLOCARRAY, "the function");
	ASSERT_EQ(COOKIE_SIZE_ARG(c), 3, "reallocarray(ptr, n, size): size third");
	ASSERT_EQ(COOKIE_COUNT_ARG(c), 2, "the count second");
	ASSERT_EQ(COOKIE_PTR_ARG(c), 1, "the block first");
	ASSERT_TRUE(c & COOKIE_REALLOC, "it may move the block");
	c = allocfns__cookie(FN_POSIX_MEMALIGN);
	ASSERT_EQ(COOKIE_RET(c), RET_AT_PTR, "posix_memalign writes the block");
	ASSERT_TRUE(!(c & COOKIE_REALLOC), "and moves none");
	c = allocfns__cookie(FN_XALLOCX);
	ASSERT_EQ(COOKIE_RET(c), RET_SIZE, "xallocx returns a size");
	/* the probes that are no allocator's carry their function alone */
	ASSERT_EQ(allocfns__cookie(FN_FREE), FN_FREE, "free: the function alone");
	ASSERT_EQ(allocfns__cookie(FN_MMAP), FN_MMAP, "mmap: read by the BPF side itself");
	ASSERT_TRUE(!strcmp(allocfns__name(FN_NEW_ARRAY), "operator new[]"), "a name");
	ASSERT_TRUE(!strcmp(allocfns__name(FN_FREE), "[allocator]"), "none for free");
}

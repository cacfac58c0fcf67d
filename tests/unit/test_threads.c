// SPDX-License-Identifier: GPL-2.0
/* threads.c: the names of the target's threads (--per-thread) */
#include <string.h>

#include "test.h"
#include "threads.h"

TEST(threads_names_and_frames)
{
	struct threads *t = threads__new();
	uint64_t unnamed, worker, io;

	ASSERT_OK_PTR(t, "threads__new");
	unnamed = threads__frame(t, 10);
	ASSERT_TRUE(IS_THREAD_FRAME(unnamed), "a thread frame");
	ASSERT_STREQ(threads__label(t, unnamed), "thread [unnamed]", "a thread never named");

	/* comm is 16 bytes, NUL-padded: the name ends at the first NUL */
	ASSERT_OK(threads__set_name(t, 10, "worker\0\0\0\0\0\0\0\0\0", 16), "name 10");
	ASSERT_OK(threads__set_name(t, 11, "worker", 6), "name 11");
	ASSERT_OK(threads__set_name(t, 12, "io", 16), "name 12");
	worker = threads__frame(t, 10);
	io = threads__frame(t, 12);
	/* by name, not by tid: a pool's threads share one frame */
	ASSERT_EQ(threads__frame(t, 11), worker, "two workers, one frame");
	ASSERT_NEQ(worker, io, "worker and io apart");
	ASSERT_STREQ(threads__label(t, worker), "thread worker", "label");
	ASSERT_STREQ(threads__name(t, io), "io", "bare name");

	/* renamed: later allocations go under the new name, earlier frames keep theirs */
	ASSERT_OK(threads__set_name(t, 12, "io-renamed-long-name", 20), "rename 12");
	ASSERT_STREQ(threads__label(t, threads__frame(t, 12)), "thread io-renamed-long",
		     "cut to 15 characters, as the kernel keeps them");
	ASSERT_STREQ(threads__label(t, io), "thread io", "the old frame keeps its name");

	/* a code address is no thread frame */
	ASSERT_NULL(threads__label(t, 0x401000), "not a thread frame");
	ASSERT_NULL(threads__label(t, THREAD_FRAME(999)), "no such name");
	threads__destroy(t);
}

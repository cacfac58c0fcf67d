// SPDX-License-Identifier: GPL-2.0
/* processes.c: the numbers, names and symbolizers of several processes */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "processes.h"
#include "test.h"
#include "threads.h"

TEST(processes_numbers_and_labels)
{
	struct processes *ps = processes__new();
	const struct sym_location *loc;
	int a, b;

	ASSERT_OK_PTR(ps, "processes__new");
	a = processes__add(ps, 1234, "nginx", NULL);
	b = processes__add(ps, 1235, "a-rather-long-comm-name", NULL);
	ASSERT_EQ(a, 1, "numbers from 1");
	ASSERT_EQ(b, 2, "in order");
	ASSERT_EQ(processes__count(ps), 2, "count");
	ASSERT_EQ(processes__pid(ps, 2), 1235, "pid");
	ASSERT_STREQ(processes__label(ps, PROCESS_FRAME(1)), "pid 1234 (nginx)", "label");
	ASSERT_STREQ(processes__comm(ps, 2), "a-rather-long-c", "comm as the kernel keeps it");
	processes__ended(ps, 1, "exited");
	ASSERT_STREQ(processes__label(ps, PROCESS_FRAME(1)), "pid 1234 (nginx) exited",
		     "an exited process is marked");
	ASSERT_STREQ(processes__ending(ps, 1), "exited", "ending");
	ASSERT_NULL(processes__ending(ps, 2), "still running");

	/* frames that are no process frame, and numbers of no process */
	ASSERT_NULL(processes__label(ps, 0x401000 | PROC_TAG(1)), "a code frame");
	ASSERT_NULL(processes__label(ps, THREAD_FRAME(1)), "a thread frame");
	ASSERT_NULL(processes__label(ps, PROCESS_FRAME(3)), "no process 3");
	ASSERT_EQ(processes__frame_process(PROCESS_FRAME(2)), 2, "the number of a process frame");
	ASSERT_EQ(processes__frame_process(0x401000 | PROC_TAG(2)), 0, "a code frame has none");

	/* the tag never reaches into an address or a layer, nor the tags of frames */
	ASSERT_EQ(PROC_OF(0x7fffffffffffULL | PROC_TAG(PROC_MAX)), PROC_MAX, "largest number");
	ASSERT_EQ(SYM_ADDR(0x7ffff7a01234ULL | PROC_TAG(PROC_MAX) | SYM_LAYER_UNKNOWN << SYM_LAYER_SHIFT),
		  0x7ffff7a01234ULL, "address under a number and a layer");
	ASSERT_EQ(SYM_LAYER(0x1234 | PROC_TAG(PROC_MAX) | 3ULL << SYM_LAYER_SHIFT), 3, "layer under a number");
	ASSERT_FALSE(IS_PROCESS_FRAME(0x401000 | PROC_TAG(PROC_MAX)), "a tagged frame is no process frame");
	ASSERT_FALSE(IS_THREAD_FRAME(0x401000 | PROC_TAG(PROC_MAX)), "nor a thread frame");

	/* no symbolizer: every frame is unknown, never a crash */
	loc = processes__locate(ps, 0x401000 | PROC_TAG(1));
	ASSERT_STREQ(loc->frames[0].function, "[unknown]", "no symbolizer");
	ASSERT_FALSE(processes__in_module(ps, 0x401000 | PROC_TAG(9)), "no process 9");
	processes__destroy(ps);
}

TEST(processes_limit)
{
	struct processes *ps = processes__new();
	int i, idx = 0;

	ASSERT_OK_PTR(ps, "processes__new");
	for (i = 0; i < PROC_MAX; i++)
		idx = processes__add(ps, 100 + i, "w", NULL);
	ASSERT_EQ(idx, PROC_MAX, "the last number");
	ASSERT_EQ(processes__add(ps, 99, "w", NULL), -ENOSPC, "one too many");
	processes__destroy(ps);
}

TEST(processes_count_once)
{
	struct processes *ps = processes__new();
	int parent, child, after_exec;

	ASSERT_OK_PTR(ps, "processes__new");
	parent = processes__add(ps, 10, "sh", NULL);
	child = processes__add(ps, 11, "sh", NULL);
	processes__add(ps, 0, "sh", NULL);	/* numbered at a fork, let go untraced */
	processes__ended(ps, 3, "untraced");
	/* the child calls exec: a new number for its new program */
	processes__ended(ps, child, "exec");
	processes__superseded(ps, child);
	after_exec = processes__add(ps, 11, "ls", NULL);
	processes__ended(ps, after_exec, "exited");
	ASSERT_EQ(processes__count(ps), 2, "sh and its child, once each");
	/* an exec not followed ends the process: it still counts */
	processes__ended(ps, parent, "exec");
	ASSERT_EQ(processes__count(ps), 2, "an exec that ended a trace");
	ASSERT_STREQ(processes__label(ps, PROCESS_FRAME(child)), "pid 11 (sh) exec",
		     "the old program's frame is still marked");
	processes__destroy(ps);
}

/* numbers are reused: the oldest ended beyond the newest kept retire into
 * their command's keeper, which names their frames with their symbolizer */
TEST(processes_retire_and_reuse)
{
	struct processes *ps = processes__new();
	struct symbolizer *sym = symbolizer__new(getpid());
	uint32_t out[8];
	int a, b, c, k, d;

	ASSERT_OK_PTR(ps, "processes__new");
	ASSERT_OK_PTR(sym, "symbolizer__new");
	a = processes__add(ps, 10, "postgres", symbolizer__get(sym));
	b = processes__add(ps, 11, "postgres", symbolizer__get(sym));
	c = processes__add(ps, 12, "postgres", symbolizer__get(sym));
	ASSERT_EQ(processes__to_retire(ps, 0, out, 8), 0, "none ended");
	processes__ended(ps, b, "exited");
	processes__ended(ps, a, "exited");
	ASSERT_EQ(processes__to_retire(ps, 2, out, 8), 0, "two ended, two kept");
	ASSERT_EQ(processes__to_retire(ps, 1, out, 8), 1, "the oldest beyond one kept");
	ASSERT_EQ(out[0], (uint32_t)b, "b ended first");
	k = processes__keeper(ps, b);
	ASSERT_GT(k, c, "a keeper: a number of its own");
	ASSERT_EQ(processes__keeper(ps, a), k, "one keeper per command and symbolizer");
	ASSERT_TRUE(processes__symbolizer(ps, k) == sym, "it names frames as its processes did");
	processes__retire(ps, b, k);
	ASSERT_STREQ(processes__label(ps, PROCESS_FRAME(k)), "postgres: 1 exited processes",
		     "the keeper's frame");
	ASSERT_NULL(processes__label(ps, PROCESS_FRAME(b)), "a retired number names nothing");
	ASSERT_EQ(processes__count(ps), 3, "a retired process still counts");
	ASSERT_EQ(processes__numbers(ps), 3, "a, c and the keeper hold numbers");
	d = processes__add(ps, 13, "postgres", NULL);
	ASSERT_EQ(d, b, "the next process takes the retired number");
	ASSERT_STREQ(processes__label(ps, PROCESS_FRAME(d)), "pid 13 (postgres)", "anew");
	ASSERT_EQ(processes__count(ps), 4, "four processes in the run");
	/* a keeper never ends or retires */
	processes__ended(ps, k, "exited");
	ASSERT_NULL(processes__ending(ps, k), "a keeper has no ending");
	ASSERT_EQ(processes__keeper(ps, d), -ENOENT, "no symbolizer: no keeper");
	symbolizer__destroy(sym);
	processes__destroy(ps);
}

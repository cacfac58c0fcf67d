// SPDX-License-Identifier: GPL-2.0
/* recording.c: what an exec resets, what a fork copies, the filters of the
 * command line (the rings it makes are real BPF maps: root) */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events.h"
#include "filter.h"
#include "heap.h"
#include "options.h"
#include "processes.h"
#include "profile.h"
#include "recording.h"
#include "suppress.h"
#include "test.h"

static struct recording *new_recording(struct options *o, bool several)
{
	struct recording *r = NULL;
	struct filter *f = NULL;
	struct suppressions *s = NULL;

	if (recording__filter(o, &f))
		return NULL;
	if (recording__suppressions(o, &s)) {
		filter__destroy(f);
		suppress__destroy(s);
		return NULL;
	}
	if (recording__new(o, several, 1, 4096, f, s, &r)) {
		recording__destroy(r);
		return NULL;
	}
	return r;
}

static void alloc(struct heap *h, uint64_t addr, uint64_t size, uint64_t tag)
{
	uint64_t frames[2] = { 0x401000 | tag, 0x402000 | tag };

	heap__alloc(h, 1, addr | tag, size, 1000, 0, frames, 2);
}

TEST(recording_exec_starts_afresh)
{
	struct options o = { .sort = SORT_GROWTH, .growth_window = 4 };
	struct recording *r = new_recording(&o, false);
	struct heap *before;

	ASSERT_TRUE(r != NULL, "recording__new (needs root: BPF ring buffers)");
	before = recording__heap(r);
	alloc(before, 0x1000, 100, 0);
	alloc(before, 0x2000, 200, 0);
	ASSERT_EQ(heap__stats(before)->live_bytes, 300, "two blocks before the exec");
	ASSERT_EQ(recording__generation(r), 0, "no exec yet");
	recording__tick(r, 0);
	ASSERT_EQ(recording__reset(r), 0, "the exec's reset");
	ASSERT_EQ(recording__generation(r), 1, "a new generation: the report and the symbolizers see it");
	ASSERT_EQ(heap__stats(recording__heap(r))->live_bytes, 0, "the old program's blocks went");
	ASSERT_EQ(heap__stats(recording__heap(r))->alloc_calls, 0, "and its counts");
	/* the new heap is the one records go to, with the same settings */
	alloc(recording__heap(r), 0x3000, 50, 0);
	ASSERT_EQ(heap__stats(recording__heap(r))->live_bytes, 50, "the new program's block");
	recording__destroy(r);
}

TEST(recording_fork_copies_and_drops)
{
	struct options o = { 0 };
	struct recording *r = new_recording(&o, true);
	struct processes *ps;
	struct heap *h;

	ASSERT_TRUE(r != NULL, "recording__new (needs root: BPF ring buffers)");
	ps = recording__processes(r);
	ASSERT_TRUE(ps != NULL, "several processes: they are numbered");
	ASSERT_EQ(processes__add(ps, 100, "parent", NULL), 1, "the parent's number");
	ASSERT_EQ(processes__add(ps, 0, "parent", NULL), 2, "the child's, at the fork");
	h = recording__heap(r);
	alloc(h, 0x1000, 100, PROC_TAG(1));
	alloc(h, 0x2000, 28, PROC_TAG(1));
	ASSERT_EQ(recording__copy_process(r, 1, 2), 0, "the child's copy");
	ASSERT_EQ(heap__stats(h)->live_bytes, 256, "the parent's blocks, twice");
	ASSERT_EQ(heap__stats(h)->live_count, 4, "four blocks");
	/* a child not traced after all: its copy goes, the parent's stays */
	recording__drop_process(r, 2, "untraced");
	ASSERT_EQ(heap__stats(h)->live_bytes, 128, "the parent's blocks alone");
	ASSERT_TRUE(processes__ending(ps, 2) && !strcmp(processes__ending(ps, 2), "untraced"),
		    "the child ended untraced");
	ASSERT_TRUE(processes__ending(ps, 1) == NULL, "the parent runs on");
	recording__destroy(r);
}

TEST(recording_filter_checks_the_command_line)
{
	const char *bad[] = { "(" };
	const char *good[] = { "^std::" };
	struct options o = { .excludes = good, .nexcludes = 1, .includes = bad, .nincludes = 1 };
	struct filter *f = NULL;

	ASSERT_EQ(recording__filter(&o, &f), 1, "an --include that is no regular expression");
	filter__destroy(f);
	f = NULL;
	o.includes = good;
	ASSERT_EQ(recording__filter(&o, &f), 0, "good ones");
	ASSERT_TRUE(f != NULL, "a filter");
	filter__destroy(f);
}

TEST(recording_suppressions_leave_the_views)
{
	char path[] = "/tmp/tl-supp-XXXXXX";
	const char *files[1] = { path };
	struct options o = { .suppressions = files, .nsuppressions = 1 };
	struct recording *r;
	struct profile *p;
	int fd = mkstemp(path);

	ASSERT_TRUE(fd >= 0, "mkstemp");
	/* every frame is "[unknown]" without a symbolizer */
	ASSERT_TRUE(write(fd, "# the fake frames\nleak:^[unknown]$\n", 34) == 34, "write");
	close(fd);
	r = new_recording(&o, false);
	ASSERT_TRUE(r != NULL, "recording__new (needs root: BPF ring buffers)");
	alloc(recording__heap(r), 0x1000, 100, 0);
	alloc(recording__heap(r), 0x2000, 200, 0);
	p = recording__snapshot(r, NULL, false);
	ASSERT_OK_PTR(p, "snapshot");
	ASSERT_EQ(p->count, 0, "the stack suppressed: out of the profile");
	ASSERT_EQ(p->suppressed.live_bytes, 300, "its live bytes said apart");
	ASSERT_EQ(p->suppressed.live_count, 2, "its blocks");
	ASSERT_EQ(p->suppressed_stacks, 1, "one stack");
	ASSERT_EQ(recording__suppress_rules(r), 1, "the file's rule");
	profile__destroy(p);
	recording__destroy(r);
	unlink(path);
	/* without the file: kept */
	o.nsuppressions = 0;
	r = new_recording(&o, false);
	ASSERT_TRUE(r != NULL, "recording__new");
	alloc(recording__heap(r), 0x1000, 100, 0);
	p = recording__snapshot(r, NULL, false);
	ASSERT_OK_PTR(p, "snapshot");
	ASSERT_EQ(p->count, 1, "kept");
	profile__destroy(p);
	recording__destroy(r);
}

// SPDX-License-Identifier: GPL-2.0
/* recording.c: what an exec resets, what a fork copies, the filters of the
 * command line (the rings it makes are real BPF maps: root) */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events.h"
#include "exits.h"
#include "filter.h"
#include "heap.h"
#include "options.h"
#include "processes.h"
#include "profile.h"
#include "recording.h"
#include "suppress.h"
#include "symbolize.h"
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

/* a process's frames and its root frame, as events tag them */
static uint32_t alloc_in(struct heap *h, uint32_t idx, uint64_t addr, uint64_t size, uint64_t site)
{
	uint64_t frames[3] = { site | PROC_TAG(idx), 0x402000 | PROC_TAG(idx), PROCESS_FRAME(idx) };

	heap__alloc(h, 1, addr | PROC_TAG(idx), size, 1000, FN_MALLOC, frames, 3);
	return stacks__intern(heap__stacks(h), frames, 3);
}

/* a server's workers come and go: each exit leaves the live set, held at
 * exit by its command; the oldest ended retire, their stacks merged into
 * their command's and their numbers and stack ids reused, so a long run's
 * tables follow its call sites, not its uptime */
TEST(recording_exits_leave_and_retire)
{
	struct options o = { 0 };
	struct recording *r = new_recording(&o, true);
	struct symbolizer *sym = symbolizer__new(getpid());
	const struct stack_totals *t;
	const struct exit_row *rows;
	uint64_t merged[3];
	struct processes *ps;
	struct stacks *st;
	struct heap *h;
	uint32_t held_after_first = 0, id;
	size_t n;
	int i, w;

	ASSERT_TRUE(r != NULL, "recording__new (needs root: BPF ring buffers)");
	ASSERT_OK_PTR(sym, "symbolizer__new");
	ps = recording__processes(r);
	h = recording__heap(r);
	st = heap__stacks(h);
	ASSERT_EQ(processes__add(ps, 100, "server", symbolizer__get(sym)), 1, "the server");
	alloc_in(h, 1, 0x1000, 64, 0x401000);
	for (i = 0; i < 300; i++) {
		w = processes__add(ps, 1000 + i, "worker", symbolizer__get(sym));
		ASSERT_GT(w, 1, "worker %d numbered", i);
		/* each leaks 100 bytes at one site and frees nothing */
		alloc_in(h, (uint32_t)w, 0x2000, 100, 0x401100);
		alloc_in(h, (uint32_t)w, 0x3000, 10, 0x401200);
		recording__process_exited(r, (uint32_t)w);
		ASSERT_EQ(heap__stats(h)->live_bytes, 64, "worker %d: live is the server's alone", i);
		recording__retire(r, 4);
		if (i == 20)
			held_after_first = stacks__held(st);
	}
	ASSERT_EQ(stacks__held(st), held_after_first, "the stacks' table stays the size it had");
	ASSERT_LE(processes__numbers(ps), 1 + 4 + 1 + 1, "numbers: the server, 4 kept, a keeper (and one)");
	ASSERT_EQ(processes__count(ps), 301, "every process counted once");
	ASSERT_EQ(recording__retired(r), 300 - 4, "all but the newest 4 retired");
	rows = exits__rows(recording__exits(r), &n);
	ASSERT_EQ(n, 1, "one command exited");
	ASSERT_EQ(rows[0].processes, 300, "300 exits");
	ASSERT_EQ(rows[0].bytes, 300 * 110, "what they held at exit");
	ASSERT_EQ(heap__stats(h)->exit_bytes, 300 * 110, "the heap's held at exit");
	/* the keeper's stack holds what the retired ones held at exit, and did */
	w = processes__keeper(ps, (uint32_t)processes__add(ps, 5000, "worker", symbolizer__get(sym)));
	ASSERT_GT(w, 0, "the keeper");
	merged[0] = 0x401100 | PROC_TAG(w);
	merged[1] = 0x402000 | PROC_TAG(w);
	merged[2] = PROCESS_FRAME(w);
	id = stacks__intern(st, merged, 3);
	t = stacks__peek(st, id);
	ASSERT_EQ(t->exit_bytes, 296 * 100, "held at exit, merged");
	ASSERT_EQ(t->alloc_count, 296, "their calls, merged");
	ASSERT_EQ(t->live_bytes, 0, "nothing live");
	ASSERT_STREQ(processes__label(ps, PROCESS_FRAME(w)), "worker: 296 exited processes",
		     "the keeper's frame says how many");
	symbolizer__destroy(sym);
	recording__destroy(r);
}

/* more commands than keepers: the rest's stacks are dropped, counted, and
 * their exits still counted by command */
TEST(recording_retire_past_the_keepers)
{
	struct options o = { 0 };
	struct recording *r = new_recording(&o, true);
	struct processes *ps;
	struct heap *h;
	char comm[16];
	size_t n;
	int i, w;

	ASSERT_TRUE(r != NULL, "recording__new (needs root: BPF ring buffers)");
	ps = recording__processes(r);
	h = recording__heap(r);
	for (i = 0; i < PROC_KEEPERS + 20; i++) {
		snprintf(comm, sizeof(comm), "w%d", i);
		w = processes__add(ps, 1000 + i, comm, symbolizer__new(getpid()));
		ASSERT_GT(w, 0, "worker %d", i);
		alloc_in(h, (uint32_t)w, 0x2000, 100, 0x401100);
		recording__process_exited(r, (uint32_t)w);
	}
	ASSERT_EQ(recording__retire(r, 4), PROC_KEEPERS + 16, "all but the newest 4");
	ASSERT_EQ(recording__unmerged(r), 16, "past the keepers: dropped, counted");
	exits__rows(recording__exits(r), &n);
	ASSERT_EQ(n, PROC_KEEPERS + 20, "every command's exits counted");
	ASSERT_EQ(processes__count(ps), PROC_KEEPERS + 20, "every process counted");
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

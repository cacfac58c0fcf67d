// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "processes.h"

struct process_name {
	pid_t pid;
	char comm[16];
	const char *ending;
	char label[64];
	struct symbolizer *sym;
	bool superseded;	/* the process goes on under a later number (a followed exec) */
	bool free;		/* retired: the number serves the next process */
	bool keeper;		/* a command's frames for the processes that ended */
	uint64_t ended_seq;	/* the order of its ending; 0 while it runs */
	uint64_t merged;	/* keeper: the processes whose stacks it took */
};

struct processes {
	struct process_name *procs;	/* [idx - 1] */
	size_t count, cap;
	uint64_t ended_seq;
	size_t keepers;
	/* processes whose numbers were retired, as processes__count counts them */
	size_t retired_counted;
};

/* a process counts once however many programs it ran, and a child let go
 * untraced not at all */
static bool counts(const struct process_name *p)
{
	return !p->free && !p->keeper && !p->superseded &&
	       (!p->ending || strcmp(p->ending, "untraced"));
}

struct processes *processes__new(void)
{
	return calloc(1, sizeof(struct processes));
}

void processes__destroy(struct processes *ps)
{
	size_t i;

	if (!ps)
		return;
	for (i = 0; i < ps->count; i++)
		if (!ps->procs[i].free)
			symbolizer__destroy(ps->procs[i].sym);
	free(ps->procs);
	free(ps);
}

static void make_label(struct process_name *p)
{
	char pid[16] = "?";

	if (p->keeper) {
		snprintf(p->label, sizeof(p->label), "%s: %llu exited processes", p->comm,
			 (unsigned long long)p->merged);
		return;
	}
	if (p->pid)
		snprintf(pid, sizeof(pid), "%d", (int)p->pid);
	snprintf(p->label, sizeof(p->label), "pid %s (%s)%s%s", pid, p->comm,
		 p->ending ? " " : "", p->ending ? p->ending : "");
}

/* a free entry, or a new one at the end; NULL past PROC_MAX or out of memory */
static struct process_name *take_entry(struct processes *ps, int *err)
{
	size_t i;

	for (i = 0; i < ps->count; i++)
		if (ps->procs[i].free)
			return &ps->procs[i];
	if (ps->count >= PROC_MAX) {
		*err = -ENOSPC;
		return NULL;
	}
	*err = ARRAY_RESERVE(ps->procs, &ps->cap, ps->count + 1, 16);
	return *err ? NULL : &ps->procs[ps->count++];
}

int processes__add(struct processes *ps, pid_t pid, const char *comm, struct symbolizer *sym)
{
	struct process_name *p;
	char name[sizeof(p->comm)];
	int err = 0;

	/* comm may be another process's name in procs, which realloc moves */
	snprintf(name, sizeof(name), "%s", comm ? comm : "?");
	p = take_entry(ps, &err);
	if (!p) {
		symbolizer__destroy(sym);
		return err;
	}
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	memcpy(p->comm, name, sizeof(p->comm));
	p->sym = sym;
	make_label(p);
	return (int)(p - ps->procs) + 1;
}

static struct process_name *get(const struct processes *ps, uint32_t idx)
{
	return idx >= 1 && idx <= ps->count && !ps->procs[idx - 1].free ? &ps->procs[idx - 1] : NULL;
}

int processes__set(struct processes *ps, uint32_t idx, pid_t pid, const char *comm,
		   struct symbolizer *sym)
{
	struct process_name *p = get(ps, idx);

	if (!p) {
		symbolizer__destroy(sym);
		return -ENOENT;
	}
	p->pid = pid;
	/* comm may be p->comm itself */
	if (comm != p->comm)
		snprintf(p->comm, sizeof(p->comm), "%s", comm ? comm : "?");
	symbolizer__destroy(p->sym);
	p->sym = sym;
	make_label(p);
	return 0;
}

void processes__ended(struct processes *ps, uint32_t idx, const char *how)
{
	struct process_name *p = get(ps, idx);

	if (!p || p->keeper)
		return;
	p->ending = how;
	if (!p->ended_seq)
		p->ended_seq = ++ps->ended_seq;
	make_label(p);
}

size_t processes__count(const struct processes *ps)
{
	size_t i, n = ps->retired_counted;

	/* a fork's child numbered at the fork but let go untraced is none, and
	 * a process that called exec is one, whatever its programs' numbers */
	for (i = 0; i < ps->count; i++)
		n += counts(&ps->procs[i]);
	return n;
}

size_t processes__to_retire(const struct processes *ps, size_t keep, uint32_t *out, size_t max)
{
	size_t i, ended = 0, n = 0;
	uint64_t below;

	for (i = 0; i < ps->count; i++)
		ended += !ps->procs[i].free && ps->procs[i].ended_seq;
	if (ended <= keep)
		return 0;
	/* the oldest endings: those below the (ended - keep)th newest */
	below = ps->ended_seq - keep;
	for (i = 0; i < ps->count && n < max; i++)
		if (!ps->procs[i].free && ps->procs[i].ended_seq && ps->procs[i].ended_seq <= below)
			out[n++] = (uint32_t)i + 1;
	return n;
}

int processes__keeper(struct processes *ps, uint32_t idx)
{
	struct process_name *p = get(ps, idx), *k;
	char comm[sizeof(p->comm)];
	struct symbolizer *sym;
	size_t i;
	int err = 0;

	if (!p || !p->sym)
		return -ENOENT;
	for (i = 0; i < ps->count; i++) {
		k = &ps->procs[i];
		if (!k->free && k->keeper && k->sym == p->sym && !strcmp(k->comm, p->comm))
			return (int)i + 1;
	}
	if (ps->keepers >= PROC_KEEPERS)
		return -ENOSPC;
	memcpy(comm, p->comm, sizeof(comm));
	sym = symbolizer__get(p->sym);
	k = take_entry(ps, &err);
	if (!k) {
		symbolizer__destroy(sym);
		return err;
	}
	memset(k, 0, sizeof(*k));
	memcpy(k->comm, comm, sizeof(k->comm));
	k->sym = sym;
	k->keeper = true;
	ps->keepers++;
	make_label(k);
	return (int)(k - ps->procs) + 1;
}

void processes__retire(struct processes *ps, uint32_t idx, uint32_t keeper)
{
	struct process_name *p = get(ps, idx), *k = get(ps, keeper);

	if (!p || p->keeper)
		return;
	if (k && k->keeper && counts(p)) {
		k->merged++;
		make_label(k);
	}
	ps->retired_counted += counts(p);
	symbolizer__destroy(p->sym);
	memset(p, 0, sizeof(*p));
	p->free = true;
}

size_t processes__numbers(const struct processes *ps)
{
	size_t i, n = 0;

	for (i = 0; i < ps->count; i++)
		n += !ps->procs[i].free;
	return n;
}

void processes__superseded(struct processes *ps, uint32_t idx)
{
	struct process_name *p = get(ps, idx);

	if (p)
		p->superseded = true;
}

pid_t processes__pid(const struct processes *ps, uint32_t idx)
{
	struct process_name *p = get(ps, idx);

	return p ? p->pid : 0;
}

const char *processes__comm(const struct processes *ps, uint32_t idx)
{
	struct process_name *p = get(ps, idx);

	return p ? p->comm : NULL;
}

const char *processes__ending(const struct processes *ps, uint32_t idx)
{
	struct process_name *p = get(ps, idx);

	return p ? p->ending : NULL;
}

struct symbolizer *processes__symbolizer(const struct processes *ps, uint32_t idx)
{
	struct process_name *p = get(ps, idx);

	return p ? p->sym : NULL;
}

uint32_t processes__frame_process(uint64_t frame)
{
	return IS_PROCESS_FRAME(frame) ? (uint32_t)(frame & 0xffffffffu) : 0;
}

const char *processes__label(const struct processes *ps, uint64_t frame)
{
	struct process_name *p = get(ps, processes__frame_process(frame));

	return p ? p->label : NULL;
}

const struct sym_location *processes__locate(const struct processes *ps, uint64_t frame)
{
	static const struct sym_frame unknown_frame = { .function = "[unknown]" };
	static const struct sym_location unknown = { .nframes = 1, .frames = &unknown_frame };
	struct process_name *p = get(ps, PROC_OF(frame));

	return p && p->sym ? symbolizer__locate(p->sym, frame & ~PROC_MASK) : &unknown;
}

bool processes__ready(const struct processes *ps, uint64_t frame)
{
	struct process_name *p = get(ps, PROC_OF(frame));

	return !p || !p->sym || symbolizer__ready(p->sym, frame & ~PROC_MASK);
}

bool processes__in_module(const struct processes *ps, uint64_t frame)
{
	struct process_name *p = get(ps, PROC_OF(frame));

	return p && p->sym && symbolizer__in_module(p->sym, frame & ~PROC_MASK);
}

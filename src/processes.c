// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processes.h"

struct process_name {
	pid_t pid;
	char comm[16];
	const char *ending;
	char label[64];
	struct symbolizer *sym;
	bool superseded;	/* the process goes on under a later number (a followed exec) */
};

struct processes {
	struct process_name *procs;	/* [idx - 1] */
	size_t count, cap;
};

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
		symbolizer__destroy(ps->procs[i].sym);
	free(ps->procs);
	free(ps);
}

static void make_label(struct process_name *p)
{
	char pid[16] = "?";

	if (p->pid)
		snprintf(pid, sizeof(pid), "%d", (int)p->pid);
	snprintf(p->label, sizeof(p->label), "pid %s (%s)%s%s", pid, p->comm,
		 p->ending ? " " : "", p->ending ? p->ending : "");
}

int processes__add(struct processes *ps, pid_t pid, const char *comm, struct symbolizer *sym)
{
	struct process_name *p, *grown;
	char name[sizeof(p->comm)];
	size_t cap;

	/* comm may be another process's name in procs, which realloc moves */
	snprintf(name, sizeof(name), "%s", comm ? comm : "?");
	if (ps->count >= PROC_MAX) {
		symbolizer__destroy(sym);
		return -ENOSPC;
	}
	if (ps->count == ps->cap) {
		cap = ps->cap ? 2 * ps->cap : 16;
		grown = realloc(ps->procs, cap * sizeof(*grown));
		if (!grown) {
			symbolizer__destroy(sym);
			return -ENOMEM;
		}
		ps->procs = grown;
		ps->cap = cap;
	}
	p = &ps->procs[ps->count++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	memcpy(p->comm, name, sizeof(p->comm));
	p->sym = sym;
	make_label(p);
	return (int)ps->count;
}

static struct process_name *get(const struct processes *ps, uint32_t idx)
{
	return idx >= 1 && idx <= ps->count ? &ps->procs[idx - 1] : NULL;
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

	if (!p)
		return;
	p->ending = how;
	make_label(p);
}

size_t processes__count(const struct processes *ps)
{
	size_t i, n = 0;

	/* a fork's child numbered at the fork but let go untraced is none, and
	 * a process that called exec is one, whatever its programs' numbers */
	for (i = 0; i < ps->count; i++)
		n += !ps->procs[i].superseded &&
		     (!ps->procs[i].ending || strcmp(ps->procs[i].ending, "untraced"));
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

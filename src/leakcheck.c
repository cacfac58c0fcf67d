// SPDX-License-Identifier: GPL-2.0
/* a leak check of one stopped process (see leakcheck.h) */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "allocfns.h"
#include "clock.h"
#include "heap.h"
#include "leakcheck.h"
#include "leaks.h"
#include "processes.h"

#define MAX_THREADS 4096

struct leakcheck {
	pid_t pid;
	bool attached_late;
	struct leaks *leaks;
	double stopped_ms;
	/* the stopped threads */
	pid_t *tids;
	size_t ntids;
	uint64_t *sps;
	/* the program's own mappings: roots */
	struct range {
		uint64_t start, end;
	} *own;
	size_t nown, own_cap;
};

static ssize_t read_target(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct leakcheck *c = ctx;
	struct iovec local = { .iov_base = buf, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr, .iov_len = len };
	ssize_t n = process_vm_readv(c->pid, &local, 1, &remote, 1, 0);

	return n < 0 ? -errno : n;
}

static bool stopped_already(const struct leakcheck *c, pid_t tid)
{
	size_t i;

	for (i = 0; i < c->ntids; i++)
		if (c->tids[i] == tid)
			return true;
	return false;
}

/* seizes and interrupts tid, and waits for its stop; negative errno */
static int stop_thread(struct leakcheck *c, pid_t tid)
{
	int status;

	if (ptrace(PTRACE_SEIZE, tid, NULL, NULL))
		return errno == ESRCH ? 0 : -errno;	/* a thread that went meanwhile */
	c->tids[c->ntids++] = tid;
	if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL))
		return 0;
	while (waitpid(tid, &status, __WALL) < 0)
		if (errno != EINTR)
			return 0;
	return 0;
}

/* every thread, until a listing finds none new (threads start meanwhile) */
static int stop_all(struct leakcheck *c)
{
	char path[64];
	bool found;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/task", c->pid);
	do {
		struct dirent *d;
		DIR *dir = opendir(path);

		if (!dir)
			return errno == ENOENT ? -ESRCH : -errno;
		found = false;
		while ((d = readdir(dir)) && c->ntids < MAX_THREADS) {
			pid_t tid = (pid_t)atoi(d->d_name);

			if (tid <= 0 || stopped_already(c, tid))
				continue;
			found = true;
			err = stop_thread(c, tid);
			if (err) {
				closedir(dir);
				return err;
			}
		}
		closedir(dir);
	} while (found && c->ntids < MAX_THREADS);
	return c->ntids ? 0 : -ESRCH;
}

/* each thread goes on as it was (one stopped by job control stays so) */
static void let_go(struct leakcheck *c)
{
	size_t i;

	for (i = 0; i < c->ntids; i++)
		ptrace(PTRACE_DETACH, c->tids[i], NULL, NULL);
	c->ntids = 0;
}

/* the registers of each thread: words that are roots, and its stack pointer */
static int register_roots(struct leakcheck *c)
{
	size_t i, j;
	int err;

	for (i = 0; i < c->ntids; i++) {
		struct user_regs_struct regs;
		const unsigned long long *w = (const unsigned long long *)&regs;

		c->sps[i] = 0;
		if (ptrace(PTRACE_GETREGS, c->tids[i], NULL, &regs))
			continue;
		c->sps[i] = regs.rsp;
		for (j = 0; j < sizeof(regs) / sizeof(*w); j++)
			if ((err = leaks__root_word(c->leaks, w[j])))
				return err;
	}
	return 0;
}

static int add_own(struct leakcheck *c, uint64_t start, uint64_t end)
{
	if (c->nown == c->own_cap) {
		size_t cap = c->own_cap ? c->own_cap * 2 : 64;
		struct range *r = realloc(c->own, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		c->own = r;
		c->own_cap = cap;
	}
	c->own[c->nown++] = (struct range){ start, end };
	return 0;
}

/* the model's live blocks of the process, as the process sees them; its
 * own mappings (mmap) are roots, not blocks */
static int add_blocks(struct leakcheck *c, struct heap *heap, uint64_t tag)
{
	const struct live_block *b;
	size_t pos = 0;
	uint64_t addr;
	int err;

	err = leaks__reserve(c->leaks, heap__stats(heap)->live_count + 16);
	if (err)
		return err;
	while ((b = heap__next_live(heap, &pos, &addr))) {
		const struct alloc_fn_info *f = allocfns__info(b->fn);

		if ((addr & PROC_MASK) != tag)
			continue;
		addr &= ~PROC_MASK;
		if (f && f->kind == CALL_MAP)
			err = add_own(c, addr, addr + b->size);
		else
			/* the key: its birth, for the ages shown */
			err = leaks__add(c->leaks, addr, b->size, b->birth_ns, b->stack_id);
		if (err)
			return err;
	}
	return leaks__seal(c->leaks);
}

/* the stack pointer of a thread inside [start, end), or 0 */
static uint64_t stack_in(const struct leakcheck *c, uint64_t start, uint64_t end)
{
	uint64_t sp = 0;
	size_t i;

	/* the lowest: the deepest of the threads that share it (none do, mostly) */
	for (i = 0; i < c->ntids; i++)
		if (c->sps[i] >= start && c->sps[i] < end && (!sp || c->sps[i] < sp))
			sp = c->sps[i];
	return sp;
}

/* one line of /proc/PID/maps: a root, or not */
static int map_roots(struct leakcheck *c, const char *line)
{
	unsigned long long start, end;
	char perms[8], path[512] = "";
	uint64_t sp;

	if (sscanf(line, "%llx-%llx %7s %*s %*s %*s %511[^\n]", &start, &end, perms, path) < 3)
		return 0;
	if (perms[0] != 'r' || perms[1] != 'w')
		return 0;
	if (!strcmp(path, "[vvar]") || !strcmp(path, "[vsyscall]") || !strcmp(path, "[vdso]"))
		return 0;
	/* a thread's stack: from its stack pointer (static TLS lies above it) */
	if ((sp = stack_in(c, start, end)))
		return leaks__root_range(c->leaks, sp, end, false);
	if (!leaks__any_in(c->leaks, start, end))
		return leaks__root_range(c->leaks, start, end, false);
	/* the allocator's memory (an arena, the brk heap): only its blocks, as
	 * they are reached; under -p what is not a known block may be an
	 * unknown one, older than the attach: a root */
	if (c->attached_late)
		return leaks__root_range(c->leaks, start, end, true);
	return 0;
}

static int maps_roots(struct leakcheck *c)
{
	char path[64], line[1024];
	size_t i;
	FILE *f;
	int err = 0;

	for (i = 0; i < c->nown && !err; i++)
		err = leaks__root_range(c->leaks, c->own[i].start, c->own[i].end, false);
	snprintf(path, sizeof(path), "/proc/%d/maps", c->pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (!err && fgets(line, sizeof(line), f))
		err = map_roots(c, line);
	fclose(f);
	return err;
}

static int check(struct leakcheck *c, const struct leakcheck_opts *o, struct heap *heap)
{
	uint64_t t0 = clock__now_ns();
	int err = stop_all(c);

	if (!err) {
		/* one instant: the records sent before the stop are in the model */
		if (o->drain)
			o->drain(o->ctx);
		err = add_blocks(c, heap, o->tag);
	}
	if (!err)
		err = register_roots(c);
	if (!err)
		err = maps_roots(c);
	let_go(c);
	c->stopped_ms = (clock__now_ns() - t0) / 1e6;
	if (!err)
		err = leaks__classify(c->leaks);
	return err;
}

int leakcheck__run(const struct leakcheck_opts *o, struct heap *heap, struct leakcheck **out)
{
	struct leakcheck *c = calloc(1, sizeof(*c));
	int err;

	*out = NULL;
	if (!c)
		return -ENOMEM;
	c->pid = o->pid;
	c->attached_late = o->attached_late;
	c->leaks = leaks__new(read_target, c);
	c->tids = calloc(MAX_THREADS, sizeof(*c->tids));
	c->sps = calloc(MAX_THREADS, sizeof(*c->sps));
	err = c->leaks && c->tids && c->sps ? check(c, o, heap) : -ENOMEM;
	if (err) {
		leakcheck__destroy(c);
		return err;
	}
	*out = c;
	return 0;
}

void leakcheck__destroy(struct leakcheck *c)
{
	if (!c)
		return;
	leaks__destroy(c->leaks);
	free(c->tids);
	free(c->sps);
	free(c->own);
	free(c);
}

const struct leaks *leakcheck__leaks(const struct leakcheck *c)
{
	return c->leaks;
}

double leakcheck__stopped_ms(const struct leakcheck *c)
{
	return c->stopped_ms;
}

const char *leakcheck__how(const struct leakcheck *c)
{
	return "stopped scan";
}

pid_t leakcheck__pid(const struct leakcheck *c)
{
	return c->pid;
}

bool leakcheck__attached_late(const struct leakcheck *c)
{
	return c->attached_late;
}

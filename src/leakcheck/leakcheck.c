// SPDX-License-Identifier: GPL-2.0
/* a leak check of one stopped process (see leakcheck.h) */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "allocfns.h"
#include "cgroupmem.h"
#include "clock.h"
#include "heap.h"
#include "leakcheck.h"
#include "leaks.h"
#include "memstream.h"
#include "pools.h"
#include "processes.h"
#include "procfs.h"
#include "snapshot.h"

#define MAX_THREADS 4096

struct leakcheck {
	pid_t pid;
	pid_t read_pid;		/* whose memory is read: the process, or its copy */
	int mem_fd;		/* its /proc/PID/mem */
	bool attached_late;
	struct leaks *leaks;
	double stopped_ms, scan_ms;
	struct snapshot *snap;
	struct snapshot_code code;	/* found before the stop */
	/* the copy's own memory streamed by it; the mapping it made for that */
	struct memstream *stream;
	uint64_t scratch_start, scratch_end;
	char how[320];
	int scan_err;
	atomic_bool scanned;
	int done_fd;		/* an eventfd the scan's thread ends with */
	/* the stopped threads, their registers */
	struct snapshot_thread *threads;
	size_t ntids;
	/* their alternate signal stacks (sigaltstack): the kernel's pointers */
	uint64_t *sig_sp;
	size_t nsig;
	int sig_err;
	/* the program's own mappings: roots */
	struct range {
		uint64_t start, end;
	} *own;
	size_t nown, own_cap;
	/* the named allocators' slabs: roots but for the blocks inside */
	struct range *slabs;
	size_t nslabs;
	/* pages a fork leaves out of the copy (MADV_DONTFORK) or gives it as
	 * zeros (MADV_WIPEONFORK): found before the stop, read from the process
	 * during it, scanned as roots */
	struct range *unforked;
	size_t nunforked;
	uint64_t *unforked_words;
	size_t nunforked_words;
	uint64_t unforked_unread;	/* bytes past UNFORKED_MAX, not read */
};

/* what the stop may read of pages the copy lacks (they are small: a
 * driver's buffers, a key kept out of children) */
#define UNFORKED_MAX (16ULL << 20)

/* through /proc/PID/mem, not process_vm_readv: that pins the pages it
 * reads, and pinning a page shared copy-on-write (every page of a
 * snapshot, and of a process that forked) copies it first */
static ssize_t read_target(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct leakcheck *c = ctx;
	ssize_t n = pread(c->mem_fd, buf, len, (off_t)addr);

	return n < 0 ? -errno : n;
}

static int open_mem(struct leakcheck *c, pid_t pid)
{
	char path[64];

	if (c->mem_fd >= 0)
		close(c->mem_fd);
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	c->mem_fd = open(path, O_RDONLY | O_CLOEXEC);
	c->read_pid = pid;
	return c->mem_fd < 0 ? -errno : 0;
}

static bool stopped_already(const struct leakcheck *c, pid_t tid)
{
	size_t i;

	for (i = 0; i < c->ntids; i++)
		if (c->threads[i].tid == tid)
			return true;
	return false;
}

/* the process's writable mappings a fork leaves out or wipes, from smaps
 * (VmFlags dc, wf), before the stop: reading smaps walks every page table */
static void find_unforked(struct leakcheck *c)
{
	unsigned long long start = 0, end = 0;
	char path[64], line[1024], perms[8] = "";
	struct range *r;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps", c->pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e;
		char p[8];

		/* (a field line that begins with a hex digit, "AnonHugePages:",
		 * would scan a number) */
		if (sscanf(line, "%llx-%llx %7s", &s, &e, p) == 3) {
			start = s;
			end = e;
			memcpy(perms, p, sizeof(perms));
			continue;
		}
		if (strncmp(line, "VmFlags:", 8) || perms[0] != 'r' || perms[1] != 'w' ||
		    (!strstr(line, " dc") && !strstr(line, " wf")))
			continue;
		r = realloc(c->unforked, (c->nunforked + 1) * sizeof(*r));
		if (!r)
			break;
		c->unforked = r;
		r[c->nunforked++] = (struct range){ start, end };
	}
	fclose(f);
}

/* their words, read from the stopped process */
static void read_unforked(struct leakcheck *c)
{
	uint64_t total = 0, len, *w;
	char path[64];
	size_t i;
	ssize_t got;
	int fd;

	for (i = 0; i < c->nunforked; i++)
		total += c->unforked[i].end - c->unforked[i].start;
	if (!total)
		return;
	snprintf(path, sizeof(path), "/proc/%d/mem", c->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	w = fd >= 0 ? malloc(total < UNFORKED_MAX ? total : UNFORKED_MAX) : NULL;
	for (i = 0; w && i < c->nunforked; i++) {
		len = c->unforked[i].end - c->unforked[i].start;
		if (c->nunforked_words * 8 + len > UNFORKED_MAX) {
			c->unforked_unread += len;
			continue;
		}
		got = pread(fd, w + c->nunforked_words, len, (off_t)c->unforked[i].start);
		if (got > 0)
			c->nunforked_words += (size_t)got / 8;
	}
	if (!w)
		c->unforked_unread = total;
	c->unforked_words = w;
	if (fd >= 0)
		close(fd);
}

/* seizes and interrupts tid, and waits for its stop; negative errno */
static int stop_thread(struct leakcheck *c, pid_t tid)
{
	struct snapshot_thread *t = &c->threads[c->ntids];
	int status;

	if (ptrace(PTRACE_SEIZE, tid, NULL, NULL))
		return errno == ESRCH ? 0 : -errno;	/* a thread that went meanwhile */
	c->ntids++;
	t->tid = tid;
	if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL))
		return 0;
	while (waitpid(tid, &status, __WALL) < 0)
		if (errno != EINTR)
			return 0;
	/* a stop of the process's (SIGSTOP, ^Z) shows with its signal */
	t->job_stopped = WIFSTOPPED(status) && (status >> 16) == PTRACE_EVENT_STOP &&
			 WSTOPSIG(status) != SIGTRAP;
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

	/* the thread that made a copy is gone on already */
	for (i = 0; i < c->ntids; i++)
		ptrace(PTRACE_DETACH, c->threads[i].tid, NULL, NULL);
}

/* each thread's registers, at the stop */
static void read_registers(struct leakcheck *c)
{
	size_t i;

	for (i = 0; i < c->ntids; i++)
		if (ptrace(PTRACE_GETREGS, c->threads[i].tid, NULL, &c->threads[i].regs))
			memset(&c->threads[i].regs, 0, sizeof(c->threads[i].regs));
}

/* the alternate signal stacks, as the kernel has them while the threads
 * are stopped */
static void read_sig_stacks(struct leakcheck *c, const struct leakcheck_opts *o)
{
	int n;

	if (!o->sig_stacks)
		return;
	n = o->sig_stacks(o->ctx, c->pid, c->sig_sp, MAX_THREADS);
	if (n < 0)
		c->sig_err = n;
	else
		c->nsig = (size_t)n;
}

/* the registers of each thread, and where its alternate signal stack is:
 * words that are roots */
static int register_roots(struct leakcheck *c)
{
	size_t i, j;
	int err;

	for (i = 0; i < c->ntids; i++) {
		const unsigned long long *w = (const unsigned long long *)&c->threads[i].regs;

		for (j = 0; j < sizeof(c->threads[i].regs) / sizeof(*w); j++)
			if ((err = leaks__root_word(c->leaks, w[j])))
				return err;
	}
	for (i = 0; i < c->nsig; i++)
		if ((err = leaks__root_word(c->leaks, c->sig_sp[i])))
			return err;
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

/*
 * The memory the program's own allocators took for themselves: what in it
 * is not one of their blocks is theirs, their pools' headers and lists,
 * which may hold the program's pointers (APR's cleanups point at blocks
 * of the pool): a root, as the allocator's memory is under -p.
 */
static int add_slabs(struct leakcheck *c, const struct pools *pools, uint64_t tag)
{
	uint64_t addr, len;
	size_t pos = 0, n = 0;

	while (pools && pools__next_slab(pools, &pos, &addr, &len))
		n += (addr & PROC_MASK) == tag;
	if (!n)
		return 0;
	c->slabs = calloc(n, sizeof(*c->slabs));
	if (!c->slabs)
		return -ENOMEM;
	pos = 0;
	while (pools__next_slab(pools, &pos, &addr, &len))
		if ((addr & PROC_MASK) == tag && c->nslabs < n) {
			addr &= ~PROC_MASK;
			c->slabs[c->nslabs++] = (struct range){ addr, addr + len };
		}
	return 0;
}

/* the stack pointer of a thread inside [start, end), or 0 */
static uint64_t stack_in(const struct leakcheck *c, uint64_t start, uint64_t end)
{
	uint64_t sp = 0;
	size_t i;

	/* the lowest: the deepest of the threads that share it (none do, mostly) */
	for (i = 0; i < c->ntids; i++) {
		uint64_t s = c->threads[i].regs.rsp;

		if (s >= start && s < end && (!sp || s < sp))
			sp = s;
	}
	return sp;
}

/*
 * A thread's TLS inside the allocator's memory: a static glibc program's
 * main thread has its TLS block and thread control block from sbrk, in
 * the brk heap, below and at its thread pointer. The words around the
 * thread pointer that are in no block are roots (the TLS of a static
 * program is small; its TCB, struct pthread, about 2 KiB).
 */
#define TLS_BELOW (16 << 10)
#define TCB_ABOVE (4 << 10)

static int tls_roots(struct leakcheck *c, uint64_t start, uint64_t end)
{
	size_t i;
	int err = 0;

	for (i = 0; i < c->ntids && !err; i++) {
		uint64_t tp = c->threads[i].regs.fs_base, lo, hi;

		if (tp < start || tp >= end)
			continue;
		lo = tp - start > TLS_BELOW ? tp - TLS_BELOW : start;
		hi = end - tp > TCB_ABOVE ? tp + TCB_ABOVE : end;
		err = leaks__root_range(c->leaks, lo, hi, true);
	}
	return err;
}

/* one line of /proc/PID/maps: a root, or not */
struct map_line {
	unsigned long long start, end;
	char perms[8], path[512];
};

/*
 * One line of /proc/PID/maps: a root, or not. prev: the line before. An
 * object's writable segment begins with what the dynamic linker makes read
 * only once relocated (RELRO: pointers set at start-up, as glibc's search
 * paths, kept there ever after): the read-only mapping of the file just
 * below its writable one is a root as well, as LeakSanitizer takes every
 * writable PT_LOAD segment whole.
 */
static int map_roots(struct leakcheck *c, const struct map_line *m, const struct map_line *prev)
{
	unsigned long long start = m->start, end = m->end;
	const char *perms = m->perms, *path = m->path;
	uint64_t sp;
	int err;

	if (perms[0] != 'r' || perms[1] != 'w')
		return 0;
	if (path[0] == '/' && prev->end == start && !strcmp(prev->path, path) &&
	    !strcmp(prev->perms, "r--p") &&
	    (err = leaks__root_range(c->leaks, prev->start, prev->end, false)))
		return err;
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
	return tls_roots(c, start, end);
}

/* a line of the maps less the mapping the copy made to stream its
 * memory (which the kernel may have merged with a mapping beside it) */
static int map_roots_but_scratch(struct leakcheck *c, const struct map_line *m,
				 const struct map_line *prev)
{
	struct map_line part = *m;
	int err = 0;

	if (c->scratch_end <= m->start || c->scratch_start >= m->end)
		return map_roots(c, m, prev);
	if (c->scratch_start > m->start) {
		part.end = c->scratch_start;
		err = map_roots(c, &part, prev);
	}
	if (!err && c->scratch_end < m->end) {
		part = *m;
		part.start = c->scratch_end;
		err = map_roots(c, &part, prev);
	}
	return err;
}

static int maps_roots(struct leakcheck *c)
{
	struct map_line m[2] = { 0 };
	char path[64], line[1024];
	size_t i;
	FILE *f;
	int err = 0, k = 0;

	for (i = 0; i < c->nown && !err; i++)
		err = leaks__root_range(c->leaks, c->own[i].start, c->own[i].end, false);
	for (i = 0; i < c->nslabs && !err; i++)
		err = leaks__root_range(c->leaks, c->slabs[i].start, c->slabs[i].end, true);
	snprintf(path, sizeof(path), "/proc/%d/maps", c->read_pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (!err && fgets(line, sizeof(line), f)) {
		struct map_line *cur = &m[k];

		cur->path[0] = 0;
		if (sscanf(line, "%llx-%llx %7s %*s %*s %*s %511[^\n]", &cur->start, &cur->end,
			   cur->perms, cur->path) < 3)
			continue;
		err = map_roots_but_scratch(c, cur, &m[!k]);
		k = !k;
	}
	fclose(f);
	return err;
}

/* the mark and the sweep, from the roots: of the stopped process, or of
 * its copy while the process runs on */
static int scan(struct leakcheck *c)
{
	int err = register_roots(c);

	if (!err && c->nunforked_words)
		err = leaks__root_words(c->leaks, c->unforked_words, c->nunforked_words);
	if (!err)
		err = maps_roots(c);
	if (!err)
		err = leaks__classify(c->leaks);
	return err;
}

static void *scan_thread(void *arg)
{
	struct leakcheck *c = arg;

	/* the target runs on beside the scan, which can wait: on a host with
	 * few CPUs the target's threads get one as soon as they want it */
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
	c->scan_err = scan(c);
	atomic_store(&c->scanned, true);
	if (c->done_fd >= 0)
		eventfd_write(c->done_fd, 1);
	return NULL;
}

/* the copy scanned on a thread of its own, while the rings are read: the
 * process runs on and its records must not wait for the scan */
static int scan_copy(struct leakcheck *c, const struct leakcheck_opts *o)
{
	struct pollfd p;
	pthread_t th;
	int err;

	/* the scan's end wakes us: its time is what the bench measures */
	c->done_fd = eventfd(0, EFD_CLOEXEC);
	p = (struct pollfd){ .fd = c->done_fd, .events = POLLIN };
	err = pthread_create(&th, NULL, scan_thread, c);
	if (err) {
		err = scan(c);
	} else {
		while (!atomic_load(&c->scanned)) {
			if (o->drain)
				o->drain(o->ctx);
			poll(&p, c->done_fd >= 0, 5);
		}
		pthread_join(th, NULL);
		err = c->scan_err;
	}
	if (c->done_fd >= 0)
		close(c->done_fd);
	c->done_fd = -1;
	return err;
}

static int stream_ask(void *ctx, const struct iovec *r, size_t n)
{
	return memstream__ask(ctx, r, n);
}

static int stream_take(void *ctx, void *buf, size_t len)
{
	return memstream__take(ctx, buf, len);
}

/* the copy streams its memory to the scan: one copy of each byte where
 * /proc/PID/mem makes two; where it cannot, the scan reads that way */
static void start_stream(struct leakcheck *c)
{
	struct leaks_stream s = { .ask = stream_ask, .take = stream_take,
				  .max_ranges = MEMSTREAM_MAX_RANGES };

	if (getenv("TRACELLOC_NO_STREAM") ||
	    memstream__start(snapshot__pid(c->snap), snapshot__sys_ret(c->snap), &c->stream))
		return;
	memstream__scratch(c->stream, &c->scratch_start, &c->scratch_end);
	s.ctx = c->stream;
	s.pages = memstream__pages(c->stream);
	if (leaks__stream(c->leaks, &s)) {
		memstream__destroy(c->stream);
		c->stream = NULL;
	}
}

/*
 * A snapshot's cost to the target's cgroup: every page that the target or
 * its copy writes while the scan runs is copied and charged there, and so
 * are the copy's page tables. Where the target's anonymous memory would not
 * fit in the room its cgroup has left (a worst case: it writes every page),
 * no copy is made: its cgroup's OOM killer could pick the target.
 */
static bool copy_fits(const struct leakcheck *c, char *why, size_t len)
{
	char path[64], status[4096], *at;
	uint64_t room, limit, anon, need;

	if (cgroupmem__headroom(c->pid, &room, &limit))
		return true;
	snprintf(path, sizeof(path), "/proc/%d/status", c->pid);
	if (procfs__read(path, status, sizeof(status)) < 0 || !(at = strstr(status, "\nRssAnon:")))
		return true;
	anon = strtoull(at + strlen("\nRssAnon:"), NULL, 10) << 10;
	need = anon + anon / 512;
	if (room >= need)
		return true;
	snprintf(why, len, "its copy-on-write could take its cgroup over its memory limit "
		 "(%.1f MiB resident, %.1f MiB free of %.1f MiB)", anon / 1048576.0,
		 room / 1048576.0, limit / 1048576.0);
	return false;
}

static void make_copy(struct leakcheck *c, const struct leakcheck_opts *o)
{
	char why[192];
	int err = copy_fits(c, why, sizeof(why)) ?
		  snapshot__take(c->pid, &c->code, c->threads, c->ntids, o->quiet, o->ctx, &c->snap,
				 why, sizeof(why)) : -ENOMEM;

	if (!err && !open_mem(c, snapshot__pid(c->snap))) {
		snprintf(c->how, sizeof(c->how), "snapshot");
	} else {
		if (!err) {
			snprintf(why, sizeof(why), "its copy cannot be read");
			snapshot__release(c->snap);
			c->snap = NULL;
			open_mem(c, c->pid);
		}
		/* (a failed one is released after the stopped scan) */
		if (o->held)
			snprintf(why, sizeof(why), "tracelloc holds it stopped until its probes "
				 "are attached");
		snprintf(c->how, sizeof(c->how), "stopped scan: no snapshot, %s", why);
	}
}

static int check(struct leakcheck *c, const struct leakcheck_opts *o, struct heap *heap)
{
	uint64_t t0, t1;
	int err;

	/* outside the stop: reading the code for them takes milliseconds */
	if (o->snapshot) {
		snapshot__find_code(c->pid, &c->code);
		find_unforked(c);
	}
	t0 = clock__now_ns();
	err = stop_all(c);

	snprintf(c->how, sizeof(c->how), "stopped scan");
	if (!err) {
		/* one instant: the records sent before the stop are in the model */
		if (o->drain)
			o->drain(o->ctx);
		read_registers(c);
		read_sig_stacks(c, o);
		if (o->snapshot)
			make_copy(c, o);
	}
	if (!err && snapshot__pid(c->snap)) {
		read_unforked(c);
		let_go(c);
		if (c->nunforked_words)
			snprintf(c->how + strlen(c->how), sizeof(c->how) - strlen(c->how),
				 ", with %llu KiB a fork leaves out (MADV_DONTFORK, MADV_WIPEONFORK) "
				 "read from the process",
				 (unsigned long long)(c->nunforked_words * 8 + 1023) / 1024);
		if (c->unforked_unread)
			snprintf(c->how + strlen(c->how), sizeof(c->how) - strlen(c->how),
				 ", %llu KiB of it not read (a block only it points to may be "
				 "called lost)",
				 (unsigned long long)(c->unforked_unread + 1023) / 1024);
		c->stopped_ms = (clock__now_ns() - t0) / 1e6;
		/* the model is still of the instant: nothing read since */
		t1 = clock__now_ns();
		start_stream(c);
		err = add_blocks(c, heap, o->tag);
		if (!err)
			err = add_slabs(c, o->pools, o->tag);
		if (!err)
			err = scan_copy(c, o);
		c->scan_ms = (clock__now_ns() - t1) / 1e6;
	} else {
		t1 = clock__now_ns();
		if (!err)
			err = add_blocks(c, heap, o->tag);
		if (!err)
			err = add_slabs(c, o->pools, o->tag);
		if (!err)
			err = scan(c);
		c->scan_ms = (clock__now_ns() - t1) / 1e6;
		let_go(c);
		c->stopped_ms = (clock__now_ns() - t0) / 1e6;
	}
	memstream__destroy(c->stream);
	c->stream = NULL;
	snapshot__release(c->snap);
	c->snap = NULL;
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
	c->mem_fd = -1;
	c->done_fd = -1;
	c->attached_late = o->attached_late;
	c->leaks = leaks__new(read_target, c);
	c->threads = calloc(MAX_THREADS, sizeof(*c->threads));
	c->sig_sp = calloc(MAX_THREADS, sizeof(*c->sig_sp));
	err = c->leaks && c->threads && c->sig_sp ? open_mem(c, o->pid) : -ENOMEM;
	if (!err)
		err = check(c, o, heap);
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
	if (c->mem_fd >= 0)
		close(c->mem_fd);
	free(c->threads);
	free(c->sig_sp);
	free(c->own);
	free(c->slabs);
	free(c->unforked);
	free(c->unforked_words);
	free(c);
}

struct leaks *leakcheck__leaks(struct leakcheck *c)
{
	return c->leaks;
}

double leakcheck__stopped_ms(const struct leakcheck *c)
{
	return c->stopped_ms;
}

double leakcheck__scan_ms(const struct leakcheck *c)
{
	return c->scan_ms;
}

const char *leakcheck__how(const struct leakcheck *c)
{
	return c->how;
}

bool leakcheck__attached_late(const struct leakcheck *c)
{
	return c->attached_late;
}

int leakcheck__sig_stacks_err(const struct leakcheck *c)
{
	return c->sig_err;
}

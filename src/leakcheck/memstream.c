// SPDX-License-Identifier: GPL-2.0
/* a snapshot's memory streamed by the snapshot itself (see memstream.h) */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "memstream.h"

/* a request: what the loop reads at once (a pipe write of at most
 * PIPE_BUF bytes is never split, so each read is one request whole) */
struct request {
	uint64_t total;		/* the bytes the ranges hold: a splice of fewer ends the loop */
	uint64_t n;
	struct iovec r[MEMSTREAM_MAX_RANGES];
};

_Static_assert(sizeof(struct request) == 4096, "a request is PIPE_BUF bytes");

#define SCRATCH_LEN 8192	/* the loop's code, then its request */
#define PIPE_WANT (1 << 20)	/* fs.pipe-max-size's default: allowed without CAP_SYS_RESOURCE */
#define TAKE_WAIT_MS 1000

struct memstream {
	int cmd, data;		/* our ends: requests in, bytes out */
	uint64_t scratch;
	size_t pages;
};

#if defined(__x86_64__)

/*
 * The copy's loop; rbx: its request, r12d: the request pipe, r13d: the data
 * pipe. Assembled from:
 *
 *	loop:	xor eax, eax		; read(r12d, rbx, 4096)
 *		mov edi, r12d
 *		mov rsi, rbx
 *		mov edx, 4096
 *		syscall
 *		cmp rax, 4096		; anything but one request whole: the end
 *		jne out
 *		mov eax, 278		; vmsplice(r13d, rbx + 16, [rbx + 8], 0)
 *		mov edi, r13d
 *		lea rsi, [rbx + 16]
 *		mov rdx, [rbx + 8]
 *		xor r10d, r10d
 *		syscall
 *		cmp rax, [rbx]		; every byte, or the end
 *		je loop
 *	out:	mov eax, 231		; exit_group(0)
 *		xor edi, edi
 *		syscall
 *		jmp out
 */
static const uint8_t loop_code[] = {
	0x31, 0xc0, 0x44, 0x89, 0xe7, 0x48, 0x89, 0xde, 0xba, 0x00, 0x10, 0x00,
	0x00, 0x0f, 0x05, 0x48, 0x3d, 0x00, 0x10, 0x00, 0x00, 0x75, 0x1a, 0xb8,
	0x16, 0x01, 0x00, 0x00, 0x44, 0x89, 0xef, 0x48, 0x8d, 0x73, 0x10, 0x48,
	0x8b, 0x53, 0x08, 0x45, 0x31, 0xd2, 0x0f, 0x05, 0x48, 0x3b, 0x03, 0x74,
	0xcf, 0xb8, 0xe7, 0x00, 0x00, 0x00, 0x31, 0xff, 0x0f, 0x05, 0xeb, 0xf5,
};

/*
 * One system call run in the copy: at "syscall; ret", one step, which ends
 * right after the call (the ret is never run). Its return value, or
 * negative errno when the copy did not stop there.
 */
static long run_call(pid_t pid, const struct user_regs_struct *base, uint64_t sys_ret, long nr,
		     uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6)
{
	struct user_regs_struct r = *base;
	int st;

	r.rip = sys_ret;
	r.rax = (uint64_t)nr;
	r.orig_rax = (uint64_t)-1;	/* no restart of the call it stopped in */
	r.rdi = a1;
	r.rsi = a2;
	r.rdx = a3;
	r.r10 = a4;
	r.r8 = a5;
	r.r9 = a6;
	if (ptrace(PTRACE_SETREGS, pid, NULL, &r) || ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL))
		return -errno;
	while (waitpid(pid, &st, __WALL) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFSTOPPED(st) || WSTOPSIG(st) != SIGTRAP || ptrace(PTRACE_GETREGS, pid, NULL, &r))
		return -EPROTO;
	if (r.rip != sys_ret + 2)
		return -EPROTO;
	return (long)r.rax;
}

static int take_fd(int pidfd, int fd)
{
	int got = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);

	return got < 0 ? -errno : got;
}

/* the copy's two pipes, our ends taken, its own closed: *cmd and *data
 * ours, *cmd_in and *data_out the copy's; negative errno */
static int make_pipes(pid_t pid, const struct user_regs_struct *base, uint64_t sys_ret,
		      uint64_t scratch, struct memstream *m, int *cmd_in, int *data_out)
{
	int fds[4], pidfd;
	struct iovec l = { fds, sizeof(fds) }, r = { (void *)(uintptr_t)(scratch + 4096), sizeof(fds) };
	long v;

	/* into the request's page: read back before the first request */
	if ((v = run_call(pid, base, sys_ret, SYS_pipe2, scratch + 4096, O_CLOEXEC, 0, 0, 0, 0)) ||
	    (v = run_call(pid, base, sys_ret, SYS_pipe2, scratch + 4104, O_CLOEXEC, 0, 0, 0, 0)))
		return v < 0 ? (int)v : -EPROTO;
	if (process_vm_readv(pid, &l, 1, &r, 1, 0) != (ssize_t)sizeof(fds))
		return -EIO;
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0)
		return -errno;
	m->cmd = take_fd(pidfd, fds[1]);
	m->data = take_fd(pidfd, fds[2]);
	close(pidfd);
	if (m->cmd < 0 || m->data < 0)
		return m->cmd < 0 ? m->cmd : m->data;
	if (fcntl(m->data, F_SETFL, O_NONBLOCK))
		return -errno;
	/* ours only: when we are gone, the loop reads the end of its requests */
	if (run_call(pid, base, sys_ret, SYS_close, (uint64_t)fds[1], 0, 0, 0, 0, 0) ||
	    run_call(pid, base, sys_ret, SYS_close, (uint64_t)fds[2], 0, 0, 0, 0, 0))
		return -EPROTO;
	*cmd_in = fds[0];
	*data_out = fds[3];
	return 0;
}

int memstream__start(pid_t pid, uint64_t sys_ret, struct memstream **out)
{
	struct user_regs_struct base, r;
	struct memstream *m;
	uint64_t all = ~0ULL;
	int cmd_in = -1, data_out = -1, size, err;
	long v;

	*out = NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->cmd = m->data = -1;
	/* killed with us from here on, whatever it runs */
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)(long)PTRACE_O_EXITKILL) ||
	    ptrace(PTRACE_GETREGS, pid, NULL, &base)) {
		err = -errno;
		goto fail;
	}
	v = run_call(pid, &base, sys_ret, SYS_mmap, 0, SCRATCH_LEN, PROT_READ | PROT_WRITE | PROT_EXEC,
		     MAP_PRIVATE | MAP_ANONYMOUS, (uint64_t)-1, 0);
	if (v < 0 && v > -4096) {
		err = (int)v;
		goto fail;
	}
	m->scratch = (uint64_t)v;
	if ((err = make_pipes(pid, &base, sys_ret, m->scratch, m, &cmd_in, &data_out)))
		goto fail;
	/* the pipe is the copy's (its user's pipe pages): as large as it may be */
	if (fcntl(m->data, F_SETPIPE_SZ, PIPE_WANT) < 0)
		fcntl(m->data, F_SETPIPE_SZ, PIPE_WANT / 4);
	size = fcntl(m->data, F_GETPIPE_SZ);
	m->pages = size > 0 ? (size_t)size / 4096 : 0;
	{
		struct iovec l = { (void *)loop_code, sizeof(loop_code) },
			     rr = { (void *)(uintptr_t)m->scratch, sizeof(loop_code) };

		if (process_vm_writev(pid, &l, 1, &rr, 1, 0) != (ssize_t)sizeof(loop_code)) {
			err = -EIO;
			goto fail;
		}
	}
	/* no signal's handler runs in it: the program's code */
	if (ptrace(PTRACE_SETSIGMASK, pid, (void *)sizeof(all), &all)) {
		err = -errno;
		goto fail;
	}
	/* its work waits for the target's threads, as the scan does */
	setpriority(PRIO_PROCESS, (id_t)pid, 19);
	r = base;
	r.rip = m->scratch;
	r.orig_rax = (uint64_t)-1;
	r.rbx = m->scratch + 4096;
	r.r12 = (uint64_t)cmd_in;
	r.r13 = (uint64_t)data_out;
	if (ptrace(PTRACE_SETREGS, pid, NULL, &r) || ptrace(PTRACE_CONT, pid, NULL, NULL)) {
		err = -errno;
		goto fail;
	}
	*out = m;
	return 0;
fail:
	memstream__destroy(m);
	return err;
}

#else

int memstream__start(pid_t pid, uint64_t sys_ret, struct memstream **out)
{
	*out = NULL;
	return -EOPNOTSUPP;
}

#endif

void memstream__scratch(const struct memstream *m, uint64_t *start, uint64_t *end)
{
	*start = m->scratch;
	*end = m->scratch + SCRATCH_LEN;
}

size_t memstream__pages(const struct memstream *m)
{
	return m->pages;
}

int memstream__ask(struct memstream *m, const struct iovec *r, size_t n)
{
	struct request q = { .n = n };
	size_t i;
	ssize_t w;

	if (!n || n > MEMSTREAM_MAX_RANGES)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		q.r[i] = r[i];
		q.total += r[i].iov_len;
	}
	do
		w = write(m->cmd, &q, sizeof(q));
	while (w < 0 && errno == EINTR);
	return w == (ssize_t)sizeof(q) ? 0 : w < 0 ? -errno : -EIO;
}

int memstream__take(struct memstream *m, void *buf, size_t len)
{
	struct pollfd p = { .fd = m->data, .events = POLLIN };
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = read(m->data, (char *)buf + got, len - got);
		if (n > 0) {
			got += (size_t)n;
			continue;
		}
		if (n == 0)
			return -EPIPE;		/* the copy's loop ended */
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return -errno;
		/* a copy stopped (a SIGSTOP to its process group) sends nothing */
		n = poll(&p, 1, TAKE_WAIT_MS);
		if (n == 0)
			return -ETIMEDOUT;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
	return 0;
}

void memstream__destroy(struct memstream *m)
{
	if (!m)
		return;
	if (m->cmd >= 0)
		close(m->cmd);
	if (m->data >= 0)
		close(m->data);
	free(m);
}

// SPDX-License-Identifier: GPL-2.0
/* a copy-on-write copy of a stopped process (see snapshot.h) */
#include <elf.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "snapshot.h"

struct snapshot {
	pid_t pid;
	pid_t maker;	/* the thread that ran the clone */
	pid_t copy;	/* 0: none was made */
	bool ok;	/* the copy stopped, before any of its code */
	pid_t helper;	/* exited without a copy, unreaped: its thread waits in the kernel */
	uint64_t sys_ret;
};

pid_t snapshot__pid(const struct snapshot *s)
{
	return s && s->ok ? s->copy : 0;
}

static void drop(pid_t copy, pid_t helper)
{
	int st;

	/* its parent is gone (the helper): the reaper of the pid namespace
	 * takes it after us, as any orphan */
	if (copy > 0) {
		/* its exit frees the copy's page tables and pages, in its own
		 * time: that work yields to the target's threads */
		setpriority(PRIO_PROCESS, (id_t)copy, 19);
		kill(copy, SIGKILL);
		while (waitpid(copy, &st, __WALL) < 0 && errno == EINTR)
			;
	}
	/* the thread waiting for it goes on */
	if (helper > 0)
		while (waitpid(helper, &st, __WALL) < 0 && errno == EINTR)
			;
}

uint64_t snapshot__sys_ret(const struct snapshot *s)
{
	return s->sys_ret;
}

static int fail(char *why, size_t len, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return err;
}

#if defined(__x86_64__)

/* the kernel's signal frame (arch/x86: rt_sigframe, ucontext, sigcontext) */
struct k_sigcontext {
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, eflags;
	uint16_t cs, gs, fs, ss;
	uint64_t err, trapno, oldmask, cr2;
	uint64_t fpstate;
	uint64_t reserved1[8];
};

struct k_frame {
	uint64_t pretcode;	/* popped by the ret before rt_sigreturn */
	uint64_t uc_flags;
	uint64_t uc_link;
	uint64_t uc_stack[3];	/* stack_t: sp, flags (an int), size */
	struct k_sigcontext mc;
	uint64_t uc_sigmask;
	uint8_t siginfo[128];
};

_Static_assert(sizeof(struct k_sigcontext) == 256, "sigcontext");
_Static_assert(offsetof(struct k_frame, mc) == 8 + 40, "ucontext");
_Static_assert(offsetof(struct k_frame, uc_sigmask) == 8 + 296, "ucontext");

#define UC_FP_XSTATE 0x1
#define UC_SIGCONTEXT_SS 0x2
#define UC_STRICT_RESTORE_SS 0x4
#define FP_XSTATE_MAGIC1 0x46505853U
#define FP_XSTATE_MAGIC2 0x46505845U
#define FX_SW_OFFSET 464	/* fxsave's sw_reserved */
#define RED_ZONE 128
#define NO_PID 0x7fffffffULL	/* no pid is this large: wait4 on it fails at once */
#define MAX_XSTATE 16384
#define GADGET_READ (256 << 20)

enum { F_T_START, F_T_WAIT, F_T_BACK, F_M_CLONE, F_M_EXIT, F_C_EXIT, NFRAMES };

struct image {
	uint64_t base;		/* where it goes in the target */
	size_t len;
	uint8_t *buf;
	uint64_t frame[NFRAMES];	/* each frame's address */
	uint64_t fpstate;
};

static ssize_t read_mem(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };

	return process_vm_readv(pid, &l, 1, &r, 1, 0);
}

/* "syscall; ret" and "mov $15, %rax (or %eax); syscall" (glibc's and
 * musl's __restore_rt) in the process's executable memory, as it is now
 * (a breakpoint of ours would not match) */
static const uint8_t g1[] = { 0x0f, 0x05, 0xc3 };
static const uint8_t g2a[] = { 0x48, 0xc7, 0xc0, 0x0f, 0, 0, 0, 0x0f, 0x05 };
static const uint8_t g2b[] = { 0xb8, 0x0f, 0, 0, 0, 0x0f, 0x05 };

static int find_gadgets(pid_t pid, uint64_t *sys_ret, uint64_t *sigret)
{
	char path[64], line[512];
	size_t chunk = 1 << 20, total = 0;
	uint8_t *buf = malloc(chunk + 16);
	FILE *f;

	*sys_ret = *sigret = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f || !buf) {
		free(buf);
		if (f)
			fclose(f);
		return -errno;
	}
	while ((!*sys_ret || !*sigret) && total < GADGET_READ && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, a;
		char perms[8], name[256] = "";

		/* a file's code only: a JIT's may be rewritten, or made not
		 * executable, at any moment */
		if (sscanf(line, "%llx-%llx %7s %*s %*s %*s %255[^\n]", &start, &end, perms,
			   name) < 4 || perms[2] != 'x' || name[0] != '/')
			continue;
		for (a = start; a < end && (!*sys_ret || !*sigret); a += chunk) {
			size_t len = end - a < chunk + 16 ? end - a : chunk + 16;
			ssize_t got = read_mem(pid, a, buf, len);
			void *hit;

			if (got <= 0)
				break;
			total += got;
			if (!*sys_ret && (hit = memmem(buf, got, g1, sizeof(g1))))
				*sys_ret = a + ((uint8_t *)hit - buf);
			if (!*sigret && (hit = memmem(buf, got, g2a, sizeof(g2a))))
				*sigret = a + ((uint8_t *)hit - buf);
			if (!*sigret && (hit = memmem(buf, got, g2b, sizeof(g2b))))
				*sigret = a + ((uint8_t *)hit - buf);
		}
	}
	fclose(f);
	free(buf);
	return *sys_ret && *sigret ? 0 : -ENOENT;
}

int snapshot__find_code(pid_t pid, struct snapshot_code *code)
{
	return find_gadgets(pid, &code->sys_ret, &code->sigret);
}

/* [a, a + len) and [b, b + blen) each lie in one executable mapping of a file */
static bool in_file_code(pid_t pid, uint64_t a, size_t len, uint64_t b, size_t blen)
{
	char path[64], line[512];
	bool a_in = false, b_in = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while ((!a_in || !b_in) && fgets(line, sizeof(line), f)) {
		unsigned long long start, end;
		char perms[8], name[8] = "";

		if (sscanf(line, "%llx-%llx %7s %*s %*s %*s %7s", &start, &end, perms, name) < 4 ||
		    perms[2] != 'x' || name[0] != '/')
			continue;
		a_in |= a >= start && a + len <= end;
		b_in |= b >= start && b + blen <= end;
	}
	fclose(f);
	return a_in && b_in;
}

/* the sequences found before the stop are still there, in a file's code
 * (an exec, an unmapping or an mprotect since would leave other bytes
 * there, or none, or bytes that are not code any more) */
bool snapshot__code_valid(pid_t pid, const struct snapshot_code *code)
{
	uint8_t b[sizeof(g2a)];

	if (!code || !code->sys_ret || !code->sigret ||
	    !in_file_code(pid, code->sys_ret, sizeof(g1), code->sigret, sizeof(g2b)))
		return false;
	if (read_mem(pid, code->sys_ret, b, sizeof(g1)) != sizeof(g1) || memcmp(b, g1, sizeof(g1)))
		return false;
	if (read_mem(pid, code->sigret, b, sizeof(g2a)) == sizeof(g2a) &&
	    !memcmp(b, g2a, sizeof(g2a)))
		return true;
	return read_mem(pid, code->sigret, b, sizeof(g2b)) == sizeof(g2b) &&
	       !memcmp(b, g2b, sizeof(g2b));
}

/* the mapping named [stack] holds [lo, sp) */
/*
 * Is [lo, sp) stack of the thread's own, to write frames in? The main
 * thread's is [stack]. Another thread's is an anonymous mapping right above
 * a guard (---p), as glibc and musl make them: a green thread's stack in the
 * heap might have another block below its sp, and is not used.
 */
static bool on_own_stack(pid_t pid, uint64_t lo, uint64_t sp, bool main_thread)
{
	char path[64], line[512];
	unsigned long long below_end = 0;
	bool below_guard = false, ok = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, ino;
		char perms[8], name[64] = "";

		if (sscanf(line, "%llx-%llx %7s %*s %*s %llu %63[^\n]", &start, &end, perms, &ino,
			   name) < 4)
			continue;
		if (sp > start && sp <= end) {
			ok = perms[0] == 'r' && perms[1] == 'w' && lo >= start;
			if (main_thread)
				ok = ok && !strcmp(name, "[stack]");
			else
				ok = ok && perms[3] == 'p' && !ino && !name[0] && below_guard &&
				     below_end == start;
			break;
		}
		below_guard = !strncmp(perms, "---p", 4);
		below_end = end;
	}
	fclose(f);
	return ok;
}

/* a field of /proc/PID/task/TID/status, or -1 */
static long status_field(pid_t pid, pid_t tid, const char *key, bool last)
{
	char path[96], line[256];
	size_t klen = strlen(key);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", pid, tid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p, *end;

		if (strncmp(line, key, klen) || line[klen] != ':')
			continue;
		for (p = line + klen + 1;; p = end) {
			long x = strtol(p, &end, 10);

			if (end == p)
				break;
			v = x;
			if (!last)
				break;
		}
		break;
	}
	fclose(f);
	return v;
}

/* the relative timeout of the call a thread sleeps in, in ns; -1: unknown */
static long long timeout_ns(pid_t pid, const struct user_regs_struct *r)
{
	struct timespec ts;
	uint64_t at;

	switch (r->orig_rax) {
	case SYS_nanosleep: at = r->rdi; break;
	case SYS_clock_nanosleep: at = r->rdx; break;
	case SYS_futex: at = (r->rsi & 127) == 0 ? r->r10 : 0; break;	/* FUTEX_WAIT */
	case SYS_poll: return (int)r->rdx >= 0 ? (int)r->rdx * 1000000LL : -1;
	default: return -1;
	}
	if (!at || read_mem(pid, at, &ts, sizeof(ts)) != sizeof(ts) || ts.tv_sec < 0)
		return -1;
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * The system call the thread was in, made to start over when it goes on,
 * as the kernel would after a stop with no handler to run; false when it
 * cannot be. A call the kernel resumes from its own state (a sleep with a
 * relative timeout) cannot: rt_sigreturn forgets that state. It starts
 * over as it was where that is exact (an absolute deadline: futex's
 * WAIT_BITSET, clock_nanosleep's TIMER_ABSTIME) or harmless (a timeout of
 * at most SHORT_SLEEP_NS: the thread wakes that much later at most, as
 * after a busy scheduler); else false.
 */
#define SHORT_SLEEP_NS (100 * 1000000LL)

static bool restartable(pid_t pid, struct user_regs_struct *r)
{
	long ret = (long)r->rax;
	long long t;

	if ((long)r->orig_rax < 0)
		return true;
	if (ret == -516 &&	/* ERESTART_RESTARTBLOCK */
	    !(r->orig_rax == SYS_futex && (r->rsi & 127) == 9) &&	/* FUTEX_WAIT_BITSET */
	    !(r->orig_rax == SYS_clock_nanosleep && (r->rsi & 1)) &&	/* TIMER_ABSTIME */
	    ((t = timeout_ns(pid, r)) < 0 || t > SHORT_SLEEP_NS))
		return false;
	if (ret == -512 || ret == -513 || ret == -514 || ret == -516) {
		/* ERESTARTSYS, NOINTR, NOHAND, RESTARTBLOCK */
		r->rax = r->orig_rax;
		r->rip -= 2;
	}
	return true;
}

/* a frame that rt_sigreturn turns into these registers */
static void frame_regs(struct k_frame *f, uint64_t sigret, const struct user_regs_struct *r,
		       uint64_t fpstate, uint64_t mask)
{
	memset(f, 0, sizeof(*f));
	f->pretcode = sigret;
	f->uc_flags = UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS | (fpstate ? UC_FP_XSTATE : 0);
	/* an invalid sigaltstack: refused (EINVAL), so the thread's stays as it is */
	f->uc_stack[1] = 0x7fffffff;
	f->mc = (struct k_sigcontext){
		.r8 = r->r8, .r9 = r->r9, .r10 = r->r10, .r11 = r->r11, .r12 = r->r12,
		.r13 = r->r13, .r14 = r->r14, .r15 = r->r15, .rdi = r->rdi, .rsi = r->rsi,
		.rbp = r->rbp, .rbx = r->rbx, .rdx = r->rdx, .rax = r->rax, .rcx = r->rcx,
		.rsp = r->rsp, .rip = r->rip, .eflags = r->eflags, .cs = r->cs, .ss = r->ss,
		.fpstate = fpstate,
	};
	f->uc_sigmask = mask;
}

/* one system call at the "syscall; ret", then the next frame */
static void frame_call(struct k_frame *f, uint64_t sigret, const struct user_regs_struct *like,
		       uint64_t sys_ret, uint64_t next_sp, long nr, uint64_t a1, uint64_t a2,
		       uint64_t a3, uint64_t a4, uint64_t a5)
{
	struct user_regs_struct r = *like;

	r.rip = sys_ret;
	r.rsp = next_sp;
	r.rax = nr;
	r.rdi = a1;
	r.rsi = a2;
	r.rdx = a3;
	r.r10 = a4;
	r.r8 = a5;
	frame_regs(f, sigret, &r, 0, ~0ULL);
}

/*
 * Below the thread's red zone: the FPU state and six frames.
 *   thread: [T_START] (every signal blocked) clone(helper) -> [T_WAIT]
 *           wait4(helper) -> [T_BACK] where it was (its own mask again)
 *   helper: (shares the memory) -> [M_CLONE] clone(copy) -> [M_EXIT] exit
 *   copy:   -> [C_EXIT] exit, if it ever runs (tracelloc gone)
 * The helper's pid reaches T_WAIT's rdi through CLONE_PARENT_SETTID; until
 * then it holds NO_PID, so a thread left alone before the clone returns
 * waits for no one.
 */
static int build(struct image *im, pid_t pid, const struct user_regs_struct *orig,
		 const uint8_t *xstate, size_t xlen, uint64_t sys_ret, uint64_t sigret, uint64_t mask)
{
	size_t fsz = (sizeof(struct k_frame) + 15) & ~15UL;
	uint64_t top = orig->rsp - RED_ZONE, fp, p;
	struct user_regs_struct back = *orig;
	int i;

	if (!restartable(pid, &back))
		return -EBUSY;
	fp = (top - xlen - 8) & ~63ULL;
	p = fp - NFRAMES * fsz;
	im->base = p & ~63ULL;
	im->len = top - im->base;
	im->buf = calloc(1, im->len);
	if (!im->buf)
		return -ENOMEM;
	im->fpstate = fp;
	for (i = 0; i < NFRAMES; i++)
		im->frame[i] = p + i * fsz;
	memcpy(im->buf + (fp - im->base), xstate, xlen);
	*(uint32_t *)(im->buf + (fp - im->base) + xlen) = FP_XSTATE_MAGIC2;

#define FRAME(i) ((struct k_frame *)(im->buf + (im->frame[i] - im->base)))
	/* every signal blocked and the clone's registers set in one step, by
	 * the first rt_sigreturn: no moment where either is half done */
	frame_call(FRAME(F_T_START), sigret, orig, sys_ret, im->frame[F_T_WAIT], SYS_clone,
		   CLONE_VM | CLONE_PARENT_SETTID,	/* exit signal 0 */
		   im->frame[F_M_CLONE], im->frame[F_T_WAIT] + offsetof(struct k_frame, mc.rdi),
		   0, 0);
	frame_call(FRAME(F_T_WAIT), sigret, orig, sys_ret, im->frame[F_T_BACK], SYS_wait4,
		   NO_PID, 0, __WALL, 0, 0);
	/* back where it was, FPU state too (the helper's frames clear it) */
	frame_regs(FRAME(F_T_BACK), sigret, &back, fp, mask);
	frame_call(FRAME(F_M_CLONE), sigret, orig, sys_ret, im->frame[F_M_EXIT], SYS_clone,
		   0, im->frame[F_C_EXIT], 0, 0, 0);
	frame_call(FRAME(F_M_EXIT), sigret, orig, sys_ret, 0, SYS_exit_group, 0, 0, 0, 0, 0);
	frame_call(FRAME(F_C_EXIT), sigret, orig, sys_ret, 0, SYS_exit_group, 0, 0, 0, 0, 0);
#undef FRAME
	return 0;
}

/* the layout of the FPU state, as the kernel writes it in a signal frame */
static void fx_sw_bytes(uint8_t *xstate, size_t len)
{
	uint64_t xcr0;
	uint32_t w[4] = { FP_XSTATE_MAGIC1, (uint32_t)len + 4, 0, 0 };

	memcpy(&xcr0, xstate + FX_SW_OFFSET, sizeof(xcr0));
	memset(xstate + FX_SW_OFFSET, 0, 48);
	memcpy(xstate + FX_SW_OFFSET, w, 8);
	memcpy(xstate + FX_SW_OFFSET + 8, &xcr0, 8);
	w[0] = (uint32_t)len;
	memcpy(xstate + FX_SW_OFFSET + 16, w, 4);
}

static int write_mem(pid_t pid, uint64_t addr, const void *buf, size_t len)
{
	struct iovec l = { (void *)buf, len }, r = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_writev(pid, &l, 1, &r, 1, 0);

	return n == (ssize_t)len ? 0 : n < 0 ? -errno : -EIO;
}

static int wait_stop(pid_t tid, int *status)
{
	while (waitpid(tid, status, __WALL) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

#define EVENT(st) ((unsigned)(st) >> 16)

/* the next stop of tid that is not a stop of the whole process (a SIGSTOP
 * sent meanwhile, through which the call goes on) */
static int next_stop(pid_t tid, int *status)
{
	int err, i;

	for (i = 0; i < 16; i++) {
		if ((err = wait_stop(tid, status)))
			return err;
		if (!WIFSTOPPED(*status))
			return 0;
		if (EVENT(*status) == PTRACE_EVENT_STOP && WSTOPSIG(*status) != SIGTRAP) {
			ptrace(PTRACE_SYSCALL, tid, NULL, NULL);
			continue;
		}
		return 0;
	}
	return -EPROTO;
}

/* why thread i cannot make the copy, or NULL: it must not be stopped by
 * job control, and must be in a call that restarts as it was, or in code */
static const char *unfit(pid_t pid, const struct snapshot_thread *t)
{
	struct user_regs_struct r = t->regs;

	if (t->job_stopped)
		return "the process is stopped (job control)";
	if (!restartable(pid, &r))
		return "its main thread sleeps in a call a snapshot would cut short";
	return NULL;
}

/* the frames built for thread i, on its own stack; NULL or why not */
static const char *make_image(pid_t pid, const struct snapshot_thread *t, bool main_thread,
			      uint8_t *xstate, uint64_t sys_ret, uint64_t sigret, struct image *im)
{
	struct iovec xv = { xstate, MAX_XSTATE - 8 };
	uint64_t mask = 0;

	if (ptrace(PTRACE_GETREGSET, t->tid, (void *)NT_X86_XSTATE, &xv) ||
	    ptrace(PTRACE_GETSIGMASK, t->tid, (void *)sizeof(mask), &mask))
		return "its thread's state cannot be read";
	/* ptrace puts XCR0 where a signal frame has its layout: the frame's */
	if (xv.iov_len < 576 || xv.iov_len > MAX_XSTATE - 8)
		return "its FPU state has an unknown layout";
	fx_sw_bytes(xstate, xv.iov_len);
	if (build(im, t->tid, &t->regs, xstate, xv.iov_len, sys_ret, sigret, mask))
		return "its thread's frames cannot be made";
	if (!on_own_stack(pid, im->base, t->regs.rsp, main_thread)) {
		free(im->buf);
		*im = (struct image){ 0 };
		return main_thread ? "its main thread is not on its own stack" :
				     "the thread is not on a stack of its own";
	}
	return NULL;
}

/*
 * The thread that makes the copy, and its frames: the main thread where it
 * can, else any other (a server's main thread often sleeps in nanosleep or
 * poll with a timeout, whose restart a signal frame would lose, while its
 * workers wait in futexes or run). The main thread's reason when none can.
 */
static int choose(pid_t pid, const struct snapshot_thread *t, size_t n, uint8_t *xstate,
		  uint64_t sys_ret, uint64_t sigret, struct image *im, char *why, size_t whylen)
{
	const char *main_why = "its main thread cannot be found", *no;
	bool main_thread;
	size_t i;
	int pass;

	/* the main thread first, then the others in order */
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < n; i++) {
			main_thread = t[i].tid == pid;
			if (main_thread != !pass)
				continue;
			no = unfit(pid, &t[i]);
			if (!no)
				no = make_image(pid, &t[i], main_thread, xstate, sys_ret, sigret, im);
			if (!no)
				return (int)i;
			if (main_thread)
				main_why = no;
		}
	return fail(why, whylen, -EOPNOTSUPP, "%s", main_why);
}

static int run_clone(pid_t tid, struct image *im, const struct user_regs_struct *orig,
		     uint64_t sigret)
{
	struct __ptrace_syscall_info info;
	struct user_regs_struct r = *orig;
	unsigned long msg = 0;
	bool in_clone = false;
	int st, err, i;

	if (ptrace(PTRACE_SETOPTIONS, tid, NULL,
		   (void *)(long)(PTRACE_O_TRACECLONE | PTRACE_O_TRACESYSGOOD)))
		return -errno;
	/* one write: before it, the thread is as it was; after it, it goes
	 * through the chain and back on its own, its first step an
	 * rt_sigreturn into F_T_START (the frame is read 8 bytes below rsp) */
	r.rip = sigret;
	r.rsp = im->frame[F_T_START] + 8;
	r.orig_rax = -1;	/* no restart of the call it was in: the frame does that */
	if (ptrace(PTRACE_SETREGS, tid, NULL, &r))
		return -errno;
	/* rt_sigreturn in and out, the clone in, then its event (a helper) or
	 * its return (refused) */
	for (i = 0; i < 8; i++) {
		if (ptrace(PTRACE_SYSCALL, tid, NULL, NULL))
			return -errno;
		if ((err = next_stop(tid, &st)))
			return err;
		if (!WIFSTOPPED(st))
			return -ESRCH;
		if (EVENT(st) == PTRACE_EVENT_CLONE) {
			if (ptrace(PTRACE_GETEVENTMSG, tid, NULL, &msg))
				return -errno;
			return (int)msg;
		}
		if (WSTOPSIG(st) != (SIGTRAP | 0x80) ||
		    ptrace(PTRACE_GET_SYSCALL_INFO, tid, (void *)sizeof(info), &info) <= 0)
			return -EPROTO;
		if (info.op == PTRACE_SYSCALL_INFO_ENTRY)
			in_clone = info.entry.nr == SYS_clone;
		else if (info.op == PTRACE_SYSCALL_INFO_EXIT && in_clone)
			return info.exit.rval < 0 ? (int)info.exit.rval : -EPROTO;
	}
	return -EPROTO;
}

/* the helper: from its first stop through its clone of the copy; the
 * copy's pid, or negative errno (reap: the helper then exits unreaped,
 * and the thread waits for it in the kernel till snapshot__release) */
static int run_helper(pid_t helper, bool *reap)
{
	unsigned long msg = 0;
	siginfo_t si;
	int st, err;

	*reap = true;
	if ((err = wait_stop(helper, &st)))
		return err;
	if (!WIFSTOPPED(st))
		return -ECHILD;
	if (ptrace(PTRACE_CONT, helper, NULL, NULL))
		return -errno;
	/* its exit stays unreaped: the thread waiting for it stays in the kernel */
	memset(&si, 0, sizeof(si));
	while (waitid(P_PID, helper, &si, WEXITED | WSTOPPED | WNOWAIT | __WALL) < 0)
		if (errno != EINTR)
			return -errno;
	if (si.si_code != CLD_TRAPPED)
		return -EAGAIN;
	if ((err = wait_stop(helper, &st)))
		return err;
	if (EVENT(st) != PTRACE_EVENT_CLONE || ptrace(PTRACE_GETEVENTMSG, helper, NULL, &msg))
		return -EPROTO;
	/* on to its exit, which the thread reaps */
	*reap = false;
	ptrace(PTRACE_DETACH, helper, NULL, NULL);
	return (int)msg;
}

int snapshot__take(pid_t pid, const struct snapshot_code *code,
		   const struct snapshot_thread *t, size_t n, void (*quiet)(void *ctx, pid_t pid, bool on),
		   void *ctx, struct snapshot **out, char *why, size_t whylen)
{
	uint8_t *xstate = NULL;
	struct image im = { 0 };
	struct snapshot *s = NULL;
	uint64_t sys_ret = 0, sigret = 0;
	pid_t helper = -1, copy = 0;
	bool reap = false;
	int i, err, st;
	long v;

	*out = NULL;
	why[0] = 0;
	if ((v = status_field(pid, pid, "Seccomp", false)) != 0)
		return fail(why, whylen, -EOPNOTSUPP, v < 0 ? "its status cannot be read" :
			    "it runs under a seccomp filter");
	if (status_field(pid, pid, "NSpid", true) == 1)
		return fail(why, whylen, -EOPNOTSUPP, "it is the init of its pid namespace");
	if (snapshot__code_valid(pid, code)) {
		sys_ret = code->sys_ret;
		sigret = code->sigret;
	} else if (find_gadgets(pid, &sys_ret, &sigret)) {
		return fail(why, whylen, -EOPNOTSUPP,
			    "its code has no system-call return sequence to use");
	}
	xstate = calloc(1, MAX_XSTATE);
	if (!xstate)
		return -ENOMEM;
	i = choose(pid, t, n, xstate, sys_ret, sigret, &im, why, whylen);
	if (i < 0) {
		err = i;
		goto out;
	}
	if ((err = write_mem(t[i].tid, im.base, im.buf, im.len))) {
		fail(why, whylen, err, "its stack cannot be written");
		goto out;
	}
	if (quiet)
		quiet(ctx, pid, true);
	helper = run_clone(t[i].tid, &im, &t[i].regs, sigret);
	if (quiet)
		quiet(ctx, pid, false);
	if (helper < 0) {
		err = fail(why, whylen, helper, "its fork failed: %s", strerror(-helper));
		goto out;
	}
	/* the thread goes on: it waits for the helper, then is back */
	ptrace(PTRACE_DETACH, t[i].tid, NULL, NULL);
	copy = run_helper(helper, &reap);
	if (copy < 0) {
		err = fail(why, whylen, copy, "its fork failed: %s", strerror(-copy));
		goto out;
	}
	if ((err = wait_stop(copy, &st)) || !WIFSTOPPED(st)) {
		err = fail(why, whylen, err ? err : -ECHILD, "its copy did not stop");
		goto out;
	}
	reap = false;
out:
	/* what was made is undone by snapshot__release, after the caller's
	 * stopped scan when the copy failed: till then the thread waits */
	if (helper > 0) {
		s = calloc(1, sizeof(*s));
		if (s) {
			*s = (struct snapshot){ .pid = pid, .maker = t[i].tid, .copy = copy,
						.ok = !err, .helper = reap ? helper : 0,
						.sys_ret = sys_ret };
			*out = s;
		} else {
			drop(copy, reap ? helper : 0);
			err = -ENOMEM;
		}
	}
	free(im.buf);
	free(xstate);
	return err;
}

void snapshot__release(struct snapshot *s)
{
	if (!s)
		return;
	drop(s->copy, s->helper);
	free(s);
}

#else

int snapshot__find_code(pid_t pid, struct snapshot_code *code)
{
	return -EOPNOTSUPP;
}

bool snapshot__code_valid(pid_t pid, const struct snapshot_code *code)
{
	return false;
}

int snapshot__take(pid_t pid, const struct snapshot_code *code,
		   const struct snapshot_thread *t, size_t n, void (*quiet)(void *ctx, pid_t pid, bool on),
		   void *ctx, struct snapshot **out, char *why, size_t whylen)
{
	*out = NULL;
	return fail(why, whylen, -EOPNOTSUPP, "snapshots are made on x86-64 only");
}

void snapshot__release(struct snapshot *s)
{
	free(s);
}

#endif

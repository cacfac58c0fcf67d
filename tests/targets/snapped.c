// SPDX-License-Identifier: GPL-2.0
/*
 * A target for the leak check's snapshot, which its main thread makes: that
 * thread computes without a pause, in general and FPU registers, and checks
 * each result (a register the snapshot did not bring back whole would show
 * as a wrong sum). It counts the SIGCHLDs it gets, and on SIGUSR1 a second
 * thread writes to $TL_READY's file.out what it saw: "sigchld N wait E
 * wall W errors K rounds R" (E, W: errno of waitpid(-1, WNOHANG) and of the
 * same with __WALL: 10, no child, when the snapshot left nothing behind).
 * Leaks 10 blocks of 100 bytes (dropped). A sleep of the main thread cut
 * short (EINTR) counts as an error. "seccomp": first a filter that
 * refuses clone with EPERM (a snapshot cannot be made: the check scans it
 * stopped); "sleep": the main thread sleeps 200 ms in nanosleep after each
 * round (too long to start over: the second thread, in sigwait, makes the
 * snapshot), "nap": 20 ms (started over: the main thread makes it), "poll":
 * poll with a timeout of 5 s after each round (the second thread makes it),
 * "sleepall": the main thread as "sleep", and the second waits for SIGUSR1
 * in poll with a timeout of 5 s (a signalfd): no thread can make it, a
 * stopped scan.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ledger.h"

static volatile sig_atomic_t g_sigchld;
static volatile long g_errors, g_rounds;

static void on_sigchld(int sig)
{
	(void)sig;
	g_sigchld++;
}

static void refuse_clone(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	lg_check(!prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs");
	lg_check(!prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog), "seccomp");
}

static bool g_poll_signals;

/* the next SIGUSR1: by sigwait, or by poll on a signalfd with a timeout */
static int next_signal(sigset_t *set, int *sig)
{
	static int sfd = -1;
	struct signalfd_siginfo si;
	struct pollfd p;

	if (!g_poll_signals)
		return sigwait(set, sig);
	if (sfd < 0 && (sfd = signalfd(-1, set, SFD_CLOEXEC)) < 0)
		return -1;
	for (;;) {
		p = (struct pollfd){ .fd = sfd, .events = POLLIN };
		if (poll(&p, 1, 5000) == 1 && read(sfd, &si, sizeof(si)) == sizeof(si)) {
			*sig = (int)si.ssi_signo;
			return 0;
		}
	}
}

static void *reporter(void *arg)
{
	const char *ready = getenv("TL_READY");
	sigset_t *set = arg;
	char path[512], line[160];
	int sig, st, n, fd, e1, e2;

	for (;;) {
		if (next_signal(set, &sig))
			return NULL;
		e1 = waitpid(-1, &st, WNOHANG) < 0 ? errno : 0;
		e2 = waitpid(-1, &st, WNOHANG | __WALL) < 0 ? errno : 0;
		n = snprintf(line, sizeof(line), "sigchld %d wait %d wall %d errors %ld rounds %ld\n",
			     (int)g_sigchld, e1, e2, g_errors, g_rounds);
		snprintf(path, sizeof(path), "%s.out", ready ? ready : "/dev/null");
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			if (write(fd, line, n) != n)
				g_errors++;
			close(fd);
		}
	}
}

__attribute__((noinline)) void *site_snapped(size_t n)
{
	return malloc(n);
}

__attribute__((noinline)) static void make_lost(void)
{
	int i;

	for (i = 0; i < 10; i++)
		memset(site_snapped(100), 1, 100);
}

/* what the calls above left on the stack below main's frame, gone */
__attribute__((noinline)) static void scrub(void)
{
	volatile char area[16 << 10];

	memset((char *)area, 0, sizeof(area));
	/* and in the registers the calls used (the main thread may stop in a
	 * system call right after: its registers are roots) */
	__asm__ volatile("xor %%eax, %%eax; xor %%ecx, %%ecx; xor %%edx, %%edx; xor %%esi, %%esi;"
			 "xor %%edi, %%edi; xor %%r8d, %%r8d; xor %%r9d, %%r9d; xor %%r10d, %%r10d;"
			 "xor %%r11d, %%r11d; pxor %%xmm0, %%xmm0; pxor %%xmm1, %%xmm1;"
			 "pxor %%xmm2, %%xmm2; pxor %%xmm3, %%xmm3"
			 ::: "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "xmm0",
			 "xmm1", "xmm2", "xmm3", "memory");
}

int main(int argc, char **argv)
{
	static sigset_t set;
	struct sigaction sa = { .sa_handler = on_sigchld };
	const char *mode = argc < 2 ? "run" : argv[1];
	long sleep_ms = !strcmp(mode, "sleep") || !strcmp(mode, "sleepall") ? 200 :
			!strcmp(mode, "nap") ? 20 : 0;
	bool poll_main = !strcmp(mode, "poll");
	int fds[2];
	pthread_t t;

	sigaction(SIGCHLD, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	g_poll_signals = !strcmp(mode, "sleepall");
	lg_check(!pipe(fds), "pipe");
	lg_check(!pthread_create(&t, NULL, reporter, &set), "pthread_create");
	if (argc > 1 && !strcmp(argv[1], "seccomp"))
		refuse_clone();
	make_lost();
	scrub();
	tl_ready();
	for (;;) {
		double x = 0, y = 1;
		long k = 0, n;

		for (n = 0; n < 1000000; n++) {
			x += 0.25;
			y *= 1.0000001;
			k += 3;
		}
		if (x != 250000.0 || k != 3000000 || y < 1.105 || y > 1.106)
			g_errors++;
		g_rounds++;
		if (sleep_ms) {
			struct timespec ts = { 0, sleep_ms * 1000 * 1000 };

			/* cut short (EINTR): the snapshot broke its restart */
			if (nanosleep(&ts, NULL))
				g_errors++;
		}
		if (poll_main) {
			struct pollfd p = { .fd = fds[0], .events = POLLIN };

			if (poll(&p, 1, 5000))
				g_errors++;
		}
	}
}

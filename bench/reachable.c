// SPDX-License-Identifier: GPL-2.0
/*
 * reachable: the target of the leak check's benchmark (make bench, section
 * 17). Prints "ready PID", and on SIGUSR1 allocates MIB MiB in blocks of
 * BLOCK bytes, every one held by a global array (all reachable), writes
 * each, and prints "allocated N". A heartbeat thread ticks every 1 ms and
 * keeps the longest gap between two ticks: SIGUSR2 prints "gap MS" and
 * starts it afresh. SIGTERM ends it. WAIT: what the main thread does
 * meanwhile (a server's main thread parks while workers work): sigwait (the
 * default, the signals handled there), or one of sleep (nanosleep 10 s),
 * poll (5 s), epoll (epoll_wait 10 s), condwait (pthread_cond_timedwait
 * 5 s), select (5 s), over and over, while a thread of its own takes the
 * signals.
 *
 *   reachable MIB BLOCK [WAIT]
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

static void **blocks;
static volatile double longest_ms;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void *heartbeat(void *arg)
{
	struct timespec tick = { 0, 1000000 };
	double last = now_ms(), t;

	for (;;) {
		nanosleep(&tick, NULL);
		t = now_ms();
		if (t - last > longest_ms)
			longest_ms = t - last;
		last = t;
	}
	return NULL;
}

static size_t n_blocks, block_size;
static sigset_t signals;

/* USR1: allocate (once), USR2: the longest gap; returns on an error */
static void *take_signals(void *arg)
{
	size_t i;
	int sig;

	for (;;) {
		if (sigwait(&signals, &sig))
			return NULL;
		if (sig == SIGUSR2) {
			printf("gap %.2f\n", longest_ms);
			fflush(stdout);
			longest_ms = 0;
			continue;
		}
		if (blocks)
			continue;
		blocks = calloc(n_blocks, sizeof(*blocks));
		for (i = 0; blocks && i < n_blocks; i++) {
			blocks[i] = malloc(block_size);
			if (blocks[i])
				memset(blocks[i], 1, block_size);
		}
		printf("allocated %zu\n", n_blocks);
		fflush(stdout);
	}
	return arg;
}

/* the main thread parked in one call, again and again */
static void park(const char *how)
{
	pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
	int fds[2], ep = epoll_create1(0);
	struct epoll_event ev = { .events = EPOLLIN };

	if (pipe(fds) || ep < 0)
		exit(1);
	ev.data.fd = fds[0];
	epoll_ctl(ep, EPOLL_CTL_ADD, fds[0], &ev);
	for (;;) {
		if (!strcmp(how, "sleep")) {
			struct timespec ts = { 10, 0 };

			nanosleep(&ts, NULL);
		} else if (!strcmp(how, "poll")) {
			struct pollfd p = { .fd = fds[0], .events = POLLIN };

			poll(&p, 1, 5000);
		} else if (!strcmp(how, "epoll")) {
			epoll_wait(ep, &ev, 1, 10000);
		} else if (!strcmp(how, "condwait")) {
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += 5;
			pthread_mutex_lock(&mu);
			pthread_cond_timedwait(&cv, &mu, &ts);
			pthread_mutex_unlock(&mu);
		} else if (!strcmp(how, "select")) {
			struct timeval tv = { 5, 0 };
			fd_set r;

			FD_ZERO(&r);
			FD_SET(fds[0], &r);
			select(fds[0] + 1, &r, NULL, NULL, &tv);
		} else {
			exit(2);
		}
	}
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 64;
	const char *wait = argc > 3 ? argv[3] : "sigwait";
	pthread_t t, s;

	block_size = argc > 2 ? strtoul(argv[2], NULL, 10) : 65536;
	n_blocks = (mib << 20) / (block_size ? block_size : 1);
	sigemptyset(&signals);
	sigaddset(&signals, SIGUSR1);
	sigaddset(&signals, SIGUSR2);
	sigprocmask(SIG_BLOCK, &signals, NULL);
	pthread_create(&t, NULL, heartbeat, NULL);
	if (strcmp(wait, "sigwait"))
		pthread_create(&s, NULL, take_signals, NULL);
	printf("ready %d\n", getpid());
	fflush(stdout);
	if (strcmp(wait, "sigwait"))
		park(wait);
	take_signals(NULL);
	return 1;
}

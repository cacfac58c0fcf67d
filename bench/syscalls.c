// SPDX-License-Identifier: GPL-2.0
/*
 * syscalls: what a process that tracelloc does not trace pays for its own
 * system calls while tracelloc runs (bench section 13). Times N getppid()
 * and N one-byte read()s of /dev/zero, in batches, and prints the fastest
 * batch of each, in ns per call: "getppid NS read NS".
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define BATCHES 20

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000, i;
	double best_ppid = 1e18, best_read = 1e18, t;
	int fd = open("/dev/zero", O_RDONLY), b;
	char byte;

	if (fd < 0 || n < BATCHES)
		return 1;
	for (b = 0; b < BATCHES; b++) {
		t = now_ns();
		for (i = 0; i < n / BATCHES; i++)
			getppid();
		t = (now_ns() - t) / (n / BATCHES);
		if (t < best_ppid)
			best_ppid = t;
		t = now_ns();
		for (i = 0; i < n / BATCHES; i++)
			if (read(fd, &byte, 1) != 1)
				return 1;
		t = (now_ns() - t) / (n / BATCHES);
		if (t < best_read)
			best_read = t;
	}
	printf("getppid %.1f read %.1f\n", best_ppid, best_read);
	return 0;
}

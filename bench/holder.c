// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmark's memory target: keeps COUNT small blocks live at once.
 *
 *   holder [COUNT]          (default 10000000)
 *
 * It prints "ready" and waits for SIGUSR1 (so that a tracer can attach
 * first), then allocates COUNT blocks of 16..64 bytes, from four call sites
 * each ten frames deep: four distinct stacks, so a tracer that keeps a copy
 * of the stack per block needs 80 bytes or more per block for the frames
 * alone. Then it prints "holding COUNT in S s" and waits for a second
 * SIGUSR1, and exits without freeing them.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#define BARRIER() __asm__ volatile("" ::: "memory")

typedef void *(*alloc_fn)(size_t);

/* ten real frames between the call site and malloc */
#define LEVEL(name, next) \
	__attribute__((noinline)) static void *name(size_t n) { void *p = next(n); BARRIER(); return p; }
LEVEL(deep1, malloc)
LEVEL(deep2, deep1)
LEVEL(deep3, deep2)
LEVEL(deep4, deep3)
LEVEL(deep5, deep4)
LEVEL(deep6, deep5)
LEVEL(deep7, deep6)
LEVEL(deep8, deep7)
LEVEL(deep9, deep8)

/* the four call sites: each is a different stack */
LEVEL(site_a, deep9)
LEVEL(site_b, deep9)
LEVEL(site_c, deep9)
LEVEL(site_d, deep9)

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static const alloc_fn sites[] = { site_a, site_b, site_c, site_d };
	long count = argc > 1 ? atol(argv[1]) : 10000000;
	sigset_t usr1;
	void **blocks;
	double t0;
	long i;
	int sig;

	if (count < 1)
		return 2;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	/* the pointer array comes from mmap: not an allocation the tracer sees */
	blocks = mmap(NULL, count * sizeof(*blocks), PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (blocks == MAP_FAILED)
		return 1;
	printf("ready\n");
	fflush(stdout);
	if (sigwait(&usr1, &sig))
		return 1;
	t0 = now_s();
	for (i = 0; i < count; i++) {
		blocks[i] = sites[i & 3](16 + (i % 49));
		if (!blocks[i])
			return 1;
	}
	printf("holding %ld in %.1f s\n", count, now_s() - t0);
	fflush(stdout);
	if (sigwait(&usr1, &sig))
		return 1;
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmark's target: threads that churn the allocator, malloc and free
 * of 16..4096 bytes over a ring of live slots, and time that themselves.
 *
 *   churn [-t THREADS] [-d DEPTH 0..20] [-n ITERATIONS] [-f FUNC] [-l MS] [-w]
 *   churn -P PROCESSES [-d DEPTH] [-n ITERATIONS] [-l MS]
 *   churn -a [-T SECS]
 *
 * Timed churn: the threads start and warm up their arenas, then the program
 * prints "ready" and waits for SIGUSR1. With -w it then also waits until
 * free() is seen probed (a tracer that says nothing once it is attached).
 * Then each thread runs ITERATIONS iterations of: free a random slot if it
 * holds a block, malloc a new one through DEPTH frames (0: straight from the
 * loop). With -f FUNC the block comes from FUNC instead of malloc (calloc,
 * realloc(NULL, n), reallocarray(NULL, 1, n), posix_memalign, aligned_alloc,
 * memalign, valloc, pvalloc; pool: an allocator of its own, below), called
 * through one frame. It prints one line:
 *   churn: threads=T depth=D function=F mallocs=M frees=F calls=M+F
 *          ns_per_call=X ns_per_iteration=Y wall_s=W
 * where ns_per_call is a thread's time in its loop over the allocator calls
 * it made (its allocations, by whichever FUNC, and frees both), averaged over
 * the threads; ns_per_iteration is over its allocations (one allocation and,
 * once the slots are full, one free). With -l it then waits MS milliseconds
 * before it exits: a tracer that ends with its target can be measured after
 * it has drained the records of the loop.
 *
 * Forked workers (-P): on SIGUSR1 the program forks PROCESSES children, as a
 * pre-forking server does, each of which warms up and runs the loop alone
 * (one thread); the line is the same, over the children (threads=their
 * number).
 *
 * Attach-time probe (-a): malloc/free pairs in a loop, each timed; once three
 * pairs in a row take over a microsecond (each probe hit is a trap), the
 * target is traced: it prints "first_traced_ns=T" (CLOCK_REALTIME of the
 * first of them), goes on for a second and exits. Gives up after SECS
 * (default 10).
 */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#define SLOTS 256		/* live blocks per thread */
#define MIN_SIZE 16
#define MAX_SIZE 4096
#define WARMUP 20000		/* untimed iterations before the signal */
#define MAX_THREADS 64

static int depth;
static long iterations = 200000;
static pthread_barrier_t start_line;
/* a block stored here escapes: the compiler may not drop a malloc/free pair */
static void *volatile sink;

/*
 * Keep each level a real frame: no inlining, no cloning, no tail call (the
 * build adds -fno-optimize-sibling-calls). With frame pointers or without:
 * the benchmark builds this file both ways, and a stack walked by unwind
 * tables must find every level as the frame-pointer walk does.
 */
#define BARRIER() __asm__ volatile("" ::: "memory")
#define MAX_DEPTH 20
#define LEVEL(n, callee) \
	__attribute__((noinline, noclone)) static void *level##n(size_t size) \
	{ void *p = callee(size); BARRIER(); return p; }

LEVEL(1, malloc)
LEVEL(2, level1)
LEVEL(3, level2)
LEVEL(4, level3)
LEVEL(5, level4)
LEVEL(6, level5)
LEVEL(7, level6)
LEVEL(8, level7)
LEVEL(9, level8)
LEVEL(10, level9)
LEVEL(11, level10)
LEVEL(12, level11)
LEVEL(13, level12)
LEVEL(14, level13)
LEVEL(15, level14)
LEVEL(16, level15)
LEVEL(17, level16)
LEVEL(18, level17)
LEVEL(19, level18)
LEVEL(20, level19)

static void *(*const levels[MAX_DEPTH + 1])(size_t) = {
	malloc, level1, level2, level3, level4, level5, level6, level7, level8, level9, level10,
	level11, level12, level13, level14, level15, level16, level17, level18, level19, level20,
};

/* -f FUNC: one allocator entry point, called through one frame like the others */
__attribute__((noinline)) static void *f_malloc(size_t n) { void *p = malloc(n); BARRIER(); return p; }
__attribute__((noinline)) static void *f_calloc(size_t n) { void *p = calloc(1, n); BARRIER(); return p; }
/* NULL the compiler cannot see: it turns realloc(NULL, n) into malloc(n) */
static void *volatile no_block;
__attribute__((noinline)) static void *f_realloc(size_t n) { void *p = realloc(no_block, n); BARRIER(); return p; }
__attribute__((noinline)) static void *f_reallocarray(size_t n) { void *p = reallocarray(no_block, 1, n); BARRIER(); return p; }
__attribute__((noinline)) static void *f_posix_memalign(size_t n)
{
	void *p;

	if (posix_memalign(&p, 16, n))
		return NULL;
	BARRIER();
	return p;
}
__attribute__((noinline)) static void *f_aligned_alloc(size_t n) { void *p = aligned_alloc(16, n); BARRIER(); return p; }
__attribute__((noinline)) static void *f_memalign(size_t n) { void *p = memalign(16, n); BARRIER(); return p; }
__attribute__((noinline)) static void *f_valloc(size_t n) { void *p = valloc(n); BARRIER(); return p; }
#ifdef __GLIBC__	/* musl has no pvalloc */
__attribute__((noinline)) static void *f_pvalloc(size_t n) { void *p = pvalloc(n); BARRIER(); return p; }
#endif

/*
 * -f pool: a size-class allocator of the program's own, as servers have
 * (the named allocators' row of section 8: --alloc-fn pool_alloc, --free-fn
 * pool_free): blocks of 16-byte classes from 64 KiB slabs it takes from
 * malloc, freed blocks kept on a list per class and thread, a header of 16
 * bytes before each block saying its class.
 */
#define POOL_SLAB (64 << 10)
#define POOL_CLASSES (MAX_SIZE / 16 + 2)
struct pool_block { struct pool_block *next; size_t cls; };
static __thread struct pool_block *pool_lists[POOL_CLASSES];
static __thread char *pool_slab, *pool_slab_end;

__attribute__((noinline, used, visibility("default"))) void *pool_alloc(size_t n)
{
	size_t cls = (n + 15) / 16 + 1, need = cls * 16;
	struct pool_block *b = pool_lists[cls];

	if (b) {
		pool_lists[cls] = b->next;
	} else {
		if (!pool_slab || pool_slab + need > pool_slab_end) {
			pool_slab = malloc(POOL_SLAB);
			if (!pool_slab)
				return NULL;
			pool_slab_end = pool_slab + POOL_SLAB;
		}
		b = (struct pool_block *)pool_slab;
		pool_slab += need;
	}
	b->cls = cls;
	return b + 1;
}

__attribute__((noinline, used, visibility("default"))) void pool_free(void *p)
{
	struct pool_block *b = (struct pool_block *)p - 1;

	b->next = pool_lists[b->cls];
	pool_lists[b->cls] = b;
}

__attribute__((noinline)) static void *f_pool(size_t n) { void *p = pool_alloc(n); BARRIER(); return p; }

static const struct {
	const char *name;
	void *(*fn)(size_t);
} functions[] = {
	{ "pool", f_pool },
	{ "malloc", f_malloc }, { "calloc", f_calloc }, { "realloc", f_realloc },
	{ "reallocarray", f_reallocarray }, { "posix_memalign", f_posix_memalign },
	{ "aligned_alloc", f_aligned_alloc }, { "memalign", f_memalign },
	{ "valloc", f_valloc },
#ifdef __GLIBC__
	{ "pvalloc", f_pvalloc },
#endif
};

static void *(*alloc_fn)(size_t);
static const char *alloc_name = "malloc";

static uint64_t now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static inline uint64_t next_random(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

struct worker {
	pthread_t thread;
	int index;
	void *slots[SLOTS];
	uint64_t random;
	uint64_t mallocs, frees;
	uint64_t start_ns, end_ns;
};

static void churn(struct worker *w, long n, void *(*alloc)(size_t))
{
	uint64_t mallocs = 0, frees = 0;
	long i;

	for (i = 0; i < n; i++) {
		uint64_t r = next_random(&w->random);
		unsigned slot = r % SLOTS;
		size_t size = MIN_SIZE + (r >> 16) % (MAX_SIZE - MIN_SIZE + 1);

		if (w->slots[slot]) {
			if (alloc == f_pool)
				pool_free(w->slots[slot]);
			else
				free(w->slots[slot]);
			frees++;
		}
		w->slots[slot] = alloc(size);
		if (!w->slots[slot])
			abort();
		/* touch it, as a program would */
		*(volatile char *)w->slots[slot] = (char)i;
		mallocs++;
	}
	w->mallocs += mallocs;
	w->frees += frees;
}

static void *run_worker(void *arg)
{
	struct worker *w = arg;
	void *(*alloc)(size_t) = alloc_fn ? alloc_fn : levels[depth];

	churn(w, WARMUP, alloc);	/* arenas, tcache, slots full: untimed */
	w->mallocs = w->frees = 0;
	pthread_barrier_wait(&start_line);	/* setup done */
	pthread_barrier_wait(&start_line);	/* go */
	w->start_ns = now_ns(CLOCK_MONOTONIC);
	churn(w, iterations, alloc);
	w->end_ns = now_ns(CLOCK_MONOTONIC);
	return NULL;
}

/* ns one free(malloc(16)) pair takes now */
static uint64_t pair_ns(void)
{
	uint64_t t0 = now_ns(CLOCK_MONOTONIC);

	sink = malloc(16);
	free(sink);
	return now_ns(CLOCK_MONOTONIC) - t0;
}

/* free() alone: ~20 ns untraced, a microsecond or more under a probe */
static int wait_until_probed(double timeout_s)
{
	uint64_t deadline = now_ns(CLOCK_MONOTONIC) + timeout_s * 1e9;
	int slow = 0;

	while (now_ns(CLOCK_MONOTONIC) < deadline) {
		uint64_t t0, t;

		sink = malloc(16);
		t0 = now_ns(CLOCK_MONOTONIC);
		free(sink);
		t = now_ns(CLOCK_MONOTONIC) - t0;
		slow = t > 700 ? slow + 1 : 0;
		if (slow >= 8)
			return 0;
		if (!slow)
			usleep(1000);
	}
	return -1;
}

static int attach_probe(double timeout_s)
{
	uint64_t deadline = now_ns(CLOCK_MONOTONIC) + timeout_s * 1e9;
	uint64_t first = 0;
	int slow = 0;

	printf("ready\n");
	fflush(stdout);
	while (now_ns(CLOCK_MONOTONIC) < deadline) {
		uint64_t start = now_ns(CLOCK_REALTIME);

		if (pair_ns() > 1000) {
			if (!slow++)
				first = start;
			if (slow == 3) {
				printf("first_traced_ns=%llu\n", (unsigned long long)first);
				fflush(stdout);
				/* go on a while: the tracer is still finishing its setup */
				deadline = now_ns(CLOCK_MONOTONIC) + 1e9;
				while (now_ns(CLOCK_MONOTONIC) < deadline)
					pair_ns();
				return 0;
			}
		} else {
			slow = 0;
		}
	}
	fprintf(stderr, "churn: never traced within %.0f s\n", timeout_s);
	return 1;
}

/* -P: a forked child's numbers, through a pipe */
static int run_processes(int n, int linger_ms)
{
	struct worker w, all = { 0 };
	double sum_ns = 0, sum_iter_ns = 0;
	uint64_t first = UINT64_MAX, last = 0;
	sigset_t usr1;
	int fds[2], i, sig;
	pid_t pid;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	if (pipe(fds))
		return 1;
	printf("ready\n");
	fflush(stdout);
	if (sigwait(&usr1, &sig))
		return 1;
	for (i = 0; i < n; i++) {
		pid = fork();
		if (pid < 0)
			return 1;
		if (pid)
			continue;
		memset(&w, 0, sizeof(w));
		w.random = 0x9e3779b97f4a7c15ull * (i + 1);
		churn(&w, WARMUP, levels[depth]);
		w.mallocs = w.frees = 0;
		w.start_ns = now_ns(CLOCK_MONOTONIC);
		churn(&w, iterations, levels[depth]);
		w.end_ns = now_ns(CLOCK_MONOTONIC);
		_exit(write(fds[1], &w, sizeof(w)) != sizeof(w));
	}
	for (i = 0; i < n; i++) {
		if (read(fds[0], &w, sizeof(w)) != sizeof(w))
			return 1;
		all.mallocs += w.mallocs;
		all.frees += w.frees;
		sum_ns += (double)(w.end_ns - w.start_ns) / (w.mallocs + w.frees);
		sum_iter_ns += (double)(w.end_ns - w.start_ns) / w.mallocs;
		if (w.start_ns < first)
			first = w.start_ns;
		if (w.end_ns > last)
			last = w.end_ns;
	}
	while (wait(NULL) > 0)
		;
	printf("churn: threads=%d depth=%d function=malloc mallocs=%llu frees=%llu calls=%llu "
	       "ns_per_call=%.1f ns_per_iteration=%.1f wall_s=%.3f\n", n, depth,
	       (unsigned long long)all.mallocs, (unsigned long long)all.frees,
	       (unsigned long long)(all.mallocs + all.frees), sum_ns / n, sum_iter_ns / n,
	       (last - first) / 1e9);
	fflush(stdout);
	if (linger_ms > 0)
		usleep(linger_ms * 1000);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: churn [-t THREADS] [-d DEPTH 0..20] [-n ITERATIONS] [-f FUNC] [-l MS] [-w]\n"
			"       churn -P PROCESSES [-d DEPTH] [-n ITERATIONS] [-l MS]\n"
			"       churn -a [-T SECS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct worker *workers;
	int threads = 1, wait_probed = 0, attach_mode = 0, linger_ms = 0, processes = 0, opt, i, sig;
	double timeout_s = 10, sum_ns = 0, sum_iter_ns = 0;
	uint64_t mallocs = 0, frees = 0, first = UINT64_MAX, last = 0;
	sigset_t usr1;

	while ((opt = getopt(argc, argv, "t:d:n:f:l:waT:P:")) != -1) {
		switch (opt) {
		case 'f':
			for (i = 0; i < (int)(sizeof(functions) / sizeof(functions[0])); i++)
				if (!strcmp(optarg, functions[i].name)) {
					alloc_fn = functions[i].fn;
					alloc_name = functions[i].name;
				}
			if (!alloc_fn)
				usage();
			break;
		case 't': threads = atoi(optarg); break;
		case 'd': depth = atoi(optarg); break;
		case 'n': iterations = atol(optarg); break;
		case 'l': linger_ms = atoi(optarg); break;
		case 'w': wait_probed = 1; break;
		case 'a': attach_mode = 1; break;
		case 'T': timeout_s = atof(optarg); break;
		case 'P': processes = atoi(optarg); break;
		default: usage();
		}
	}
	if (threads < 1 || threads > MAX_THREADS || depth < 0 || depth > MAX_DEPTH || iterations < 1)
		usage();
	if (attach_mode)
		return attach_probe(timeout_s);
	if (processes > 0)
		return processes > MAX_THREADS ? 2 : run_processes(processes, linger_ms);

	/* the threads inherit the mask: SIGUSR1 is only ever taken by sigwait */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);

	workers = calloc(threads, sizeof(*workers));
	if (!workers)
		return 1;
	pthread_barrier_init(&start_line, NULL, threads + 1);
	for (i = 0; i < threads; i++) {
		workers[i].index = i;
		workers[i].random = 0x9e3779b97f4a7c15ull * (i + 1);
		if ((errno = pthread_create(&workers[i].thread, NULL, run_worker, &workers[i]))) {
			perror("pthread_create");
			return 1;
		}
	}
	pthread_barrier_wait(&start_line);
	printf("ready\n");
	fflush(stdout);
	if (sigwait(&usr1, &sig))
		return 1;
	if (wait_probed && wait_until_probed(60)) {
		fprintf(stderr, "churn: free() never became probed\n");
		return 1;
	}
	pthread_barrier_wait(&start_line);
	for (i = 0; i < threads; i++) {
		struct worker *w = &workers[i];

		pthread_join(w->thread, NULL);
		mallocs += w->mallocs;
		frees += w->frees;
		sum_ns += (double)(w->end_ns - w->start_ns) / (w->mallocs + w->frees);
		sum_iter_ns += (double)(w->end_ns - w->start_ns) / w->mallocs;
		if (w->start_ns < first)
			first = w->start_ns;
		if (w->end_ns > last)
			last = w->end_ns;
	}
	printf("churn: threads=%d depth=%d function=%s mallocs=%llu frees=%llu calls=%llu "
	       "ns_per_call=%.1f ns_per_iteration=%.1f wall_s=%.3f\n",
	       threads, alloc_fn ? 1 : depth, alloc_name, (unsigned long long)mallocs,
	       (unsigned long long)frees, (unsigned long long)(mallocs + frees), sum_ns / threads,
	       sum_iter_ns / threads, (last - first) / 1e9);
	fflush(stdout);
	/* the tracer's daemon drains what is left meanwhile, and can be measured */
	if (linger_ms > 0)
		usleep(linger_ms * 1000);
	return 0;
}

/*
 * ledger.h - shared helpers for the tracelloc test targets (C and C++).
 *
 * Every target "knows its own ledger": next to each allocator call it makes
 * it books what tracelloc must report for the call site (the uniquely named
 * noinline function that calls the allocator).  At the end the ledger is
 * written to the file named by $TL_EXPECT (only when that variable is set),
 * one line per site and metric:
 *
 *     live SITE BYTES          live bytes at the end
 *     live-count SITE N        live allocations at the end
 *     allocated SITE BYTES     bytes allocated in total (successful calls)
 *     count SITE N             successful allocation calls
 *
 * plus "summary unknown-frees N" (what the summary's "unknown frees" must
 * be, see lg_unknown_frees below), free-form lines "KEY VALUE" (e.g.
 * "reused 3") and "error MESSAGE" when a self-check of the target failed
 * (the harness fails the test on any error line).
 *
 * SITE is a frame name that must appear as a whole ';'-separated frame in the
 * folded output.  A SITE starting with '~' is an extended regular expression
 * (the rest of the string) matched against each frame instead (used for C++
 * names that may be demangled or not).
 *
 * The ledger helpers are never called from inside a site function, so their
 * own allocations (none, apart from the final fopen) never appear under a
 * site frame.  $TL_READY, when set, names a file that tl_ready() writes
 * "ready PID\n" into (with open/write only: no allocation), so a harness can
 * tell when a target reached a given point.
 */
#ifndef TRACELLOC_TEST_LEDGER_H
#define TRACELLOC_TEST_LEDGER_H

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A call site: never inlined, never cloned (a clone would be named
 * "site_x.constprop.0"), never analysed across (so the call stays a call). */
#define SITE __attribute__((noinline, noipa, used))

/* helpers below may be unused by a given target */
#define LG_FN static __attribute__((unused))

/* Results of allocator calls are stored here so the compiler cannot drop a
 * malloc/free pair, and so the call in a site function is never a tail call. */
static void *volatile lg_sink;

#define LG_MAX_SITES 128
#define LG_MAX_EXTRA 64

struct lg_site {
	const char *name;
	long long live, live_count, allocated, count;
};

static struct lg_site lg_sites[LG_MAX_SITES];
static int lg_nsites;
static char lg_extra[LG_MAX_EXTRA][160];
static int lg_nextra;
static pthread_mutex_t lg_mu = PTHREAD_MUTEX_INITIALIZER;

LG_FN struct lg_site *lg_get_locked(const char *name)
{
	int i;

	for (i = 0; i < lg_nsites; i++)
		if (strcmp(lg_sites[i].name, name) == 0)
			return &lg_sites[i];
	if (lg_nsites == LG_MAX_SITES) {
		fprintf(stderr, "ledger: too many sites\n");
		abort();
	}
	lg_sites[lg_nsites].name = name;
	return &lg_sites[lg_nsites++];
}

/* Make sure SITE is listed (with zeros) even if nothing is booked for it:
 * a site whose calls all fail must show 0 everywhere. */
LG_FN void lg_declare(const char *name)
{
	pthread_mutex_lock(&lg_mu);
	lg_get_locked(name);
	pthread_mutex_unlock(&lg_mu);
}

/* One successful allocation call of n requested bytes at SITE. */
LG_FN void lg_alloc(const char *name, size_t n)
{
	struct lg_site *s;

	pthread_mutex_lock(&lg_mu);
	s = lg_get_locked(name);
	s->count++;
	s->allocated += (long long)n;
	s->live += (long long)n;
	s->live_count++;
	pthread_mutex_unlock(&lg_mu);
}

/* A block of n requested bytes allocated at SITE was released. */
LG_FN void lg_free(const char *name, size_t n)
{
	struct lg_site *s;

	pthread_mutex_lock(&lg_mu);
	s = lg_get_locked(name);
	s->live -= (long long)n;
	s->live_count--;
	pthread_mutex_unlock(&lg_mu);
}

/* A block at SITE lost n bytes and lives on (a mapping partly unmapped). */
LG_FN void lg_shrink(const char *name, size_t n)
{
	struct lg_site *s;

	pthread_mutex_lock(&lg_mu);
	s = lg_get_locked(name);
	s->live -= (long long)n;
	pthread_mutex_unlock(&lg_mu);
}

static void lg_extra_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
LG_FN void lg_extra_line(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&lg_mu);
	if (lg_nextra < LG_MAX_EXTRA) {
		va_start(ap, fmt);
		vsnprintf(lg_extra[lg_nextra++], sizeof(lg_extra[0]), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&lg_mu);
}

static int lg_errors;

/*
 * What the summary's "unknown frees" must be: releases of blocks allocated
 * before tracing began, so 0 for a target traced from its start.
 * Note: when a thread exits, glibc calls free() on every block sitting in
 * the thread's cache (tcache), blocks the program had already freed, and
 * on the cache struct itself, which glibc allocated internally (never
 * through malloc).  None of these was allocated before tracing began: they
 * are not unknown frees (nor frees of known blocks).  See threads.c.
 */
static int lg_unknown_frees;

/* Self-check of the target: a failed check is reported on stderr and as an
 * "error" line in the expect file, and makes the target exit with 97. */
#define lg_check(cond, ...)                                                   \
	do {                                                                  \
		if (!(cond)) {                                                \
			char lg_msg_[128];                                    \
			snprintf(lg_msg_, sizeof(lg_msg_), __VA_ARGS__);      \
			fprintf(stderr, "target self-check failed: %s\n",     \
				lg_msg_);                                     \
			lg_extra_line("error %s", lg_msg_);                   \
			lg_errors++;                                          \
		}                                                             \
	} while (0)

/* Leak-check targets: what the calls made so far left on the stack below
 * the caller's frame (stale copies of pointers a scan would take for
 * live ones), overwritten. */
__attribute__((noinline)) LG_FN void lg_scrub_stack(void)
{
	volatile char area[64 << 10];

	memset((char *)area, 0, sizeof(area));
}

/* Write the ledger to $TL_EXPECT (if set).  Returns the exit status the
 * target should use: 0, or 97 if a self-check failed. */
LG_FN int lg_write(void)
{
	const char *path = getenv("TL_EXPECT");
	FILE *f;
	int i;

	if (!path || !*path)
		return lg_errors ? 97 : 0;
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return 98;
	}
	for (i = 0; i < lg_nsites; i++) {
		const struct lg_site *s = &lg_sites[i];

		fprintf(f, "live %s %lld\n", s->name, s->live);
		fprintf(f, "live-count %s %lld\n", s->name, s->live_count);
		fprintf(f, "allocated %s %lld\n", s->name, s->allocated);
		fprintf(f, "count %s %lld\n", s->name, s->count);
	}
	fprintf(f, "summary unknown-frees %d\n", lg_unknown_frees);
	for (i = 0; i < lg_nextra; i++)
		fprintf(f, "%s\n", lg_extra[i]);
	if (fclose(f) != 0) {
		perror(path);
		return 98;
	}
	return lg_errors ? 97 : 0;
}

/* Write "ready PID\n" to $TL_READY (if set) without allocating. */
LG_FN void tl_ready(void)
{
	const char *path = getenv("TL_READY");
	char buf[64];
	int fd, len;
	long pid = (long)getpid();
	char digits[24];
	int nd = 0, i;

	if (!path || !*path)
		return;
	do {
		digits[nd++] = (char)('0' + pid % 10);
		pid /= 10;
	} while (pid > 0);
	memcpy(buf, "ready ", 6);
	len = 6;
	for (i = nd - 1; i >= 0; i--)
		buf[len++] = digits[i];
	buf[len++] = '\n';
	/* write to a temp name then rename, so a reader never sees half a line */
	{
		char tmp[4096];
		size_t pl = strlen(path);

		if (pl + 5 >= sizeof(tmp))
			return;
		memcpy(tmp, path, pl);
		memcpy(tmp + pl, ".tmp", 5);
		fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		if (fd < 0)
			return;
		if (write(fd, buf, (size_t)len) != len) {
			close(fd);
			return;
		}
		close(fd);
		rename(tmp, path);
	}
}

#endif

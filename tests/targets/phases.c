/*
 * phases: four stacks that a leak hunter must tell apart, over 3.5 s.
 *
 *   site_leak    1000 bytes every 100 ms, kept: a steady leak
 *   site_cache   50 x 4000 bytes in the first second, kept: a cache
 *   site_burst   100 x 10000 bytes at 1.5 s, freed 100 ms later: the peak
 *   site_churn   2000 x malloc(64) and free at once, at 0.5 s: short-lived
 *
 * Writes to $TL_EXPECT what it holds per site just before the burst is freed
 * (the heap's peak), "peak SITE BYTES BLOCKS", and at the end "live SITE
 * BYTES BLOCKS" and "calls SITE N". Allocates nothing else meanwhile
 * (open and write only).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SITE __attribute__((noinline, noipa, used))

static void *volatile sink;
static void *burst[100];
static long leak_n, cache_n;

SITE static void site_leak(void)
{
	sink = malloc(1000);
	leak_n++;
}

SITE static void site_cache(void)
{
	sink = malloc(4000);
	cache_n++;
}

SITE static void site_burst(int i)
{
	burst[i] = malloc(10000);
}

SITE static void site_churn(void)
{
	for (int i = 0; i < 2000; i++) {
		sink = malloc(64);
		free(sink);
	}
}

static void put(int fd, const char *what, const char *site, long bytes, long n)
{
	char line[128];
	int len = snprintf(line, sizeof(line), "%s %s %ld %ld\n", what, site, bytes, n);

	if (fd >= 0 && write(fd, line, len) != len)
		_exit(3);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
	const char *path = getenv("TL_EXPECT");
	int fd = path ? open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644) : -1;
	double start = now(), t, next_leak = 0;
	int churned = 0, burst_state = 0, i;

	while ((t = now() - start) < 3.5) {
		if (t >= next_leak) {
			site_leak();
			next_leak += 0.1;
		}
		if (cache_n < 50 && t >= cache_n * 0.02)
			site_cache();
		if (!churned && t >= 0.5) {
			site_churn();
			churned = 1;
		}
		if (burst_state == 0 && t >= 1.5) {
			for (i = 0; i < 100; i++)
				site_burst(i);
			burst_state = 1;
		}
		/* the heap's highest: the burst, and the leak until now */
		if (burst_state == 1 && t >= 1.6) {
			put(fd, "peak", "site_leak", leak_n * 1000, leak_n);
			put(fd, "peak", "site_cache", cache_n * 4000, cache_n);
			put(fd, "peak", "site_burst", 1000000, 100);
			put(fd, "peak", "site_churn", 0, 0);
			for (i = 0; i < 100; i++)
				free(burst[i]);
			burst_state = 2;
		}
		usleep(2000);
	}
	put(fd, "live", "site_leak", leak_n * 1000, leak_n);
	put(fd, "live", "site_cache", cache_n * 4000, cache_n);
	put(fd, "live", "site_burst", 0, 0);
	put(fd, "calls", "site_churn", 2000, 0);
	if (fd >= 0)
		close(fd);
	return 0;
}

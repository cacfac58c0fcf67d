/*
 * lostbig: a leak check's classes over blocks of a page or more, which a
 * snapshot streams to the scan (one larger than a batch of the stream),
 * with a pointer deep in a block's last page.
 *
 *   lostbig [MIB]
 *
 * Makes its blocks, writes "ready PID" to $TL_READY, and sleeps until
 * killed. MIB: as many MiB more in reachable blocks of 64 KiB (from
 * site_big_more), a scan long enough to be cut short. What a leak check
 * must find, without MIB:
 *
 *   definitely lost: site_big_dropped 40960 (1)
 *   indirectly lost: site_big_child 8192 (1)
 *   possibly lost:   site_big_interior 307200, site_big_deep 8192,
 *                    site_big_small 48 (315440 bytes in 3: deep and
 *                    small hang from interior, which only a pointer into
 *                    its middle reaches, as valgrind's memcheck says)
 *   still reachable: site_big_global 65536, site_big_huge 1048576
 *                    (1114112 bytes in 2)
 */
#define _GNU_SOURCE
#include "ledger.h"

static void *volatile g_global;
static void *volatile g_huge;
static void **volatile g_more;

SITE void *site_big_global(size_t n) { return malloc(n); }
SITE void *site_big_interior(size_t n) { return malloc(n); }
SITE void *site_big_deep(size_t n) { return malloc(n); }
SITE void *site_big_small(size_t n) { return malloc(n); }
SITE void *site_big_huge(size_t n) { return malloc(n); }
SITE void *site_big_dropped(size_t n) { return malloc(n); }
SITE void *site_big_child(size_t n) { return malloc(n); }
SITE void *site_big_more(size_t n) { return malloc(n); }

static void *zeroed(void *p, size_t n)
{
	lg_check(p != NULL, "malloc");
	memset(p, 0, n);
	return p;
}

__attribute__((noinline)) static void make_blocks(void)
{
	void **global = zeroed(site_big_global(65536), 65536);
	void **interior = zeroed(site_big_interior(307200), 307200);
	void **deep = zeroed(site_big_deep(8192), 8192);
	void **huge = zeroed(site_big_huge(1 << 20), 1 << 20);
	void **dropped = zeroed(site_big_dropped(40960), 40960);

	/* global -> interior's middle (its last word); interior's next to
	 * last word -> deep; deep's middle -> small */
	global[65536 / 8 - 1] = (char *)interior + 8;
	interior[307200 / 8 - 2] = deep;
	deep[500] = zeroed(site_big_small(48), 48);
	g_global = global;
	g_huge = huge;
	/* lost: dropped -> child */
	dropped[1] = zeroed(site_big_child(8192), 8192);
}

int main(int argc, char **argv)
{
	size_t i, more = argc > 1 ? (size_t)atoi(argv[1]) * 16 : 0;

	make_blocks();
	if (more) {
		g_more = zeroed(site_big_more(more * sizeof(void *)), more * sizeof(void *));
		for (i = 0; i < more; i++)
			g_more[i] = memset(site_big_more(65536), 1, 65536);
	}
	lg_sink = NULL;
	lg_scrub_stack();
	tl_ready();
	for (;;)
		pause();
}

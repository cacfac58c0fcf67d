/*
 * api_jemalloc: jemalloc's own API, linked against Debian's libjemalloc.so.2
 * (build/tests/api_jemalloc).
 *
 * Ledger (all exact; see ledger.h):
 *   jx_mallocx      2 x mallocx(200, 0) and mallocx(100, MALLOCX_ZERO), leaked
 *   jx_rallocx_src  mallocx(50), moved on by rallocx: 0 live
 *   jx_rallocx      rallocx(p, 5000, 0) of that block: the block is now the
 *                   rallocx call's, 5000 live
 *   jx_sdallocx     mallocx(300), then sdallocx(p, 300, 0): 0 live
 *   jx_dallocx      mallocx(400), then dallocx(p, 0): 0 live
 *   jx_xallocx_src  2 x mallocx(100), resized in place by xallocx: 0 live
 *   jx_xallocx      xallocx(p, 5000, 0, 0) and xallocx(p, 60, 0, 0) of them:
 *                   each block is now the xallocx call's, of the size it
 *                   returned (the target books what it returned)
 */
#include <jemalloc/jemalloc.h>

#include "ledger.h"

SITE void *jx_mallocx(size_t n, int flags)
{
	void *p = mallocx(n, flags);

	lg_sink = p;
	return p;
}

SITE void *jx_rallocx_src(size_t n)
{
	void *p = mallocx(n, 0);

	lg_sink = p;
	return p;
}

SITE void *jx_rallocx(void *p, size_t n)
{
	void *q = rallocx(p, n, 0);

	lg_sink = q;
	return q;
}

SITE void *jx_sdallocx(size_t n)
{
	void *p = mallocx(n, 0);

	lg_sink = p;
	return p;
}

SITE void *jx_dallocx(size_t n)
{
	void *p = mallocx(n, 0);

	lg_sink = p;
	return p;
}

SITE void *jx_xallocx_src(size_t n)
{
	void *p = mallocx(n, 0);

	lg_sink = p;
	return p;
}

SITE size_t jx_xallocx(void *p, size_t n)
{
	size_t got = xallocx(p, n, 0, 0);

	lg_sink = p;
	return got;
}

int main(void)
{
	static const size_t resize[] = { 5000, 60 };
	size_t got;
	void *p;
	int i;

	for (i = 0; i < 2; i++) {
		lg_check(jx_mallocx(200, 0) != NULL, "mallocx(200) failed");
		lg_alloc("jx_mallocx", 200);
	}
	lg_check(jx_mallocx(100, MALLOCX_ZERO) != NULL, "mallocx(100, ZERO) failed");
	lg_alloc("jx_mallocx", 100);

	p = jx_rallocx_src(50);
	lg_check(p != NULL, "mallocx(50) failed");
	lg_alloc("jx_rallocx_src", 50);
	p = jx_rallocx(p, 5000);
	lg_check(p != NULL, "rallocx failed");
	lg_free("jx_rallocx_src", 50);
	lg_alloc("jx_rallocx", 5000);

	p = jx_sdallocx(300);
	lg_check(p != NULL, "mallocx(300) failed");
	lg_alloc("jx_sdallocx", 300);
	sdallocx(p, 300, 0);
	lg_free("jx_sdallocx", 300);

	p = jx_dallocx(400);
	lg_check(p != NULL, "mallocx(400) failed");
	lg_alloc("jx_dallocx", 400);
	dallocx(p, 0);
	lg_free("jx_dallocx", 400);

	for (i = 0; i < 2; i++) {
		p = jx_xallocx_src(100);
		lg_check(p != NULL, "mallocx(100) failed");
		lg_alloc("jx_xallocx_src", 100);
		got = jx_xallocx(p, resize[i]);
		lg_check(got >= 60, "xallocx returned %zu", got);
		lg_free("jx_xallocx_src", 100);
		lg_alloc("jx_xallocx", got);
	}
	return lg_write();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Debian's APR (libapr-1), a pool allocator nobody here wrote, driven as a
 * server drives it: a long-lived pool, a pool per request destroyed after
 * it, a parent destroyed with its subpool, a pool cleared and used again,
 * and a string copied by apr_pstrdup (which calls apr_palloc itself). The
 * harness names apr_palloc, apr_pool_destroy, apr_pool_clear and
 * apr_pool_create_ex; the ledger books each caller's blocks:
 *   site_keep         100 x 48 bytes in the long-lived pool, kept
 *   site_req          5 requests x 50 x 200 bytes, each pool destroyed
 *   site_child        10 x 1000 bytes in a subpool, its parent destroyed
 *   site_cleared      10 x 64 bytes, their pool cleared
 *   site_after_clear  3 x 64 bytes in that pool afterwards, kept
 *   site_strdup       apr_pstrdup of 12 bytes, kept
 *   site_cleanup_data 80 bytes that only a cleanup registered on the pool
 *                     points at (APR keeps its cleanups in its own memory)
 *   site_dropped      1000 bytes, no pointer kept: the one block a leak
 *                     check finds lost (--leak-check)
 * APR's own memory (its nodes of 8 KiB and more) is not the program's.
 */
#include <apr_general.h>
#include <apr_pools.h>
#include <apr_strings.h>

#include "ledger.h"

SITE void *site_keep(apr_pool_t *p, apr_size_t n) { return apr_palloc(p, n); }
SITE void *site_req(apr_pool_t *p, apr_size_t n) { return apr_palloc(p, n); }
SITE void *site_child(apr_pool_t *p, apr_size_t n) { return apr_palloc(p, n); }
SITE void *site_cleared(apr_pool_t *p, apr_size_t n) { return apr_palloc(p, n); }
SITE void *site_after_clear(apr_pool_t *p, apr_size_t n) { return apr_palloc(p, n); }
SITE char *site_strdup(apr_pool_t *p, const char *s) { return apr_pstrdup(p, s); }
SITE void *site_cleanup_data(apr_pool_t *p, apr_size_t n) { return apr_palloc(p, n); }
SITE void *site_dropped(apr_pool_t *p, apr_size_t n) { return apr_palloc(p, n); }

static apr_status_t nothing(void *data)
{
	(void)data;
	return APR_SUCCESS;
}

static void *g_keep[100], *g_after[3];
static char *g_str;

int main(void)
{
	apr_pool_t *root, *req, *parent, *child, *cleared;
	int i, r;

	if (apr_initialize() != APR_SUCCESS || apr_pool_create(&root, NULL) != APR_SUCCESS)
		return 1;
	for (i = 0; i < 100; i++) {
		g_keep[i] = memset(site_keep(root, 48), 1, 48);
		lg_alloc("site_keep", 48);
	}
	for (r = 0; r < 5; r++) {
		if (apr_pool_create(&req, root) != APR_SUCCESS)
			return 1;
		for (i = 0; i < 50; i++) {
			memset(site_req(req, 200), 2, 200);
			lg_alloc("site_req", 200);
		}
		apr_pool_destroy(req);
		for (i = 0; i < 50; i++)
			lg_free("site_req", 200);
	}
	if (apr_pool_create(&parent, root) != APR_SUCCESS ||
	    apr_pool_create(&child, parent) != APR_SUCCESS)
		return 1;
	for (i = 0; i < 10; i++) {
		memset(site_child(child, 1000), 3, 1000);
		lg_alloc("site_child", 1000);
	}
	apr_pool_destroy(parent);
	for (i = 0; i < 10; i++)
		lg_free("site_child", 1000);
	if (apr_pool_create(&cleared, root) != APR_SUCCESS)
		return 1;
	for (i = 0; i < 10; i++) {
		memset(site_cleared(cleared, 64), 4, 64);
		lg_alloc("site_cleared", 64);
	}
	apr_pool_clear(cleared);
	for (i = 0; i < 10; i++)
		lg_free("site_cleared", 64);
	for (i = 0; i < 3; i++) {
		g_after[i] = memset(site_after_clear(cleared, 64), 5, 64);
		lg_alloc("site_after_clear", 64);
	}
	g_str = site_strdup(root, "hello, pool");
	lg_alloc("site_strdup", 12);
	apr_pool_cleanup_register(root, memset(site_cleanup_data(root, 80), 7, 80), nothing, nothing);
	lg_alloc("site_cleanup_data", 80);
	memset(site_dropped(root, 1000), 8, 1000);
	lg_alloc("site_dropped", 1000);
	lg_sink = g_keep[0];
	lg_sink = g_after[0];
	lg_sink = g_str;
	return lg_write();
}

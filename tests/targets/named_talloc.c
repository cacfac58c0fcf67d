// SPDX-License-Identifier: GPL-2.0
/*
 * Samba's talloc (Debian's libtalloc2), a hierarchical allocator nobody here
 * wrote: every block is a chunk of its own from malloc, a header before it,
 * and freeing a block frees its descendants inside talloc, through free()
 * alone. The harness names talloc_named_const (what talloc_size() and
 * talloc_new() expand to) and _talloc_free (talloc_free()):
 *   site_keep    10 x 100 bytes under the root, kept
 *   site_parent  a block of 50 bytes under the root, freed with talloc_free
 *   site_child   5 x 200 bytes under it and 5 x 200 under those: freed with it
 * The ledger's "talloc-total-size" line is talloc's own count of the bytes
 * under the root at the end (talloc_total_size), which the kept blocks'
 * must equal.
 */
#include <talloc.h>

#include "ledger.h"

SITE void *site_keep(void *ctx, size_t n) { return talloc_size(ctx, n); }
SITE void *site_parent(void *ctx, size_t n) { return talloc_size(ctx, n); }
SITE void *site_child(void *ctx, size_t n) { return talloc_size(ctx, n); }

static void *g_root;

int main(void)
{
	void *parent, *child;
	int i;

	g_root = talloc_new(NULL);
	if (!g_root)
		return 1;
	for (i = 0; i < 10; i++) {
		site_keep(g_root, 100);
		lg_alloc("site_keep", 100);
	}
	parent = site_parent(g_root, 50);
	lg_alloc("site_parent", 50);
	for (i = 0; i < 5; i++) {
		child = site_child(parent, 200);
		site_child(child, 200);
		lg_alloc("site_child", 200);
		lg_alloc("site_child", 200);
	}
	talloc_free(parent);
	lg_free("site_parent", 50);
	for (i = 0; i < 10; i++)
		lg_free("site_child", 200);
	lg_extra_line("talloc-total-size %zu", talloc_total_size(g_root));
	lg_extra_line("talloc-total-blocks %zu", talloc_total_blocks(g_root));
	return lg_write();
}

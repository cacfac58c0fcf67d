/*
 * two_families: two heaps in one process. Linked with libc before
 * libmimalloc (build/tests/two_families), malloc and free are glibc's, and
 * mi_malloc and mi_free are mimalloc's: each block is freed by its own
 * family, and both are traced.
 *
 * Ledger (all exact; see ledger.h):
 *   tf_glibc     3 x malloc(90), 1 freed
 *   tf_mimalloc  3 x mi_malloc(130), 1 mi_free'd
 */
#include <malloc.h>
#include <mimalloc.h>

#include "ledger.h"

SITE void *tf_glibc(size_t n)
{
	void *p = malloc(n);

	lg_sink = p;
	return p;
}

SITE void *tf_mimalloc(size_t n)
{
	void *p = mi_malloc(n);

	lg_sink = p;
	return p;
}

int main(void)
{
	void *g[3], *m[3];
	int i;

	for (i = 0; i < 3; i++) {
		g[i] = tf_glibc(90);
		m[i] = tf_mimalloc(130);
		lg_check(g[i] && m[i], "allocation failed");
		lg_alloc("tf_glibc", 90);
		lg_alloc("tf_mimalloc", 130);
	}
	/* the glibc block really is glibc's: its usable size is glibc's answer */
	lg_check(malloc_usable_size(g[0]) >= 90, "malloc_usable_size");
	lg_check(!mi_is_in_heap_region(g[0]), "a glibc block in mimalloc's heap: malloc is not glibc's");
	lg_check(mi_is_in_heap_region(m[0]), "a mi_malloc block outside mimalloc's heap");
	free(g[1]);
	lg_free("tf_glibc", 90);
	mi_free(m[1]);
	lg_free("tf_mimalloc", 130);
	return lg_write();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Ported from valgrind, memcheck/tests/leak-tree.c (with
 * leak-tree.stderr.exp): a tree of seven 16-byte blocks from a global root,
 * A over B and C, B over D and E, C over F and G; D is cut off (definitely
 * lost), and C with F and G (C definitely, F and G indirectly lost).
 * check: running (where the peer's VALGRIND_DO_LEAK_CHECK is)
 * peer: definitely 32/2 indirectly 32/2 possibly 0/0 reachable 48/3
 * want: definitely 32/2 indirectly 32/2 possibly 0/0 reachable 48/3
 */
#include "peer.h"

typedef struct node {
	struct node *l, *r;
} node;

__attribute__((noinline)) static node *mk(void)
{
	node *x = malloc(sizeof(node));

	x->l = NULL;
	x->r = NULL;
	return x;
}

node *t;

__attribute__((noinline)) static void f(void)
{
	t = mk();
	t->l = mk();
	t->r = mk();
	t->l->l = mk();
	t->l->r = mk();
	t->r->l = mk();
	t->r->r = mk();
	t->l->l = NULL;
	t->r = NULL;
}

int main(void)
{
	peer_start();
	f();
	peer_check();
	return 0;
}

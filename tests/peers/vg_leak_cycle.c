// SPDX-License-Identifier: GPL-2.0
/*
 * Ported from valgrind, memcheck/tests/leak-cycle.c (with
 * leak-cycle.stderr.exp): cycles of three 16-byte blocks with no root:
 * two apart, one linked to another, two linked both ways. Each group's
 * first block found is definitely lost, the rest of it indirectly.
 * check: running (where the peer's VALGRIND_DO_LEAK_CHECK is)
 * peer: definitely 64/4 indirectly 224/14 possibly 0/0 reachable 0/0
 * want: definitely 64/4 indirectly 224/14 possibly 0/0 reachable 0/0
 */
#include "peer.h"

struct n {
	struct n *l, *r;
};

__attribute__((noinline)) static struct n *mk(struct n *l, struct n *r)
{
	struct n *n = malloc(sizeof(*n));

	n->l = l;
	n->r = r;
	return n;
}

__attribute__((noinline)) static struct n *mkcycle(void)
{
	struct n *a, *b, *c;

	a = mk(0, 0);
	b = mk(a, 0);
	c = mk(b, 0);
	a->l = c;
	return a;
}

__attribute__((noinline)) static void f(void)
{
	struct n *volatile c1, *volatile c2;

	c1 = mkcycle();
	c2 = mkcycle();
	c1 = c2 = 0;
	c1 = mkcycle();
	c2 = mkcycle();
	if (c1 < c2)
		c2->r = c1;
	else
		c1->r = c2;
	c1 = c2 = 0;
	c1 = mkcycle();
	c2 = mkcycle();
	c1->r = c2;
	c2->r = c1;
	c1 = c2 = 0;
}

int main(void)
{
	peer_start();
	f();
	peer_check();
	return 0;
}

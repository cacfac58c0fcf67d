// SPDX-License-Identifier: GPL-2.0
/*
 * Ported from valgrind, memcheck/tests/leak-cases.c (with
 * leak-cases-full.stderr.exp): the nine ways a root and two blocks can
 * point, by start and by interior pointers. Each block is 16 bytes.
 *   p1 -> A                   A reachable
 *   p2 -> A -> B              A, B reachable
 *         A                   A definitely lost
 *         A -> B              A definitely, B indirectly lost
 *   p5 -?-> A                 A possibly lost
 *   p6 -> A -?-> B            A reachable, B possibly lost
 *   p7 -?-> A -> B            A, B possibly lost
 *   p8 -?-> A -?-> B          A, B possibly lost
 *         A -?-> B            A definitely, B indirectly lost
 * check: running (where the peer's VALGRIND_DO_LEAK_CHECK is)
 * peer: definitely 48/3 indirectly 32/2 possibly 96/6 reachable 64/4
 * want: definitely 48/3 indirectly 32/2 possibly 96/6 reachable 64/4
 */
#include "peer.h"

typedef struct node {
	struct node *next;
} node;

__attribute__((noinline)) static node *mk(node *next)
{
	/* two nodes: p + 1 still points inside the block */
	node *x = malloc(2 * sizeof(node));

	x->next = next;
	return x;
}

node *p1, *p2, *p5, *p6, *p7, *p8, *p9;

__attribute__((noinline)) static void f(void)
{
	p1 = mk(NULL);
	p2 = mk(mk(NULL));
	(void)mk(NULL);
	(void)mk(mk(NULL));
	p5 = mk(NULL);
	p5 = (node *)((char *)p5 + 8);
	p6 = mk(mk(NULL));
	p6->next = (node *)((char *)p6->next + 8);
	p7 = mk(mk(NULL));
	p7 = (node *)((char *)p7 + 8);
	p8 = mk(mk(NULL));
	p8->next = (node *)((char *)p8->next + 8);
	p8 = (node *)((char *)p8 + 8);
	p9 = mk(mk(NULL));
	p9->next = (node *)((char *)p9->next + 8);
	p9 = NULL;
}

int main(void)
{
	peer_start();
	f();
	peer_check();
	return 0;
}

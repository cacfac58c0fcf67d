/*
 * nofp_cxx: C++ built without frame pointers (NOFP_CFLAGS): operator new
 * (libstdc++, which has none either) called through a chain of functions.
 *
 * Ledger (all exact; see ledger.h):
 *   make_node     4 x new Node (48 bytes) through build_list -> grow ->
 *                 make_node; leaked
 *   make_buffer   2 x new char[300] through build_list -> make_buffer; leaked
 */
#include <cstddef>
#include <new>

#include "ledger.h"

struct Node {
	long key;
	long value[4];
	Node *next;
};

SITE Node *make_node(long key, Node *next)
{
	Node *n = new Node();

	n->key = key;
	n->next = next;
	lg_sink = n;
	return n;
}

SITE Node *grow(Node *head, long key)
{
	volatile char pad[56];
	Node *n;

	pad[0] = (char)key;
	n = make_node(key + pad[0] - (char)key, head);
	pad[55] = pad[0];
	lg_sink = n;
	return n;
}

SITE char *make_buffer(size_t n)
{
	char *b = new char[n];

	b[0] = 0;
	lg_sink = b;
	return b;
}

SITE Node *build_list(int n)
{
	Node *head = nullptr;
	int i;

	for (i = 0; i < n; i++) {
		head = grow(head, i);
		lg_alloc("~^make_node", sizeof(Node));
	}
	for (i = 0; i < 2; i++) {
		lg_check(make_buffer(300) != nullptr, "new char[300] failed");
		lg_alloc("~^make_buffer", 300);
	}
	return head;
}

int main()
{
	lg_check(sizeof(Node) == 48, "sizeof(Node) is %zu, not 48", sizeof(Node));
	lg_sink = build_list(4);
	return lg_write();
}

/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_LEAKS_H
#define TRACELLOC_LEAKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

/*
 * Which live blocks no pointer reaches any more: a conservative
 * mark-and-sweep over the memory of one instant, with valgrind's classes.
 * The blocks are the model's live blocks at that instant; the roots are
 * ranges of memory (data, stacks from their stack pointer, the program's
 * own mappings) and single words (registers). A word is a pointer into a
 * block when it is aligned (8 bytes) and points anywhere inside it; a
 * pointer to a block's first byte reaches it, one into its middle reaches
 * it possibly. Memory is read through the caller's function, from the
 * target stopped, or from a snapshot of it.
 *
 * Then the blocks no root reaches are put in cliques, in address order
 * (as valgrind's memcheck does): a block not yet in one leads a clique of
 * every unreached block it reaches, directly or not; a leader is
 * definitely lost, the rest indirectly (a lost list: its head definitely,
 * its nodes indirectly; a lost cycle: one member definitely, the others
 * indirectly), and a leader reached from a later one joins that one's
 * clique.
 */
enum leak_class {
	LEAK_REACHABLE,		/* still reachable: a pointer to its start from a root */
	LEAK_POSSIBLE,		/* possibly lost: reached only through pointers into its middle */
	LEAK_INDIRECT,		/* indirectly lost: unreached, pointed at by another lost block */
	LEAK_DEFINITE,		/* definitely lost: no pointer reaches it */
	LEAK__COUNT,
};

struct leak_block {
	uint64_t addr;		/* as the target sees it */
	uint64_t size;
	uint64_t key;		/* the caller's (the model's address of it) */
	uint32_t stack_id;
	uint8_t cls;		/* enum leak_class, once classified */
	uint8_t state;		/* the scan's */
	uint32_t clique;	/* indirectly lost: the index of its clique's leader */
};

/* copies len bytes of the target's memory at addr into buf: the bytes
 * copied (fewer where the memory ends or cannot be read), or negative errno */
typedef ssize_t (*leaks_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

struct leaks;

/*
 * A faster way to read: ranges asked for in a batch, their bytes taken
 * back in the order asked, while the next batch is on its way. Used for
 * the blocks of a page or more; on its first error the scan goes on
 * through the read function.
 */
struct leaks_stream {
	/* asks for r[0..n): 0, or negative errno */
	int (*ask)(void *ctx, const struct iovec *r, size_t n);
	/* the next len bytes asked for, into buf: 0, or negative errno */
	int (*take)(void *ctx, void *buf, size_t len);
	void *ctx;
	size_t max_ranges;	/* in one ask */
	size_t pages;		/* the pages of memory asked and not taken, at most */
};

/* reads memory through read(ctx, ...); NULL when out of memory */
struct leaks *leaks__new(leaks_read_fn read, void *ctx);
void leaks__destroy(struct leaks *l);
/* reads the larger blocks through s as well (copied); negative errno */
int leaks__stream(struct leaks *l, const struct leaks_stream *s);
/* the stream was given up after an error */
bool leaks__stream_failed(const struct leaks *l);

/* room for n blocks at once; negative errno */
int leaks__reserve(struct leaks *l, size_t n);
/* a live block of the instant (before leaks__seal); negative errno */
int leaks__add(struct leaks *l, uint64_t addr, uint64_t size, uint64_t key, uint32_t stack_id);
/* the blocks are all added: sorted, overlaps dropped; negative errno */
int leaks__seal(struct leaks *l);
/* [start, end) is a root: every block it points at is reached, and what
 * those point at in turn; skip_blocks: the blocks inside the range are not
 * read as part of it (a range of the allocator's that holds them) */
int leaks__root_range(struct leaks *l, uint64_t start, uint64_t end, bool skip_blocks);
/* a word that is a root (a register); negative errno */
int leaks__root_word(struct leaks *l, uint64_t word);
/* n words read elsewhere (memory the copy lacks), each a root */
int leaks__root_words(struct leaks *l, const uint64_t *words, size_t n);
/* the rest: cliques of the unreached, and every block's class; negative
 * errno (out of memory: the unreached are then all definitely lost) */
int leaks__classify(struct leaks *l);

size_t leaks__count(const struct leaks *l);
const struct leak_block *leaks__block(const struct leaks *l, size_t i);
/* the block that contains addr, or NULL */
const struct leak_block *leaks__find(const struct leaks *l, uint64_t addr);
/* a block lies, at least in part, in [start, end) */
bool leaks__any_in(const struct leaks *l, uint64_t start, uint64_t end);
/* the blocks of the stacks suppressed(ctx, stack_id) says are in no class
 * any more (left out of the totals and of leaks__lost_by_stack); what they
 * were: bytes, blocks */
void leaks__suppress(struct leaks *l, bool (*suppressed)(void *ctx, uint32_t stack_id), void *ctx,
		     uint64_t *bytes, uint64_t *blocks);
/* bytes and blocks of each class */
void leaks__totals(const struct leaks *l, uint64_t bytes[LEAK__COUNT], uint64_t blocks[LEAK__COUNT]);
/* what each stack lost, definitely and indirectly, a line per stack and
 * class in that order: *out (free() it), *n lines; negative errno */
struct leak_stack {
	uint32_t stack_id;
	uint8_t cls;		/* LEAK_DEFINITE or LEAK_INDIRECT */
	uint64_t bytes, count;
	uint64_t oldest_key;	/* the smallest key of its blocks (their birth, in leakcheck.c) */
};
int leaks__lost_by_stack(const struct leaks *l, struct leak_stack **out, size_t *n);
/* bytes read while scanning; of them, through the stream */
uint64_t leaks__bytes_read(const struct leaks *l);
uint64_t leaks__bytes_streamed(const struct leaks *l);
/* "definitely lost", ... */
const char *leaks__class_name(enum leak_class c);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_RANGES_H
#define TRACELLOC_RANGES_H

#include <stddef.h>
#include <stdint.h>

/*
 * The pieces of the application's own mappings, by address. A mapping is one
 * block of the heap, keyed by its lowest address; munmap may take any part
 * of it, so one block may come to own several pieces. The block's key is
 * always the start of its lowest piece: a new mapping can never be placed
 * where a live key is.
 */
struct ranges;

struct ranges *ranges__new(void);
void ranges__destroy(struct ranges *r);

/* a new mapping [start, end), owned by the block keyed start; it must not
 * overlap a piece (cut first); negative errno */
int ranges__add(struct ranges *r, uint64_t start, uint64_t end);

/* what a cut did to one block: it lost `lost` bytes, and is keyed new_key
 * from now on (0: it has no piece left) */
typedef void (*ranges_cut_fn)(void *ctx, uint64_t key, uint64_t lost, uint64_t new_key);

/* takes [start, end) out of every piece, and calls fn once for every block
 * that lost bytes; negative errno (then nothing changed) */
int ranges__cut(struct ranges *r, uint64_t start, uint64_t end, ranges_cut_fn fn, void *ctx);

/* the parts of [start, end) that pieces cover, in order: out[2i] and
 * out[2i + 1] the start and end of the i-th, at most max of them; returns
 * how many there are */
size_t ranges__within(const struct ranges *r, uint64_t start, uint64_t end, uint64_t *out,
		      size_t max);

/* the pieces whose start carries tag (under mask) go (src/model/processes.h) */
void ranges__drop_tag(struct ranges *r, uint64_t tag, uint64_t mask);
/* the pieces of tag `from` are held under tag `to` as well (a fork): their
 * blocks' keys too; negative errno */
int ranges__copy_tag(struct ranges *r, uint64_t from, uint64_t to, uint64_t mask);
/* the memory the pieces take */
size_t ranges__memory(const struct ranges *r);

#endif

// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ranges.h"

struct piece {
	uint64_t start;
	uint64_t end;
	uint64_t key;		/* the block that owns it */
	uint64_t limit;		/* every piece of that block lies below: the end of its mapping */
};

/* what a cut took from one block */
struct loss {
	uint64_t key;
	uint64_t lost;
	uint64_t limit;
};

struct ranges {
	struct piece *pieces;	/* sorted by start, never overlapping */
	size_t count;
	size_t cap;
	struct piece *window;	/* scratch: the pieces a cut leaves of those it touched */
	struct loss *losses;	/* scratch: one per block a cut touched */
	size_t scratch_cap;
};

struct ranges *ranges__new(void)
{
	return calloc(1, sizeof(struct ranges));
}

void ranges__destroy(struct ranges *r)
{
	if (!r)
		return;
	free(r->pieces);
	free(r->window);
	free(r->losses);
	free(r);
}

/* the first piece that ends above addr: ends are sorted as starts are */
static size_t first_ending_above(const struct ranges *r, uint64_t addr)
{
	size_t lo = 0, hi = r->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->pieces[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int reserve(struct ranges *r, size_t more)
{
	size_t cap = r->cap ? r->cap : 16;
	struct piece *grown;

	if (r->count + more <= r->cap)
		return 0;
	while (cap < r->count + more)
		cap *= 2;
	grown = realloc(r->pieces, cap * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	r->pieces = grown;
	r->cap = cap;
	return 0;
}

static int reserve_scratch(struct ranges *r, size_t n)
{
	struct piece *window;
	struct loss *losses;
	size_t cap = r->scratch_cap ? r->scratch_cap : 16;

	if (n <= r->scratch_cap)
		return 0;
	while (cap < n)
		cap *= 2;
	window = realloc(r->window, cap * sizeof(*window));
	if (!window)
		return -ENOMEM;
	r->window = window;
	losses = realloc(r->losses, cap * sizeof(*losses));
	if (!losses)
		return -ENOMEM;
	r->losses = losses;
	r->scratch_cap = cap;
	return 0;
}

int ranges__add(struct ranges *r, uint64_t start, uint64_t end)
{
	size_t i;
	int err;

	if (start >= end)
		return -EINVAL;
	i = first_ending_above(r, start);
	if (i < r->count && r->pieces[i].start < end)
		return -EEXIST;
	err = reserve(r, 1);
	if (err)
		return err;
	memmove(&r->pieces[i + 1], &r->pieces[i], (r->count - i) * sizeof(r->pieces[0]));
	r->pieces[i] = (struct piece){ .start = start, .end = end, .key = start, .limit = end };
	r->count++;
	return 0;
}

static void add_loss(struct ranges *r, size_t *nlosses, const struct piece *p, uint64_t lost)
{
	size_t k;

	for (k = 0; k < *nlosses; k++) {
		if (r->losses[k].key == p->key) {
			r->losses[k].lost += lost;
			return;
		}
	}
	r->losses[(*nlosses)++] = (struct loss){ .key = p->key, .lost = lost, .limit = p->limit };
}

/* the block's lowest piece after a cut, relabelled to its start; 0: none */
static uint64_t rekey(struct ranges *r, const struct loss *l)
{
	size_t i = first_ending_above(r, l->key), j;
	uint64_t new_key = 0;

	for (; i < r->count && r->pieces[i].start < l->limit; i++) {
		if (r->pieces[i].key == l->key) {
			new_key = r->pieces[i].start;
			break;
		}
	}
	if (!new_key || new_key == l->key)
		return new_key;
	for (j = i; j < r->count && r->pieces[j].start < l->limit; j++)
		if (r->pieces[j].key == l->key)
			r->pieces[j].key = new_key;
	return new_key;
}

int ranges__cut(struct ranges *r, uint64_t start, uint64_t end, ranges_cut_fn fn, void *ctx)
{
	size_t first, last, kept = 0, nlosses = 0, k;
	int err;

	if (start >= end)
		return 0;
	first = first_ending_above(r, start);
	for (last = first; last < r->count && r->pieces[last].start < end; last++)
		;
	if (last == first)
		return 0;
	/* room first: a hole adds a piece; past here nothing fails */
	err = reserve(r, 1);
	if (!err)
		err = reserve_scratch(r, last - first + 1);
	if (err)
		return err;
	for (k = first; k < last; k++) {
		struct piece p = r->pieces[k];
		uint64_t lo = p.start > start ? p.start : start;
		uint64_t hi = p.end < end ? p.end : end;

		add_loss(r, &nlosses, &p, hi - lo);
		if (p.start < start) {
			r->window[kept] = p;
			r->window[kept++].end = start;
		}
		if (p.end > end) {
			r->window[kept] = p;
			r->window[kept++].start = end;
		}
	}
	/* the window's pieces replace the ones the cut touched */
	memmove(&r->pieces[first + kept], &r->pieces[last], (r->count - last) * sizeof(r->pieces[0]));
	memcpy(&r->pieces[first], r->window, kept * sizeof(r->pieces[0]));
	r->count = r->count - (last - first) + kept;
	for (k = 0; k < nlosses; k++)
		fn(ctx, r->losses[k].key, r->losses[k].lost, rekey(r, &r->losses[k]));
	return 0;
}

size_t ranges__within(const struct ranges *r, uint64_t start, uint64_t end, uint64_t *out,
		      size_t max)
{
	size_t i, n = 0;

	for (i = first_ending_above(r, start); i < r->count && r->pieces[i].start < end; i++, n++) {
		if (n >= max)
			continue;
		out[2 * n] = r->pieces[i].start > start ? r->pieces[i].start : start;
		out[2 * n + 1] = r->pieces[i].end < end ? r->pieces[i].end : end;
	}
	return n;
}

void ranges__drop_tag(struct ranges *r, uint64_t tag, uint64_t mask)
{
	size_t i, n = 0;

	for (i = 0; i < r->count; i++)
		if ((r->pieces[i].start & mask) != tag)
			r->pieces[n++] = r->pieces[i];
	r->count = n;
}

int ranges__copy_tag(struct ranges *r, uint64_t from, uint64_t to, uint64_t mask)
{
	size_t i, j, n = 0, count = r->count;
	struct piece *copies;
	int err = 0;

	for (i = 0; i < count; i++)
		n += (r->pieces[i].start & mask) == from;
	if (!n)
		return 0;
	copies = calloc(n, sizeof(*copies));
	if (!copies)
		return -ENOMEM;
	for (i = 0, j = 0; i < count; i++) {
		struct piece p = r->pieces[i];

		if ((p.start & mask) != from)
			continue;
		p.start = (p.start & ~mask) | to;
		p.end = (p.end & ~mask) | to;
		p.key = (p.key & ~mask) | to;
		p.limit = (p.limit & ~mask) | to;
		copies[j++] = p;
	}
	for (j = 0; j < n && !err; j++) {
		i = first_ending_above(r, copies[j].start);
		if (i < r->count && r->pieces[i].start < copies[j].end) {
			err = -EEXIST;
			break;
		}
		err = reserve(r, 1);
		if (err)
			break;
		memmove(&r->pieces[i + 1], &r->pieces[i], (r->count - i) * sizeof(r->pieces[0]));
		r->pieces[i] = copies[j];
		r->count++;
	}
	free(copies);
	return err;
}

size_t ranges__memory(const struct ranges *r)
{
	return sizeof(*r) + r->cap * sizeof(r->pieces[0]) +
	       r->scratch_cap * (sizeof(r->window[0]) + sizeof(r->losses[0]));
}

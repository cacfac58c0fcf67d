// SPDX-License-Identifier: GPL-2.0
/* a conservative mark-and-sweep over one instant of the target (see leaks.h) */
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>

#include "hugepages.h"
#include "leaks.h"

/* the scan's states: a block is marked once per state it reaches */
enum {
	UNREACHED,
	POSSIBLE,		/* reached through an interior pointer */
	REACHED,		/* reached through a pointer to its start */
	IN_CLIQUE,		/* unreached, reached from a clique's leader */
};

#define NO_CLIQUE UINT32_MAX
/* memory is read this much at a time */
#define CHUNK_BYTES (64 << 10)
/* small blocks are read through windows of that size, kept: a system call
 * per 32-byte block cost 100x the copy of the same bytes */
#define WINDOWS 64
/* the least memory that can hold a block between two others: glibc's
 * smallest chunk */
#define MIN_GAP 32

/* blocks of at least this size are streamed, when there is a stream */
#define STREAM_MIN 4096
#define BATCH_MAX_RANGES 254
#define PAGE 4096ULL

/* the part [at, at + len) of a block, asked for in a batch */
struct piece {
	uint32_t block;
	uint64_t at, len;
};

struct batch {
	struct piece p[BATCH_MAX_RANGES];
	size_t n, pages, bytes;
	uint64_t *buf;
};

struct window {
	uint64_t base;		/* CHUNK_BYTES aligned */
	size_t valid;		/* bytes read from base; 0: none */
	uint64_t *words;
};

struct leaks {
	leaks_read_fn read;
	void *ctx;
	struct leak_block *blocks;
	size_t n, cap;
	bool sealed;
	/* blocks to scan */
	uint32_t *work;
	size_t nwork, work_cap;
	uint64_t *buf;		/* CHUNK_BYTES */
	struct window windows[WINDOWS];
	uint64_t bytes_read, bytes_streamed;
	/* no word outside [lo, hi) can point into a block */
	uint64_t lo, hi;
	/* while cliques are made: the leader, and the state a reached block takes */
	uint32_t leader;
	/* the words visited now are a root's or a reached block's: a pointer to
	 * a block's start reaches it; from a block reached only possibly, it
	 * reaches it only possibly (as memcheck's is_prior_definite) */
	bool definite;
	/* the stream, while it works; the block being cut into pieces */
	struct leaks_stream stream;
	bool streaming, stream_failed;
	struct batch batch[2];
	size_t batch_pages, batch_ranges;
	bool cutting;
	uint32_t cut_block;
	uint64_t cut_at, cut_end;
};

struct leaks *leaks__new(leaks_read_fn read, void *ctx)
{
	struct leaks *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->read = read;
	l->ctx = ctx;
	l->buf = malloc(CHUNK_BYTES);
	if (!l->buf) {
		free(l);
		return NULL;
	}
	return l;
}

void leaks__destroy(struct leaks *l)
{
	if (!l)
		return;
	free(l->blocks);
	size_t i;

	free(l->work);
	free(l->buf);
	free(l->batch[0].buf);
	free(l->batch[1].buf);
	for (i = 0; i < WINDOWS; i++)
		free(l->windows[i].words);
	free(l);
}

int leaks__stream(struct leaks *l, const struct leaks_stream *s)
{
	size_t i;

	/* two batches on their way at once, each of at least a page */
	if (s->pages < 4 || !s->max_ranges)
		return -EINVAL;
	l->batch_pages = s->pages / 2;
	l->batch_ranges = s->max_ranges < BATCH_MAX_RANGES ? s->max_ranges : BATCH_MAX_RANGES;
	for (i = 0; i < 2; i++) {
		free(l->batch[i].buf);
		l->batch[i].buf = malloc(l->batch_pages * PAGE);
		if (!l->batch[i].buf)
			return -ENOMEM;
	}
	l->stream = *s;
	l->streaming = true;
	return 0;
}

bool leaks__stream_failed(const struct leaks *l)
{
	return l->stream_failed;
}

int leaks__add(struct leaks *l, uint64_t addr, uint64_t size, uint64_t key, uint32_t stack_id)
{
	struct leak_block *b;

	if (l->sealed)
		return -EINVAL;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 1024;

		b = realloc(l->blocks, cap * sizeof(*b));
		if (!b)
			return -ENOMEM;
		l->blocks = b;
		l->cap = cap;
	}
	l->blocks[l->n++] = (struct leak_block){
		.addr = addr, .size = size ? size : 1, .key = key, .stack_id = stack_id,
		.clique = NO_CLIQUE,
	};
	return 0;
}

/*
 * The large arrays of a check (the blocks, the sort's copy of them: 40 MiB
 * each for a million blocks) taken in huge pages where the kernel allows
 * it: each is new memory at every check, and a page fault costs several
 * microseconds on a virtual machine (a check of a million blocks spent
 * 250 ms of its 570 in faults here, 60 ms with huge pages). The daemon's
 * malloc maps what is 1 MiB or more apart (DAEMON_MMAP_THRESHOLD), so the
 * advice touches nothing else (see hugepages.h).
 */

/*
 * The blocks by address: a radix sort, 16 bits a pass, a pass skipped where
 * every address has the same digit (the top 16 bits, mostly). qsort spent
 * 55% of a check of a million blocks moving them about. -ENOMEM, or 0.
 */
static int sort_by_addr(struct leaks *l)
{
	struct leak_block *tmp, *from = l->blocks, *to;
	size_t *count, i, pass;
	int err = 0;

	if (l->n < 2)
		return 0;
	tmp = malloc(l->n * sizeof(*tmp));
	count = malloc((1 << 16) * sizeof(*count));
	if (!tmp || !count) {
		err = -ENOMEM;
		goto out;
	}
	hugepages__advise(tmp, l->n * sizeof(*tmp));
	to = tmp;
	for (pass = 0; pass < 4; pass++) {
		unsigned int shift = pass * 16;
		size_t sum = 0, c;

		memset(count, 0, (1 << 16) * sizeof(*count));
		for (i = 0; i < l->n; i++)
			count[(from[i].addr >> shift) & 0xffff]++;
		if (count[(from[0].addr >> shift) & 0xffff] == l->n)
			continue;
		for (i = 0; i < 1 << 16; i++) {
			c = count[i];
			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < l->n; i++)
			to[count[(from[i].addr >> shift) & 0xffff]++] = from[i];
		to = from;
		from = from == l->blocks ? tmp : l->blocks;
	}
	if (from != l->blocks)
		memcpy(l->blocks, from, l->n * sizeof(*from));
out:
	free(tmp);
	free(count);
	return err;
}

int leaks__reserve(struct leaks *l, size_t n)
{
	struct leak_block *b;

	if (n <= l->cap)
		return 0;
	b = realloc(l->blocks, n * sizeof(*b));
	if (!b)
		return -ENOMEM;
	hugepages__advise(b, n * sizeof(*b));
	l->blocks = b;
	l->cap = n;
	return 0;
}

int leaks__seal(struct leaks *l)
{
	size_t i, n = 0;
	int err = sort_by_addr(l);

	if (err)
		return err;
	/* a block that overlaps the one before it is a record the model got
	 * wrong (lost): the first keeps its bytes */
	for (i = 0; i < l->n; i++) {
		if (n && l->blocks[i].addr < l->blocks[n - 1].addr + l->blocks[n - 1].size)
			continue;
		l->blocks[n++] = l->blocks[i];
	}
	l->n = n;
	l->sealed = true;
	if (n) {
		l->lo = l->blocks[0].addr;
		l->hi = l->blocks[n - 1].addr + l->blocks[n - 1].size;
		if (l->lo < 4096)
			l->lo = 4096;
		if (l->hi < l->lo)
			l->hi = l->lo;
	}
	return 0;
}

/* the index of the first block that starts above addr */
static size_t above(const struct leaks *l, uint64_t addr)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->blocks[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct leak_block *find(const struct leaks *l, uint64_t addr)
{
	size_t lo = above(l, addr);

	if (!lo || addr - l->blocks[lo - 1].addr >= l->blocks[lo - 1].size)
		return NULL;
	return &l->blocks[lo - 1];
}

const struct leak_block *leaks__find(const struct leaks *l, uint64_t addr)
{
	return find(l, addr);
}

bool leaks__any_in(const struct leaks *l, uint64_t start, uint64_t end)
{
	size_t i = above(l, start);

	/* one that starts in the range, or the one before it, reaching into it */
	return (i < l->n && l->blocks[i].addr < end) || find(l, start);
}

static int push(struct leaks *l, const struct leak_block *b)
{
	if (l->nwork == l->work_cap) {
		size_t cap = l->work_cap ? l->work_cap * 2 : 1024;
		uint32_t *w = realloc(l->work, cap * sizeof(*w));

		if (!w)
			return -ENOMEM;
		l->work = w;
		l->work_cap = cap;
	}
	l->work[l->nwork++] = (uint32_t)(b - l->blocks);
	return 0;
}

/*
 * Where, inside a block of size bytes, the header of the chunk after it
 * begins in glibc's malloc (chunks of 16-byte multiples, at least 32, with
 * 8 bytes of header; the next chunk's first word is this block's last when
 * the size is not a multiple of 16). The arena's pointers to the chunk after
 * (the top chunk, its bins' free chunks) land there: the allocator's, not
 * the program's, so they reach nothing: a dropped block that happens to be
 * followed by the top chunk would be "possibly lost" by them.
 */
static uint64_t next_chunk_at(uint64_t size)
{
	uint64_t chunk = (size + 8 + 15) & ~15ULL;

	return (chunk < 32 ? 32 : chunk) - 16;
}

/* word lies between the first block and the end of the last: one compare,
 * inlined in the loops over words, as most words do not */
static inline bool candidate(const struct leaks *l, uint64_t word)
{
	return word - l->lo < l->hi - l->lo;
}

/* the first word of w[i..n) that may point into a block, or n: eight
 * words compared at a time without a branch, as most words do not */
static inline size_t next_candidate(const struct leaks *l, const uint64_t *w, size_t i, size_t n)
{
	const uint64_t lo = l->lo, span = l->hi - l->lo;

	for (; i + 8 <= n; i += 8)
		if ((w[i] - lo < span) | (w[i + 1] - lo < span) | (w[i + 2] - lo < span) |
		    (w[i + 3] - lo < span) | (w[i + 4] - lo < span) | (w[i + 5] - lo < span) |
		    (w[i + 6] - lo < span) | (w[i + 7] - lo < span))
			break;
	for (; i < n; i++)
		if (w[i] - lo < span)
			return i;
	return n;
}

/* word may point into a block: mark it, and scan it later if it is new */
static int visit(struct leaks *l, uint64_t word)
{
	struct leak_block *b;

	if (!candidate(l, word) || !(b = find(l, word)))
		return 0;
	if (word != b->addr && word - b->addr == next_chunk_at(b->size))
		return 0;
	if (l->leader != NO_CLIQUE) {
		/* making cliques: every unreached block this leader reaches */
		if (b->state != UNREACHED && b->state != IN_CLIQUE)
			return 0;
		if (b->clique == l->leader || (uint32_t)(b - l->blocks) == l->leader)
			return 0;
		b->state = IN_CLIQUE;
		b->clique = l->leader;
		return push(l, b);
	}
	if (word == b->addr && l->definite) {
		if (b->state == REACHED)
			return 0;
		b->state = REACHED;
	} else {
		if (b->state != UNREACHED)
			return 0;
		b->state = POSSIBLE;
	}
	return push(l, b);
}

/* the word at addr lies inside a block; *k: the index of the first block
 * that starts above the last address asked (addresses asked only grow) */
static bool in_block(const struct leaks *l, uint64_t addr, size_t *k)
{
	while (*k < l->n && l->blocks[*k].addr <= addr)
		(*k)++;
	return *k && addr - l->blocks[*k - 1].addr < l->blocks[*k - 1].size;
}

/* the aligned words of [start, end), read a chunk at a time; skip_blocks:
 * not those inside blocks */
static int scan_range(struct leaks *l, uint64_t start, uint64_t end, bool skip_blocks)
{
	uint64_t at = (start + 7) & ~7ULL;
	size_t i, k = skip_blocks ? above(l, at) : 0;
	ssize_t got;
	int err;

	while (at + 8 <= end) {
		uint64_t len = end - at < CHUNK_BYTES ? (end - at) & ~7ULL : CHUNK_BYTES;

		/* a large block is stepped over, not read: it is read when it is reached */
		if (skip_blocks && in_block(l, at, &k) && l->blocks[k - 1].size >= CHUNK_BYTES) {
			at = (l->blocks[k - 1].addr + l->blocks[k - 1].size + 7) & ~7ULL;
			continue;
		}
		/* up to the next large block; a gap of less than MIN_GAP before it
		 * (glibc's chunk header between two blocks) holds no block, and
		 * a read of a few bytes costs as much as one of 64 KiB */
		if (skip_blocks && k < l->n && l->blocks[k].size >= CHUNK_BYTES &&
		    l->blocks[k].addr < at + len) {
			len = (l->blocks[k].addr - at) & ~7ULL;
			if (len < MIN_GAP) {
				at = l->blocks[k].addr;
				continue;
			}
		}
		got = l->read(l->ctx, at, l->buf, len);
		if (got <= 0) {
			/* unreadable: the rest of its page is too */
			at = (at | 4095) + 1;
			continue;
		}
		l->bytes_read += got;
		for (i = 0; (i = next_candidate(l, l->buf, i, (size_t)got / 8)) < (size_t)got / 8; i++) {
			if (skip_blocks && in_block(l, at + i * 8, &k))
				continue;
			if ((err = visit(l, l->buf[i])))
				return err;
		}
		at += got & ~7ULL;
	}
	return 0;
}

/* the window that holds [addr, addr + len), read once; NULL when the
 * range is not in one, or was not read whole */
static const uint64_t *windowed(struct leaks *l, uint64_t addr, uint64_t len)
{
	uint64_t base = addr & ~(uint64_t)(CHUNK_BYTES - 1);
	struct window *w = &l->windows[(base / CHUNK_BYTES) % WINDOWS];
	ssize_t got;

	if (addr + len > base + CHUNK_BYTES)
		return NULL;
	if (!w->words && !(w->words = malloc(CHUNK_BYTES)))
		return NULL;
	if (w->base != base || !w->valid) {
		got = l->read(l->ctx, base, w->words, CHUNK_BYTES);
		w->base = base;
		w->valid = got > 0 ? (size_t)got : 0;
		if (got > 0)
			l->bytes_read += got;
	}
	if (addr + len > base + w->valid)
		return NULL;
	return w->words + (addr - base) / 8;
}

/* a block's words: a small one from its window, a large one (or one the
 * window could not read) by scan_range */
static int scan_block(struct leaks *l, const struct leak_block *b)
{
	uint64_t start = (b->addr + 7) & ~7ULL, end = (b->addr + b->size) & ~7ULL;
	const uint64_t *words;
	size_t i;
	int err;

	if (end <= start)
		return 0;
	/* its state now: it may have been reached since it was marked possible */
	l->definite = b->state == REACHED;
	words = b->size < CHUNK_BYTES ? windowed(l, start, end - start) : NULL;
	if (!words)
		return scan_range(l, b->addr, b->addr + b->size, false);
	for (i = 0; (i = next_candidate(l, words, i, (end - start) / 8)) < (end - start) / 8; i++)
		if ((err = visit(l, words[i])))
			return err;
	return 0;
}

static int drain(struct leaks *l);

/* the pages [at, at + len) touches */
static size_t pages_of(uint64_t at, uint64_t len)
{
	return (size_t)(((at + len - 1) / PAGE) - at / PAGE + 1);
}

/*
 * The next batch, from the work list: the large blocks cut into pieces
 * that fit its pages (a block larger than a batch goes on in the next);
 * the small ones met on the way are scanned at once, from their windows.
 */
static int fill(struct leaks *l, struct batch *b)
{
	int err;

	b->n = b->pages = b->bytes = 0;
	while (b->n < l->batch_ranges && b->pages < l->batch_pages) {
		uint64_t room, end;

		if (!l->cutting) {
			const struct leak_block *blk;

			if (!l->nwork)
				break;
			blk = &l->blocks[l->work[--l->nwork]];
			if (blk->size < STREAM_MIN) {
				if ((err = scan_block(l, blk)))
					return err;
				continue;
			}
			l->cut_block = (uint32_t)(blk - l->blocks);
			l->cut_at = (blk->addr + 7) & ~7ULL;
			l->cut_end = (blk->addr + blk->size) & ~7ULL;
			l->cutting = true;
		}
		/* up to the end of the last page the batch has room for */
		room = (l->cut_at / PAGE + (l->batch_pages - b->pages)) * PAGE;
		end = l->cut_end < room ? l->cut_end : room;
		b->p[b->n++] = (struct piece){ l->cut_block, l->cut_at, end - l->cut_at };
		b->pages += pages_of(l->cut_at, end - l->cut_at);
		b->bytes += end - l->cut_at;
		l->cut_at = end;
		l->cutting = end < l->cut_end;
	}
	return 0;
}

static int ask(struct leaks *l, const struct batch *b)
{
	struct iovec r[BATCH_MAX_RANGES];
	size_t i;

	for (i = 0; i < b->n; i++)
		r[i] = (struct iovec){ (void *)(uintptr_t)b->p[i].at, b->p[i].len };
	return l->stream.ask(l->stream.ctx, r, b->n);
}

/* the words of a batch's pieces, taken: what they point at, marked */
static int scan_batch(struct leaks *l, const struct batch *b)
{
	const uint64_t *w = b->buf;
	size_t i, j, n;
	int err;

	for (i = 0; i < b->n; w += n, i++) {
		n = b->p[i].len / 8;
		l->definite = l->blocks[b->p[i].block].state == REACHED;
		for (j = 0; (j = next_candidate(l, w, j, n)) < n; j++)
			if ((err = visit(l, w[j])))
				return err;
	}
	l->bytes_read += b->bytes;
	l->bytes_streamed += b->bytes;
	return 0;
}

/* the stream failed: what it was asked for and did not give is read
 * the other way, and so is everything after */
static int unstream(struct leaks *l, struct batch *const *q, size_t nb)
{
	size_t i, k;
	int err;

	l->streaming = false;
	l->stream_failed = true;
	for (k = 0; k < nb; k++)
		for (i = 0; i < q[k]->n; i++) {
			l->definite = l->blocks[q[k]->p[i].block].state == REACHED;
			if ((err = scan_range(l, q[k]->p[i].at, q[k]->p[i].at + q[k]->p[i].len, false)))
				return err;
		}
	if (l->cutting) {
		l->cutting = false;
		l->definite = l->blocks[l->cut_block].state == REACHED;
		return scan_range(l, l->cut_at, l->cut_end, false);
	}
	return 0;
}

/* drain, with the large blocks streamed: the next batch is asked for
 * before the one before it is scanned */
static int drain_streamed(struct leaks *l)
{
	struct batch *q[2] = { &l->batch[0], &l->batch[1] }, *t;
	size_t nb = 0;
	int err;

	for (;;) {
		while (nb < 2) {
			if ((err = fill(l, q[nb])))
				goto broken;
			if (!q[nb]->n)
				break;
			/* not asked: read the other way, as those before it */
			if (ask(l, q[nb]))
				return unstream(l, q, nb + 1) ?: drain(l);
			nb++;
		}
		if (!nb)
			return 0;
		if (l->stream.take(l->stream.ctx, q[0]->buf, q[0]->bytes))
			return unstream(l, q, nb) ?: drain(l);
		err = scan_batch(l, q[0]);
		t = q[0];
		q[0] = q[1];
		q[1] = t;
		nb--;
		if (err)
			goto broken;
	}
broken:
	/* bytes asked for and never taken: the stream is of no use any more */
	if (nb) {
		l->streaming = false;
		l->stream_failed = true;
	}
	return err;
}

/* every block marked and not scanned yet, scanned */
static int drain(struct leaks *l)
{
	int err;

	if (l->streaming)
		return drain_streamed(l);
	while (l->nwork) {
		err = scan_block(l, &l->blocks[l->work[--l->nwork]]);
		if (err)
			return err;
	}
	return 0;
}

int leaks__root_range(struct leaks *l, uint64_t start, uint64_t end, bool skip_blocks)
{
	int err;

	l->leader = NO_CLIQUE;
	l->definite = true;
	err = scan_range(l, start, end, skip_blocks);
	return err ? err : drain(l);
}

int leaks__root_words(struct leaks *l, const uint64_t *words, size_t n)
{
	size_t i;
	int err = 0;

	l->leader = NO_CLIQUE;
	l->definite = true;
	for (i = 0; i < n && !err; i++)
		err = visit(l, words[i]);
	return err ? err : drain(l);
}

int leaks__root_word(struct leaks *l, uint64_t word)
{
	int err;

	l->leader = NO_CLIQUE;
	l->definite = true;
	err = visit(l, word);
	return err ? err : drain(l);
}

int leaks__classify(struct leaks *l)
{
	int err = 0;
	size_t i;

	for (i = 0; i < l->n; i++) {
		struct leak_block *b = &l->blocks[i];

		if (b->state != UNREACHED && b->state != IN_CLIQUE)
			continue;
		/* in a clique already: its leader (or a later one) accounts */
		if (b->clique != NO_CLIQUE)
			continue;
		l->leader = (uint32_t)i;
		err = push(l, b);
		if (!err)
			err = drain(l);
		if (err)
			break;
	}
	l->leader = NO_CLIQUE;
	l->nwork = 0;
	for (i = 0; i < l->n; i++) {
		struct leak_block *b = &l->blocks[i];

		switch (b->state) {
		case REACHED:
			b->cls = LEAK_REACHABLE;
			break;
		case POSSIBLE:
			b->cls = LEAK_POSSIBLE;
			break;
		default:
			b->cls = b->clique == NO_CLIQUE ? LEAK_DEFINITE : LEAK_INDIRECT;
		}
	}
	return err;
}

size_t leaks__count(const struct leaks *l)
{
	return l->n;
}

const struct leak_block *leaks__block(const struct leaks *l, size_t i)
{
	return i < l->n ? &l->blocks[i] : NULL;
}

void leaks__totals(const struct leaks *l, uint64_t bytes[LEAK__COUNT], uint64_t blocks[LEAK__COUNT])
{
	size_t i;

	memset(bytes, 0, LEAK__COUNT * sizeof(*bytes));
	memset(blocks, 0, LEAK__COUNT * sizeof(*blocks));
	for (i = 0; i < l->n; i++) {
		if (l->blocks[i].cls >= LEAK__COUNT)
			continue;	/* suppressed */
		bytes[l->blocks[i].cls] += l->blocks[i].size;
		blocks[l->blocks[i].cls]++;
	}
}

void leaks__suppress(struct leaks *l, bool (*suppressed)(void *ctx, uint32_t stack_id), void *ctx,
		     uint64_t *bytes, uint64_t *blocks)
{
	size_t i;

	*bytes = *blocks = 0;
	for (i = 0; i < l->n; i++)
		if (l->blocks[i].cls < LEAK__COUNT && suppressed(ctx, l->blocks[i].stack_id)) {
			l->blocks[i].cls = LEAK__COUNT;
			*bytes += l->blocks[i].size;
			(*blocks)++;
		}
}

uint64_t leaks__bytes_read(const struct leaks *l)
{
	return l->bytes_read;
}

uint64_t leaks__bytes_streamed(const struct leaks *l)
{
	return l->bytes_streamed;
}

const char *leaks__class_name(enum leak_class c)
{
	static const char *const names[LEAK__COUNT] = {
		[LEAK_REACHABLE] = "still reachable",
		[LEAK_POSSIBLE] = "possibly lost",
		[LEAK_INDIRECT] = "indirectly lost",
		[LEAK_DEFINITE] = "definitely lost",
	};

	return c < LEAK__COUNT ? names[c] : "?";
}

static int by_stack(const void *a, const void *b)
{
	const struct leak_stack *x = a, *y = b;

	if (x->stack_id != y->stack_id)
		return x->stack_id < y->stack_id ? -1 : 1;
	return x->cls < y->cls ? -1 : x->cls > y->cls;
}

int leaks__lost_by_stack(const struct leaks *l, struct leak_stack **out, size_t *n)
{
	struct leak_stack *s = calloc(l->n + 1, sizeof(*s));
	size_t i, k = 0;

	*out = s;
	*n = 0;
	if (!s)
		return -ENOMEM;
	for (i = 0; i < l->n; i++) {
		const struct leak_block *b = &l->blocks[i];

		if (b->cls == LEAK_DEFINITE || b->cls == LEAK_INDIRECT)
			s[k++] = (struct leak_stack){ b->stack_id, b->cls, b->size, 1, b->key };
	}
	qsort(s, k, sizeof(*s), by_stack);
	for (i = 0; i < k; i++) {
		struct leak_stack *last = *n ? &s[*n - 1] : NULL;

		if (last && !by_stack(last, &s[i])) {
			last->bytes += s[i].bytes;
			last->count++;
			if (s[i].oldest_key < last->oldest_key)
				last->oldest_key = s[i].oldest_key;
			continue;
		}
		s[(*n)++] = s[i];
	}
	return 0;
}

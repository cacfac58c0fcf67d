// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hugepages.h"
#include "table.h"

#define MIN_CAPACITY 64

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23	/* Linux 5.14; older kernels refuse it, see migrate_step */
#endif

struct table {
	unsigned char *slots;	/* capacity slots of slot_size bytes: key, then value */
	size_t slot_size;
	size_t value_size;
	size_t capacity;	/* a power of two */
	unsigned int shift;	/* 64 - log2(capacity) */
	size_t count;		/* keys in slots and in old together */
	/* While the table doubles, the keys not yet moved stay in old (see
	 * migrate_step): those whose home in old is at or past cursor. */
	unsigned char *old;
	size_t old_capacity;
	unsigned int old_shift;
	size_t cursor;		/* old slots below it are moved (or never read again) */
	size_t released;	/* bytes of old unmapped, from keep on */
	size_t keep;		/* bytes at the start of old that stay mapped until the end */
	size_t populated;	/* bytes of slots populated ahead of the move */
	/* The next, bigger slots, made and faulted in ahead of the doubling,
	 * while the load grows from 5/8 to 3/4 (see prepare_step) */
	unsigned char *next;
	size_t next_populated;
	size_t page;		/* the page size: migrate_step runs on every insert */
};

/* old slots moved per insert while the table doubles: small enough that an
 * insert stays within a few microseconds, so the daemon keeps up with a target
 * that allocates at full speed (a whole doubling at once stalled it for half a
 * second at 6 million live blocks and the ring buffer overflowed) */
#define MIGRATE_STEP 8

/* a smaller table doubles in one go without a stall worth preparing for */
#define PREPARE_MIN (1 << 16)

static inline uint64_t key_at(const unsigned char *slots, size_t slot_size, size_t i)
{
	uint64_t key;

	memcpy(&key, slots + i * slot_size, sizeof(key));
	return key;
}

static inline uint64_t slot_key(const struct table *t, size_t i)
{
	return key_at(t->slots, t->slot_size, i);
}

static inline void *slot_value(const struct table *t, size_t i)
{
	return t->slots + i * t->slot_size + sizeof(uint64_t);
}

/*
 * Fibonacci hashing: the top bits of key * 2^64/phi, which depend on all the
 * bits of the key (heap addresses differ mostly in their middle bits). Taking
 * the top bits keeps the order of home slots when the table doubles: slot i
 * becomes 2i or 2i+1, so moving the old table front to back writes the new
 * one front to back too, and a key's home in the old table says whether it
 * has been moved yet.
 */
static inline size_t home_of(uint64_t key, unsigned int shift)
{
	return (size_t)((key * 0x9E3779B97F4A7C15ULL) >> shift);
}

static inline size_t home_slot(const struct table *t, uint64_t key)
{
	return home_of(key, t->shift);
}

/* Slots come straight from mmap, so a doubling can hand the old table back
 * to the kernel piece by piece as it empties. A large table is in huge pages
 * where the kernel has them: a page fault costs ~15 us on the VMs we
 * measured, and the 128 MiB a doubling at 3 million live blocks writes took
 * 0.5 s of faults in 4 KiB pages, more than a throttled daemon has while the
 * target allocates on (the rings overflowed). */
static void *slots_alloc(size_t capacity, size_t slot_size)
{
	size_t bytes = capacity * slot_size;
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (bytes >= 2 * HUGE_PAGE_BYTES)
		hugepages__advise(p, bytes);
	return p;
}

static void slots_free(void *slots, size_t capacity, size_t slot_size)
{
	if (slots)
		munmap(slots, capacity * slot_size);
}

/* unmaps what is left of old: the pages from keep to released are gone
 * already, and by now may belong to another mapping */
static void old_free(struct table *t)
{
	size_t bytes = t->old_capacity * t->slot_size;

	munmap(t->old, t->keep);
	if (t->released < bytes)
		munmap(t->old + t->released, bytes - t->released);
}

static unsigned int shift_for(size_t capacity)
{
	return 64 - (unsigned int)__builtin_ctzll(capacity);
}

struct table *table__new(size_t value_size)
{
	struct table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->value_size = value_size;
	t->page = (size_t)sysconf(_SC_PAGESIZE);
	t->slot_size = (sizeof(uint64_t) + value_size + 7) & ~(size_t)7;
	t->capacity = MIN_CAPACITY;
	t->shift = shift_for(t->capacity);
	t->slots = slots_alloc(t->capacity, t->slot_size);
	if (!t->slots) {
		free(t);
		return NULL;
	}
	return t;
}

void table__destroy(struct table *t)
{
	if (!t)
		return;
	slots_free(t->slots, t->capacity, t->slot_size);
	slots_free(t->next, 2 * t->capacity, t->slot_size);
	if (t->old)
		old_free(t);
	free(t);
}

/* the slot of key in slots, or the empty slot where its probe run ends */
static size_t probe(const unsigned char *slots, size_t slot_size, size_t capacity, size_t home,
		    uint64_t key)
{
	size_t i = home;

	for (;;) {
		uint64_t k = key_at(slots, slot_size, i);

		if (k == key || k == 0)
			return i;
		i = (i + 1) & (capacity - 1);
	}
}

static size_t find_slot(const struct table *t, uint64_t key)
{
	return probe(t->slots, t->slot_size, t->capacity, home_slot(t, key), key);
}

/* where key is or would go in old: *in_old says whether its home there is
 * not yet moved; returns the slot (key found or empty), which lies below the
 * home when the run wrapped past the end */
static size_t find_old(const struct table *t, uint64_t key, size_t *home, bool *in_old)
{
	*in_old = false;
	if (!t->old)
		return 0;
	*home = home_of(key, t->old_shift);
	if (*home < t->cursor)
		return 0;
	*in_old = true;
	return probe(t->old, t->slot_size, t->old_capacity, *home, key);
}

/* moves the key of old slot i, if any, to its place in slots */
static void move_old(struct table *t, size_t i)
{
	unsigned char *from = t->old + i * t->slot_size;
	uint64_t key = key_at(t->old, t->slot_size, i);

	if (!key)
		return;
	memcpy(t->slots + find_slot(t, key) * t->slot_size, from, t->slot_size);
	memset(from, 0, t->slot_size);
}

static void migrate_done(struct table *t)
{
	old_free(t);
	t->old = NULL;
	t->old_capacity = 0;
	t->cursor = 0;
}

/*
 * Moves at least `budget` old slots, and on to the end of a run, so that the
 * cursor always follows an empty old slot. Then every key still in old has
 * its home at or past the cursor and sits at or past its home: lookups start
 * there, and removals shift keys only between the cursor and the end. Probes
 * that wrap past the end read the first slots of old, which stay mapped and
 * empty (moved at the start) until the end.
 */
static void migrate_step(struct table *t, size_t budget)
{
	const size_t page = t->page, chunk = 64 * page;
	const size_t bytes = t->capacity * t->slot_size;
	size_t done;

	while (t->cursor < t->old_capacity) {
		size_t i = t->cursor++;
		bool empty = key_at(t->old, t->slot_size, i) == 0;

		/* find_slot() reads a page before it writes it: two faults a page,
		 * the first mapping the zero page. Populating the new table a
		 * chunk ahead of the move takes one pass. Where madvise cannot
		 * (before Linux 5.14), the faults do it. */
		if (t->populated < bytes && (2 * i + 2) * t->slot_size + chunk / 2 > t->populated) {
			size_t len = bytes - t->populated < chunk ? bytes - t->populated : chunk;

			if (madvise(t->slots + t->populated, len, MADV_POPULATE_WRITE))
				t->populated = bytes;
			else
				t->populated += len;
		}
		move_old(t, i);
		if (budget)
			budget--;
		if (!budget && empty)
			break;
	}
	if (t->cursor >= t->old_capacity) {
		migrate_done(t);
		return;
	}
	/* old pages below the cursor are never read again */
	done = t->cursor * t->slot_size / page * page;
	if (done > t->released && done - t->released >= chunk) {
		munmap(t->old + t->released, done - t->released);
		t->released = done;
	}
}

/*
 * The bigger slots are faulted in ahead: on the VMs we measured, fresh
 * memory costs 1-2 ms per MiB however it is touched (the host backs it as
 * the guest first writes it), and the 128 MiB of a doubling at 1.6 million
 * live blocks, faulted while the keys moved, took a daemon held to 30% of a
 * CPU 0.8 s: the rings overflowed. Spread over the inserts that take the
 * load from 5/8 to 3/4, the same work costs each insert a little; started
 * no earlier, so that the memory is not held long before it is used.
 */
static void prepare_step(struct table *t)
{
	const size_t chunk = 16 * t->page, bytes = 2 * t->capacity * t->slot_size;
	size_t start = t->capacity * 5 / 8, want;

	if (!t->next) {
		t->next = slots_alloc(2 * t->capacity, t->slot_size);
		t->next_populated = 0;
		if (!t->next)
			return;	/* migrate_begin tries again */
	}
	if (t->next_populated >= bytes || t->count <= start)
		return;
	/* as much of it as the load has come toward 3/4 */
	want = (double)bytes * (t->count - start) / (t->capacity * 3 / 4 - start);
	if (want < t->next_populated + chunk)
		return;
	if (madvise(t->next + t->next_populated, chunk, MADV_POPULATE_WRITE))
		t->next_populated = bytes;	/* the faults will do it */
	else
		t->next_populated += chunk;
}

/* Starts doubling the table: the keys move over the next inserts. */
static int migrate_begin(struct table *t)
{
	const size_t page = t->page;
	unsigned char *bigger = t->next ? t->next : slots_alloc(t->capacity * 2, t->slot_size);
	size_t first_empty = 0, i;

	if (!bigger)
		return -ENOMEM;
	t->old = t->slots;
	t->old_capacity = t->capacity;
	t->old_shift = t->shift;
	t->slots = bigger;
	t->capacity *= 2;
	t->shift = shift_for(t->capacity);
	t->populated = t->next ? t->next_populated : 0;
	t->next = NULL;
	/* The run at the start of old may hold keys whose home is at its end:
	 * move it now, so that the cursor starts after an empty slot */
	while (key_at(t->old, t->slot_size, first_empty))
		first_empty++;
	for (i = 0; i < first_empty; i++)
		move_old(t, i);
	t->cursor = first_empty + 1;
	t->keep = (t->cursor * t->slot_size + page - 1) / page * page;
	t->released = t->keep;
	return 0;
}

void *table__lookup(const struct table *t, uint64_t key)
{
	size_t i, home = 0;
	bool in_old;

	if (!key)
		return NULL;
	i = find_old(t, key, &home, &in_old);
	if (in_old && key_at(t->old, t->slot_size, i) == key)
		return t->old + i * t->slot_size + sizeof(uint64_t);
	i = find_slot(t, key);
	return slot_key(t, i) == key ? slot_value(t, i) : NULL;
}

void *table__upsert(struct table *t, uint64_t key, bool *existed)
{
	unsigned char *slot;
	size_t i, home = 0;
	bool in_old;

	if (!key)
		return NULL;
	if (t->old)
		migrate_step(t, MIGRATE_STEP);
	/* keep the load under 3/4 so probe runs stay short */
	else if ((t->count + 1) * 4 > t->capacity * 3 && migrate_begin(t))
		return NULL;
	else if ((t->count + 1) * 8 > t->capacity * 5 && t->capacity >= PREPARE_MIN)
		prepare_step(t);

	i = find_old(t, key, &home, &in_old);
	if (in_old && key_at(t->old, t->slot_size, i) == key) {
		slot = t->old + i * t->slot_size;
		goto found;
	}
	/* a key whose home in old is not moved yet can still be in the new
	 * table: the run at the start of old moves first, whatever its homes */
	slot = t->slots + find_slot(t, key) * t->slot_size;
	if (key_at(slot, 0, 0) == key)
		goto found;
	/* unless its run wrapped past the end, a new key whose home in old is
	 * not moved yet goes there, to move with its run */
	if (in_old && i >= home)
		slot = t->old + i * t->slot_size;
	memcpy(slot, &key, sizeof(key));
	memset(slot + sizeof(key), 0, t->value_size);
	t->count++;
	if (existed)
		*existed = false;
	return slot + sizeof(key);
found:
	if (existed)
		*existed = true;
	return slot + sizeof(key);
}

/* backward shift: moves later members of the run into the hole when their
 * home slot does not lie (cyclically) between the hole and them */
static void remove_at(unsigned char *slots, size_t slot_size, size_t capacity, unsigned int shift,
		      size_t hole)
{
	size_t mask = capacity - 1, i;

	for (i = (hole + 1) & mask;; i = (i + 1) & mask) {
		uint64_t k = key_at(slots, slot_size, i);
		size_t home;

		if (!k)
			break;
		home = home_of(k, shift);
		if (((i - home) & mask) >= ((i - hole) & mask)) {
			memcpy(slots + hole * slot_size, slots + i * slot_size, slot_size);
			hole = i;
		}
	}
	memset(slots + hole * slot_size, 0, slot_size);
}

int table__remove(struct table *t, uint64_t key, void *value_out)
{
	size_t i, home = 0;
	bool in_old;

	if (!key)
		return -ENOENT;
	/* frees move the doubling on too: a program that stops allocating
	 * must not keep both tables, and two probes a lookup, for good */
	if (t->old)
		migrate_step(t, MIGRATE_STEP);
	i = find_old(t, key, &home, &in_old);
	if (in_old && key_at(t->old, t->slot_size, i) == key) {
		if (value_out)
			memcpy(value_out, t->old + i * t->slot_size + sizeof(key), t->value_size);
		remove_at(t->old, t->slot_size, t->old_capacity, t->old_shift, i);
		t->count--;
		return 0;
	}
	i = find_slot(t, key);
	if (slot_key(t, i) != key)
		return -ENOENT;
	if (value_out)
		memcpy(value_out, slot_value(t, i), t->value_size);
	remove_at(t->slots, t->slot_size, t->capacity, t->shift, i);
	t->count--;
	return 0;
}

void table__clear(struct table *t)
{
	if (t->old)
		migrate_done(t);
	memset(t->slots, 0, t->capacity * t->slot_size);
	t->count = 0;
}

size_t table__count(const struct table *t)
{
	return t->count;
}

size_t table__memory(const struct table *t)
{
	size_t old = t->old ? t->old_capacity * t->slot_size - (t->released - t->keep) : 0;

	return sizeof(*t) + t->capacity * t->slot_size + old + t->next_populated * !!t->next;
}

/* *pos runs over the slots, then over the old slots not moved yet */
void *table__next(const struct table *t, size_t *pos, uint64_t *key)
{
	while (*pos < t->capacity + (t->old ? t->old_capacity : 0)) {
		size_t i = (*pos)++;
		const unsigned char *slot;
		uint64_t k;

		if (i < t->capacity) {
			slot = t->slots + i * t->slot_size;
		} else {
			i -= t->capacity;
			if (i < t->cursor) {
				*pos = t->capacity + t->cursor;
				continue;
			}
			slot = t->old + i * t->slot_size;
		}
		k = key_at(slot, 0, 0);
		if (k) {
			if (key)
				*key = k;
			return (void *)(slot + sizeof(k));
		}
	}
	return NULL;
}

// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "table.h"

#define MIN_CAPACITY 64

struct table {
	unsigned char *slots;	/* capacity slots of slot_size bytes: key, then value */
	size_t slot_size;
	size_t value_size;
	size_t capacity;	/* a power of two */
	unsigned int shift;	/* 64 - log2(capacity) */
	size_t count;
};

static inline uint64_t slot_key(const struct table *t, size_t i)
{
	uint64_t key;

	memcpy(&key, t->slots + i * t->slot_size, sizeof(key));
	return key;
}

static inline void *slot_value(const struct table *t, size_t i)
{
	return t->slots + i * t->slot_size + sizeof(uint64_t);
}

/*
 * Fibonacci hashing: the top bits of key * 2^64/phi, which depend on all the
 * bits of the key (heap addresses differ mostly in their middle bits). Taking
 * the top bits keeps the order of home slots when the table doubles: slot i
 * becomes 2i or 2i+1, which lets grow() walk both tables front to back.
 */
static inline size_t home_slot(const struct table *t, uint64_t key)
{
	return (size_t)((key * 0x9E3779B97F4A7C15ULL) >> t->shift);
}

/* Slots come straight from mmap, so grow() can hand the old table back to
 * the kernel piece by piece as it empties. */
static void *slots_alloc(size_t capacity, size_t slot_size)
{
	void *p = mmap(NULL, capacity * slot_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void slots_free(void *slots, size_t capacity, size_t slot_size)
{
	if (slots)
		munmap(slots, capacity * slot_size);
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
	free(t);
}

static size_t find_slot(const struct table *t, uint64_t key)
{
	size_t i = home_slot(t, key);

	for (;;) {
		uint64_t k = slot_key(t, i);

		if (k == key || k == 0)
			return i;
		i = (i + 1) & (t->capacity - 1);
	}
}

void *table__lookup(const struct table *t, uint64_t key)
{
	size_t i = find_slot(t, key);

	return slot_key(t, i) == key && key ? slot_value(t, i) : NULL;
}

/*
 * Doubles the table. Home slots keep their order (see home_slot), so reading
 * the old table front to back writes the new one front to back too: the
 * copy streams through memory instead of jumping around it, and the pages of
 * the old table are unmapped as soon as they are read. With ten million live
 * blocks this keeps the peak close to the size of the new table alone, where
 * a plain copy holds both tables whole, and it takes a fraction of the time.
 */
static int grow(struct table *t)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	const size_t chunk = 64 * page, bytes = t->capacity * 2 * t->slot_size;
	struct table bigger = *t;
	size_t i, released = 0, populated = 0;

	bigger.capacity = t->capacity * 2;
	bigger.shift = shift_for(bigger.capacity);
	bigger.slots = slots_alloc(bigger.capacity, t->slot_size);
	if (!bigger.slots)
		return -ENOMEM;
	for (i = 0; i < t->capacity; i++) {
		uint64_t key = slot_key(t, i);
		size_t done;

		/* find_slot() reads a page of the new table before it writes it:
		 * two faults a page, the first mapping the zero page. Populating
		 * the new table a chunk ahead of the copy takes one pass instead
		 * and halves the time of a large grow, during which the daemon
		 * reads no records. Where madvise cannot (before Linux 5.14), the
		 * faults do it. */
		if (populated < bytes && (2 * i + 2) * t->slot_size + chunk / 2 > populated) {
			size_t len = bytes - populated < chunk ? bytes - populated : chunk;

			if (madvise(bigger.slots + populated, len, MADV_POPULATE_WRITE))
				populated = bytes;
			else
				populated += len;
		}
		if (key)
			memcpy(bigger.slots + find_slot(&bigger, key) * t->slot_size,
			       t->slots + i * t->slot_size, t->slot_size);
		done = (i + 1) * t->slot_size / page * page;
		if (done - released >= 64 * page) {
			munmap(t->slots + released, done - released);
			released = done;
		}
	}
	munmap(t->slots + released, t->capacity * t->slot_size - released);
	*t = bigger;
	return 0;
}

void *table__upsert(struct table *t, uint64_t key, bool *existed)
{
	size_t i;

	if (!key)
		return NULL;
	i = find_slot(t, key);
	if (slot_key(t, i) == key) {
		if (existed)
			*existed = true;
		return slot_value(t, i);
	}
	/* keep the load under 3/4 so probe runs stay short */
	if ((t->count + 1) * 4 > t->capacity * 3) {
		if (grow(t))
			return NULL;
		i = find_slot(t, key);
	}
	memcpy(t->slots + i * t->slot_size, &key, sizeof(key));
	memset(slot_value(t, i), 0, t->value_size);
	t->count++;
	if (existed)
		*existed = false;
	return slot_value(t, i);
}

int table__remove(struct table *t, uint64_t key, void *value_out)
{
	size_t mask = t->capacity - 1;
	size_t hole, i;

	if (!key)
		return -ENOENT;
	hole = find_slot(t, key);
	if (slot_key(t, hole) != key)
		return -ENOENT;
	if (value_out)
		memcpy(value_out, slot_value(t, hole), t->value_size);

	/* backward shift: move later members of the run into the hole when
	 * their home slot does not lie (cyclically) between the hole and them */
	for (i = (hole + 1) & mask;; i = (i + 1) & mask) {
		uint64_t k = slot_key(t, i);
		size_t home;

		if (!k)
			break;
		home = home_slot(t, k);
		if (((i - home) & mask) >= ((i - hole) & mask)) {
			memcpy(t->slots + hole * t->slot_size, t->slots + i * t->slot_size,
			       t->slot_size);
			hole = i;
		}
	}
	memset(t->slots + hole * t->slot_size, 0, t->slot_size);
	t->count--;
	return 0;
}

void table__clear(struct table *t)
{
	memset(t->slots, 0, t->capacity * t->slot_size);
	t->count = 0;
}

size_t table__count(const struct table *t)
{
	return t->count;
}

size_t table__memory(const struct table *t)
{
	return sizeof(*t) + t->capacity * t->slot_size;
}

void *table__next(const struct table *t, size_t *pos, uint64_t *key)
{
	while (*pos < t->capacity) {
		size_t i = (*pos)++;
		uint64_t k = slot_key(t, i);

		if (k) {
			if (key)
				*key = k;
			return slot_value(t, i);
		}
	}
	return NULL;
}

// SPDX-License-Identifier: GPL-2.0
/* table.c (open addressing, backward-shift deletion) and stacks.c (interning) */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "stacks.h"
#include "table.h"
#include "test.h"

/* a value bigger than a word, derived from its key: catches values torn by a move */
struct val {
	uint64_t key;
	uint64_t inv;
	uint32_t tag;
};

static void set_val(struct val *v, uint64_t key)
{
	v->key = key;
	v->inv = ~key;
	v->tag = (uint32_t)(key * 2654435761u);
}

static bool val_ok(const struct val *v, uint64_t key)
{
	return v && v->key == key && v->inv == ~key && v->tag == (uint32_t)(key * 2654435761u);
}

/* inserts keys[0..n), each absent before, values derived from the key */
static void insert_all(struct table *t, const uint64_t *keys, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		bool existed = true;
		struct val *v = table__upsert(t, keys[i], &existed);

		ASSERT_OK_PTR(v, "upsert of key %#llx (#%zu)", (unsigned long long)keys[i], i);
		ASSERT_FALSE(existed, "key %#llx (#%zu) existed before its insert",
			     (unsigned long long)keys[i], i);
		ASSERT_TRUE(v->key == 0 && v->inv == 0 && v->tag == 0,
			    "value of new key %#llx is zeroed", (unsigned long long)keys[i]);
		set_val(v, keys[i]);
	}
}

/* every key in keys[from..to) is found with its own value */
static void check_present(const struct table *t, const uint64_t *keys, size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to; i++)
		ASSERT_TRUE(val_ok(table__lookup(t, keys[i]), keys[i]),
			    "key %#llx (#%zu of %zu..%zu) found with its value",
			    (unsigned long long)keys[i], i, from, to);
}

static void check_absent(const struct table *t, const uint64_t *keys, size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to; i++)
		ASSERT_NULL(table__lookup(t, keys[i]), "lookup of removed key %#llx (#%zu)",
			    (unsigned long long)keys[i], i);
}

/* splitmix64's finalizer: a bijection of 64-bit words with only 0 -> 0 */
static uint64_t mix(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* distinct, nonzero, random-looking keys */
static uint64_t *random_keys(size_t n, uint64_t seed)
{
	uint64_t *keys = malloc(n * sizeof(*keys));
	size_t i;

	if (!keys)
		return NULL;
	for (i = 0; i < n; i++)
		keys[i] = mix((seed << 32) + i + 1);
	return keys;
}

/* heap-like addresses: consecutive multiples of 16 from a base */
static uint64_t *clustered_keys(size_t n, uint64_t base, uint64_t stride)
{
	uint64_t *keys = malloc(n * sizeof(*keys));
	size_t i;

	if (!keys)
		return NULL;
	for (i = 0; i < n; i++)
		keys[i] = base + i * stride;
	return keys;
}

TEST(table_basic)
{
	struct table *t = table__new(sizeof(struct val));
	struct val *v, out;
	bool existed = true;

	ASSERT_OK_PTR(t, "table__new");
	ASSERT_EQ(table__count(t), 0, "count of a new table");
	ASSERT_NULL(table__lookup(t, 0x1000), "lookup in an empty table");

	v = table__upsert(t, 0x1000, &existed);
	ASSERT_OK_PTR(v, "upsert of a new key");
	ASSERT_FALSE(existed, "existed for a new key");
	set_val(v, 0x1000);
	ASSERT_EQ(table__count(t), 1, "count after one insert");
	ASSERT_TRUE(table__lookup(t, 0x1000) == v, "lookup returns the upserted value");

	existed = false;
	ASSERT_TRUE(table__upsert(t, 0x1000, &existed) == v, "upsert of a present key");
	ASSERT_TRUE(existed, "existed for a present key");
	ASSERT_TRUE(val_ok(v, 0x1000), "upsert of a present key keeps its value");
	ASSERT_EQ(table__count(t), 1, "count after upserting a present key");
	ASSERT_OK_PTR(table__upsert(t, 0x2000, NULL), "upsert with existed NULL");
	ASSERT_EQ(table__count(t), 2, "count after a second key");

	memset(&out, 0, sizeof(out));
	ASSERT_OK(table__remove(t, 0x1000, &out), "remove of a present key");
	ASSERT_TRUE(val_ok(&out, 0x1000), "remove copies the value out");
	ASSERT_EQ(table__count(t), 1, "count after remove");
	ASSERT_NULL(table__lookup(t, 0x1000), "lookup of a removed key");
	ASSERT_EQ(table__remove(t, 0x1000, &out), -ENOENT, "remove of a removed key");
	ASSERT_EQ(table__remove(t, 0x3000, NULL), -ENOENT, "remove of a never inserted key");
	ASSERT_OK(table__remove(t, 0x2000, NULL), "remove with value_out NULL");
	ASSERT_EQ(table__count(t), 0, "count after removing everything");

	v = table__upsert(t, 0x1000, &existed);
	ASSERT_OK_PTR(v, "upsert of a removed key");
	ASSERT_FALSE(existed, "existed for a re-inserted key");
	ASSERT_TRUE(v->key == 0 && v->inv == 0 && v->tag == 0, "re-inserted value is zeroed");
	table__destroy(t);
	table__destroy(NULL);
}

TEST(table_key_zero_rejected)
{
	struct table *t = table__new(sizeof(uint64_t));
	bool existed = false;
	uint64_t *v;

	ASSERT_OK_PTR(t, "table__new");
	ASSERT_NULL(table__upsert(t, 0, &existed), "upsert of key 0");
	ASSERT_EQ(table__count(t), 0, "count after upsert of key 0");
	ASSERT_NULL(table__lookup(t, 0), "lookup of key 0 in an empty table");
	ASSERT_EQ(table__remove(t, 0, NULL), -ENOENT, "remove of key 0");

	v = table__upsert(t, 42, NULL);
	ASSERT_OK_PTR(v, "upsert of key 42");
	*v = 7;
	/* empty slots hold key 0: a lookup of 0 must not find one of them */
	ASSERT_NULL(table__lookup(t, 0), "lookup of key 0 in a non-empty table");
	ASSERT_EQ(table__remove(t, 0, NULL), -ENOENT, "remove of key 0 in a non-empty table");
	ASSERT_EQ(table__count(t), 1, "count");
	ASSERT_EQ(*(uint64_t *)table__lookup(t, 42), 7, "value of key 42");
	table__destroy(t);
}

static void grow_and_check(uint64_t *keys, size_t n, uint64_t seed)
{
	struct table *t = table__new(sizeof(struct val));
	size_t i, m0;

	ASSERT_OK_PTR(keys, "keys");
	ASSERT_OK_PTR(t, "table__new");
	m0 = table__memory(t);
	ASSERT_HELPER(insert_all(t, keys, n));
	ASSERT_EQ(table__count(t), n, "count after %zu inserts", n);
	ASSERT_GT(table__memory(t), m0, "memory grows with the table");
	ASSERT_GE(table__memory(t), n * (sizeof(uint64_t) + sizeof(struct val)),
		  "memory holds at least the keys and values");
	ASSERT_HELPER(check_present(t, keys, 0, n));
	/* absent keys near the present ones */
	for (i = 0; i < 1000; i++) {
		uint64_t k = keys[test__rand(&seed) % n] ^ (1ULL << 63);

		ASSERT_NULL(table__lookup(t, k), "lookup of absent key %#llx", (unsigned long long)k);
	}
	/* upserting present keys changes nothing */
	for (i = 0; i < n; i += 7) {
		bool existed = false;

		ASSERT_TRUE(val_ok(table__upsert(t, keys[i], &existed), keys[i]),
			    "upsert of present key %#llx", (unsigned long long)keys[i]);
		ASSERT_TRUE(existed, "existed for present key %#llx", (unsigned long long)keys[i]);
	}
	ASSERT_EQ(table__count(t), n, "count after re-upserts");
	table__destroy(t);
}

TEST(table_growth_random_keys)
{
	uint64_t *keys = random_keys(50000, 1);

	ASSERT_HELPER(grow_and_check(keys, 50000, 2));
	free(keys);
}

TEST(table_growth_clustered_keys)
{
	uint64_t *keys = clustered_keys(50000, 0x55555555a2a0ULL, 16);

	ASSERT_HELPER(grow_and_check(keys, 50000, 3));
	free(keys);
}

TEST(table_growth_page_aligned_keys)
{
	/* mmap'd blocks: page aligned plus the chunk header */
	uint64_t *keys = clustered_keys(20000, 0x7f0000000010ULL, 4096);

	ASSERT_HELPER(grow_and_check(keys, 20000, 4));
	free(keys);
}

/* removes keys in random order; after each removal every remaining key must be found */
static void remove_checking_all(uint64_t *keys, size_t n, uint64_t seed, size_t check_every)
{
	struct table *t = table__new(sizeof(struct val));
	size_t i;

	ASSERT_OK_PTR(keys, "keys");
	ASSERT_OK_PTR(t, "table__new");
	ASSERT_HELPER(insert_all(t, keys, n));
	test__shuffle(keys, n, &seed);
	for (i = 0; i < n; i++) {
		struct val out = {};

		ASSERT_OK(table__remove(t, keys[i], &out), "remove of key %#llx (#%zu)",
			  (unsigned long long)keys[i], i);
		ASSERT_TRUE(val_ok(&out, keys[i]), "value removed with key %#llx",
			    (unsigned long long)keys[i]);
		ASSERT_EQ(table__count(t), n - i - 1, "count after %zu removals", i + 1);
		ASSERT_NULL(table__lookup(t, keys[i]), "lookup of just removed key %#llx",
			    (unsigned long long)keys[i]);
		if (i % check_every == 0 || i + 1 == n) {
			ASSERT_HELPER(check_present(t, keys, i + 1, n));
			ASSERT_HELPER(check_absent(t, keys, 0, i + 1));
		}
	}
	table__destroy(t);
}

TEST(table_remove_random_order_clustered)
{
	uint64_t *keys = clustered_keys(2000, 0x5555555592a0ULL, 16);

	ASSERT_HELPER(remove_checking_all(keys, 2000, 11, 1));
	free(keys);
}

TEST(table_remove_random_order_random_keys)
{
	uint64_t *keys = random_keys(2000, 12);

	ASSERT_HELPER(remove_checking_all(keys, 2000, 13, 1));
	free(keys);
}

TEST(table_remove_random_order_large)
{
	uint64_t *keys = clustered_keys(30000, 0x7fffe0001010ULL, 48);

	ASSERT_HELPER(remove_checking_all(keys, 30000, 14, 2999));
	free(keys);
}

TEST(table_remove_colliding_keys)
{
	/* keys differing only in high bits: long probe runs sharing one home slot */
	uint64_t keys[40];
	size_t i;

	for (i = 0; i < 40; i++)
		keys[i] = (uint64_t)(i + 1) << 40;
	ASSERT_HELPER(remove_checking_all(keys, 40, 15, 1));
	for (i = 0; i < 40; i++)
		keys[i] = ((uint64_t)(i + 1) << 23) | (i & 1 ? 0x10 : 0);
	ASSERT_HELPER(remove_checking_all(keys, 40, 16, 1));
}

/* What the table should hold: which of keys[] are in it. */
struct model {
	const uint64_t *keys;
	bool *in;
	size_t nkeys, present;
};

/* inserts or removes keys[k] in table and model, checking what the table says */
static void model_step(struct table *t, struct model *m, size_t k, bool insert, size_t step)
{
	uint64_t key = m->keys[k];

	if (insert) {
		bool existed;
		struct val *v = table__upsert(t, key, &existed);

		ASSERT_OK_PTR(v, "step %zu: upsert", step);
		ASSERT_EQ(existed, m->in[k], "step %zu: existed of key #%zu", step, k);
		if (m->in[k]) {
			ASSERT_TRUE(val_ok(v, key), "step %zu: upsert of a present key #%zu", step, k);
		} else {
			set_val(v, key);
			m->in[k] = true;
			m->present++;
		}
	} else {
		struct val out = {};
		int err = table__remove(t, key, &out);

		ASSERT_EQ(err, m->in[k] ? 0 : -ENOENT, "step %zu: remove of key #%zu", step, k);
		if (m->in[k]) {
			ASSERT_TRUE(val_ok(&out, key), "step %zu: removed value of key #%zu", step, k);
			m->in[k] = false;
			m->present--;
		}
	}
}

/* the table holds exactly the model's keys: count, every lookup, iteration */
static void model_check(struct table *t, const struct model *m, size_t step)
{
	const struct val *v;
	size_t i, pos, seen;
	uint64_t key;

	ASSERT_EQ(table__count(t), m->present, "step %zu: count", step);
	for (i = 0; i < m->nkeys; i++) {
		v = table__lookup(t, m->keys[i]);
		if (m->in[i])
			ASSERT_TRUE(val_ok(v, m->keys[i]), "step %zu: key #%zu found", step, i);
		else
			ASSERT_NULL(v, "step %zu: key #%zu absent", step, i);
	}
	for (pos = 0, seen = 0; (v = table__next(t, &pos, &key)); seen++)
		ASSERT_TRUE(val_ok(v, key), "step %zu: iterated value of %#llx", step,
			    (unsigned long long)key);
	ASSERT_EQ(seen, m->present, "step %zu: keys iterated", step);
}

/* random inserts and removes over a small key set, against a model, in a small table
 * (probe runs wrap around its end): every key is checked after every step */
TEST(table_churn_against_model)
{
	enum { NKEYS = 56, STEPS = 30000 };
	struct table *t = table__new(sizeof(struct val));
	uint64_t keys[NKEYS], seed = 21, cheap = 22;
	bool in[NKEYS] = {};
	struct model m = { .keys = keys, .in = in, .nkeys = NKEYS };
	size_t i, step;

	ASSERT_OK_PTR(t, "table__new");
	for (i = 0; i < NKEYS; i++)
		keys[i] = test__rand(&seed) | 1;
	for (step = 0; step < STEPS; step++) {
		size_t k = test__rand(&cheap) % NKEYS;
		/* keep the count around 40: near the 3/4 load of 64 slots */
		bool insert = m.present < 40 ? test__rand(&cheap) % 3 != 0
					     : test__rand(&cheap) % 3 == 0;

		ASSERT_HELPER(model_step(t, &m, k, insert, step));
		ASSERT_HELPER(model_check(t, &m, step));
	}
	table__destroy(t);
}

/* The table doubles a few slots per insert: inserts, removes and lookups
 * while keys sit in both the old and the new slots, against a model. Keys of
 * a few clusters make long runs, some of which wrap past the end. Every key is
 * checked, and the table iterated, after every step. */
static void churn_across_doublings(uint64_t *keys, size_t nkeys, size_t steps, uint64_t seed)
{
	struct table *t = table__new(sizeof(struct val));
	struct model m = { .keys = keys, .in = calloc(nkeys, sizeof(bool)), .nkeys = nkeys };
	size_t step, target = 40;

	ASSERT_OK_PTR(t, "table__new");
	ASSERT_OK_PTR(m.in, "calloc");
	for (step = 0; step < steps; step++) {
		size_t k = test__rand(&seed) % nkeys;
		/* mostly inserts up to a count that climbs, so the table keeps doubling
		 * with removes in between */
		bool insert = m.present < target ? test__rand(&seed) % 4 != 0
						 : test__rand(&seed) % 4 == 0;

		if (step % 64 == 0 && target < nkeys - nkeys / 8)
			target += 8;
		ASSERT_HELPER(model_step(t, &m, k, insert, step));
		ASSERT_HELPER(model_check(t, &m, step));
	}
	free(m.in);
	table__destroy(t);
}

TEST(table_doubling_random_keys)
{
	uint64_t *keys = random_keys(1500, 41);

	ASSERT_OK_PTR(keys, "keys");
	ASSERT_HELPER(churn_across_doublings(keys, 1500, 12000, 42));
	free(keys);
}

TEST(table_doubling_clustered_keys)
{
	/* keys whose Fibonacci homes fall close together: long runs */
	uint64_t *keys = clustered_keys(1500, 0x4000000, 16);

	ASSERT_OK_PTR(keys, "keys");
	ASSERT_HELPER(churn_across_doublings(keys, 1500, 12000, 43));
	free(keys);
}

/* homes at the very end of the table, so runs wrap past it into the first
 * slots: found by asking the hash for keys whose home is the last slot */
TEST(table_doubling_wrapping_runs)
{
	enum { NKEYS = 600 };
	uint64_t *keys = malloc(NKEYS * sizeof(*keys)), x = 1;
	size_t n = 0;

	ASSERT_OK_PTR(keys, "malloc");
	/* the top 8 bits all ones: the last slot of any table up to 256 slots,
	 * and near the end of bigger ones */
	while (n < NKEYS) {
		x++;
		if ((x * 0x9E3779B97F4A7C15ULL) >> 56 == 0xff || n % 3 == 0)
			keys[n++] = x;
	}
	ASSERT_HELPER(churn_across_doublings(keys, NKEYS, 8000, 44));
	free(keys);
}

/* While the table doubles it unmaps the old slots it has moved, and other
 * mappings may then take those addresses (glibc maps large blocks): the end
 * of the doubling, or destroying the table in the middle of one, must leave
 * them mapped. A mapping every 256 inserts lands in such a hole within a few
 * dozen tries here; touching them all afterwards faults if one was unmapped. */
TEST(table_doubling_leaves_other_mappings)
{
	enum { NKEYS = 1200000, EVERY = 256, MAPLEN = 256 << 10 };
	struct table *t = table__new(8);
	unsigned char *maps[NKEYS / EVERY];
	size_t n = 0, i;
	uint64_t k;

	ASSERT_OK_PTR(t, "table__new");
	for (k = 1; k <= NKEYS; k++) {
		ASSERT_OK_PTR(table__upsert(t, k * 8, NULL), "upsert %llu", (unsigned long long)k);
		if (k % EVERY == 0) {
			void *p = mmap(NULL, MAPLEN, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			ASSERT_TRUE(p != MAP_FAILED, "mmap #%zu", n);
			maps[n++] = p;
		}
	}
	table__destroy(t);
	for (i = 0; i < n; i++)
		maps[i][0] = 1;	/* SIGSEGV if the table unmapped it */
	for (i = 0; i < n; i++)
		munmap(maps[i], MAPLEN);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* iterates t and checks it yields exactly keys[0..n), each once, with its value */
static void check_iteration(const struct table *t, uint64_t *keys, size_t n)
{
	uint64_t *seen = malloc((n + 1) * sizeof(*seen)), key, bad_key = 0;
	size_t pos = 0, count = 0, i = 0;
	const struct val *v;

	ASSERT_OK_PTR(seen, "malloc");
	while ((v = table__next(t, &pos, &key))) {
		if (!bad_key && !val_ok(v, key))
			bad_key = key;
		if (count <= n)
			seen[count] = key;
		count++;
	}
	if (count == n) {
		qsort(seen, n, sizeof(*seen), cmp_u64);
		qsort(keys, n, sizeof(*keys), cmp_u64);
		for (i = 0; i < n; i++)
			if (seen[i] != keys[i])
				break;
	}
	free(seen);
	ASSERT_EQ(bad_key, 0, "iterated key whose value is wrong");
	ASSERT_EQ(count, n, "keys iterated");
	/* same count, so a missing key means another one is repeated or foreign */
	ASSERT_EQ(i, n, "first (sorted) key not iterated exactly once");
	ASSERT_NULL(table__next(t, &pos, &key), "iteration stays at its end");
}

TEST(table_iteration)
{
	struct table *t = table__new(sizeof(struct val));
	uint64_t *keys = clustered_keys(5000, 0x4000000, 16), seed = 31, key = 1;
	size_t i, pos = 0;

	ASSERT_OK_PTR(t, "table__new");
	ASSERT_OK_PTR(keys, "keys");
	ASSERT_NULL(table__next(t, &pos, &key), "iteration of an empty table");
	ASSERT_EQ(key, 1, "key untouched at the end of an empty iteration");
	ASSERT_HELPER(insert_all(t, keys, 5000));
	ASSERT_HELPER(check_iteration(t, keys, 5000));
	/* remove half, in random order: the rest is iterated once each */
	test__shuffle(keys, 5000, &seed);
	for (i = 0; i < 2500; i++)
		ASSERT_OK(table__remove(t, keys[i], NULL), "remove #%zu", i);
	ASSERT_HELPER(check_iteration(t, keys + 2500, 2500));
	/* key NULL is allowed */
	pos = 0;
	for (i = 0; table__next(t, &pos, NULL); i++)
		;
	ASSERT_EQ(i, 2500, "iteration with key NULL");
	free(keys);
	table__destroy(t);
}

TEST(table_count_and_memory)
{
	struct table *small = table__new(1), *big = table__new(100);
	size_t m_small, m_big, m_full;
	uint64_t k;

	ASSERT_OK_PTR(small, "table__new(1)");
	ASSERT_OK_PTR(big, "table__new(100)");
	m_small = table__memory(small);
	m_big = table__memory(big);
	ASSERT_GT(m_small, 0, "memory of a new table");
	ASSERT_GT(m_big, m_small, "memory of a new table grows with the value size");
	for (k = 1; k <= 10000; k++)
		ASSERT_OK_PTR(table__upsert(small, k * 16, NULL), "upsert %llu", (unsigned long long)k);
	ASSERT_EQ(table__count(small), 10000, "count");
	m_full = table__memory(small);
	ASSERT_GE(m_full, 10000 * (sizeof(uint64_t) + 1), "memory of 10000 keys");
	/* and not absurdly more: load is kept under 3/4, slots are 16 bytes here */
	ASSERT_LE(m_full, 10000 * 16 * 4 + 4096, "memory of 10000 keys, upper bound");
	for (k = 1; k <= 10000; k++)
		ASSERT_OK(table__remove(small, k * 16, NULL), "remove %llu", (unsigned long long)k);
	ASSERT_EQ(table__count(small), 0, "count after removing all");
	ASSERT_LE(table__memory(small), m_full, "memory after removing all");
	table__destroy(small);
	table__destroy(big);
}

/* stacks */

TEST(stacks_intern_same_and_different)
{
	static const uint64_t a[] = { 0x401000, 0x402000, 0x403000 };
	static const uint64_t a_copy[] = { 0x401000, 0x402000, 0x403000 };
	static const uint64_t prefix[] = { 0x401000, 0x402000 };
	static const uint64_t reversed[] = { 0x403000, 0x402000, 0x401000 };
	static const uint64_t other[] = { 0x401000, 0x402000, 0x403001 };
	struct stacks *s = stacks__new();
	uint32_t ida, idp, idr, ido;

	ASSERT_OK_PTR(s, "stacks__new");
	ASSERT_EQ(stacks__count(s), 0, "count of new stacks");
	ida = stacks__intern(s, a, 3);
	ASSERT_EQ(ida, 1, "first id");
	ASSERT_EQ(stacks__intern(s, a, 3), ida, "same frames again");
	ASSERT_EQ(stacks__intern(s, a_copy, 3), ida, "same frames from another array");
	ASSERT_EQ(stacks__count(s), 1, "count after interning one stack thrice");
	idp = stacks__intern(s, prefix, 2);
	idr = stacks__intern(s, reversed, 3);
	ido = stacks__intern(s, other, 3);
	ASSERT_EQ(idp, 2, "id of the prefix (dense ids)");
	ASSERT_EQ(idr, 3, "id of the reversed frames");
	ASSERT_EQ(ido, 4, "id of the frames differing in the last one");
	ASSERT_EQ(stacks__count(s), 4, "count");
	ASSERT_EQ(stacks__intern(s, prefix, 2), idp, "prefix again");
	ASSERT_EQ(stacks__intern(s, a, 2), idp, "first 2 frames of a are the prefix");
	ASSERT_EQ(stacks__intern(s, reversed, 3), idr, "reversed again");
	ASSERT_EQ(stacks__intern(s, other, 3), ido, "other again");
	ASSERT_EQ(stacks__count(s), 4, "count after re-interning");
	stacks__destroy(s);
	stacks__destroy(NULL);
}

TEST(stacks_hash_collisions)
{
	/* pairs whose hashes in stacks.c are equal (its "| 1" drops the low bit):
	 * equal hashes must still be told apart by their frames */
	static const uint64_t a1[] = { 0x401000 }, b1[] = { 0x517a71d8b07aebbbULL };
	static const uint64_t a2[] = { 0x7f0000001000, 0x402000 };
	static const uint64_t b2[] = { 0x7f0000001000, 0x4eba77bbb0369a87ULL };
	struct stacks *s = stacks__new();
	uint32_t ida1, idb1, ida2, idb2, n;

	ASSERT_OK_PTR(s, "stacks__new");
	ida1 = stacks__intern(s, a1, 1);
	idb1 = stacks__intern(s, b1, 1);
	ida2 = stacks__intern(s, a2, 2);
	idb2 = stacks__intern(s, b2, 2);
	ASSERT_EQ(ida1, 1, "id of a1");
	ASSERT_EQ(idb1, 2, "id of b1, a1's hash twin");
	ASSERT_EQ(ida2, 3, "id of a2");
	ASSERT_EQ(idb2, 4, "id of b2, a2's hash twin");
	ASSERT_EQ(stacks__intern(s, b1, 1), idb1, "b1 again");
	ASSERT_EQ(stacks__intern(s, a1, 1), ida1, "a1 again");
	ASSERT_EQ(stacks__intern(s, b2, 2), idb2, "b2 again");
	ASSERT_EQ(stacks__intern(s, a2, 2), ida2, "a2 again");
	ASSERT_EQ(stacks__frames(s, idb1, &n)[0], b1[0], "frame of b1");
	ASSERT_EQ(stacks__frames(s, idb2, &n)[1], b2[1], "frame 1 of b2");
	stacks__destroy(s);
}

TEST(stacks_zero_frames)
{
	static const uint64_t one[] = { 0x401000 };
	struct stacks *s = stacks__new();
	uint32_t id0, id1, n = 99;

	ASSERT_OK_PTR(s, "stacks__new");
	id0 = stacks__intern(s, NULL, 0);
	ASSERT_EQ(id0, 1, "id of the empty stack");
	ASSERT_EQ(stacks__intern(s, NULL, 0), id0, "empty stack again");
	ASSERT_EQ(stacks__intern(s, one, 0), id0, "empty stack from a non-NULL array");
	id1 = stacks__intern(s, one, 1);
	ASSERT_EQ(id1, 2, "one-frame stack is another stack");
	ASSERT_NULL(stacks__frames(s, id0, &n), "frames of the empty stack");
	ASSERT_EQ(n, 0, "nframes of the empty stack");
	ASSERT_OK_PTR(stacks__totals(s, id0), "totals of the empty stack");
	ASSERT_EQ(stacks__count(s), 2, "count");
	stacks__destroy(s);
}

TEST(stacks_frames_and_totals)
{
	static const uint64_t a[] = { 0x7f0000001234, 0x55550000abcd, 0xffffffffffffffff, 1 };
	static const uint64_t b[] = { 0x10 };
	struct stacks *s = stacks__new();
	const struct stack_totals *t;
	const uint64_t *f;
	uint32_t n = 99, ida, idb, i;

	ASSERT_OK_PTR(s, "stacks__new");
	ida = stacks__intern(s, a, 4);
	idb = stacks__intern(s, b, 1);
	f = stacks__frames(s, ida, &n);
	ASSERT_OK_PTR(f, "frames of a");
	ASSERT_EQ(n, 4, "nframes of a");
	for (i = 0; i < 4; i++)
		ASSERT_EQ(f[i], a[i], "frame %u of a", i);
	f = stacks__frames(s, idb, &n);
	ASSERT_OK_PTR(f, "frames of b");
	ASSERT_EQ(n, 1, "nframes of b");
	ASSERT_EQ(f[0], 0x10, "frame of b");

	t = stacks__totals(s, ida);
	ASSERT_OK_PTR(t, "totals of a");
	ASSERT_TRUE(!t->live_bytes && !t->live_count && !t->alloc_bytes && !t->alloc_count,
		    "totals of a new stack are zero");
	stacks__totals(s, ida)->live_bytes = 5;
	ASSERT_EQ(stacks__totals(s, ida)->live_bytes, 5, "totals are writable and kept");
	ASSERT_EQ(stacks__totals(s, idb)->live_bytes, 0, "totals of b are separate");

	/* invalid ids */
	ASSERT_NULL(stacks__totals(s, 0), "totals of id 0");
	ASSERT_NULL(stacks__totals(s, 3), "totals of id count + 1");
	n = 99;
	ASSERT_NULL(stacks__frames(s, 0, &n), "frames of id 0");
	ASSERT_EQ(n, 0, "nframes of id 0");
	n = 99;
	ASSERT_NULL(stacks__frames(s, 3, &n), "frames of id count + 1");
	ASSERT_EQ(n, 0, "nframes of id count + 1");
	stacks__destroy(s);
}

static void note_change(void *ctx, uint32_t id)
{
	uint32_t *seen = ctx;

	seen[id]++;
}

/* a guard sees a stack in its range before it is handed out to change, and
 * only then */
TEST(stacks_guard)
{
	uint64_t frames[1];
	struct stacks *s = stacks__new();
	uint32_t seen[8] = {}, id;

	ASSERT_OK_PTR(s, "stacks__new");
	for (id = 1; id <= 6; id++) {
		frames[0] = id;
		ASSERT_EQ(stacks__intern(s, frames, 1), id, "stack %u", id);
	}
	stacks__set_fn(s, 1, 1);
	stacks__guard(s, 3, 5, note_change, seen);
	for (id = 1; id <= 6; id++)
		stacks__totals(s, id)->alloc_count++;
	for (id = 1; id <= 6; id++)
		ASSERT_EQ(seen[id], id >= 3 && id <= 5, "stack %u: seen before its totals change", id);
	ASSERT_EQ(stacks__peek(s, 4)->alloc_count, 1, "the change");
	ASSERT_EQ(seen[4], 1, "peek is no change");
	stacks__set_fn(s, 4, 2);
	ASSERT_EQ(seen[4], 2, "stack 4: seen before its allocator is set");
	stacks__set_fn(s, 4, 3);
	ASSERT_EQ(seen[4], 2, "an allocator set already does not change");
	ASSERT_EQ(stacks__fn(s, 4), 2, "the first allocator stays");
	stacks__guard(s, 1, 0, NULL, NULL);
	stacks__totals(s, 4)->alloc_count++;
	stacks__set_fn(s, 5, 2);
	ASSERT_EQ(seen[4] + seen[5], 3, "no guard: nothing seen");
	stacks__destroy(s);
}

/* stack number i: 1 + i % 40 frames, all derived from i */
static uint32_t make_stack(uint64_t *frames, uint32_t i)
{
	uint32_t n = 1 + i % 40, j;

	for (j = 0; j < n; j++)
		frames[j] = 0x400000 + (uint64_t)i * 0x1000 + j * 8;
	return n;
}

TEST(stacks_many)
{
	enum { N = 20000 };
	struct stacks *s = stacks__new();
	uint64_t frames[64];
	size_t m0;
	uint32_t i, j, n, got_n;

	ASSERT_OK_PTR(s, "stacks__new");
	m0 = stacks__memory(s);
	ASSERT_GT(m0, 0, "memory of new stacks");
	for (i = 0; i < N; i++) {
		n = make_stack(frames, i);
		ASSERT_EQ(stacks__intern(s, frames, n), i + 1, "id of stack #%u", i);
		/* grows an accumulating total too: totals must survive the growth */
		stacks__totals(s, i + 1)->alloc_count = i;
	}
	ASSERT_EQ(stacks__count(s), N, "count");
	ASSERT_GT(stacks__memory(s), m0, "memory grows");
	for (i = 0; i < N; i++) {
		const uint64_t *f;

		n = make_stack(frames, i);
		ASSERT_EQ(stacks__intern(s, frames, n), i + 1, "id of stack #%u re-interned", i);
		f = stacks__frames(s, i + 1, &got_n);
		ASSERT_EQ(got_n, n, "nframes of stack #%u", i);
		ASSERT_OK_PTR(f, "frames of stack #%u", i);
		for (j = 0; j < n; j++)
			ASSERT_EQ(f[j], frames[j], "frame %u of stack #%u", j, i);
		ASSERT_EQ(stacks__totals(s, i + 1)->alloc_count, i, "totals of stack #%u", i);
		ASSERT_EQ(stacks__totals(s, i + 1)->live_bytes, 0, "live bytes of stack #%u", i);
	}
	ASSERT_EQ(stacks__count(s), N, "count after re-interning");
	stacks__destroy(s);
}

/* Past 64K slots the next slots are made ahead of a doubling (prepare_step):
 * keys inserted, many removed while the next slots wait, the load climbing
 * again through the doubling, every key found or not as it should be */
TEST(table_doubling_prepared_ahead)
{
	enum { NKEYS = 200000 };
	uint64_t *keys = random_keys(NKEYS, 51);
	struct table *t = table__new(sizeof(uint64_t));
	size_t i, found = 0;
	uint64_t *v;

	ASSERT_OK_PTR(keys, "keys");
	ASSERT_OK_PTR(t, "table__new");
	/* 45000 of 65536 slots: the next slots are being faulted in */
	for (i = 0; i < 45000; i++) {
		v = table__upsert(t, keys[i], NULL);
		ASSERT_OK_PTR(v, "upsert %zu", i);
		*v = keys[i] ^ 1;
	}
	/* 1 MiB of slots, and half of the next 2 MiB faulted in by now */
	ASSERT_GT(table__memory(t), (size_t)65536 * 16 * 3 / 2, "the next slots are counted");
	for (i = 0; i < 45000; i += 2)
		ASSERT_OK(table__remove(t, keys[i], NULL), "remove %zu", i);
	for (i = 45000; i < NKEYS; i++) {
		v = table__upsert(t, keys[i], NULL);
		ASSERT_OK_PTR(v, "upsert %zu", i);
		*v = keys[i] ^ 1;
	}
	for (i = 0; i < NKEYS; i++) {
		v = table__lookup(t, keys[i]);
		if (i < 45000 && i % 2 == 0) {
			ASSERT_NULL(v, "key %zu was removed", i);
			continue;
		}
		ASSERT_OK_PTR(v, "key %zu", i);
		ASSERT_EQ(*v, keys[i] ^ 1, "value of key %zu", i);
		found++;
	}
	ASSERT_EQ(found, table__count(t), "count");
	table__destroy(t);
	free(keys);
}

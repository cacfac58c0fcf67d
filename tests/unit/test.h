/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny unit test harness in the spirit of the kernel BPF selftests.
 *
 *	TEST(table_basic)
 *	{
 *		ASSERT_EQ(table__count(t), 0, "count of a new table");
 *	}
 *
 * A failed assert marks the running test failed, prints one line
 * "FAIL name: file:line: what: got ..., want ..." and returns from the test
 * function. Helpers that assert return from themselves only: call them through
 * ASSERT_HELPER(...) so the test stops too. Only the first failure of a test
 * is printed, so each failed test is one line.
 */
#ifndef TRACELLOC_UNIT_TEST_H
#define TRACELLOC_UNIT_TEST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct unit_test {
	const char *name;
	void (*fn)(void);
	struct unit_test *next;
};

void test__register(struct unit_test *t);
bool test__failed(void);
void test__fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void test__fail_cmp(const char *file, int line, const char *what, const char *op,
		    long long got, long long want);
void test__fail_str(const char *file, int line, const char *what, const char *got,
		    const char *want);

/* defines a test function and registers it before main() runs */
#define TEST(name)                                                                  \
	static void test_##name(void);                                              \
	static struct unit_test test_desc_##name = { #name, test_##name, NULL };    \
	__attribute__((constructor)) static void test_register_##name(void)         \
	{                                                                           \
		test__register(&test_desc_##name);                                  \
	}                                                                           \
	static void test_##name(void)

/* the "what" of every assert is a printf format with its arguments */
#define TEST_WHAT(buf, ...) snprintf(buf, sizeof(buf), __VA_ARGS__)

/* integers (and enums, sizes, errnos) compared as long long */
#define ASSERT_CMP(got, op, want, ...)                                              \
	do {                                                                        \
		long long ___got = (long long)(got), ___want = (long long)(want);   \
		if (!(___got op ___want)) {                                         \
			char ___what[256];                                          \
			TEST_WHAT(___what, __VA_ARGS__);                             \
			test__fail_cmp(__FILE__, __LINE__, ___what, #op, ___got, ___want); \
			return;                                                     \
		}                                                                   \
	} while (0)

#define ASSERT_EQ(got, want, ...) ASSERT_CMP(got, ==, want, __VA_ARGS__)
#define ASSERT_NEQ(got, want, ...) ASSERT_CMP(got, !=, want, __VA_ARGS__)
#define ASSERT_LT(got, want, ...) ASSERT_CMP(got, <, want, __VA_ARGS__)
#define ASSERT_LE(got, want, ...) ASSERT_CMP(got, <=, want, __VA_ARGS__)
#define ASSERT_GT(got, want, ...) ASSERT_CMP(got, >, want, __VA_ARGS__)
#define ASSERT_GE(got, want, ...) ASSERT_CMP(got, >=, want, __VA_ARGS__)
#define ASSERT_OK(got, ...) ASSERT_CMP(got, ==, 0, __VA_ARGS__)

#define ASSERT_TRUE(cond, ...)                                                      \
	do {                                                                        \
		if (!(cond)) {                                                      \
			char ___what[256];                                          \
			TEST_WHAT(___what, __VA_ARGS__);                             \
			test__fail(__FILE__, __LINE__, "%s: expected true: %s", ___what, #cond); \
			return;                                                     \
		}                                                                   \
	} while (0)

#define ASSERT_FALSE(cond, ...)                                                     \
	do {                                                                        \
		if (cond) {                                                         \
			char ___what[256];                                          \
			TEST_WHAT(___what, __VA_ARGS__);                             \
			test__fail(__FILE__, __LINE__, "%s: expected false: %s", ___what, #cond); \
			return;                                                     \
		}                                                                   \
	} while (0)

#define ASSERT_NULL(ptr, ...)                                                       \
	do {                                                                        \
		const void *___ptr = (ptr);                                         \
		if (___ptr) {                                                       \
			char ___what[256];                                          \
			TEST_WHAT(___what, __VA_ARGS__);                             \
			test__fail(__FILE__, __LINE__, "%s: got %p, want NULL", ___what, ___ptr); \
			return;                                                     \
		}                                                                   \
	} while (0)

#define ASSERT_OK_PTR(ptr, ...)                                                     \
	do {                                                                        \
		if (!(ptr)) {                                                       \
			char ___what[256];                                          \
			TEST_WHAT(___what, __VA_ARGS__);                             \
			test__fail(__FILE__, __LINE__, "%s: got NULL", ___what);     \
			return;                                                     \
		}                                                                   \
	} while (0)

/* NULL-safe; both strings are printed escaped, on one line */
#define ASSERT_STREQ(got, want, ...)                                                \
	do {                                                                        \
		const char *___got = (got), *___want = (want);                      \
		if (!___got || !___want ? ___got != ___want : strcmp(___got, ___want)) { \
			char ___what[256];                                          \
			TEST_WHAT(___what, __VA_ARGS__);                             \
			test__fail_str(__FILE__, __LINE__, ___what, ___got, ___want); \
			return;                                                     \
		}                                                                   \
	} while (0)

/* a helper that asserts returns from itself: stop the calling test as well */
#define ASSERT_HELPER(call)                                                         \
	do {                                                                        \
		call;                                                               \
		if (test__failed())                                                 \
			return;                                                     \
	} while (0)

/* deterministic pseudo-random numbers (xorshift64*) */
static inline uint64_t test__rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static inline void test__shuffle(uint64_t *v, size_t n, uint64_t *state)
{
	size_t i;

	for (i = n; i > 1; i--) {
		size_t j = test__rand(state) % i;
		uint64_t tmp = v[i - 1];

		v[i - 1] = v[j];
		v[j] = tmp;
	}
}

#endif

/*
 * symbols: C++ names, source lines and an inlined frame, for the report and
 * the folded output (tests/reports.sh).
 *
 * Each allocating function below is a site; its ledger key (see ledger.h) is
 * a short id, and tests/reports.sh knows the demangled name the frame must
 * have (so the expected names are written by hand there, not computed here):
 *
 *   id          function (demangled)                         allocator       calls
 *   shelf_long  zoo::Shelf<long>::stock()                    operator new[]  2 x 128 B, 1 deleted
 *   shelf_short zoo::Shelf<short>::stock()                   operator new[]  1 x 32 B
 *   many_double double* zoo::util::make_many<double>(unsigned long)  calloc  1 x 5*8 B
 *   many_int    int* zoo::util::make_many<int>(unsigned long)  calloc        1 x 3*4 B
 *   restock     zoo::Pantry::restock(int), which calls the always_inline
 *               zoo::grab(unsigned long) -> malloc           malloc          2 x 100 B, 1 freed
 *   lambda      zoo::feed(int)::{lambda(unsigned long)#1}::operator()(unsigned long) const
 *                                                            operator new    1 x 56 B
 *   pack_int    zoo::pack(int)                               operator new    2 x 4 B
 *   pack_double zoo::pack(double)                            malloc          1 x 16 B
 *   pack_str    zoo::pack(char const*)                       malloc 4 B, then realloc to 11 B
 *
 * Besides the ledger, the expect file has "line KEY N" lines: the source line
 * of each allocating call (taken with __LINE__ on the call's own line), and
 * of the calls in main and in the inlining function, so that a test can
 * check the FILE:LINE of every frame of a stack:
 *
 *   line stock N          new T[16] in Shelf<T>::stock()
 *   line make_many N      calloc in make_many<T>
 *   line grab N           malloc in the inlined zoo::grab
 *   line restock_grab N   the call of grab() in Pantry::restock (the concrete frame)
 *   line lambda N         operator new in the lambda
 *   line feed_lambda N    the lambda's call in zoo::feed
 *   line pack_int N, line pack_double N, line pack_str_malloc N, line pack_str_realloc N
 *   line main_KEY N       the call of each site in main
 */
#include <cstdlib>
#include <cstring>
#include <new>

#include "ledger.h"

/* a function that stays a function of its own, under its own name */
#define NOIPA __attribute__((noinline, noipa, used))

enum {
	L_STOCK,
	L_MAKE_MANY,
	L_GRAB,
	L_RESTOCK_GRAB,
	L_LAMBDA,
	L_FEED_LAMBDA,
	L_PACK_INT,
	L_PACK_DOUBLE,
	L_PACK_STR_MALLOC,
	L_PACK_STR_REALLOC,
	L_MAIN_SHELF_LONG,
	L_MAIN_SHELF_SHORT,
	L_MAIN_MANY_DOUBLE,
	L_MAIN_MANY_INT,
	L_MAIN_RESTOCK,
	L_MAIN_FEED,
	L_MAIN_PACK_INT,
	L_MAIN_PACK_DOUBLE,
	L_MAIN_PACK_STR,
	L__COUNT
};

static const char *const line_names[L__COUNT] = {
	"stock", "make_many", "grab", "restock_grab", "lambda", "feed_lambda",
	"pack_int", "pack_double", "pack_str_malloc", "pack_str_realloc",
	"main_shelf_long", "main_shelf_short", "main_many_double", "main_many_int",
	"main_restock", "main_feed", "main_pack_int", "main_pack_double", "main_pack_str",
};

/* volatile: every store stays, next to its call */
static volatile int lines[L__COUNT];

namespace zoo {

template <typename T> class Shelf {
public:
	T *items = nullptr;

	NOIPA void stock()
	{
		items = new T[16]; lines[L_STOCK] = __LINE__;
		lg_sink = items;
	}
};

namespace util {
template <typename T> NOIPA T *make_many(std::size_t n)
{
	T *p = static_cast<T *>(std::calloc(n, sizeof(T))); lines[L_MAKE_MANY] = __LINE__;
	lg_sink = p;
	return p;
}
} // namespace util

/* always inlined: its malloc call is in the code of its caller */
inline __attribute__((always_inline)) void *grab(std::size_t n)
{
	void *p = std::malloc(n); lines[L_GRAB] = __LINE__;
	return p;
}

class Pantry {
public:
	void *slot[4] = {};

	NOIPA void restock(int i)
	{
		slot[i] = grab(100); lines[L_RESTOCK_GRAB] = __LINE__;
		lg_sink = slot[i];
	}
};

NOIPA void *feed(int n)
{
	auto lam = [](std::size_t size) __attribute__((noinline, noipa)) {
		void *p = ::operator new(size); lines[L_LAMBDA] = __LINE__;
		lg_sink = p;
		return p;
	};
	void *p = lam(static_cast<std::size_t>(n)); lines[L_FEED_LAMBDA] = __LINE__;
	lg_sink = p;
	return p;
}

/* three overloads, three names */
NOIPA int *pack(int v)
{
	int *p = new int(v); lines[L_PACK_INT] = __LINE__;
	lg_sink = p;
	return p;
}

NOIPA double *pack(double v)
{
	double *p = static_cast<double *>(std::malloc(2 * sizeof(double))); lines[L_PACK_DOUBLE] = __LINE__;
	lg_sink = p;
	if (p)
		p[0] = p[1] = v;
	return p;
}

NOIPA char *pack(const char *s)
{
	char *p = static_cast<char *>(std::malloc(4)); lines[L_PACK_STR_MALLOC] = __LINE__;
	lg_sink = p;
	char *q = static_cast<char *>(std::realloc(p, std::strlen(s) + 1)); lines[L_PACK_STR_REALLOC] = __LINE__;
	lg_sink = q;
	if (q)
		std::strcpy(q, s);
	return q;
}

} // namespace zoo

static void *keep[32];
static int nkeep;

static void kept(void *p)
{
	keep[nkeep++] = p;
}

int main()
{
	zoo::Shelf<long> longs[2];
	zoo::Shelf<short> shorts;
	zoo::Pantry pantry;
	int i;

	for (i = 0; i < 2; i++) {
		longs[i].stock(); lines[L_MAIN_SHELF_LONG] = __LINE__;
		lg_check(longs[i].items != nullptr, "new long[16]");
		lg_alloc("shelf_long", 16 * sizeof(long));
	}
	delete[] longs[0].items;
	lg_free("shelf_long", 16 * sizeof(long));
	kept(longs[1].items);

	shorts.stock(); lines[L_MAIN_SHELF_SHORT] = __LINE__;
	lg_alloc("shelf_short", 16 * sizeof(short));
	kept(shorts.items);

	kept(zoo::util::make_many<double>(5)); lines[L_MAIN_MANY_DOUBLE] = __LINE__;
	lg_alloc("many_double", 5 * sizeof(double));
	kept(zoo::util::make_many<int>(3)); lines[L_MAIN_MANY_INT] = __LINE__;
	lg_alloc("many_int", 3 * sizeof(int));

	for (i = 0; i < 2; i++) {
		pantry.restock(i); lines[L_MAIN_RESTOCK] = __LINE__;
		lg_check(pantry.slot[i] != nullptr, "grab(100)");
		lg_alloc("restock", 100);
	}
	std::free(pantry.slot[0]);
	lg_free("restock", 100);
	kept(pantry.slot[1]);

	kept(zoo::feed(56)); lines[L_MAIN_FEED] = __LINE__;
	lg_alloc("lambda", 56);

	for (i = 0; i < 2; i++) {
		kept(zoo::pack(i)); lines[L_MAIN_PACK_INT] = __LINE__;
		lg_alloc("pack_int", sizeof(int));
	}
	kept(zoo::pack(2.5)); lines[L_MAIN_PACK_DOUBLE] = __LINE__;
	lg_alloc("pack_double", 2 * sizeof(double));
	{
		static const char word[] = "overloaded";
		char *s = zoo::pack(word); lines[L_MAIN_PACK_STR] = __LINE__;

		lg_check(s != nullptr && std::strcmp(s, word) == 0, "pack(const char *)");
		/* malloc(4), then realloc to 11 bytes: two calls, one block */
		lg_alloc("pack_str", 4);
		lg_free("pack_str", 4);
		lg_alloc("pack_str", sizeof(word));
		kept(s);
	}

	for (i = 0; i < L__COUNT; i++) {
		lg_check(lines[i] > 0, "line of %s not recorded", line_names[i]);
		lg_extra_line("line %s %d", line_names[i], lines[i]);
	}
	lg_sink = keep;
	return lg_write();
}

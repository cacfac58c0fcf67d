/*
 * cxx: C++ operator new / new[] in their plain, nothrow and aligned forms,
 * and delete / delete[].
 *
 * new[] of 64 longs requests 512 bytes (long has no destructor: no array
 * cookie) in ONE allocation call, although libstdc++ goes new[] -> new ->
 * malloc.  Aligned new (alignas(64) type) goes new -> aligned_alloc.
 * nothrow new goes nothrow new -> new -> malloc.  Each counts once.
 *
 * The new[] site is the template member ns::Shelf<T>::stock().  Its frame
 * may be shown demangled ("ns::Shelf<long>::stock()", also accepted without
 * the namespace or the parentheses) or mangled ("_ZN2ns5ShelfIlE5stockEv"),
 * so its ledger key is a regular expression (see ledger.h).  Shelf<int> is
 * a second instantiation the regex must not match.
 * The other sites are extern "C" so that their frame names are plain.
 */
#include <new>

#include "ledger.h"

#define SHELF_LONG "~^(ns::)?Shelf<long>::stock(\\(\\))?$|^_ZN2ns5ShelfIlE5stockEv$"
#define SHELF_INT "~^(ns::)?Shelf<int>::stock(\\(\\))?$|^_ZN2ns5ShelfIiE5stockEv$"

namespace ns {
template <typename T> class Shelf {
public:
	T *items = nullptr;

	__attribute__((noinline, noipa)) void stock()
	{
		items = new T[64];
		lg_sink = items;
	}

	void clear()
	{
		delete[] items;
		items = nullptr;
	}
};
} // namespace ns

struct Widget {
	long a[5]; /* 40 bytes */
};

struct alignas(64) Vec {
	double v[24]; /* 192 bytes, a multiple of the alignment */
};

static_assert(sizeof(Widget) == 40, "Widget size");
static_assert(sizeof(Vec) == 192, "Vec size");

extern "C" {

SITE Widget *site_cxx_new(void)
{
	Widget *w = new Widget;
	lg_sink = w;
	return w;
}

SITE Widget *site_cxx_new_nothrow(void)
{
	Widget *w = new (std::nothrow) Widget;
	lg_sink = w;
	return w;
}

SITE char *site_cxx_new_array_nothrow(size_t n)
{
	char *c = new (std::nothrow) char[n];
	lg_sink = c;
	return c;
}

SITE Vec *site_cxx_new_aligned(void)
{
	Vec *v = new Vec;
	lg_sink = v;
	return v;
}

SITE Vec *site_cxx_new_aligned_array(void)
{
	Vec *v = new Vec[3];
	lg_sink = v;
	return v;
}

SITE Vec *site_cxx_new_aligned_nothrow(void)
{
	Vec *v = new (std::nothrow) Vec;
	lg_sink = v;
	return v;
}

} /* extern "C" */

static void *keep[64];
static int nkeep;

int main()
{
	ns::Shelf<long> shelves[3];
	ns::Shelf<int> ishelf;
	int i;

	for (i = 0; i < 3; i++) {
		shelves[i].stock();
		lg_check(shelves[i].items != nullptr, "new long[64]");
		lg_alloc(SHELF_LONG, 64 * sizeof(long));
	}
	shelves[1].clear();
	lg_free(SHELF_LONG, 64 * sizeof(long));

	ishelf.stock();
	lg_alloc(SHELF_INT, 64 * sizeof(int));

	for (i = 0; i < 4; i++) {
		Widget *w = site_cxx_new();
		lg_alloc("site_cxx_new", sizeof(Widget));
		if (i < 3) {
			delete w; /* sized delete -> delete -> free */
			lg_free("site_cxx_new", sizeof(Widget));
		} else {
			keep[nkeep++] = w;
		}
	}

	for (i = 0; i < 2; i++) {
		Widget *w = site_cxx_new_nothrow();
		lg_check(w != nullptr, "nothrow new");
		lg_alloc("site_cxx_new_nothrow", sizeof(Widget));
		keep[nkeep++] = w;
	}

	{
		char *c = site_cxx_new_array_nothrow(333);
		lg_check(c != nullptr, "nothrow new[]");
		lg_alloc("site_cxx_new_array_nothrow", 333);
		delete[] c;
		lg_free("site_cxx_new_array_nothrow", 333);
	}

	for (i = 0; i < 3; i++) {
		Vec *v = site_cxx_new_aligned();
		lg_check(v != nullptr && ((uintptr_t)v % 64) == 0, "aligned new");
		lg_alloc("site_cxx_new_aligned", sizeof(Vec));
		if (i == 0) {
			delete v; /* aligned (sized) delete */
			lg_free("site_cxx_new_aligned", sizeof(Vec));
		} else {
			keep[nkeep++] = v;
		}
	}

	{
		Vec *v = site_cxx_new_aligned_array();
		lg_check(v != nullptr && ((uintptr_t)v % 64) == 0, "aligned new[]");
		lg_alloc("site_cxx_new_aligned_array", 3 * sizeof(Vec));
		keep[nkeep++] = v;
	}

	{
		Vec *v = site_cxx_new_aligned_nothrow();
		lg_check(v != nullptr && ((uintptr_t)v % 64) == 0, "aligned nothrow new");
		lg_alloc("site_cxx_new_aligned_nothrow", sizeof(Vec));
		delete v;
		lg_free("site_cxx_new_aligned_nothrow", sizeof(Vec));
	}

	lg_sink = keep;
	return lg_write();
}

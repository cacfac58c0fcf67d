/*
 * swap: loads libswapa.so and libswapb.so in turn (paths in argv[1] and
 * argv[2]), ROUNDS times each, each time after the other was closed, so that
 * both land at the same place. Each load leaks once from the library's own
 * function, through the same call site here:
 *   swap_leak_a   ROUNDS x 100 bytes
 *   swap_leak_b   ROUNDS x 1000 bytes
 * Its ledger says "same-place 1" when every load landed at one address (the
 * test means nothing otherwise).
 */
#include <dlfcn.h>
#include <time.h>

#include "ledger.h"

#define ROUNDS 3

typedef void *(*leak_fn)(size_t);

SITE void *site_swap_call(leak_fn fn, size_t n)
{
	void *p = fn(n);
	lg_sink = p;
	return p;
}

static void pause_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	static const char *const names[2] = { "swap_leak_a", "swap_leak_b" };
	static const size_t sizes[2] = { 100, 1000 };
	void *first = NULL;
	int same = 1, round, which;

	lg_check(argc > 2, "usage: swap LIBSWAPA LIBSWAPB");
	if (argc <= 2)
		return lg_write();
	lg_declare("swap_leak_a");
	lg_declare("swap_leak_b");
	for (round = 0; round < ROUNDS; round++) {
		for (which = 0; which < 2; which++) {
			void *lib = dlopen(argv[1 + which], RTLD_NOW);
			leak_fn fn;

			lg_check(lib != NULL, "dlopen: %s", dlerror());
			if (!lib)
				continue;
			fn = (leak_fn)dlsym(lib, names[which]);
			lg_check(fn != NULL, "dlsym %s", names[which]);
			if (!first)
				first = (void *)fn;
			same &= (void *)fn == first;
			/* the tracer reads the maps while the library is there
			 * (TL_SWAP_AT_ONCE: it must have, as dlopen returned) */
			if (!getenv("TL_SWAP_AT_ONCE"))
				pause_ms(30);
			lg_check(fn && site_swap_call(fn, sizes[which]) != NULL, "leak");
			lg_alloc(names[which], sizes[which]);
			pause_ms(30);
			lg_check(dlclose(lib) == 0, "dlclose: %s", dlerror());
		}
	}
	lg_extra_line("same-place %d", same);
	return lg_write();
}

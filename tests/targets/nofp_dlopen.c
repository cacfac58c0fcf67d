/*
 * nofp_dlopen: built without frame pointers, loads build/tests/
 * libnofp_plugin.so (path in argv[1], also built without them) after
 * tracing began, and allocates through a chain in it: the library's table
 * must be built before its frames are unwound. The daemon builds it when
 * ld.so says the maps changed; until it is in, a frame in the library ends
 * the stack (counted), so the target gives it a moment first.
 *
 * Ledger (all exact; see ledger.h):
 *   plugin_inner   3 x malloc(200) through call_plugin -> plugin_outer ->
 *                  plugin_inner; leaked
 */
#include <dlfcn.h>
#include <unistd.h>

#include "ledger.h"

SITE void *call_plugin(void *(*outer)(size_t), size_t n)
{
	void *p = outer(n);

	lg_sink = p;
	return p;
}

int main(int argc, char **argv)
{
	void *(*outer)(size_t);
	void *lib;
	int i;

	lg_check(argc > 1, "usage: nofp_dlopen PATH-TO-libnofp_plugin.so");
	if (argc < 2)
		return lg_write();
	lib = dlopen(argv[1], RTLD_NOW);
	lg_check(lib != NULL, "dlopen: %s", dlerror());
	if (!lib)
		return lg_write();
	outer = (void *(*)(size_t))dlsym(lib, "plugin_outer");
	lg_check(outer != NULL, "dlsym plugin_outer");
	usleep(300000);
	for (i = 0; outer && i < 3; i++) {
		lg_check(call_plugin(outer, 200) != NULL, "malloc(200) failed");
		lg_alloc("plugin_inner", 200);
	}
	return lg_write();
}

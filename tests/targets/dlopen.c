/*
 * dlopen: loads build/tests/libplugin.so (path in argv[1]) after it started,
 * so after tracelloc attached, and leaks 3 x 777 bytes from plugin_alloc.
 * Then it closes the library (its code is unmapped while its blocks live
 * on), loads it again and leaks 1 x 333 bytes from the new copy.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>

#include "ledger.h"

int main(int argc, char **argv)
{
	void *(*plugin_alloc)(size_t);
	void *lib;
	int i;

	lg_check(argc > 1, "usage: dlopen PATH-TO-libplugin.so");
	lib = dlopen(argv[1], RTLD_NOW);
	lg_check(lib != NULL, "dlopen: %s", dlerror());
	plugin_alloc = (void *(*)(size_t))dlsym(lib, "plugin_alloc");
	lg_check(plugin_alloc != NULL, "dlsym plugin_alloc");
	for (i = 0; i < 3; i++) {
		lg_check(plugin_alloc(777) != NULL, "plugin_alloc");
		lg_alloc("plugin_alloc", 777);
	}
	/* live on a little: the tracer reads the maps meanwhile */
	usleep(300000);
	lg_check(dlclose(lib) == 0, "dlclose: %s", dlerror());
	usleep(100000);
	lib = dlopen(argv[1], RTLD_NOW);
	lg_check(lib != NULL, "dlopen again: %s", dlerror());
	plugin_alloc = (void *(*)(size_t))dlsym(lib, "plugin_alloc");
	lg_check(plugin_alloc != NULL, "dlsym plugin_alloc again");
	lg_check(plugin_alloc(333) != NULL, "plugin_alloc");
	lg_alloc("plugin_alloc", 333);
	usleep(100000);
	return lg_write();
}

/*
 * dlopen: loads build/tests/libplugin.so (path in argv[1]) after it started,
 * so after tracelloc attached, and leaks 3 x 777 bytes from plugin_alloc.
 * Then it closes the library (its code is unmapped while its blocks live
 * on), loads it again and leaks 1 x 333 bytes from the new copy.
 * With argv[2] "wait" it first writes "ready PID" to $TL_READY and waits
 * for SIGUSR1 (60 s at most), for tracelloc -p.
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ledger.h"

int main(int argc, char **argv)
{
	void *(*plugin_alloc)(size_t);
	void *lib;
	int i;

	lg_check(argc > 1, "usage: dlopen PATH-TO-libplugin.so [wait]");
	if (argc > 2 && !strcmp(argv[2], "wait")) {
		struct timespec limit = { 60, 0 };
		sigset_t set;

		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		sigprocmask(SIG_BLOCK, &set, NULL);
		tl_ready();
		lg_check(sigtimedwait(&set, NULL, &limit) == SIGUSR1, "no SIGUSR1 within 60 s");
	}
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

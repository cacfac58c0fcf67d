/*
 * dlmopen: loads libstdc++ (as a C++ program would have it), then the
 * library argv[1] (libplugin.so) into a new link-map namespace, which brings
 * a second copy of libc.so.6 into the process: the same file mapped twice,
 * apart, whose probes must go in once and count the allocations of both. Once both are mapped it writes "ready PID"
 * to $TL_READY and waits for SIGUSR1 (60 s at most), for tracelloc -p; then
 *
 *   plugin_alloc          3 x malloc(777) by the second libc, kept
 *   site_dlmopen_alloc    1 x malloc(333) by the first, kept
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>

#include "ledger.h"

SITE void *site_dlmopen_alloc(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

int main(int argc, char **argv)
{
	struct timespec limit = { 60, 0 };
	void *(*plugin_alloc)(size_t);
	sigset_t set;
	void *lib;
	int i;

	lg_check(argc > 1, "usage: dlmopen PATH-TO-libplugin.so");
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	lg_check(dlopen("libstdc++.so.6", RTLD_NOW) != NULL, "dlopen libstdc++: %s", dlerror());
	lib = dlmopen(LM_ID_NEWLM, argv[1], RTLD_NOW);
	lg_check(lib != NULL, "dlmopen: %s", dlerror());
	plugin_alloc = (void *(*)(size_t))dlsym(lib, "plugin_alloc");
	lg_check(plugin_alloc != NULL, "dlsym plugin_alloc");
	if (!plugin_alloc)
		return lg_write();
	tl_ready();
	lg_check(sigtimedwait(&set, NULL, &limit) == SIGUSR1, "no SIGUSR1 within 60 s");
	for (i = 0; i < 3; i++) {
		lg_check(plugin_alloc(777) != NULL, "plugin_alloc");
		lg_alloc("plugin_alloc", 777);
	}
	lg_check(site_dlmopen_alloc(333) != NULL, "site_dlmopen_alloc");
	lg_alloc("site_dlmopen_alloc", 333);
	return lg_write();
}

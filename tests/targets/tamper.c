/*
 * tamper: for tests that damage the files of a traced process while it runs.
 * Loads the library argv[1] (a copy of libplugin.so) with dlopen, writes
 * "ready PID" to $TL_READY and waits for SIGUSR1; then
 *
 *   plugin_alloc        3 x malloc(777), kept (live 2331)
 *   site_tamper_alloc   2 x malloc(555), kept (live 1110)
 *
 * writes "allocated PID" to $TL_READY and waits for SIGUSR1 again, without
 * running code of its own files meanwhile, so that the test can truncate,
 * overwrite or delete them; then writes its ledger and leaves with _exit
 * (no library destructor runs from a damaged file). Each wait ends after
 * 60 s.
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>

#include "ledger.h"

SITE void *site_tamper_alloc(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

/* "WORD PID\n" to $TL_READY, replacing what was there, without allocating */
static void tell(const char *word)
{
	const char *path = getenv("TL_READY");
	char line[64];
	int fd, len;

	if (!path)
		return;
	len = snprintf(line, sizeof(line), "%s %ld\n", word, (long)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0) {
		lg_check(write(fd, line, len) == len, "write %s", path);
		close(fd);
	}
}

static void wait_usr1(const sigset_t *set)
{
	struct timespec limit = { 60, 0 };

	if (sigtimedwait(set, NULL, &limit) != SIGUSR1) {
		fprintf(stderr, "tamper: no SIGUSR1 within 60 s\n");
		_exit(96);
	}
}

int main(int argc, char **argv)
{
	void *(*plugin_alloc)(size_t);
	sigset_t set;
	void *lib;
	int i;

	lg_check(argc > 1, "usage: tamper PATH-TO-libplugin.so");
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	lib = dlopen(argv[1], RTLD_NOW);
	lg_check(lib != NULL, "dlopen: %s", dlerror());
	plugin_alloc = (void *(*)(size_t))dlsym(lib, "plugin_alloc");
	lg_check(plugin_alloc != NULL, "dlsym plugin_alloc");
	if (!plugin_alloc)
		_exit(lg_write());
	tell("ready");
	wait_usr1(&set);
	for (i = 0; i < 3; i++) {
		lg_check(plugin_alloc(777) != NULL, "plugin_alloc");
		lg_alloc("plugin_alloc", 777);
	}
	for (i = 0; i < 2; i++) {
		lg_check(site_tamper_alloc(555) != NULL, "site_tamper_alloc");
		lg_alloc("site_tamper_alloc", 555);
	}
	tell("allocated");
	wait_usr1(&set);
	_exit(lg_write());
}

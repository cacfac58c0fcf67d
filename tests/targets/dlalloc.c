/*
 * dlalloc: loads an allocator library with dlopen after tracing began
 * (Debian's libmimalloc.so.2, RTLD_LOCAL: malloc stays glibc's) and
 * allocates through its own API, found with dlsym. tracelloc probes the
 * library when ld.so announces it; the target gives it a moment (what
 * tracelloc takes is a few milliseconds) before its first call.
 *
 * Ledger (all exact; see ledger.h):
 *   site_dl_mallocx   3 x mi_malloc_aligned(500, 16), 1 freed by mi_free
 *   site_dl_glibc     1 x malloc(64) (glibc's), kept
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

#include "ledger.h"

static void *(*dl_mallocx)(size_t, size_t);
static void (*dl_dallocx)(void *);

SITE void *site_dl_mallocx(size_t n)
{
	void *p = dl_mallocx(n, 16);

	lg_sink = p;
	return p;
}

SITE void *site_dl_glibc(size_t n)
{
	void *p = malloc(n);

	lg_sink = p;
	return p;
}

int main(void)
{
	struct timespec pause = { 0, 300 * 1000 * 1000 };
	void *lib, *p[3];
	int i;

	lg_check(site_dl_glibc(64) != NULL, "malloc failed");
	lg_alloc("site_dl_glibc", 64);
	lib = dlopen("libmimalloc.so.2", RTLD_NOW | RTLD_LOCAL);
	lg_check(lib != NULL, "dlopen libmimalloc.so.2: %s", dlerror());
	if (!lib)
		return lg_write();
	dl_mallocx = (void *(*)(size_t, size_t))dlsym(lib, "mi_malloc_aligned");
	dl_dallocx = (void (*)(void *))dlsym(lib, "mi_free");
	lg_check(dl_mallocx && dl_dallocx, "dlsym mi_malloc_aligned, mi_free");
	if (!dl_mallocx || !dl_dallocx)
		return lg_write();
	nanosleep(&pause, NULL);
	for (i = 0; i < 3; i++) {
		p[i] = site_dl_mallocx(500);
		lg_check(p[i] != NULL, "mi_malloc_aligned failed");
		lg_alloc("site_dl_mallocx", 500);
	}
	dl_dallocx(p[1]);
	lg_free("site_dl_mallocx", 500);
	return lg_write();
}

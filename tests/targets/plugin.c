/* plugin: a library the dlopen target loads after tracing began (built as
 * build/tests/libplugin.so) */
#include <stdlib.h>

void *volatile plugin_sink;
/* larger than a page of the file: the loader maps it anonymous, its own
 * mapping, which tracelloc must not count as the program's */
char plugin_bss[1 << 20];

__attribute__((noinline)) void *plugin_alloc(size_t n)
{
	void *p = malloc(n);

	plugin_sink = p;
	return p;
}

/* plugin: a library the dlopen target loads after tracing began (built as
 * build/tests/libplugin.so) */
#include <stdlib.h>

void *volatile plugin_sink;

__attribute__((noinline)) void *plugin_alloc(size_t n)
{
	void *p = malloc(n);

	plugin_sink = p;
	return p;
}

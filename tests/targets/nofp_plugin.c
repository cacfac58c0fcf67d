/* nofp_plugin: a library built without frame pointers that the nofp_dlopen
 * target loads after tracing began (build/tests/libnofp_plugin.so) */
#include <stdlib.h>

void *volatile nofp_plugin_sink;

__attribute__((noinline)) void *plugin_inner(size_t n)
{
	volatile char buf[96];
	void *p;

	buf[0] = (char)n;
	p = malloc(n + buf[0] - (char)n);
	buf[95] = buf[0];
	nofp_plugin_sink = p;
	return p;
}

__attribute__((noinline)) void *plugin_outer(size_t n)
{
	volatile char buf[24];
	void *p;

	buf[0] = (char)n;
	p = plugin_inner(n + buf[0] - (char)n);
	buf[23] = buf[0];
	nofp_plugin_sink = p;
	return p;
}

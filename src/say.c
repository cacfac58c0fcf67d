// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "say.h"

int say(int err, const char *fmt, ...)
{
	va_list ap;

	fputs("tracelloc: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (err)
		fprintf(stderr, ": %s", strerror(-err));
	fputc('\n', stderr);
	return 1;
}

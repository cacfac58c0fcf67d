// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <libiberty/demangle.h>
#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "maps.h"
#include "symbolize.h"
#include "table.h"

#define UNKNOWN_FRAME "[unknown]"

struct symbolizer {
	pid_t pid;
	Dwfl *dwfl;
	Dwfl_Callbacks callbacks;
	char *debuginfo_path;
	struct table *names;	/* return address -> char * */
	uint64_t last_refresh_ns;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

struct symbolizer *symbolizer__new(pid_t pid)
{
	struct symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->pid = pid;
	s->callbacks.find_elf = dwfl_build_id_find_elf;
	s->callbacks.find_debuginfo = dwfl_standard_find_debuginfo;
	s->callbacks.debuginfo_path = &s->debuginfo_path;
	s->dwfl = dwfl_begin(&s->callbacks);
	s->names = table__new(sizeof(char *));
	if (!s->dwfl || !s->names) {
		symbolizer__destroy(s);
		return NULL;
	}
	return s;
}

void symbolizer__destroy(struct symbolizer *s)
{
	size_t pos = 0;
	char **name;

	if (!s)
		return;
	if (s->names) {
		while ((name = table__next(s->names, &pos, NULL)))
			free(*name);
		table__destroy(s->names);
	}
	if (s->dwfl)
		dwfl_end(s->dwfl);
	free(s);
}

static bool already_reported(Dwfl *dwfl, uint64_t start)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, start);

	return mod != NULL;
}

/* the mapping of the same file at offset 0 gives the load base */
static const struct mapping *first_mapping(const struct maps *maps, const struct mapping *m)
{
	size_t i;

	for (i = 0; i < maps->count; i++) {
		const struct mapping *c = &maps->mappings[i];

		if (c->inode == m->inode && c->dev_major == m->dev_major &&
		    c->dev_minor == m->dev_minor && c->offset == 0 && c->path &&
		    !strcmp(c->path, m->path))
			return c;
	}
	return NULL;
}

static void report_mapping(struct symbolizer *s, const struct maps *maps, const struct mapping *m)
{
	const struct mapping *first = first_mapping(maps, m);
	char open_path[128], file_name[4096];
	int fd;

	if (!first || already_reported(s->dwfl, m->start))
		return;
	maps__file_path(s->pid, first, open_path, sizeof(open_path));
	fd = open(open_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	/* the name libdw uses to look for .gnu_debuglink files, in the target's root */
	snprintf(file_name, sizeof(file_name), "/proc/%d/root%s", s->pid, m->path);
	/* libdw owns fd from here on */
	if (!dwfl_report_elf(s->dwfl, m->path, file_name, fd, first->start, false))
		close(fd);
}

int symbolizer__refresh(struct symbolizer *s)
{
	struct maps maps;
	size_t i;
	int err;

	s->last_refresh_ns = now_ns();
	err = maps__read(s->pid, &maps);
	if (err)
		return err;
	dwfl_report_begin_add(s->dwfl);
	for (i = 0; i < maps.count; i++) {
		const struct mapping *m = &maps.mappings[i];

		if (m->exec && m->path && m->path[0] == '/' && !m->deleted)
			report_mapping(s, &maps, m);
	}
	dwfl_report_end(s->dwfl, NULL, NULL);
	maps__clear(&maps);
	return 0;
}

static char *lookup(struct symbolizer *s, uint64_t ret_addr)
{
	/* a return address points after the call: look up the call itself */
	Dwarf_Addr addr = ret_addr - 1;
	Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, addr);
	const char *name;
	char *demangled;
	GElf_Off offset;
	GElf_Sym sym;

	if (!mod && now_ns() - s->last_refresh_ns > 1000000000ULL) {
		/* code mapped after the last look (dlopen): read the maps again */
		symbolizer__refresh(s);
		mod = dwfl_addrmodule(s->dwfl, addr);
	}
	if (!mod)
		return NULL;
	name = dwfl_module_addrinfo(mod, addr, &offset, &sym, NULL, NULL, NULL);
	if (!name || !*name)
		return NULL;
	demangled = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
	return demangled ? demangled : strdup(name);
}

bool symbolizer__in_module(struct symbolizer *s, uint64_t ret_addr)
{
	if (table__lookup(s->names, ret_addr))
		return true;
	return dwfl_addrmodule(s->dwfl, ret_addr - 1) != NULL;
}

const char *symbolizer__function(struct symbolizer *s, uint64_t ret_addr)
{
	char **cached = table__lookup(s->names, ret_addr);
	char *name;

	if (cached)
		return *cached;
	name = lookup(s, ret_addr);
	if (!name)
		return UNKNOWN_FRAME;
	cached = table__upsert(s->names, ret_addr, NULL);
	if (!cached) {
		free(name);
		return UNKNOWN_FRAME;
	}
	*cached = name;
	return name;
}

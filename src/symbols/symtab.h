/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_SYMTAB_H
#define TRACELLOC_SYMTAB_H

#include <stdint.h>

#include <elfutils/libdwfl.h>

/*
 * A module's symbol table sorted by address, answering what
 * dwfl_module_addrinfo() answers. libdw 0.188 walks every symbol of the
 * module for each address (a millisecond per address in libLLVM's 90,000
 * symbols): a report of a few thousand new frames kept the ring buffers
 * unread for seconds. The same rules are kept (globals before locals, the
 * binding and size preferences between aliases, a sizeless assembly label
 * only where no sized symbol covers the address), so the names do not change.
 */
struct symtab;

struct symtab_hit {
	const char *name;	/* libdw's string, valid while the module lives */
	uint64_t value;		/* the symbol's address, as the module's addresses */
	uint64_t size;
};

/* the index of mod's symbols; negative errno (-ENOENT: mod has none) */
int symtab__new(Dwfl_Module *mod, struct symtab **out);
void symtab__destroy(struct symtab *t);

/* the symbol that holds addr (an address of the module); 0 or -ENOENT */
int symtab__find(const struct symtab *t, uint64_t addr, struct symtab_hit *hit);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_GOPCLNTAB_H
#define TRACELLOC_GOPCLNTAB_H

#include <stddef.h>
#include <stdint.h>

#include <libelf.h>

#include "symtab.h"

/*
 * The function names of a Go executable from its .gopclntab, the table Go's
 * runtime walks for its own tracebacks: there in a stripped binary (go build
 * -ldflags=-s, Debian's /usr/bin/go), which has no other symbols. The
 * layouts of Go 1.2 to 1.15, 1.16-1.17, and 1.18 on (1.20's is 1.18's).
 */
struct gopclntab;

/* the table of elf; -ENOENT: none, -EINVAL: a layout not known or damaged */
int gopclntab__new(Elf *elf, struct gopclntab **out);
void gopclntab__destroy(struct gopclntab *g);

/* the function that holds vaddr: its name, entry and size; 0 or -ENOENT */
int gopclntab__find(const struct gopclntab *g, uint64_t vaddr, struct symtab_hit *hit);

/* the functions by entry: how many, and the one at index i (0 or -ENOENT) */
size_t gopclntab__count(const struct gopclntab *g);
int gopclntab__at(const struct gopclntab *g, size_t i, struct symtab_hit *hit);

/* the parsing itself, text being where the code starts if the table does
 * not say (.text's address); for the fuzz harness and the unit tests */
int gopclntab__parse(const uint8_t *data, size_t size, uint64_t text, struct gopclntab **out);

#endif

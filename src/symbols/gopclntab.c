// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "gopclntab.h"

/* the magic words of the table's layouts (Go's src/debug/gosym/pclntab.go) */
#define GO12_MAGIC 0xfffffffbU
#define GO116_MAGIC 0xfffffffaU
#define GO118_MAGIC 0xfffffff0U
#define GO120_MAGIC 0xfffffff1U

/* more functions than any program has: a damaged count */
#define MAX_GO_FUNCS (1U << 24)

struct go_func {
	uint64_t entry;
	const char *name;
};

struct gopclntab {
	struct go_func *funcs;	/* by entry; the last one's entry is the end */
	size_t nfuncs;
};

struct reader {
	const uint8_t *data;
	size_t size;
	bool bad;
};

static uint64_t word(struct reader *r, uint64_t at)
{
	uint64_t v;

	if (at > r->size || r->size - at < 8) {
		r->bad = true;
		return 0;
	}
	memcpy(&v, r->data + at, 8);
	return v;
}

static uint32_t u32(struct reader *r, uint64_t at)
{
	uint32_t v;

	if (at > r->size || r->size - at < 4) {
		r->bad = true;
		return 0;
	}
	memcpy(&v, r->data + at, 4);
	return v;
}

/* a NUL-terminated name at at, inside the table */
static const char *name_at(struct reader *r, uint64_t at)
{
	const char *s;

	if (at >= r->size || !memchr(r->data + at, '\0', r->size - at))
		return NULL;
	s = (const char *)r->data + at;
	return *s ? s : NULL;
}

static int cmp_funcs(const void *a, const void *b)
{
	const struct go_func *x = a, *y = b;

	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

int gopclntab__parse(const uint8_t *data, size_t size, uint64_t text, struct gopclntab **out)
{
	struct reader r = { data, size, false };
	uint64_t nfunc, functab, names = 0, entry, funcoff, i;
	uint32_t magic = u32(&r, 0);
	struct gopclntab *g;
	bool sorted = true;
	size_t n = 0;

	*out = NULL;
	if (r.bad || size < 16 || data[4] || data[5] || data[7] != 8)
		return -EINVAL;
	nfunc = word(&r, 8);
	switch (magic) {
	case GO12_MAGIC:
		functab = 8 + 8;
		break;
	case GO116_MAGIC:
		names = word(&r, 24);
		functab = word(&r, 56);
		break;
	case GO118_MAGIC:
	case GO120_MAGIC:
		/* runtime.text, which a build with cgo puts after C's code;
		 * 0 where it is relocated at load (a position-independent one) */
		if (word(&r, 24))
			text = word(&r, 24);
		names = word(&r, 32);
		functab = word(&r, 64);
		break;
	default:
		return -EINVAL;
	}
	if (r.bad || !nfunc || nfunc > MAX_GO_FUNCS || functab >= size)
		return -EINVAL;
	g = calloc(1, sizeof(*g));
	if (!g || !(g->funcs = calloc(nfunc + 1, sizeof(*g->funcs)))) {
		free(g);
		return -ENOMEM;
	}
	/* nfunc entries and the end's; each entry's function names itself */
	for (i = 0; i <= nfunc && !r.bad; i++) {
		const char *name = NULL;

		if (magic == GO12_MAGIC || magic == GO116_MAGIC) {
			entry = word(&r, functab + i * 16);
			funcoff = word(&r, functab + i * 16 + 8);
		} else {
			entry = text + u32(&r, functab + i * 8);
			funcoff = u32(&r, functab + i * 8 + 4);
		}
		if (i < nfunc) {
			/* the function's record: its entry, then its name's offset */
			if (magic == GO12_MAGIC)
				name = name_at(&r, (uint64_t)(int64_t)(int32_t)u32(&r, funcoff + 8));
			else if (magic == GO116_MAGIC)
				name = name_at(&r, names + (uint64_t)(int64_t)(int32_t)
							   u32(&r, functab + funcoff + 8));
			else
				name = name_at(&r, names + (uint64_t)(int64_t)(int32_t)
							   u32(&r, functab + funcoff + 4));
			if (!name)
				continue;
		}
		if (n && entry < g->funcs[n - 1].entry)
			sorted = false;
		g->funcs[n++] = (struct go_func){ .entry = entry, .name = name };
	}
	/* a table cut short: what was read before the damage stands */
	if (n < 2) {
		gopclntab__destroy(g);
		return -EINVAL;
	}
	if (!sorted)
		qsort(g->funcs, n, sizeof(*g->funcs), cmp_funcs);
	g->nfuncs = n;
	*out = g;
	return 0;
}

static Elf_Scn *section_named(Elf *elf, const char *want, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, sh) || sh->sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh->sh_name);
		if (name && !strcmp(name, want))
			return scn;
	}
	return NULL;
}

int gopclntab__new(Elf *elf, struct gopclntab **out)
{
	GElf_Shdr sh, text_sh;
	Elf_Scn *scn = section_named(elf, ".gopclntab", &sh);
	Elf_Data *data;

	*out = NULL;
	if (!scn)
		return -ENOENT;
	data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf)
		return -EINVAL;
	/* a position-independent build's table has its text relocated: 0 in the file */
	return gopclntab__parse(data->d_buf, data->d_size,
				section_named(elf, ".text", &text_sh) ? text_sh.sh_addr : 0, out);
}

void gopclntab__destroy(struct gopclntab *g)
{
	if (!g)
		return;
	free(g->funcs);
	free(g);
}

size_t gopclntab__count(const struct gopclntab *g)
{
	return g->nfuncs ? g->nfuncs - 1 : 0;
}

int gopclntab__at(const struct gopclntab *g, size_t i, struct symtab_hit *hit)
{
	if (i + 1 >= g->nfuncs || !g->funcs[i].name)
		return -ENOENT;
	hit->name = g->funcs[i].name;
	hit->value = g->funcs[i].entry;
	hit->size = g->funcs[i + 1].entry - g->funcs[i].entry;
	return 0;
}

int gopclntab__find(const struct gopclntab *g, uint64_t vaddr, struct symtab_hit *hit)
{
	size_t lo = 0, hi = g->nfuncs;

	/* the last entry whose start is at or below vaddr, short of the end */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (g->funcs[mid].entry <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? gopclntab__at(g, lo - 1, hit) : -ENOENT;
}

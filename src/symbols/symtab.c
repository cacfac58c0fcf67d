// SPDX-License-Identifier: GPL-2.0
/*
 * A module's symbols by address, with libdwfl's choice between them.
 *
 * dwfl_module_addrinfo() looks at every symbol, globals first, then locals
 * when no global has a size that covers the address. Among sized symbols
 * that cover it, the later start wins, or the stronger binding, or between
 * aliases at one address the smaller one (unless weaker). With no sized
 * symbol covering the address, a sizeless label in its section may name it,
 * if nothing ends after the label: that is the label with the highest
 * address of all, the last one in the order libdwfl walks them.
 *
 * So an address needs only the sized symbols that cover it (found through
 * the highest end reached so far, in address order) and the labels at one
 * address. Where more than MAX_COVERING symbols cover one address, libdw is
 * asked.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <gelf.h>

#include "symtab.h"

#define MAX_COVERING 32

struct sym_sized {
	uint64_t value;
	uint64_t size;
	uint64_t max_end;	/* the highest end of this entry and those before */
	const char *name;
	uint32_t order;		/* when libdwfl looks at it: globals first */
	uint8_t binding;	/* libdwfl's preference, higher is better */
	bool global;		/* looked at in the first pass */
};

struct sym_label {
	uint64_t value;
	const char *name;
	uint32_t order;
	uint32_t shndx;		/* SHN_ABS and the like: it names only its own address */
	bool global;
};

/* an allocated section of the module's main file, where the module is */
struct sym_section {
	uint64_t start;
	uint64_t end;
	size_t ndx;
};

struct symtab {
	Dwfl_Module *mod;
	struct sym_section *sections;	/* by start, then end, then index */
	size_t nsections;
	struct sym_sized *sized;
	size_t nsized;
	struct sym_label *labels;
	size_t nlabels;
};

static uint8_t binding_rank(const GElf_Sym *sym)
{
	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_GLOBAL:
		return 3;
	case STB_WEAK:
		return 2;
	case STB_LOCAL:
		return 1;
	default:
		return 0;
	}
}

static int cmp_sized(const void *a, const void *b)
{
	const struct sym_sized *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_label(const void *a, const void *b)
{
	const struct sym_label *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* a symbol dwfl_module_addrinfo() would look at for some address */
static bool eligible(const char *name, const GElf_Sym *sym)
{
	int type = GELF_ST_TYPE(sym->st_info);

	return name && name[0] && sym->st_shndx != SHN_UNDEF && type != STT_SECTION &&
	       type != STT_FILE && type != STT_TLS;
}

static int cmp_section(const void *a, const void *b)
{
	const struct sym_section *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->ndx < y->ndx ? -1 : x->ndx > y->ndx;
}

/* the allocated sections of the main file, as libdwfl sorts them to find
 * the section of an address */
static int read_sections(struct symtab *t, Dwfl_Module *mod)
{
	GElf_Addr bias = 0;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	Elf_Scn *scn = NULL;
	size_t n = 0, cap = 0;

	if (!elf)
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr mem, *shdr = gelf_getshdr(scn, &mem);
		struct sym_section *grown;

		if (!shdr || !(shdr->sh_flags & SHF_ALLOC))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 32;
			grown = realloc(t->sections, cap * sizeof(*grown));
			if (!grown)
				return -ENOMEM;
			t->sections = grown;
		}
		t->sections[n++] = (struct sym_section){
			.start = shdr->sh_addr + bias,
			.end = shdr->sh_addr + bias + shdr->sh_size,
			.ndx = elf_ndxscn(scn),
		};
	}
	qsort(t->sections, n, sizeof(*t->sections), cmp_section);
	t->nsections = n;
	return 0;
}

/* the section that holds addr, its end included unless the next starts
 * there (libdwfl's rule, its search too); SHN_UNDEF for none */
static size_t section_of(const struct symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->nsections;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (addr < t->sections[mid].start) {
			hi = mid;
		} else if (addr > t->sections[mid].end) {
			lo = mid + 1;
		} else {
			if (addr == t->sections[mid].end && mid + 1 < t->nsections &&
			    addr == t->sections[mid + 1].start)
				mid++;
			return t->sections[mid].ndx;
		}
	}
	return SHN_UNDEF;
}

int symtab__new(Dwfl_Module *mod, struct symtab **out)
{
	int n = dwfl_module_getsymtab(mod), first_global, i;
	struct symtab *t;
	uint64_t max_end = 0;
	size_t j;

	*out = NULL;
	if (n <= 1)
		return -ENOENT;
	first_global = dwfl_module_getsymtab_first_global(mod);
	if (first_global < 0)
		return -ENOENT;
	if (first_global == 0)
		first_global = 1;	/* only .dynsym, read through the phdrs: all one pass */
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->mod = mod;
	t->sized = calloc(n, sizeof(*t->sized));
	t->labels = calloc(n, sizeof(*t->labels));
	if (!t->sized || !t->labels || read_sections(t, mod)) {
		symtab__destroy(t);
		return -ENOMEM;
	}
	for (i = 1; i < n; i++) {
		GElf_Addr value;
		GElf_Word shndx;
		GElf_Sym sym;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &value, &shndx, NULL,
							   NULL);
		bool global = i >= first_global;
		/* globals are walked first, then the locals */
		uint32_t order = global ? (uint32_t)(i - first_global) : (uint32_t)(n + i);

		if (!eligible(name, &sym))
			continue;
		if (sym.st_size) {
			t->sized[t->nsized++] = (struct sym_sized){
				.value = value, .size = sym.st_size, .name = name,
				.order = order, .binding = binding_rank(&sym), .global = global,
			};
		} else {
			t->labels[t->nlabels++] = (struct sym_label){
				.value = value, .name = name, .order = order, .shndx = shndx,
				.global = global,
			};
		}
	}
	qsort(t->sized, t->nsized, sizeof(*t->sized), cmp_sized);
	qsort(t->labels, t->nlabels, sizeof(*t->labels), cmp_label);
	for (j = 0; j < t->nsized; j++) {
		if (t->sized[j].value + t->sized[j].size > max_end)
			max_end = t->sized[j].value + t->sized[j].size;
		t->sized[j].max_end = max_end;
	}
	*out = t;
	return 0;
}

void symtab__destroy(struct symtab *t)
{
	if (!t)
		return;
	free(t->sized);
	free(t->labels);
	free(t->sections);
	free(t);
}

/* entries with value <= addr: how many there are at the start of the array */
#define UPPER_BOUND(arr, n, addr)                                   \
	({                                                          \
		size_t lo_ = 0, hi_ = (n);                          \
		while (lo_ < hi_) {                                 \
			size_t mid_ = lo_ + (hi_ - lo_) / 2;        \
			if ((arr)[mid_].value <= (addr))            \
				lo_ = mid_ + 1;                     \
			else                                        \
				hi_ = mid_;                         \
		}                                                   \
		lo_;                                                \
	})

static int cmp_order(const void *a, const void *b)
{
	const struct sym_sized *x = *(const struct sym_sized *const *)a;
	const struct sym_sized *y = *(const struct sym_sized *const *)b;

	return x->order < y->order ? -1 : x->order > y->order;
}

/* libdwfl's choice among the sized symbols that cover the address, taken in
 * its order: a later start or a stronger binding wins; between aliases at one
 * start and of one binding, the smaller */
static const struct sym_sized *choose_sized(const struct sym_sized *const *c, size_t n)
{
	const struct sym_sized *best = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct sym_sized *s = c[i];

		if (!best || best->value < s->value || best->binding < s->binding)
			best = s;
		else if (best->value == s->value && best->size > s->size &&
			 best->binding == s->binding)
			best = s;
	}
	return best;
}

/* is addr in the label's section? (an absolute label: only at addr) */
static bool same_section(const struct symtab *t, const struct sym_label *l, uint64_t addr)
{
	if (l->shndx >= SHN_LORESERVE)
		return l->value == addr;
	return section_of(t, l->value) == section_of(t, addr);
}

/* the last label walked at value that is in addr's section (globals_only:
 * the first pass alone) */
static const struct sym_label *label_at(const struct symtab *t, uint64_t value, uint64_t addr,
					bool globals_only)
{
	size_t end = UPPER_BOUND(t->labels, t->nlabels, value);

	while (end > 0 && t->labels[end - 1].value == value) {
		const struct sym_label *l = &t->labels[--end];

		if ((!globals_only || l->global) && same_section(t, l, addr))
			return l;
	}
	return NULL;
}

static int ask_libdw(const struct symtab *t, uint64_t addr, struct symtab_hit *hit)
{
	GElf_Off offset;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(t->mod, addr, &offset, &sym, NULL, NULL, NULL);

	if (!name)
		return -ENOENT;
	hit->name = name;
	hit->value = addr - offset;
	hit->size = sym.st_size;
	return 0;
}

static int label_hit(const struct sym_label *l, struct symtab_hit *hit)
{
	hit->name = l->name;
	hit->value = l->value;
	hit->size = 0;
	return 0;
}

int symtab__find(const struct symtab *t, uint64_t addr, struct symtab_hit *hit)
{
	const struct sym_sized *cover[MAX_COVERING] = { NULL }, *best;
	const struct sym_label *label;
	size_t p = UPPER_BOUND(t->sized, t->nsized, addr);
	size_t q = UPPER_BOUND(t->labels, t->nlabels, addr);
	size_t n = 0, nglobal = 0, j;
	uint64_t top;

	for (j = p; j > 0 && t->sized[j - 1].max_end > addr; j--) {
		const struct sym_sized *s = &t->sized[j - 1];

		if (s->value + s->size <= addr)
			continue;
		if (n == MAX_COVERING)
			return ask_libdw(t, addr, hit);
		cover[n++] = s;
		nglobal += s->global;
	}
	qsort(cover, n, sizeof(cover[0]), cmp_order);
	best = choose_sized(cover, nglobal);
	if (!best) {
		/* the first pass found a label right at addr: the locals are not walked */
		label = label_at(t, addr, addr, true);
		if (label)
			return label_hit(label, hit);
		best = choose_sized(cover + nglobal, n - nglobal);
	}
	if (best) {
		hit->name = best->name;
		hit->value = best->value;
		hit->size = best->size;
		return 0;
	}
	/* no size covers addr: a label, where nothing before addr ends after it */
	top = p ? t->sized[p - 1].max_end : 0;
	if (q && t->labels[q - 1].value > top)
		top = t->labels[q - 1].value;
	label = q ? label_at(t, top, addr, false) : NULL;
	return label ? label_hit(label, hit) : -ENOENT;
}

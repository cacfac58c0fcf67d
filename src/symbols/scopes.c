// SPDX-License-Identifier: GPL-2.0
/* the inline chain at an address, from DWARF (see scopes.h) */
#include <dwarf.h>
#include <errno.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

#include "scopes.h"
#include "table.h"

/* the concrete functions of one CU, sorted by low address */
struct fn_range {
	uint64_t low;
	uint64_t high;
	Dwarf_Off die;
};

struct cu_funcs {
	size_t n;
	struct fn_range ranges[];
};

/* deepest chain of scopes followed inside a function */
#define MAX_SCOPE_DEPTH 64

struct fnindex {
	/* CU offset + 1 -> struct cu_funcs *: its functions by address */
	struct table *cu_funcs;
	/* every unit's ranges, the die their unit's (see unit_of); read at
	 * the first address libdwfl has no unit for */
	struct cu_funcs *units;
	bool units_read;
};

struct fnindex *fnindex__new(void)
{
	return calloc(1, sizeof(struct fnindex));
}

void fnindex__destroy(struct fnindex *x)
{
	size_t pos = 0;
	void **v;

	if (!x)
		return;
	while (x->cu_funcs && (v = table__next(x->cu_funcs, &pos, NULL)))
		free(*v);
	table__destroy(x->cu_funcs);
	free(x->units);
	free(x);
}

/* name of a subprogram or inlined-subroutine DIE, demangled when possible */
static const char *die_name(const struct scope_namer *namer, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name;

	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
	if (name)
		return namer->name(namer->ctx, name, true);
	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
	return name ? namer->name(namer->ctx, name, false) : NULL;
}

static bool is_function(Dwarf_Die *die)
{
	int tag = dwarf_tag(die);

	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;
}

/*
 * The innermost function or block DIE under parent that holds pc. Needed
 * because dwarf_getscopes (libdw 0.188) prunes DW_TAG_namespace, which has
 * no pc range, and rustc puts nearly every function inside one.
 */
/* a DIE that may hold functions without having a pc range of its own */
static bool holds_functions(int tag)
{
	return tag == DW_TAG_namespace || tag == DW_TAG_module || tag == DW_TAG_structure_type ||
	       tag == DW_TAG_class_type || tag == DW_TAG_union_type;
}

static bool innermost_die(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *result, int depth)
{
	Dwarf_Die child;

	if (depth > 64 || dwarf_child(parent, &child) != 0)
		return false;
	do {
		if (holds_functions(dwarf_tag(&child))) {
			if (innermost_die(&child, pc, result, depth + 1))
				return true;
			continue;
		}
		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
		case DW_TAG_lexical_block:
			if (dwarf_haspc(&child, pc) > 0) {
				*result = child;
				innermost_die(&child, pc, result, depth + 1);
				return true;
			}
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

struct fn_list {
	struct fn_range *v;
	size_t n, cap;
};

/* appends r; -ENOMEM leaves l as it was */
static int fn_list_push(struct fn_list *l, struct fn_range r)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct fn_range *grown = realloc(l->v, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		l->v = grown;
		l->cap = cap;
	}
	l->v[l->n++] = r;
	return 0;
}

static int by_low(const void *a, const void *b)
{
	const struct fn_range *x = a, *y = b;

	return x->low < y->low ? -1 : x->low > y->low;
}

/* l's ranges sorted by address, in one allocation; NULL when out of memory.
 * l is emptied */
static struct cu_funcs *sorted_ranges(struct fn_list *l)
{
	struct cu_funcs *cf = malloc(sizeof(*cf) + l->n * sizeof(cf->ranges[0]));

	if (cf) {
		cf->n = l->n;
		if (l->n)
			memcpy(cf->ranges, l->v, l->n * sizeof(l->v[0]));
		qsort(cf->ranges, cf->n, sizeof(cf->ranges[0]), by_low);
	}
	free(l->v);
	*l = (struct fn_list){ 0 };
	return cf;
}

/* the subprograms under parent, in namespaces and classes too */
static void collect_functions(Dwarf_Die *parent, struct fn_list *l, int depth)
{
	Dwarf_Die child;

	if (depth > 32 || dwarf_child(parent, &child) != 0)
		return;
	do {
		if (holds_functions(dwarf_tag(&child))) {
			collect_functions(&child, l, depth + 1);
			continue;
		}
		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram: {
			Dwarf_Addr base, start, end;
			ptrdiff_t off = 0;

			while ((off = dwarf_ranges(&child, off, &base, &start, &end)) > 0)
				if (fn_list_push(l, (struct fn_range){ start, end,
								  dwarf_dieoffset(&child) }))
					return;
			break;
		}
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* cudie's functions, indexed at the first call for that CU; NULL when
 * they cannot be */
static const struct cu_funcs *cu_functions(struct fnindex *x, Dwarf_Die *cudie)
{
	uint64_t key = dwarf_dieoffset(cudie) + 1;
	struct fn_list l = {};
	struct cu_funcs *cf, **slot;

	if (!x->cu_funcs && !(x->cu_funcs = table__new(sizeof(struct cu_funcs *))))
		return NULL;
	slot = table__lookup(x->cu_funcs, key);
	if (slot)
		return *slot;
	collect_functions(cudie, &l, 0);
	cf = sorted_ranges(&l);
	if (cf) {
		slot = table__upsert(x->cu_funcs, key, NULL);
		if (slot)
			*slot = cf;
		else {
			free(cf);
			cf = NULL;
		}
	}
	return cf;
}

/* 1 + the index of the last range of cf that starts at or below pc, if
 * it ends above pc; else 0 */
static size_t range_holding(const struct cu_funcs *cf, Dwarf_Addr pc)
{
	size_t lo = 0, hi = cf->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cf->ranges[mid].low <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && pc < cf->ranges[lo - 1].high ? lo : 0;
}

/* the concrete function that holds pc in cudie, through the CU's index */
static bool find_function(struct fnindex *x, Dwarf *dwarf, Dwarf_Die *cudie, Dwarf_Addr pc,
			  Dwarf_Die *fn)
{
	const struct cu_funcs *cf = x ? cu_functions(x, cudie) : NULL;
	size_t at = cf ? range_holding(cf, pc) : 0;

	return at && dwarf_offdie(dwarf, cf->ranges[at - 1].die, fn);
}

/* fn and the scopes inside it that hold pc, outermost first */
static int scope_path(const Dwarf_Die *fn, Dwarf_Addr pc, Dwarf_Die *path, int max)
{
	Dwarf_Die child;
	int n = 1;
	bool deeper = true;

	path[0] = *fn;
	while (deeper && n < max) {
		deeper = false;
		if (dwarf_child(&path[n - 1], &child) != 0)
			break;
		do {
			int tag = dwarf_tag(&child);

			if ((tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block) &&
			    dwarf_haspc(&child, pc) > 0) {
				path[n++] = child;
				deeper = true;
				break;
			}
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	return n;
}

/* the scopes that hold addr in its unit, innermost first, up to the
 * concrete function (*scopes malloc'd); how many, or <= 0 for none */
static int scopes_at(struct fnindex *x, Dwfl_Module *mod, Dwarf_Die *cudie, Dwarf_Addr addr,
		     Dwarf_Addr bias, Dwarf_Die **scopes)
{
	Dwarf_Die subroutine, fn, path[MAX_SCOPE_DEPTH];
	Dwarf *dwarf = dwfl_module_getdwarf(mod, &bias);
	int nscopes, i;

	*scopes = NULL;
	if (dwarf && find_function(x, dwarf, cudie, addr - bias, &fn)) {
		/* the chain from the index, innermost first, as libdw gives it */
		int npath = scope_path(&fn, addr - bias, path, MAX_SCOPE_DEPTH);

		*scopes = malloc(npath * sizeof(**scopes));
		if (!*scopes)
			return 0;
		for (i = 0; i < npath; i++)
			(*scopes)[i] = path[npath - 1 - i];
		return npath;
	}
	nscopes = dwarf_getscopes(cudie, addr - bias, scopes);
	if (nscopes > 0) {
		/* dwarf_getscopes stops at an inlined scope: restart from that DIE
		 * to get the chain up to the concrete function */
		dwarf = dwfl_module_getdwarf(mod, &bias);
		if (!dwarf || !dwarf_offdie(dwarf, dwarf_dieoffset(&(*scopes)[0]), &subroutine))
			return 0;
		free(*scopes);
		*scopes = NULL;
	} else if (!innermost_die(cudie, addr - bias, &subroutine, 0)) {
		return 0;
	}
	return dwarf_getscopes_die(&subroutine, scopes);
}

/* every unit of dwarf with its ranges, sorted by address; NULL when out of
 * memory */
static struct cu_funcs *all_units(Dwarf *dwarf)
{
	struct fn_list l = {};
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	Dwarf_Half version;
	uint8_t type;

	while (dwarf_get_units(dwarf, cu, &cu, &version, &type, &cudie, NULL) == 0) {
		Dwarf_Addr base, start, end;
		ptrdiff_t off = 0;

		if (type != DW_UT_compile && type != DW_UT_partial)
			continue;
		while ((off = dwarf_ranges(&cudie, off, &base, &start, &end)) > 0) {
			if (fn_list_push(&l, (struct fn_range){ start, end, dwarf_dieoffset(&cudie) })) {
				free(l.v);
				return NULL;
			}
		}
	}
	return sorted_ranges(&l);
}

/*
 * The unit that holds addr (mod's address), in *mem or libdwfl's; NULL for
 * none. libdwfl looks units up in .debug_aranges alone, and takes the
 * arange that starts last below an address for one that holds it. Go's
 * linker and clang write no aranges for their units, gcc does for its own:
 * a cgo program's Go frames took the file and last line of a gcc unit
 * below them, and a clang unit beside gcc's had no lines. An answer that
 * does not hold addr is checked against every unit's own ranges.
 */
static Dwarf_Die *unit_of(struct fnindex *x, Dwfl_Module *mod, Dwarf_Addr addr, Dwarf_Addr *bias,
			  Dwarf_Die *mem)
{
	Dwarf_Die *cudie = dwfl_module_addrdie(mod, addr, bias);
	Dwarf_Addr base, start, end;
	Dwarf *dwarf;
	size_t at;

	if (cudie && dwarf_haspc(cudie, addr - *bias) > 0)
		return cudie;
	dwarf = dwfl_module_getdwarf(mod, bias);
	if (x && dwarf && !x->units_read) {
		x->units = all_units(dwarf);
		x->units_read = true;
	}
	at = x && x->units ? range_holding(x->units, addr - *bias) : 0;
	if (at && dwarf_offdie(dwarf, x->units->ranges[at - 1].die, mem))
		return mem;
	/* a unit that says nothing of its ranges: its arange is all there is */
	if (cudie && dwarf_ranges(cudie, 0, &base, &start, &end) <= 0)
		return cudie;
	return NULL;
}

int scopes__frames(struct fnindex *x, Dwfl_Module *mod, Dwarf_Addr addr, struct sym_frame *frames,
		   int max, const struct scope_namer *namer)
{
	Dwarf_Die *cudie, *scopes = NULL, unit;
	Dwarf_Files *files = NULL;
	Dwarf_Addr bias = 0;
	int nscopes, n = 0, i, line = 0;
	const char *file = NULL;
	Dwarf_Line *lineinfo;

	cudie = unit_of(x, mod, addr, &bias, &unit);
	if (!cudie)
		return 0;
	lineinfo = dwarf_getsrc_die(cudie, addr - bias);
	if (lineinfo && (file = dwarf_linesrc(lineinfo, NULL, NULL)))
		dwarf_lineno(lineinfo, &line);
	nscopes = scopes_at(x, mod, cudie, addr, bias, &scopes);
	if (nscopes > 0)
		dwarf_getsrcfiles(cudie, &files, NULL);
	for (i = 0; i < nscopes && n < max; i++) {
		Dwarf_Attribute attr;
		Dwarf_Word value;

		if (!is_function(&scopes[i]))
			continue;
		frames[n].function = die_name(namer, &scopes[i]);
		frames[n].file = file ? namer->name(namer->ctx, file, false) : NULL;
		frames[n].line = line;
		frames[n].inlined = dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine;
		n++;
		if (!frames[n - 1].inlined)
			break;
		/* the next frame's line is where this one was inlined */
		file = NULL;
		line = 0;
		if (files && !dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &attr), &value))
			file = dwarf_filesrc(files, value, NULL, NULL);
		if (!dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &attr), &value))
			line = (int)value;
	}
	free(scopes);
	if (n == 0 && file) {
		/* line info without scopes: one frame, named by the caller */
		frames[0].function = NULL;
		frames[0].file = namer->name(namer->ctx, file, false);
		frames[0].line = line;
		frames[0].inlined = false;
		n = 1;
	}
	return n;
}

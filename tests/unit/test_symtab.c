// SPDX-License-Identifier: GPL-2.0
/* symtab.c: the same symbol as dwfl_module_addrinfo() for every address */
#include <dlfcn.h>
#include <errno.h>
#include <glob.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

#include <elfutils/libdwfl.h>

#include "symtab.h"
#include "test.h"

/*
 * The cases libdwfl decides between, in this binary's own .symtab: sizeless
 * labels (global and local, one at the end of a function), aliases of one
 * function with other sizes and bindings, a function inside another, and
 * an absolute symbol.
 */
__asm__(".text\n"
	".globl tl_st_begin\n"
	"tl_st_begin:\n"
	".fill 16, 1, 0x90\n"
	"tl_st_local_label:\n"
	".fill 16, 1, 0x90\n"
	".globl tl_st_sized\n"
	".type tl_st_sized, @function\n"
	"tl_st_sized:\n"
	".fill 32, 1, 0x90\n"
	".size tl_st_sized, 32\n"
	".weak tl_st_weak_small\n"
	".type tl_st_weak_small, @function\n"
	".set tl_st_weak_small, tl_st_sized\n"
	".size tl_st_weak_small, 16\n"
	".globl tl_st_global_small\n"
	".type tl_st_global_small, @function\n"
	".set tl_st_global_small, tl_st_sized\n"
	".size tl_st_global_small, 16\n"
	".type tl_st_local_smaller, @function\n"
	".set tl_st_local_smaller, tl_st_sized\n"
	".size tl_st_local_smaller, 8\n"
	".globl tl_st_after_end\n"
	"tl_st_after_end:\n"
	".fill 16, 1, 0x90\n"
	".globl tl_st_outer\n"
	".type tl_st_outer, @function\n"
	"tl_st_outer:\n"
	".fill 16, 1, 0x90\n"
	".globl tl_st_inner\n"
	".type tl_st_inner, @function\n"
	"tl_st_inner:\n"
	".fill 16, 1, 0x90\n"
	".size tl_st_inner, 16\n"
	".fill 32, 1, 0x90\n"
	".size tl_st_outer, 64\n"
	".type tl_st_local_fn, @function\n"
	"tl_st_local_fn:\n"
	".fill 24, 1, 0x90\n"
	".size tl_st_local_fn, 24\n"
	"tl_st_local_tail:\n"
	".fill 8, 1, 0x90\n"
	".globl tl_st_weak_label\n"
	".weak tl_st_weak_label\n"
	"tl_st_weak_label:\n"
	".fill 8, 1, 0x90\n"
	".globl tl_st_end\n"
	"tl_st_end:\n"
	".fill 16, 1, 0x90\n"
	".globl tl_st_absolute\n"
	".set tl_st_absolute, 0x40\n");

extern const char tl_st_begin[], tl_st_end[];

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* compares libdw's answer and the index's at addr; a line for the first
 * difference in *first */
static bool same_answer(Dwfl_Module *mod, const struct symtab *t, uint64_t addr, char *first,
			size_t size)
{
	GElf_Off offset = 0;
	GElf_Sym sym = { 0 };
	const char *name = dwfl_module_addrinfo(mod, addr, &offset, &sym, NULL, NULL, NULL);
	struct symtab_hit hit = { 0 };
	int err = symtab__find(t, addr, &hit);
	bool same;

	if (!name || !*name)
		same = err == -ENOENT || !*hit.name;
	else
		same = !err && !strcmp(name, hit.name) && hit.value == addr - offset &&
		       hit.size == sym.st_size;
	if (!same && !first[0])
		snprintf(first, size, "%#lx: libdw %s+%#lx (size %lu), index %s at %#lx (size %lu)",
			 (unsigned long)addr, name ? name : "(none)", (unsigned long)offset,
			 (unsigned long)sym.st_size, err ? "(none)" : hit.name,
			 (unsigned long)hit.value, (unsigned long)hit.size);
	return same;
}

/* the module of path, reported alone (offline) */
static Dwfl_Module *report(Dwfl **dwfl, const char *path)
{
	Dwfl_Module *mod;

	*dwfl = dwfl_begin(&offline_callbacks);
	if (!*dwfl)
		return NULL;
	dwfl_report_begin(*dwfl);
	mod = dwfl_report_offline(*dwfl, path, path, -1);
	dwfl_report_end(*dwfl, NULL, NULL);
	return mod;
}

/* addresses around every 5th symbol of the module, and pseudo-random ones in
 * its span; the number of them where the answers differ */
static size_t compare_module(const char *path, size_t *checked, char *first, size_t size)
{
	uint64_t seed = 0x5eed, low, high;
	size_t bad = 0, i;
	Dwarf_Addr lo = 0, hi = 0;
	struct symtab *t = NULL;
	Dwfl *dwfl;
	Dwfl_Module *mod = report(&dwfl, path);
	int n, s;

	*checked = 0;
	if (!mod || symtab__new(mod, &t)) {
		dwfl_end(dwfl);
		return 0;
	}
	dwfl_module_info(mod, NULL, &lo, &hi, NULL, NULL, NULL, NULL);
	low = lo;
	high = hi;
	n = dwfl_module_getsymtab(mod);
	for (s = 1; s < n; s += 5) {
		static const int64_t around[] = { -1, 0, 1 };
		GElf_Addr value;
		GElf_Sym sym;
		size_t k;

		if (!dwfl_module_getsym_info(mod, s, &sym, &value, NULL, NULL, NULL))
			continue;
		for (k = 0; k < sizeof(around) / sizeof(around[0]); k++) {
			bad += !same_answer(mod, t, value + around[k], first, size);
			bad += !same_answer(mod, t, value + sym.st_size + around[k], first, size);
			*checked += 2;
		}
		bad += !same_answer(mod, t, value + sym.st_size / 2, first, size);
		(*checked)++;
	}
	for (i = 0; i < 2000 && high > low; i++, (*checked)++)
		bad += !same_answer(mod, t, low + test__rand(&seed) % (high - low), first, size);
	symtab__destroy(t);
	dwfl_end(dwfl);
	return bad;
}

TEST(symtab_cases_as_libdw)
{
	uint64_t base = 0, from, to, addr;
	char first[512] = "";
	struct symtab *t = NULL;
	Dwarf_Addr lo = 0;
	size_t bad = 0;
	Dwfl *dwfl;
	Dwfl_Module *mod = report(&dwfl, "/proc/self/exe");
	struct symtab_hit hit;
	Dl_info info;

	ASSERT_TRUE(mod != NULL, "the unit binary reported to libdw");
	ASSERT_OK(symtab__new(mod, &t), "symtab__new");
	ASSERT_TRUE(dladdr(tl_st_begin, &info), "dladdr");
	dwfl_module_info(mod, NULL, &lo, NULL, NULL, NULL, NULL, NULL);
	base = (uint64_t)(uintptr_t)info.dli_fbase;
	from = (uint64_t)(uintptr_t)tl_st_begin - base + lo;
	to = (uint64_t)(uintptr_t)tl_st_end - base + lo + 16;
	for (addr = from - 8; addr < to; addr++)
		bad += !same_answer(mod, t, addr, first, sizeof(first));
	/* the cases are there: what libdw answers is not always the obvious */
	ASSERT_OK(symtab__find(t, from + 40, &hit), "an address in the aliased function");
	ASSERT_STREQ(hit.name, "tl_st_global_small", "the smaller alias at no weaker binding");
	ASSERT_OK(symtab__find(t, from + 20, &hit), "an address after a local label");
	ASSERT_STREQ(hit.name, "tl_st_local_label", "a sizeless local label");
	ASSERT_OK(symtab__find(t, from + 64 + 4, &hit), "an address after a function's end");
	ASSERT_STREQ(hit.name, "tl_st_after_end", "the label at the function's end");
	ASSERT_OK(symtab__find(t, from + 80 + 20, &hit), "an address in the inner function");
	ASSERT_STREQ(hit.name, "tl_st_inner", "the inner of two nested functions");
	symtab__destroy(t);
	dwfl_end(dwfl);
	if (bad)
		test__fail(__FILE__, __LINE__,
			   "%zu addresses named otherwise than by libdw, first %s", bad, first);
}

struct loaded {
	char paths[16][256];
	size_t n;
};

static int add_loaded(struct dl_phdr_info *info, size_t size, void *ctx)
{
	struct loaded *l = ctx;

	(void)size;
	if (info->dlpi_name[0] == '/' && !strstr(info->dlpi_name, "linux-vdso") &&
	    l->n < sizeof(l->paths) / sizeof(l->paths[0]))
		snprintf(l->paths[l->n++], sizeof(l->paths[0]), "%s", info->dlpi_name);
	return 0;
}

/* libc with its debug file, libdw, libelf, ...; libLLVM's 90,000 symbols
 * where clang is installed */
TEST(symtab_libraries_as_libdw)
{
	struct loaded l = { .n = 0 };
	char first[512] = "";
	size_t i, bad = 0, checked, total = 0;
	glob_t g;

	dl_iterate_phdr(add_loaded, &l);
	if (!glob("/usr/lib/llvm-*/lib/libLLVM-*.so.1", 0, NULL, &g)) {
		if (g.gl_pathc && l.n < sizeof(l.paths) / sizeof(l.paths[0]))
			snprintf(l.paths[l.n++], sizeof(l.paths[0]), "%s", g.gl_pathv[0]);
		globfree(&g);
	}
	ASSERT_GE(l.n, 3, "libraries loaded by the unit binary");
	for (i = 0; i < l.n; i++) {
		bad += compare_module(l.paths[i], &checked, first, sizeof(first));
		total += checked;
	}
	ASSERT_GT(total, 10000, "addresses compared");
	if (bad)
		test__fail(__FILE__, __LINE__,
			   "%zu of %zu addresses named otherwise than by libdw, first %s", bad, total,
			   first);
}

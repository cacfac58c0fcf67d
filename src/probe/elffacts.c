// SPDX-License-Identifier: GPL-2.0
/* what an ELF file offers the attach (see elffacts.h) */
#include <errno.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "allocfns.h"
#include "elffacts.h"
#include "gopclntab.h"
#include "probesite.h"

static const char *const family_names[LIB__COUNT] = {
	[LIB_C] = "glibc",
	[LIB_STDCXX] = "libstdc++",
	[LIB_JEMALLOC] = "jemalloc",
	[LIB_TCMALLOC] = "tcmalloc",
	[LIB_MIMALLOC] = "mimalloc",
	[LIB_MUSL] = "musl",
	[LIB_PYMALLOC] = "pymalloc",
	[LIB_GO] = "Go",
	[LIB_NAMED] = "named",
};

const char *elffacts__family_name(enum library lib)
{
	return lib < LIB__COUNT ? family_names[lib] : NULL;
}

/* what every family that replaces malloc exports, and its operator new and
 * delete: their delete does not always go through a probed free */
#define STANDARD_API(lib)							\
	{ "free", FN_FREE_NESTED, lib },						\
	{ "malloc", FN_MALLOC, lib },						\
	{ "calloc", FN_CALLOC, lib },						\
	{ "realloc", FN_REALLOC, lib },						\
	{ "reallocarray", FN_REALLOCARRAY, lib },				\
	{ "posix_memalign", FN_POSIX_MEMALIGN, lib },				\
	{ "aligned_alloc", FN_ALIGNED_ALLOC, lib },				\
	{ "memalign", FN_MEMALIGN, lib },					\
	{ "valloc", FN_VALLOC, lib },						\
	{ "pvalloc", FN_PVALLOC, lib },						\
	{ "_Znwm", FN_NEW, lib },						\
	{ "_ZnwmRKSt9nothrow_t", FN_NEW, lib },					\
	{ "_Znam", FN_NEW_ARRAY, lib },						\
	{ "_ZnamRKSt9nothrow_t", FN_NEW_ARRAY, lib },				\
	{ "_ZnwmSt11align_val_t", FN_NEW_ALIGNED, lib },			\
	{ "_ZnwmSt11align_val_tRKSt9nothrow_t", FN_NEW_ALIGNED, lib },		\
	{ "_ZnamSt11align_val_t", FN_NEW_ARRAY_ALIGNED, lib },			\
	{ "_ZnamSt11align_val_tRKSt9nothrow_t", FN_NEW_ARRAY_ALIGNED, lib },	\
	{ "_ZdlPv", FN_FREE_NESTED, lib },						\
	{ "_ZdaPv", FN_FREE_NESTED, lib },						\
	{ "_ZdlPvm", FN_FREE_NESTED, lib },						\
	{ "_ZdaPvm", FN_FREE_NESTED, lib },						\
	{ "_ZdlPvSt11align_val_t", FN_FREE_NESTED, lib },				\
	{ "_ZdaPvSt11align_val_t", FN_FREE_NESTED, lib },				\
	{ "_ZdlPvmSt11align_val_t", FN_FREE_NESTED, lib },				\
	{ "_ZdaPvmSt11align_val_t", FN_FREE_NESTED, lib }

const struct probe_def elffacts__defs[] = {
	/* free and the thread-exit hook first: attached before the allocators,
	 * a block allocated under our probes is never released unseen */
	{ "free", FN_FREE, LIB_C },
	{ "__call_tls_dtors", FN_THREAD_EXIT, LIB_C },
	/* the program's own mappings, where it makes them (see the BPF side);
	 * munmap first, for the same reason */
	{ "munmap", FN_MUNMAP, LIB_C },
	{ "mmap", FN_MMAP, LIB_C },
	{ "mremap", FN_MREMAP, LIB_C },
	{ "mprotect", FN_MPROTECT, LIB_C },
	/* --leak-check: the process is held there, its memory whole: at the
	 * end of exit(), once its atexit handlers and destructors ran, as
	 * valgrind and LeakSanitizer check (and at a direct _exit) */
	{ "_exit", FN_EXIT, LIB_C },
	{ "malloc", FN_MALLOC, LIB_C },
	{ "calloc", FN_CALLOC, LIB_C },
	{ "realloc", FN_REALLOC, LIB_C },
	{ "reallocarray", FN_REALLOCARRAY, LIB_C },
	{ "posix_memalign", FN_POSIX_MEMALIGN, LIB_C },
	{ "aligned_alloc", FN_ALIGNED_ALLOC, LIB_C },
	{ "memalign", FN_MEMALIGN, LIB_C },
	{ "valloc", FN_VALLOC, LIB_C },
	{ "pvalloc", FN_PVALLOC, LIB_C },
	/* operator new: the stack at its return is complete even though
	 * libstdc++ has no frame pointers; its inner malloc counts as nested.
	 * operator delete is a tail call to free, which the free probe sees. */
	{ "_Znwm", FN_NEW, LIB_STDCXX },
	{ "_ZnwmRKSt9nothrow_t", FN_NEW, LIB_STDCXX },
	{ "_Znam", FN_NEW_ARRAY, LIB_STDCXX },
	{ "_ZnamRKSt9nothrow_t", FN_NEW_ARRAY, LIB_STDCXX },
	{ "_ZnwmSt11align_val_t", FN_NEW_ALIGNED, LIB_STDCXX },
	{ "_ZnwmSt11align_val_tRKSt9nothrow_t", FN_NEW_ALIGNED, LIB_STDCXX },
	{ "_ZnamSt11align_val_t", FN_NEW_ARRAY_ALIGNED, LIB_STDCXX },
	{ "_ZnamSt11align_val_tRKSt9nothrow_t", FN_NEW_ARRAY_ALIGNED, LIB_STDCXX },
	/* jemalloc (libjemalloc.so.2), and its own API */
	STANDARD_API(LIB_JEMALLOC),
	{ "sdallocx", FN_FREE_NESTED, LIB_JEMALLOC },
	{ "dallocx", FN_FREE_NESTED, LIB_JEMALLOC },
	{ "mallocx", FN_MALLOCX, LIB_JEMALLOC },
	{ "rallocx", FN_RALLOCX, LIB_JEMALLOC },
	{ "xallocx", FN_XALLOCX, LIB_JEMALLOC },
	/* gperftools' tcmalloc (libtcmalloc.so.4, libtcmalloc_minimal.so.4):
	 * its tc_* names are the same functions as the standard ones */
	STANDARD_API(LIB_TCMALLOC),
	/* it exports mmap, munmap and mremap of its own (for its hooks), which
	 * make the system calls themselves: the program's calls end there */
	{ "munmap", FN_MUNMAP, LIB_TCMALLOC },
	{ "mmap", FN_MMAP, LIB_TCMALLOC },
	{ "mremap", FN_MREMAP, LIB_TCMALLOC },
	/* mimalloc (libmimalloc.so.2), and its own API (mi_malloc, mi_calloc,
	 * mi_realloc and mi_free are malloc, calloc, realloc and free) */
	STANDARD_API(LIB_MIMALLOC),
	{ "mi_zalloc", FN_MI_ZALLOC, LIB_MIMALLOC },
	{ "mi_malloc_aligned", FN_MI_MALLOC_ALIGNED, LIB_MIMALLOC },
	{ "mi_zalloc_aligned", FN_MI_ZALLOC_ALIGNED, LIB_MIMALLOC },
	{ "mi_calloc_aligned", FN_MI_CALLOC_ALIGNED, LIB_MIMALLOC },
	{ "mi_realloc_aligned", FN_MI_REALLOC_ALIGNED, LIB_MIMALLOC },
	/* musl: its dynamic loader is its libc; or in a static executable */
	STANDARD_API(LIB_MUSL),
	{ "munmap", FN_MUNMAP, LIB_MUSL },
	{ "mmap", FN_MMAP, LIB_MUSL },
	{ "mremap", FN_MREMAP, LIB_MUSL },
	{ "mprotect", FN_MPROTECT, LIB_MUSL },
	{ "_Exit", FN_EXIT, LIB_MUSL },	/* musl's exit and _exit end there */
	/* CPython's pymalloc: the objects it serves from its pools, which it
	 * takes from malloc and mmap (calls nested in these: its own). Only
	 * where its entry points are the way in: see pymalloc_inlined(). Its
	 * own functions where the symbol table has them: the API's frees
	 * start with no instruction the kernel emulates (a single step each,
	 * half the cost of tracing a Python program), and behind the debug
	 * hooks (PYTHONMALLOC=debug) a block is the one pymalloc hands out */
	{ "_PyObject_Free", FN_PY_FREE, LIB_PYMALLOC },
	{ "_PyObject_Malloc", FN_PYMALLOC_MALLOC, LIB_PYMALLOC },
	{ "_PyObject_Calloc", FN_PYMALLOC_CALLOC, LIB_PYMALLOC },
	{ "_PyObject_Realloc", FN_PYMALLOC_REALLOC, LIB_PYMALLOC },
	{ "PyObject_Free", FN_FREE_NESTED, LIB_PYMALLOC },
	{ "PyMem_Free", FN_FREE_NESTED, LIB_PYMALLOC },
	{ "PyObject_Malloc", FN_PY_MALLOC, LIB_PYMALLOC },
	{ "PyObject_Calloc", FN_PY_CALLOC, LIB_PYMALLOC },
	{ "PyObject_Realloc", FN_PY_REALLOC, LIB_PYMALLOC },
	{ "PyMem_Malloc", FN_PYMEM_MALLOC, LIB_PYMALLOC },
	{ "PyMem_Calloc", FN_PYMEM_CALLOC, LIB_PYMALLOC },
	{ "PyMem_Realloc", FN_PYMEM_REALLOC, LIB_PYMALLOC },
	/* Go's heap: named by .gopclntab where the binary is stripped */
	{ "runtime.mallocgc", FN_GO_MALLOC, LIB_GO },
	/* not an allocator: the debugger hook, called as libraries come and go */
	{ "_dl_debug_state", FN_MAPS_CHANGE, LIB_LD },
};

#define NUM_DEFS (sizeof(elffacts__defs) / sizeof(elffacts__defs[0]))
_Static_assert(NUM_DEFS <= MAX_PROBE_DEFS, "MAX_PROBE_DEFS is too small for the table");
const size_t elffacts__ndefs = NUM_DEFS;

bool elffacts__entry_only(const struct probe_def *def)
{
	return allocfns__info(def->fn)->entry_only;
}

bool elffacts__maps_call(const struct probe_def *def)
{
	return allocfns__info(def->fn)->kind == CALL_MAP;
}

/* the executable PT_LOAD that holds x: a virtual address, or (by_offset) a
 * file offset; 0, or -errno */
static int code_segment(Elf *elf, uint64_t x, bool by_offset, GElf_Phdr *found)
{
	size_t i, n;

	if (elf_getphdrnum(elf, &n))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;
		uint64_t start;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		/* a mapping's offset is the segment's, rounded down to its page */
		start = by_offset ? ph.p_offset & ~4095ULL : ph.p_vaddr;
		if (x >= start && x < (by_offset ? ph.p_offset : ph.p_vaddr) + ph.p_filesz) {
			*found = ph;
			return 0;
		}
	}
	return -ENOENT;
}

/* p_vaddr - p_offset of the code segment that holds file offset off */
static int code_delta(Elf *elf, uint64_t off, uint64_t *delta)
{
	GElf_Phdr ph;
	int err = code_segment(elf, off, true, &ph);

	if (!err)
		*delta = ph.p_vaddr - ph.p_offset;
	return err;
}

int elffacts__vaddr_to_offset(Elf *elf, uint64_t vaddr, uint64_t *offset)
{
	GElf_Phdr ph;
	int err = code_segment(elf, vaddr, false, &ph);

	if (!err)
		*offset = vaddr - ph.p_vaddr + ph.p_offset;
	return err;
}

/* len bytes at vaddr, from the file's image of the segment that holds
 * them (read-only data: Py_Version, Go's version string); 0 or -ENOENT */
static int read_vaddr(Elf *elf, uint64_t vaddr, void *buf, size_t len)
{
	size_t i, n, size = 0;
	const char *image = elf_rawfile(elf, &size);

	if (!image || elf_getphdrnum(elf, &n))
		return -ENOENT;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD || vaddr < ph.p_vaddr ||
		    vaddr - ph.p_vaddr > ph.p_filesz || ph.p_filesz - (vaddr - ph.p_vaddr) < len ||
		    ph.p_offset > size || size - ph.p_offset < vaddr - ph.p_vaddr + len)
			continue;
		memcpy(buf, image + ph.p_offset + (vaddr - ph.p_vaddr), len);
		return 0;
	}
	return -ENOENT;
}

static const struct { const char *name; unsigned int mark; } markers[] = {
	{ "__dls3", MARK_DLS3 },
	{ "__libc_malloc_impl", MARK_MALLOC_IMPL },
	{ "__libc_malloc", MARK_LIBC_MALLOC },
	{ "__libc_start_main", MARK_START_MAIN },
	{ "malloc", MARK_MALLOC },
	{ "Builtins_JSEntry", MARK_V8 },
};

/* upstream Redis builds jemalloc with je_, Rust's tikv-jemallocator with _rjem_ */
static const char *const jemalloc_prefixes[] = { "je_", "_rjem_" };

static void scan_symbols(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh, struct elf_scan *scan)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	const char *base;
	size_t i, j, n;

	if (!data || !sh->sh_entsize)
		return;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < n; i++) {
		GElf_Sym sym;
		const char *name;

		if (!gelf_getsym(data, i, &sym) || sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name)
			continue;
		/* ld.so's debugger interface: whether the maps are consistent */
		if (GELF_ST_TYPE(sym.st_info) == STT_OBJECT && !strcmp(name, "_r_debug"))
			scan->r_debug = sym.st_value;
		if (GELF_ST_TYPE(sym.st_info) == STT_OBJECT && !strcmp(name, "_PyRuntime"))
			scan->py_runtime = sym.st_value;
		if (GELF_ST_TYPE(sym.st_info) == STT_OBJECT && !strcmp(name, "Py_Version"))
			scan->py_version_vaddr = sym.st_value;
		if (GELF_ST_TYPE(sym.st_info) == STT_FUNC && !strcmp(name, "_Py_NegativeRefcount"))
			scan->py_debug_build = true;
		if (GELF_ST_TYPE(sym.st_info) == STT_FUNC &&
		    !strcmp(name, "_PyEval_EvalFrameDefault")) {
			scan->py_eval = sym.st_value;
			scan->py_eval_size = sym.st_size;
		}
		if (GELF_ST_TYPE(sym.st_info) != STT_FUNC)
			continue;
		/* jemalloc built with a prefix: its names without it */
		base = name;
		for (j = 0; j < sizeof(jemalloc_prefixes) / sizeof(jemalloc_prefixes[0]); j++)
			if (!strncmp(name, jemalloc_prefixes[j], strlen(jemalloc_prefixes[j])))
				base = name + strlen(jemalloc_prefixes[j]);
		if (sh->sh_type == SHT_DYNSYM && !strcmp(name, "malloc"))
			scan->defines_malloc = true;
		/* a family is told by what only it exports */
		if (!strcmp(base, "mallocx")) {
			scan->family = LIB_JEMALLOC;
			scan->jemalloc_prefixed = base != name;
		} else if (!strcmp(name, "tc_malloc")) {
			scan->family = LIB_TCMALLOC;
		} else if (!strcmp(name, "mi_malloc")) {
			scan->family = LIB_MIMALLOC;
		}
		for (j = 0; j < sizeof(markers) / sizeof(markers[0]); j++)
			if (!strcmp(name, markers[j].name))
				scan->marks |= markers[j].mark;
		for (j = 0; scan->named && j < scan->named->count; j++)
			if (!scan->named_vaddr[j] && !strcmp(name, scan->named->fn[j].symbol))
				scan->named_vaddr[j] = sym.st_value;
		for (j = 0; j < NUM_DEFS; j++) {
			bool prefixed = elffacts__defs[j].lib == LIB_JEMALLOC && base != name;

			if (strcmp(elffacts__defs[j].lib == LIB_JEMALLOC ? base : name, elffacts__defs[j].symbol))
				continue;
			/* a prefixed name wins over the plain one, another family's */
			if (scan->vaddr[j] && (!prefixed || scan->from_prefix[j]))
				continue;
			scan->vaddr[j] = sym.st_value;
			scan->from_prefix[j] = prefixed;
		}
	}
}

static void read_soname(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh, struct elf_scan *scan)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, n;

	if (!data || !sh->sh_entsize)
		return;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < n; i++) {
		GElf_Dyn dyn;
		const char *name;

		if (!gelf_getdyn(data, i, &dyn))
			break;
		if (dyn.d_tag != DT_SONAME)
			continue;
		name = elf_strptr(elf, sh->sh_link, dyn.d_un.d_val);
		if (name)
			snprintf(scan->soname, sizeof(scan->soname), "%s", name);
	}
}

/* 17 of "go1.17.3"; 0 when it says no Go 1.x */
static unsigned int go_minor_of(const char *v, size_t len)
{
	unsigned int minor = 0;
	size_t i;

	if (len < 4 || memcmp(v, "go1.", 4))
		return 0;
	for (i = 4; i < len && v[i] >= '0' && v[i] <= '9' && minor < 1000; i++)
		minor = minor * 10 + (unsigned int)(v[i] - '0');
	return minor;
}

unsigned int elffacts__go_minor(const uint8_t *info, size_t len, Elf *elf)
{
	static const char magic[] = "\xff Go buildinf:";
	uint64_t str[2] = { 0, 0 }, ptr = 0;
	char version[32];
	size_t n, shift, at;

	if (len < 32 || memcmp(info, magic, 14) || info[14] != 8)
		return 0;
	if (info[15] & 2) {
		/* Go 1.18 on: the version inline at 32, after its varint length */
		for (n = 0, shift = 0, at = 32; at < len && shift < 28; at++, shift += 7) {
			n |= (size_t)(info[at] & 0x7f) << shift;
			if (!(info[at] & 0x80))
				break;
		}
		at++;
		return at < len && n <= len - at ? go_minor_of((const char *)info + at, n) : 0;
	}
	/* before: a pointer to runtime.buildVersion, a Go string */
	memcpy(&ptr, info + 16, 8);
	if (!elf || read_vaddr(elf, ptr, str, sizeof(str)) || !str[1] || str[1] > sizeof(version) ||
	    read_vaddr(elf, str[0], version, str[1]))
		return 0;
	return go_minor_of(version, str[1]);
}

/* a Go executable's functions that no symbol table named (stripped), from
 * the table its runtime reads for its tracebacks */
static void scan_go_functions(Elf *elf, struct elf_scan *scan)
{
	struct gopclntab *g = NULL;
	struct symtab_hit hit;
	size_t i, j;

	for (j = 0; j < NUM_DEFS; j++) {
		if (elffacts__defs[j].lib != LIB_GO || scan->vaddr[j] ||
		    (!g && gopclntab__new(elf, &g)))
			continue;
		for (i = 0; i < gopclntab__count(g) && !scan->vaddr[j]; i++)
			if (!gopclntab__at(g, i, &hit) && !strcmp(hit.name, elffacts__defs[j].symbol))
				scan->vaddr[j] = hit.value;
	}
	gopclntab__destroy(g);
}

int elffacts__scan(Elf *elf, struct elf_scan *scan, const struct named_fns *named)
{
	Elf_Scn *scn = NULL;
	enum library linked = LIB__COUNT;
	size_t j, names = 0;
	const char *name;
	bool libc;

	memset(scan, 0, sizeof(*scan));
	scan->named = named;
	scan->family = LIB__COUNT;
	scan->linked_libc = LIB__COUNT;
	if (elf_kind(elf) != ELF_K_ELF)
		return -ENOEXEC;
	if (elf_getshdrstrndx(elf, &names))
		names = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = names ? elf_strptr(elf, names, sh.sh_name) : NULL;
		if (name && !strcmp(name, ".go.buildinfo")) {
			Elf_Data *data = elf_getdata(scn, NULL);

			scan->marks |= MARK_GO;
			if (data && data->d_buf)
				scan->go_minor = elffacts__go_minor(data->d_buf, data->d_size, elf);
		}
		if (sh.sh_type == SHT_DYNSYM || sh.sh_type == SHT_SYMTAB)
			scan_symbols(elf, scn, &sh, scan);
		if (sh.sh_type == SHT_SYMTAB)
			scan->marks |= MARK_SYMTAB;
		if (sh.sh_type == SHT_DYNAMIC) {
			scan->marks |= MARK_DYNAMIC;
			read_soname(elf, scn, &sh, scan);
		}
	}
	if (!strncmp(scan->soname, "libc.so.6", 9))
		scan->family = LIB_C;
	else if (scan->marks & MARK_DLS3)
		scan->family = LIB_MUSL;
	libc = scan->family == LIB_C || scan->family == LIB_MUSL;
	scan->shared = libc || (scan->family == LIB_TCMALLOC && scan->soname[0]);
	if (!libc && !scan->defines_malloc && (scan->marks & MARK_MALLOC)) {
		/* a static executable: the allocator is linked in */
		if (scan->marks & MARK_MALLOC_IMPL)
			linked = LIB_MUSL;
		else if ((scan->marks & MARK_LIBC_MALLOC) && (scan->marks & MARK_START_MAIN))
			linked = LIB_C;
		if (scan->family == LIB__COUNT)
			scan->family = linked;
		else if (scan->family == LIB_JEMALLOC && scan->jemalloc_prefixed)
			scan->linked_libc = linked;
	}
	if (scan->marks & MARK_GO)
		scan_go_functions(elf, scan);
	/* a prefixed jemalloc's plain names are another family's */
	for (j = 0; scan->jemalloc_prefixed && j < NUM_DEFS; j++)
		if (elffacts__defs[j].lib == LIB_JEMALLOC && !scan->from_prefix[j])
			scan->vaddr[j] = 0;
	return 0;
}

bool elffacts__stripped_static(const struct elf_scan *scan)
{
	return !(scan->marks & (MARK_SYMTAB | MARK_DYNAMIC));
}

bool elffacts__is_library(const struct elf_scan *scan, enum library lib)
{
	switch (lib) {
	case LIB_STDCXX:
		return !strncmp(scan->soname, "libstdc++.so", 12);
	case LIB_LD:
		return !strncmp(scan->soname, "ld-linux", 8);
	case LIB_C:
	case LIB_MUSL:
		return scan->family == lib || scan->linked_libc == lib;
	case LIB_PYMALLOC:
		return scan->py_runtime != 0;
	case LIB_GO:
		/* its register ABI (Go 1.17 on): the size in rax */
		return (scan->marks & MARK_GO) && scan->go_minor >= 17;
	default:
		/* the malloc it defines is its own, or a prefixed jemalloc's */
		return scan->family == lib && (scan->defines_malloc || (scan->marks & MARK_MALLOC) ||
					       scan->jemalloc_prefixed);
	}
}

/* a function's code read for its probe site: the branches in it must not
 * land where the probe moves to (jemalloc's free is 2 KiB long) */
#define FN_CODE_BYTES 4096

/* a probe moves past instructions the kernel would single-step, while what
 * it reads is still in a register: the arguments, and for a return probe
 * or a nested free, the stack */
uint64_t elffacts__entry_shift(int fd, uint64_t offset, bool at_symbol, uint64_t *cookie)
{
	uint8_t code[FN_CODE_BYTES];
	struct probe_args args = { 0 };
	uint64_t shift;
	ssize_t n;

	if (at_symbol)
		return 0;
	n = pread(fd, code, sizeof(code), offset);
	if (n <= 0)
		return 0;
	allocfns__probe_reads(*cookie, &args.fixed, &args.moved);
	shift = probesite__shift(code, n, &args);
	if (shift)
		*cookie = allocfns__cookie_at(*cookie, args.at);
	return shift;
}

/* the code that names the pointer at slot, RIP-relative, as the last four
 * bytes of an instruction (a load of it, a jump or call through it) */
static size_t code_refs(Elf *elf, uint64_t slot)
{
	Elf_Scn *scn = NULL;
	size_t refs = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		GElf_Shdr sh;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || !(data = elf_getdata(scn, NULL)) ||
		    data->d_size < 4)
			continue;
		for (i = 0; i + 4 <= data->d_size; i++) {
			int32_t disp;

			memcpy(&disp, (const char *)data->d_buf + i, 4);
			refs += sh.sh_addr + i + 4 + (int64_t)disp == slot;
		}
	}
	return refs;
}

/* the functions that name the allocator's pointer itself: the dispatcher,
 * PyMem_GetAllocator, PyMem_SetAllocator, the debug hooks' set-up, ... */
#define PYMALLOC_OWN_REFS 12

/*
 * Whether some of pymalloc's calls do not go through PyObject_Malloc's
 * entry. A profile-guided, link-time optimized build (Debian's
 * /usr/bin/python3.11) inlines the allocator into ~190 callers, each
 * comparing the pointer with the allocator it guessed: a probe on the entry
 * would see a fraction of the objects, a silently wrong count. A build
 * whose PyObject_Malloc only jumps through the pointer (a libpython.so, a
 * plain build) is probed, unless the code names that pointer in many more
 * places than the allocator's own functions do (the dispatcher inlined).
 */
static bool pymalloc_inlined(Elf *elf, int fd, const struct file_facts *f)
{
	uint8_t code[64];
	uint64_t slot;
	size_t j;
	ssize_t n;

	for (j = 0; j < NUM_DEFS; j++)
		if (elffacts__defs[j].fn == FN_PY_MALLOC)
			break;
	if (j == NUM_DEFS || !f->has_offset[j])
		return false;
	n = pread(fd, code, sizeof(code), f->offset[j]);
	if (n <= 0)
		return true;
	switch (probesite__dispatch_slot(code, n, f->scan.vaddr[j], &slot)) {
	case 1:
		return code_refs(elf, slot) > PYMALLOC_OWN_REFS;
	case 0:
		/* through a register loaded from the GOT (3.12's _PyRuntime in a
		 * libpython.so): exported, so not inlined into its callers */
		return false;
	default:
		return true;
	}
}

/* a family's inner functions in place of its dispatchers, where the object
 * defines all of them; its dispatchers otherwise */
static void choose_inner(struct file_facts *f, enum library lib)
{
	bool inner = true;
	size_t j;

	for (j = 0; j < NUM_DEFS; j++)
		if (elffacts__defs[j].lib == lib && allocfns__info(elffacts__defs[j].fn)->inner)
			inner &= f->has_offset[j];
	for (j = 0; j < NUM_DEFS; j++)
		if (elffacts__defs[j].lib == lib &&
		    allocfns__info(elffacts__defs[j].fn)->inner != inner)
			f->has_offset[j] = false;
}

#define MAX_FILE_FACTS 1024

/* the daemon's whole life: a forking server's children map the same files
 * as their parent, and reading each one's symbol tables again for every
 * child took most of what a PostgreSQL connection cost */
static struct file_facts *file_facts;
static size_t nfile_facts;

static struct file_facts *read_facts(int fd, const struct stat *st, uint64_t map_offset,
				     const struct elffacts_opts *o)
{
	struct file_facts *f = calloc(1, sizeof(*f));
	size_t j;
	Elf *elf;

	if (!f)
		return NULL;
	f->dev = st->st_dev;
	f->ino = st->st_ino;
	f->size = st->st_size;
	f->mtime = st->st_mtim;
	f->map_offset = map_offset;
	f->at_symbol = o->at_symbol;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		free(f);
		return NULL;	/* not ELF: nothing we can probe */
	}
	f->err = elffacts__scan(elf, &f->scan, o->named);
	if (!f->err && (f->scan.r_debug || f->scan.py_runtime))
		f->delta_err = code_delta(elf, map_offset, &f->code_delta);
	if (!f->err && f->scan.py_runtime && f->scan.py_eval && f->scan.py_version_vaddr &&
	    read_vaddr(elf, f->scan.py_version_vaddr, &f->py_version, sizeof(uint32_t)))
		f->py_version = 0;
	for (j = 0; !f->err && j < NUM_DEFS; j++) {
		if (!f->scan.vaddr[j] ||
		    elffacts__vaddr_to_offset(elf, f->scan.vaddr[j], &f->offset[j]))
			continue;
		f->has_offset[j] = true;
		f->cookie[j] = allocfns__cookie(elffacts__defs[j].fn);
		f->shift[j] = elffacts__entry_shift(fd, f->offset[j], o->at_symbol, &f->cookie[j]);
	}
	if (!f->err && f->scan.py_runtime) {
		f->pymalloc_inlined = pymalloc_inlined(elf, fd, f);
		choose_inner(f, LIB_PYMALLOC);
	}
	for (j = 0; !f->err && o->named && j < o->named->count; j++) {
		if (!f->scan.named_vaddr[j] ||
		    elffacts__vaddr_to_offset(elf, f->scan.named_vaddr[j], &f->named_offset[j]))
			continue;
		f->has_named[j] = true;
		f->named_cookie[j] = named__cookie(o->named, j);
		f->named_shift[j] = elffacts__entry_shift(fd, f->named_offset[j], o->at_symbol,
							  &f->named_cookie[j]);
	}
	elf_end(elf);
	return f;
}

const struct file_facts *elffacts__of(int fd, uint64_t map_offset, const struct elffacts_opts *o,
				      struct file_facts **uncached)
{
	struct file_facts *f;
	struct stat st;

	*uncached = NULL;
	if (fstat(fd, &st))
		return NULL;
	for (f = file_facts; f; f = f->next)
		if (f->dev == st.st_dev && f->ino == st.st_ino && f->size == st.st_size &&
		    f->mtime.tv_sec == st.st_mtim.tv_sec && f->mtime.tv_nsec == st.st_mtim.tv_nsec &&
		    f->map_offset == map_offset && f->at_symbol == o->at_symbol)
			return f;
	f = read_facts(fd, &st, map_offset, o);
	if (!f)
		return NULL;
	if (nfile_facts == MAX_FILE_FACTS) {
		*uncached = f;	/* the caller frees it */
		return f;
	}
	f->next = file_facts;
	file_facts = f;
	nfile_facts++;
	return f;
}

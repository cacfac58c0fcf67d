/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_ELFFACTS_H
#define TRACELLOC_ELFFACTS_H

#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "named.h"
#include "tracelloc.h"

/*
 * What an ELF file offers the attach: which allocator family it is, where
 * each function of the families' tables is (as a file offset, past what
 * the kernel would single-step), where the program's own named allocators
 * are, ld.so's debugger interface. Read once per file for the daemon's life
 * (a forking server's children map the files their parent did).
 */

/* where a probe_def is looked for: glibc's libc, libstdc++, ld.so, or a
 * library of another allocator family that replaces malloc (elffacts__is_library) */
enum library {
	LIB_C, LIB_STDCXX, LIB_LD, LIB_JEMALLOC, LIB_TCMALLOC, LIB_MIMALLOC, LIB_MUSL,
	LIB_PYMALLOC,	/* CPython's object allocator, in its interpreter */
	LIB_GO,		/* Go's heap (runtime.mallocgc), in a Go executable */
	LIB_NAMED,	/* the program's own allocators (named.h), in any object */
	LIB__COUNT
};

struct probe_def {
	const char *symbol;
	enum alloc_fn fn;	/* its row in allocfns.c */
	enum library lib;
};

/* room for the table of every family's functions (elffacts.c) */
#define MAX_PROBE_DEFS 176

extern const struct probe_def elffacts__defs[];
extern const size_t elffacts__ndefs;

/* "glibc", "jemalloc", ...; NULL for ld.so */
const char *elffacts__family_name(enum library lib);
/* frees and the thread-exit hook allocate nothing: no return probe */
bool elffacts__entry_only(const struct probe_def *def);
/* mmap, munmap, mremap, mprotect: not an allocator's, the program's own mappings */
bool elffacts__maps_call(const struct probe_def *def);

/* symbols that tell a family where no soname does (elffacts__scan) */
enum {
	MARK_DLS3 = 1,		/* __dls3: musl's dynamic loader, which is its libc */
	MARK_MALLOC_IMPL = 2,	/* __libc_malloc_impl: musl's malloc, linked in */
	MARK_LIBC_MALLOC = 4,	/* __libc_malloc: glibc's, linked in (or musl's) */
	MARK_START_MAIN = 8,	/* __libc_start_main */
	MARK_MALLOC = 16,	/* malloc, in any symbol table */
	MARK_SYMTAB = 32,	/* a .symtab at all */
	MARK_DYNAMIC = 64,	/* a .dynamic at all */
	MARK_GO = 128,		/* a .go.buildinfo section: Go's runtime, whose calls are raw */
	MARK_V8 = 256,		/* Builtins_JSEntry: V8 (node), whose JIT code has no symbols */
};

struct elf_scan {
	uint64_t vaddr[MAX_PROBE_DEFS];	/* 0: not defined */
	char soname[64];
	bool defines_malloc;		/* exports malloc (.dynsym) */
	bool jemalloc_prefixed;		/* je_mallocx, _rjem_mallocx: malloc stays another's */
	bool from_prefix[MAX_PROBE_DEFS];	/* a jemalloc def found under its prefix */
	/* a static executable's own libc allocator, beside a prefixed jemalloc
	 * (Rust's tikv-jemallocator in a static musl binary): LIB__COUNT, none */
	enum library linked_libc;
	unsigned int marks;
	enum library family;		/* LIB__COUNT: none */
	/* a shared library (glibc's or musl's libc.so, tcmalloc's), not an
	 * allocator linked into a program: its mmap is where the program's
	 * calls go */
	bool shared;
	uint64_t r_debug;		/* ld.so's _r_debug, its vaddr; 0: none */
	/* CPython's interpreter: _PyRuntime, Py_Version (vaddrs) and the
	 * eval loop's code (_PyEval_EvalFrameDefault); 0: none */
	uint64_t py_runtime, py_version_vaddr, py_eval, py_eval_size;
	bool py_debug_build;
	unsigned int go_minor;	/* 19 of Go 1.19, from .go.buildinfo; 0: not known */	/* _Py_NegativeRefcount: Py_DEBUG, its debug hooks on */
	const struct named_fns *named;	/* looked for as well */
	uint64_t named_vaddr[MAX_NAMED_FNS];
};

/*
 * What a file offers, as the attach needs it (the cache's entry).
 */
struct file_facts {
	struct file_facts *next;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	uint64_t map_offset;		/* of the mapping (ld.so's code delta) */
	bool at_symbol;			/* --probe-at-symbol: no entry shifts */
	int err;			/* elffacts__scan's */
	struct elf_scan scan;
	int delta_err;
	uint64_t code_delta;
	/* CPython's Py_Version (0x030b07f0: 3.11.7), read from the file; 0:
	 * not an interpreter, or one whose version could not be read */
	uint32_t py_version;
	/* pymalloc's calls do not all go through its entry points: not probed */
	bool pymalloc_inlined;
	bool has_offset[MAX_PROBE_DEFS];
	uint64_t offset[MAX_PROBE_DEFS];	/* of each def's vaddr in the file */
	uint64_t shift[MAX_PROBE_DEFS];		/* the probe's, past the offset */
	uint64_t cookie[MAX_PROBE_DEFS];	/* the probe's, there */
	/* the program's own allocators' (named.h) */
	bool has_named[MAX_NAMED_FNS];
	uint64_t named_offset[MAX_NAMED_FNS];
	uint64_t named_shift[MAX_NAMED_FNS];
	uint64_t named_cookie[MAX_NAMED_FNS];
};

struct elffacts_opts {
	bool at_symbol;				/* --probe-at-symbol: no entry shifts */
	const struct named_fns *named;		/* NULL: none */
	const struct probe_def *named_defs;	/* theirs, by index */
};

/* the facts of the file open as fd, mapped at map_offset; NULL when it is
 * no ELF file (or out of memory). Owned by the cache, but for *uncached,
 * set when the cache is full: the caller frees that */
const struct file_facts *elffacts__of(int fd, uint64_t map_offset, const struct elffacts_opts *o,
				      struct file_facts **uncached);

/* the minor version of Go that built a program, from its .go.buildinfo
 * (info, len); elf for the older layout's pointers; 0: not known */
unsigned int elffacts__go_minor(const uint8_t *info, size_t len, Elf *elf);
/* the scan itself (the fuzz harness calls it on its own) */
int elffacts__scan(Elf *elf, struct elf_scan *scan, const struct named_fns *named);
/* file offset of a virtual address, through the code segment that holds it */
int elffacts__vaddr_to_offset(Elf *elf, uint64_t vaddr, uint64_t *offset);
/* how far past offset the probe with *cookie goes (0 with at_symbol), and
 * its cookie there, which says where the arguments are */
uint64_t elffacts__entry_shift(int fd, uint64_t offset, bool at_symbol, uint64_t *cookie);
/* a static executable stripped of its symbols: nothing names its malloc */
bool elffacts__stripped_static(const struct elf_scan *scan);
/* the file is lib's: a probe_def of that library is looked for in it */
bool elffacts__is_library(const struct elf_scan *scan, enum library lib);

#endif

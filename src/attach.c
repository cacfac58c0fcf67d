// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "attach.h"
#include "closer.h"
#include "maps.h"
#include "allocfns.h"
#include "named.h"
#include "probesite.h"
#include "tracelloc.h"
#include "tracelloc.skel.h"

/* where a probe_def is looked for: glibc's libc, libstdc++, ld.so, or a
 * library of another allocator family that replaces malloc (is_library) */
enum library {
	LIB_C, LIB_STDCXX, LIB_LD, LIB_JEMALLOC, LIB_TCMALLOC, LIB_MIMALLOC, LIB_MUSL,
	LIB_NAMED,	/* the program's own allocators (named.h), in any object */
	LIB__COUNT
};

static const char *const family_names[LIB__COUNT] = {
	[LIB_C] = "glibc",
	[LIB_STDCXX] = "libstdc++",
	[LIB_JEMALLOC] = "jemalloc",
	[LIB_TCMALLOC] = "tcmalloc",
	[LIB_MIMALLOC] = "mimalloc",
	[LIB_MUSL] = "musl",
	[LIB_NAMED] = "named",
};

const char *attach__families(void)
{
	static char list[128];
	size_t len = 0;
	int lib;

	if (list[0])
		return list;
	for (lib = 0; lib < LIB__COUNT; lib++)
		if (lib != LIB_STDCXX && lib != LIB_LD && lib != LIB_NAMED && family_names[lib])
			len += snprintf(list + len, sizeof(list) - len, "%s%s", len ? ", " : "",
					family_names[lib]);
	return list;
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

struct probe_def {
	const char *symbol;
	enum alloc_fn fn;	/* its row in allocfns.c */
	enum library lib;
};

static const struct probe_def probe_defs[] = {
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
	/* --leak-check: the process is held there, its memory whole */
	{ "exit", FN_EXIT, LIB_C },
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
	{ "exit", FN_EXIT, LIB_MUSL },
	/* not an allocator: the debugger hook, called as libraries come and go */
	{ "_dl_debug_state", FN_MAPS_CHANGE, LIB_LD },
};

#define NUM_DEFS (sizeof(probe_defs) / sizeof(probe_defs[0]))

struct site {
	const struct probe_def *def;
	size_t object;		/* index into objects */
	uint64_t file_offset;	/* where the probe goes */
	uint64_t shift;		/* past the symbol, for an entry-only probe */
	uint64_t cookie;	/* its probes' */
};

/* a file, as the maps name it */
struct file_id {
	uint64_t inode;
	unsigned int dev_major;
	unsigned int dev_minor;
};

struct object {
	char *name;		/* path as the target maps it */
	/* /proc/self/fd/FD of our own fd of the file, opened safely: the kernel
	 * puts the probes on that very file, whatever the name leads to now */
	char *open_path;
	int fd;
	int sites[LIB__COUNT];	/* allocator functions probed in it, by family */
	bool mapped;		/* by the maps last examined (an exec unmaps all) */
	bool library;		/* a shared library (it has a SONAME) */
	uint64_t code_start;	/* its executable mapping, as last examined */
	uint64_t code_end;
};

struct attach {
	struct tracelloc_bpf *skel;
	pid_t pid;
	pid_t probe_pid;	/* the pid the probes filter on (see probe_pid()) */
	struct attach_opts opts;
	struct object *objects;
	size_t nobjects;
	/* the allocators' functions, then those of the program's own (named) */
	struct site sites[NUM_DEFS + 2 * MAX_NAMED_FNS];
	size_t nsites;
	size_t nfamily_sites;	/* of probe_defs: one allocator is what we trace */
	struct probe_def named_defs[MAX_NAMED_FNS];
	bool multi;		/* one uprobe_multi link per object and direction */
	struct bpf_link **links; /* otherwise one perf-event link per probe */
	size_t nlinks;
	int *link_fds;		/* the uprobe_multi links */
	size_t nlink_fds;
	int nprobes;
	char *culprit;
	bool stripped;		/* a mapped object had no symbol table at all */
	bool go;		/* Go's runtime is mapped: it makes raw system calls */
	/* ld.so's _r_debug: its file, its vaddr, and the vaddr less the file
	 * offset of the code's segment; where it is now (0: unknown) */
	struct file_id ld_file;
	uint64_t r_debug_vaddr;
	uint64_t ld_code_delta;
	uint64_t r_debug_addr;
	struct file_id go_file;	/* the file of a Go program examined */
	uint64_t loader_start;	/* the dynamic loader's code */
	uint64_t loader_end;
	struct file_id *seen;	/* the files examined, probed or not */
	size_t nseen;
	size_t attached_objects; /* objects[] (uprobe_multi) or sites[] (perf links) */
	size_t attached_sites;	 /* below these have their probes */
	size_t described;	/* objects told of */
};


struct attach *attach__new(struct tracelloc_bpf *skel, pid_t pid, const struct attach_opts *opts)
{
	struct attach *a = calloc(1, sizeof(*a));
	size_t i;

	if (!a)
		return NULL;
	a->skel = skel;
	a->pid = pid;
	if (opts)
		a->opts = *opts;
	for (i = 0; a->opts.named && i < a->opts.named->count; i++) {
		static const enum alloc_fn fns[] = {
			[NAMED_ALLOC] = FN_NAMED, [NAMED_REALLOC] = FN_NAMED,
			[NAMED_FREE] = FN_NAMED_FREE, [NAMED_POOL_DESTROY] = FN_POOL_DESTROY,
			[NAMED_POOL_CREATE] = FN_POOL_CREATE,
		};
		const struct named_fn *f = &a->opts.named->fn[i];

		a->named_defs[i] = (struct probe_def){ .symbol = f->symbol, .fn = fns[f->kind],
						       .lib = LIB_NAMED };
	}
	return a;
}

static void destroy_link(void *link)
{
	bpf_link__destroy(link);
}

void attach__destroy(struct attach *a)
{
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->nlinks; i++)
		closer__call(a->opts.closer, destroy_link, a->links[i]);
	/* unregistering waits for grace periods: not on this thread */
	for (i = 0; i < a->nlink_fds; i++)
		closer__add(a->opts.closer, a->link_fds[i]);
	free(a->link_fds);
	for (i = 0; i < a->nobjects; i++) {
		free(a->objects[i].name);
		free(a->objects[i].open_path);
		if (a->objects[i].fd >= 0)
			close(a->objects[i].fd);
	}
	free(a->objects);
	free(a->seen);
	free(a->links);
	free(a->culprit);
	free(a);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
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

/* file offset of a virtual address, through the code segment that holds it */
static int vaddr_to_offset(Elf *elf, uint64_t vaddr, uint64_t *offset)
{
	GElf_Phdr ph;
	int err = code_segment(elf, vaddr, false, &ph);

	if (!err)
		*offset = vaddr - ph.p_vaddr + ph.p_offset;
	return err;
}

/* symbols that tell a family where no soname does (scan_elf) */
enum {
	MARK_DLS3 = 1,		/* __dls3: musl's dynamic loader, which is its libc */
	MARK_MALLOC_IMPL = 2,	/* __libc_malloc_impl: musl's malloc, linked in */
	MARK_LIBC_MALLOC = 4,	/* __libc_malloc: glibc's, linked in (or musl's) */
	MARK_START_MAIN = 8,	/* __libc_start_main */
	MARK_MALLOC = 16,	/* malloc, in any symbol table */
	MARK_SYMTAB = 32,	/* a .symtab at all */
	MARK_DYNAMIC = 64,	/* a .dynamic at all */
	MARK_GO = 128,		/* a .go.buildinfo section: Go's runtime, whose calls are raw */
};

struct elf_scan {
	uint64_t vaddr[NUM_DEFS];	/* 0: not defined */
	char soname[64];
	bool defines_malloc;		/* exports malloc (.dynsym) */
	bool jemalloc_prefixed;		/* je_mallocx, _rjem_mallocx: malloc stays another's */
	bool from_prefix[NUM_DEFS];	/* a jemalloc def found under its prefix */
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
	const struct named_fns *named;	/* looked for as well */
	uint64_t named_vaddr[MAX_NAMED_FNS];
};

static const struct { const char *name; unsigned int mark; } markers[] = {
	{ "__dls3", MARK_DLS3 },
	{ "__libc_malloc_impl", MARK_MALLOC_IMPL },
	{ "__libc_malloc", MARK_LIBC_MALLOC },
	{ "__libc_start_main", MARK_START_MAIN },
	{ "malloc", MARK_MALLOC },
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
			bool prefixed = probe_defs[j].lib == LIB_JEMALLOC && base != name;

			if (strcmp(probe_defs[j].lib == LIB_JEMALLOC ? base : name, probe_defs[j].symbol))
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

static int scan_elf(Elf *elf, struct elf_scan *scan, const struct named_fns *named)
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
		if (name && !strcmp(name, ".go.buildinfo"))
			scan->marks |= MARK_GO;
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
	/* a prefixed jemalloc's plain names are another family's */
	for (j = 0; scan->jemalloc_prefixed && j < NUM_DEFS; j++)
		if (probe_defs[j].lib == LIB_JEMALLOC && !scan->from_prefix[j])
			scan->vaddr[j] = 0;
	return 0;
}

/* a static executable stripped of its symbols: nothing names its malloc */
static bool stripped_static(const struct elf_scan *scan)
{
	return !(scan->marks & (MARK_SYMTAB | MARK_DYNAMIC));
}

static bool is_library(const struct elf_scan *scan, enum library lib)
{
	switch (lib) {
	case LIB_STDCXX:
		return !strncmp(scan->soname, "libstdc++.so", 12);
	case LIB_LD:
		return !strncmp(scan->soname, "ld-linux", 8);
	case LIB_C:
	case LIB_MUSL:
		return scan->family == lib || scan->linked_libc == lib;
	default:
		/* the malloc it defines is its own, or a prefixed jemalloc's */
		return scan->family == lib && (scan->defines_malloc || (scan->marks & MARK_MALLOC) ||
					       scan->jemalloc_prefixed);
	}
}

static int add_object(struct attach *a, const char *name, int fd)
{
	struct object *grown = realloc(a->objects, (a->nobjects + 1) * sizeof(*grown));
	struct object *o;
	char open_path[64];

	if (!grown)
		return -ENOMEM;
	a->objects = grown;
	o = &grown[a->nobjects];
	memset(o, 0, sizeof(*o));
	o->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (o->fd < 0)
		return -errno;
	snprintf(open_path, sizeof(open_path), "/proc/self/fd/%d", o->fd);
	o->name = strdup(name);
	o->open_path = strdup(open_path);
	a->nobjects++;
	if (!o->name || !o->open_path)
		return -ENOMEM;
	return 0;
}

static bool entry_only(const struct probe_def *def);

/* mmap, munmap, mremap, mprotect: not an allocator's, the program's own mappings */
static bool maps_call(const struct probe_def *def)
{
	return allocfns__info(def->fn)->kind == CALL_MAP;
}

/* a probe moves past instructions the kernel would single-step, where the
 * arguments (and for a return probe, the stack) are still the caller's */
static uint64_t entry_shift(const struct attach *a, int fd, const struct probe_def *def,
			    uint64_t offset)
{
	uint8_t code[32];
	ssize_t n;

	if (a->opts.probe_at_symbol)
		return 0;
	n = pread(fd, code, sizeof(code), offset);
	if (n <= 0)
		return 0;
	return entry_only(def) ? probesite__entry_shift(code, n) : probesite__return_shift(code, n);
}

static bool site_at(const struct attach *a, size_t object, uint64_t offset)
{
	size_t i;

	for (i = 0; i < a->nsites; i++)
		if (a->sites[i].object == object && a->sites[i].file_offset == offset)
			return true;
	return false;
}

/*
 * What a file offers, as examine_object needs it: read once per file for
 * the daemon's life. A forking server's children map the same files as
 * their parent: reading each one's symbol tables again for every child took
 * most of what a PostgreSQL connection cost.
 */
struct file_facts {
	struct file_facts *next;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	uint64_t map_offset;		/* of the mapping (ld.so's code delta) */
	bool at_symbol;			/* --probe-at-symbol: no entry shifts */
	int err;			/* scan_elf's */
	struct elf_scan scan;
	int delta_err;
	uint64_t code_delta;
	bool has_offset[NUM_DEFS];
	uint64_t offset[NUM_DEFS];	/* of each def's vaddr in the file */
	uint64_t shift[NUM_DEFS];
	/* the program's own allocators' (named.h) */
	bool has_named[MAX_NAMED_FNS];
	uint64_t named_offset[MAX_NAMED_FNS];
	uint64_t named_shift[MAX_NAMED_FNS];
};

#define MAX_FILE_FACTS 1024

static struct file_facts *file_facts;
static size_t nfile_facts;

static struct file_facts *read_facts(const struct attach *a, int fd, const struct stat *st,
				     uint64_t map_offset)
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
	f->at_symbol = a->opts.probe_at_symbol;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		free(f);
		return NULL;	/* not ELF: nothing we can probe */
	}
	f->err = scan_elf(elf, &f->scan, a->opts.named);
	if (!f->err && f->scan.r_debug)
		f->delta_err = code_delta(elf, map_offset, &f->code_delta);
	for (j = 0; !f->err && j < NUM_DEFS; j++) {
		if (!f->scan.vaddr[j] || vaddr_to_offset(elf, f->scan.vaddr[j], &f->offset[j]))
			continue;
		f->has_offset[j] = true;
		f->shift[j] = entry_shift(a, fd, &probe_defs[j], f->offset[j]);
	}
	for (j = 0; !f->err && a->opts.named && j < a->opts.named->count; j++) {
		if (!f->scan.named_vaddr[j] ||
		    vaddr_to_offset(elf, f->scan.named_vaddr[j], &f->named_offset[j]))
			continue;
		f->has_named[j] = true;
		f->named_shift[j] = entry_shift(a, fd, &a->named_defs[j], f->named_offset[j]);
	}
	elf_end(elf);
	return f;
}

/* the facts of the file open as fd, mapped at map_offset; NULL when it is
 * no ELF file (or out of memory). Owned by the cache */
static const struct file_facts *facts_of(const struct attach *a, int fd, uint64_t map_offset,
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
		    f->map_offset == map_offset && f->at_symbol == a->opts.probe_at_symbol)
			return f;
	f = read_facts(a, fd, &st, map_offset);
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

static int add_site(struct attach *a, const struct probe_def *def, const struct mapping *m, int fd,
		    bool *any, uint64_t offset, uint64_t shift)
{
	int err;

	if (!*any) {
		err = add_object(a, m->path, fd);
		if (err)
			return err;
		*any = true;
	}
	if (site_at(a, a->nobjects - 1, offset + shift))
		return 0;
	if (a->nsites == sizeof(a->sites) / sizeof(a->sites[0]))
		return -E2BIG;
	a->sites[a->nsites++] = (struct site){ .def = def, .object = a->nobjects - 1,
					       .file_offset = offset + shift, .shift = shift,
					       .cookie = named__cookie(a->opts.named, def - a->named_defs) };
	a->objects[a->nobjects - 1].sites[def->lib]++;
	return 0;
}

/* the program's own allocators defined in the object */
static int examine_named(struct attach *a, const struct mapping *m, const struct file_facts *f,
			 int fd, bool *any)
{
	size_t j;
	int err;

	for (j = 0; a->opts.named && j < a->opts.named->count; j++) {
		if (!f->has_named[j] ||
		    !named__in_object(&a->opts.named->fn[j], m->path, f->scan.soname))
			continue;
		err = add_site(a, &a->named_defs[j], m, fd, any, f->named_offset[j],
			       f->named_shift[j]);
		if (err)
			return err;
		if (*any)
			a->objects[a->nobjects - 1].library = f->scan.soname[0] != '\0';
	}
	return 0;
}

/* records the sites one mapped object offers; *foreign set when it is an
 * allocator we do not trace */
static int examine_object(struct attach *a, const struct mapping *m, bool *foreign)
{
	struct file_facts *uncached;
	const struct file_facts *f;
	const struct elf_scan *scan;
	bool any = false;
	size_t j;
	int fd, err;

	fd = maps__open(a->pid, m);
	if (fd == -ESTALE)
		return 0;	/* remapped meanwhile: not the object the maps named */
	if (fd < 0)
		return fd == -ENOENT ? -ESRCH : fd;
	f = facts_of(a, fd, m->offset, &uncached);
	if (!f) {
		close(fd);
		return 0;	/* not ELF: nothing we can probe */
	}
	scan = &f->scan;
	err = f->err;
	if (err)
		goto out;
	if (scan->defines_malloc && strncmp(scan->soname, "ld-linux", 8) &&
	    scan->family == LIB__COUNT) {
		*foreign = true;
		goto out;
	}
	if (stripped_static(scan))
		a->stripped = true;
	if (scan->marks & MARK_GO)
		a->go_file = (struct file_id){ m->inode, m->dev_major, m->dev_minor };
	if (scan->r_debug && !strncmp(scan->soname, "ld-linux", 8) && !f->delta_err) {
		a->ld_code_delta = f->code_delta;
		a->ld_file = (struct file_id){ m->inode, m->dev_major, m->dev_minor };
		a->r_debug_vaddr = scan->r_debug;
	}
	for (j = 0; j < NUM_DEFS; j++) {
		uint64_t offset, shift;

		if (!f->has_offset[j] || !is_library(scan, probe_defs[j].lib) ||
		    (maps_call(&probe_defs[j]) && a->opts.no_mmap) ||
		    (probe_defs[j].fn == FN_EXIT && !a->opts.hold_at_exit))
			continue;
		offset = f->offset[j];
		/* a second glibc, from another file: one allocator is what we trace */
		if (a->nfamily_sites == NUM_DEFS) {
			*foreign = true;
			goto out;
		}
		if (!any) {
			err = add_object(a, m->path, fd);
			if (err)
				goto out;
			a->objects[a->nobjects - 1].library = scan->soname[0] != '\0';
			any = true;
		}
		shift = f->shift[j];
		/* aliases (aligned_alloc = memalign) share one probe */
		if (site_at(a, a->nobjects - 1, offset + shift))
			continue;
		a->sites[a->nsites].def = &probe_defs[j];
		a->sites[a->nsites].object = a->nobjects - 1;
		a->sites[a->nsites].file_offset = offset + shift;
		a->sites[a->nsites].shift = shift;
		a->sites[a->nsites].cookie = allocfns__cookie(probe_defs[j].fn);
		a->nsites++;
		a->nfamily_sites++;
		/* the allocator's functions, as the user knows them */
		/* the functions of a family: exit is the leak check's, not its */
		if (probe_defs[j].lib != LIB_LD && !maps_call(&probe_defs[j]) &&
		    probe_defs[j].fn != FN_EXIT)
			a->objects[a->nobjects - 1].sites[probe_defs[j].lib]++;
	}
	err = examine_named(a, m, f, fd, &any);
out:
	free(uncached);
	close(fd);
	return err;
}

/* was the file of mapping m looked at already? A file mapped twice (dlmopen
 * loads a second copy of libc) is probed once: its probes fire in every
 * mapping of it */
static bool examined(const struct attach *a, const struct mapping *m)
{
	size_t j;

	for (j = 0; j < a->nseen; j++)
		if (a->seen[j].inode == m->inode && a->seen[j].dev_major == m->dev_major &&
		    a->seen[j].dev_minor == m->dev_minor)
			return true;
	return false;
}

static int remember(struct attach *a, const struct mapping *m)
{
	struct file_id *grown = realloc(a->seen, (a->nseen + 1) * sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	a->seen = grown;
	grown[a->nseen++] = (struct file_id){ m->inode, m->dev_major, m->dev_minor };
	return 0;
}

/* which objects the maps hold now; is Go's runtime one of them? */
static void note_mapped(struct attach *a, const struct maps *maps)
{
	size_t i, j;

	a->go = false;
	a->r_debug_addr = 0;
	for (j = 0; j < a->nobjects; j++)
		a->objects[j].mapped = false;
	for (i = 0; i < maps->count; i++) {
		const struct mapping *m = &maps->mappings[i];

		if (!m->exec || !m->path)
			continue;
		for (j = 0; j < a->nobjects; j++) {
			struct object *o = &a->objects[j];

			if (strcmp(o->name, m->path))
				continue;
			if (!o->mapped) {
				o->code_start = m->start;
				o->code_end = m->end;
			}
			o->mapped = true;
		}
		a->go |= a->go_file.inode && m->inode == a->go_file.inode &&
			 m->dev_major == a->go_file.dev_major && m->dev_minor == a->go_file.dev_minor;
		/* the load base: the code's place less its vaddr */
		if (!a->r_debug_addr && a->r_debug_vaddr && m->inode == a->ld_file.inode &&
		    m->dev_major == a->ld_file.dev_major && m->dev_minor == a->ld_file.dev_minor)
			a->r_debug_addr = m->start - m->offset - a->ld_code_delta + a->r_debug_vaddr;
	}
}

/* the files of the maps not examined yet; and where ld.so's code is now */
static int examine_maps(struct attach *a, const struct maps *maps)
{
	size_t i;
	int err;

	a->loader_start = a->loader_end = 0;
	for (i = 0; i < maps->count; i++) {
		const struct mapping *m = &maps->mappings[i];
		bool foreign = false;

		if (!m->exec || !m->path || m->path[0] != '/')
			continue;
		if (!a->loader_end && !strncmp(base_name(m->path), "ld-linux", 8)) {
			a->loader_start = m->start;
			a->loader_end = m->end;
		}
		if (examined(a, m))
			continue;
		err = examine_object(a, m, &foreign);
		if (!err)
			err = remember(a, m);
		if (err)
			return err;
		if (foreign) {
			free(a->culprit);
			a->culprit = strdup(m->path);
			return -EMEDIUMTYPE;
		}
	}
	note_mapped(a, maps);
	return 0;
}

/* does an object the maps hold now have a probed malloc? */
static bool maps_malloc(const struct attach *a, const struct maps *maps)
{
	size_t i, j;

	for (j = 0; j < a->nsites; j++) {
		const struct object *o = &a->objects[a->sites[j].object];

		if (a->sites[j].def->fn != FN_MALLOC)
			continue;
		for (i = 0; i < maps->count; i++)
			if (maps->mappings[i].exec && maps->mappings[i].path &&
			    !strcmp(maps->mappings[i].path, o->name))
				return true;
	}
	return false;
}

int attach__find(struct attach *a)
{
	struct maps maps;
	int err;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOTSUP;
	err = maps__read(a->pid, &maps);
	if (err)
		return err;
	err = examine_maps(a, &maps);
	if (!err && !maps_malloc(a, &maps))
		err = a->stripped ? -ENOEXEC : -ENOENT;
	maps__clear(&maps);
	return err;
}

#define UPROBE_MULTI_RETURN 1
#define TRACE_UPROBE_MULTI 48	/* enum bpf_attach_type, Linux 6.6; not in Debian 12's headers */

/* free and the thread-exit hook allocate nothing: no return probe */
static bool entry_only(const struct probe_def *def)
{
	return allocfns__info(def->fn)->entry_only;
}

/* BPF_LINK_CREATE for uprobe_multi, which Debian's libbpf 1.1 cannot make;
 * the kernel's layout, so members we leave zero are there all the same */
struct link_create_uprobe_multi {
	uint32_t prog_fd;
	uint32_t target_fd;		/* cppcheck-suppress unusedStructMember */
	uint32_t attach_type;
	uint32_t flags;			/* cppcheck-suppress unusedStructMember */
	uint64_t path;
	uint64_t offsets;
	uint64_t ref_ctr_offsets;	/* cppcheck-suppress unusedStructMember */
	uint64_t cookies;
	uint32_t cnt;
	uint32_t uprobe_flags;
	uint32_t pid;
};

static int link_create_multi(const struct link_create_uprobe_multi *attr)
{
	union {
		struct link_create_uprobe_multi attr;
		/* the kernel wants the rest of bpf_attr zero */
		unsigned char zero[160];	/* cppcheck-suppress unusedStructMember */
	} buf;

	memset(&buf, 0, sizeof(buf));
	buf.attr = *attr;
	return syscall(__NR_bpf, BPF_LINK_CREATE, &buf, sizeof(buf));
}

/*
 * uprobe_multi links (Linux 6.6) detach all their probes after one RCU
 * grace period; perf-event links wait for one each, 90 ms apiece here.
 * Asked of the kernel as later libbpf does: a uprobe_multi link on "/"
 * fails with EBADF (not a regular file) only where such links exist. Looking
 * for the link's type in the kernel's BTF cost 5-18 ms of the attach.
 *
 * The first kernels with them filtered by thread, not by process: the
 * target's other threads would go untraced. Kernels that filter by process
 * refuse a negative pid with EINVAL before they look at the path; on the
 * others tracelloc uses perf-event links.
 */
static bool kernel_has_uprobe_multi(void)
{
	static const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = TRACE_UPROBE_MULTI);
	struct link_create_uprobe_multi attr = { .attach_type = TRACE_UPROBE_MULTI };
	uint64_t offset = 0;
	int prog_fd, fd, err;

	prog_fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", insns, 2, &opts);
	if (prog_fd < 0)
		return false;
	attr.prog_fd = prog_fd;
	attr.path = (uint64_t)(uintptr_t)"/";
	attr.offsets = (uint64_t)(uintptr_t)&offset;
	attr.cnt = 1;
	fd = link_create_multi(&attr);
	err = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	if (err == EBADF) {
		attr.pid = (uint32_t)-1;
		fd = link_create_multi(&attr);
		err = fd < 0 ? errno : 0;
		if (fd >= 0)
			close(fd);
		err = err == EINVAL ? EBADF : err;
	}
	close(prog_fd);
	return err == EBADF;
}

/*
 * Whose memory map the probes filter on: the process, or, once its main
 * thread has exited (its memory map is gone with it), a thread that still
 * runs. A perf-event link filters on that thread's memory map, which every
 * thread of the process shares; a uprobe_multi link takes only a process.
 */
static pid_t probe_pid(pid_t pid)
{
	const char *task;
	char dir[64];

	if (maps__task_dir(pid, dir, sizeof(dir)) || !(task = strstr(dir, "/task/")))
		return pid;
	return (pid_t)atoi(task + 6);
}

int attach__prepare(struct attach *a)
{
	int err;

	a->probe_pid = probe_pid(a->pid);
	/* TRACELLOC_PERF_LINKS=1 forces the links of kernels before 6.6 (tests use it) */
	a->multi = a->probe_pid == a->pid && !getenv("TRACELLOC_PERF_LINKS") &&
		   kernel_has_uprobe_multi();
	if (!a->multi)
		return 0;
	err = bpf_program__set_expected_attach_type(a->skel->progs.enter_call,
						     TRACE_UPROBE_MULTI);
	if (!err)
		err = bpf_program__set_expected_attach_type(a->skel->progs.leave_alloc,
							     TRACE_UPROBE_MULTI);
	return err;
}

int attach__prepare_loaded(struct attach *a)
{
	bool multi = bpf_program__expected_attach_type(a->skel->progs.enter_call) ==
		     TRACE_UPROBE_MULTI;

	a->probe_pid = probe_pid(a->pid);
	a->multi = multi && a->probe_pid == a->pid;
	/* the programs were loaded for the other kind of link */
	if (multi != a->multi)
		return -EOPNOTSUPP;
	return 0;
}

static int attach_object_multi(struct attach *a, size_t object, bool retprobe)
{
	uint64_t offsets[NUM_DEFS], cookies[NUM_DEFS];
	struct link_create_uprobe_multi attr;
	size_t i, n = 0;
	int fd;

	for (i = 0; i < a->nsites; i++) {
		const struct site *site = &a->sites[i];

		if (site->object != object || (retprobe && entry_only(site->def)))
			continue;
		offsets[n] = site->file_offset;
		cookies[n] = site->cookie;
		n++;
	}
	if (!n)
		return 0;
	memset(&attr, 0, sizeof(attr));
	attr.prog_fd = bpf_program__fd(retprobe ? a->skel->progs.leave_alloc
						: a->skel->progs.enter_call);
	attr.attach_type = TRACE_UPROBE_MULTI;
	attr.path = (uint64_t)(uintptr_t)a->objects[object].open_path;
	attr.offsets = (uint64_t)(uintptr_t)offsets;
	attr.cookies = (uint64_t)(uintptr_t)cookies;
	attr.cnt = n;
	attr.uprobe_flags = retprobe ? UPROBE_MULTI_RETURN : 0;
	attr.pid = a->pid;
	fd = link_create_multi(&attr);
	if (fd < 0)
		return -errno;
	a->link_fds[a->nlink_fds++] = fd;
	a->nprobes += n;
	return 0;
}

static int attach_one(struct attach *a, const struct site *site, bool retprobe)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts, .retprobe = retprobe,
		    .bpf_cookie = site->cookie);
	struct bpf_program *prog = retprobe ? a->skel->progs.leave_alloc
					    : a->skel->progs.enter_call;
	struct bpf_link *link;

	link = bpf_program__attach_uprobe_opts(prog, a->probe_pid, a->objects[site->object].open_path,
					       site->file_offset, &opts);
	if (!link)
		return -errno;
	a->links[a->nlinks++] = link;
	a->nprobes++;
	return 0;
}

/* the probes of the objects and sites found since the last call */
int attach__attach(struct attach *a)
{
	size_t i, first;
	void *grown;
	int err;

	/* return probes first, so that no call is entered under our probes
	 * and returns without them; sites are in probe_defs order, so free
	 * comes before the allocators */
	if (a->multi) {
		grown = realloc(a->link_fds, 2 * a->nobjects * sizeof(*a->link_fds));
		if (!grown && a->nobjects)
			return -ENOMEM;
		a->link_fds = grown;
		first = a->attached_objects;
		a->attached_objects = a->nobjects;
		for (i = first; i < a->nobjects; i++) {
			err = attach_object_multi(a, i, true);
			if (err)
				return err;
		}
		for (i = first; i < a->nobjects; i++) {
			err = attach_object_multi(a, i, false);
			if (err)
				return err;
		}
		return 0;
	}
	grown = realloc(a->links, 2 * a->nsites * sizeof(*a->links));
	if (!grown && a->nsites)
		return -ENOMEM;
	a->links = grown;
	first = a->attached_sites;
	a->attached_sites = a->nsites;
	for (i = first; i < a->nsites; i++) {
		if (entry_only(a->sites[i].def))
			continue;
		err = attach_one(a, &a->sites[i], true);
		if (err)
			return err;
	}
	for (i = first; i < a->nsites; i++) {
		err = attach_one(a, &a->sites[i], false);
		if (err)
			return err;
	}
	return 0;
}

int attach__refresh(struct attach *a)
{
	struct maps maps;
	int err;

	err = maps__read(a->pid, &maps);
	if (err)
		return err;
	err = examine_maps(a, &maps);
	if (!err)
		err = attach__attach(a);
	if (!err && !maps_malloc(a, &maps))
		err = a->stripped ? -ENOEXEC : -ENOENT;
	maps__clear(&maps);
	return err;
}

void attach__loader(const struct attach *a, uint64_t *start, uint64_t *end)
{
	*start = a->loader_start;
	*end = a->loader_end;
}

bool attach__loader_probed(const struct attach *a)
{
	size_t i;

	for (i = 0; i < a->nsites && a->loader_end; i++)
		if (a->sites[i].def->fn == FN_MAPS_CHANGE)
			return true;
	return false;
}

bool attach__maps_probed(const struct attach *a)
{
	bool mmap = false, munmap = false;
	size_t i;

	for (i = 0; i < a->nsites; i++) {
		const struct object *o = &a->objects[a->sites[i].object];

		/* in a static executable, raw system calls are libc's own too */
		if (!o->mapped || !o->library)
			continue;
		mmap |= a->sites[i].def->fn == FN_MMAP;
		munmap |= a->sites[i].def->fn == FN_MUNMAP;
	}
	return mmap && munmap && !attach__go(a);
}

int attach__alloc_code(const struct attach *a, uint64_t *start, uint64_t *end, int max)
{
	int n = 0;
	size_t i;

	for (i = 0; i < a->nobjects && n < max; i++) {
		const struct object *o = &a->objects[i];

		int lib, functions = 0;

		/* a program's own allocator is not one, whose mmap is its own */
		for (lib = 0; lib < LIB__COUNT; lib++)
			functions += lib == LIB_NAMED ? 0 : o->sites[lib];
		/* ld.so, probed for its hook only, is the loader (attach__loader) */
		if (!o->mapped || !o->library || !functions)
			continue;
		start[n] = o->code_start;
		end[n++] = o->code_end;
	}
	return n;
}

uint64_t attach__r_state_addr(const struct attach *a)
{
	/* struct r_debug: r_version, r_map, r_brk, then r_state */
	return a->r_debug_addr ? a->r_debug_addr + 24 : 0;
}

bool attach__go(const struct attach *a)
{
	return a->go;
}


int attach__named_missing(const struct attach *a)
{
	size_t i, j;

	for (i = 0; a->opts.named && i < a->opts.named->count; i++) {
		for (j = 0; j < a->nsites; j++)
			if (a->sites[j].def == &a->named_defs[i])
				break;
		if (j == a->nsites)
			return (int)i;
	}
	return -1;
}

const char *attach__culprit(const struct attach *a)
{
	return a->culprit ? a->culprit : "?";
}

const char *attach__link_kind(const struct attach *a)
{
	return a->multi ? "uprobe_multi" : "perf-event";
}

bool attach__per_thread_filter(const struct attach *a)
{
	return !a->multi;
}

int attach__probe_count(const struct attach *a)
{
	return a->nprobes;
}

void attach__describe_sites(const struct attach *a, FILE *out)
{
	const struct site *site;
	const char *family;
	size_t i;

	for (i = 0; i < a->nsites; i++) {
		site = &a->sites[i];
		family = site->def->lib == LIB_LD ? "ld.so" : family_names[site->def->lib];
		fprintf(out, "tracelloc: probe %s (%s, %s) at offset %#" PRIx64 ", %s\n",
			site->def->symbol, family, base_name(a->objects[site->object].name),
			site->file_offset, entry_only(site->def) ? "entry" : "entry and return");
	}
	for (i = 0; i < a->nsites; i++)
		if (a->sites[i].shift)
			fprintf(out, "tracelloc: %s probed at +%" PRIu64 " (an instruction the kernel "
				"emulates)\n", a->sites[i].def->symbol, a->sites[i].shift);
}

static void describe_objects(const struct attach *a, size_t from, FILE *out)
{
	bool first = true;
	size_t i, lib;

	for (i = from; i < a->nobjects; i++) {
		for (lib = 0; lib < LIB__COUNT; lib++) {
			if (!a->objects[i].sites[lib])
				continue;	/* ld.so: only its hook */
			fprintf(out, "%s%s in %s (%d functions)", first ? "" : ", ", family_names[lib],
				base_name(a->objects[i].name), a->objects[i].sites[lib]);
			first = false;
		}
	}
}

void attach__describe(struct attach *a, FILE *out)
{
	describe_objects(a, 0, out);
	a->described = a->nobjects;
}

void attach__describe_new(struct attach *a, const char *prefix, FILE *out)
{
	size_t i, lib, from = a->described;
	bool any = false;

	a->described = a->nobjects;
	if (!out)
		return;
	for (i = from; i < a->nobjects; i++)
		for (lib = 0; lib < LIB__COUNT; lib++)
			any |= a->objects[i].sites[lib] != 0;
	if (!any)
		return;
	fputs(prefix, out);
	describe_objects(a, from, out);
	fputc('\n', out);
}

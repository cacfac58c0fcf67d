// SPDX-License-Identifier: GPL-2.0
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <libiberty/demangle.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "clock.h"
#include "debuginfod.h"
#include "maps.h"
#include "perfmap.h"
#include "pyframes.h"
#include "procfs.h"
#include "safeopen.h"
#include "scopes.h"
#include "symbolize.h"
#include "gopclntab.h"
#include "symtab.h"
#include "table.h"

#define REFRESH_EVERY_NS 1000000000ULL
/* files loaded one over the other at one place; more are [unknown] */
#define MAX_LAYERS 16
/* how far a segment of a loaded file may lie past the place its offset
 * gives (its alignment) */
#define LOAD_SLACK (16ULL << 20)
/* code mappings kept once gone: a JIT that maps code at ever new places
 * does not make the maps grow without end */
#define KEPT_CODE_MAX 4096
#define NO_GEN UINT32_MAX

/*
 * One file loaded at one place, as the maps showed it, from its offset-0
 * mapping to the end of its last one; with the generations of ld.so's maps
 * (see symbolize.h) of the reads that saw it.
 */
struct span {
	uint64_t start;
	uint64_t end;
	uint64_t dev;
	uint64_t ino;
	uint32_t first_gen;	/* NO_GEN until a read whose generation is sure */
	uint32_t last_gen;
	uint16_t layer;		/* SYM_LAYER of its frames */
	bool open;		/* seen by the last read of the maps */
	bool seen;		/* by the read under way */
	bool contested;		/* another file was seen where it is */
	struct symfile *file;	/* NULL until opened, or when it cannot be */
	const char *path;	/* as this process maps it, interned */
};

/*
 * One file's libdw state (symbols, lines, inline scopes, decompressed debug
 * sections: megabytes for a libc with its debug file), held once for every
 * process that maps it: a thousand processes of one program would otherwise
 * hold a thousand copies. The module is reported at the place the first
 * process mapped it; another process's addresses are moved by the
 * difference of the two places. Files are known by device and inode, as
 * the maps give them, and a file written since is never shared again.
 * The daemon names frames on one thread: no lock.
 */
struct symfile {
	struct symfile *next;
	int refs;		/* spans that point at it */
	uint64_t dev;
	uint64_t ino;
	uint64_t base;		/* where it is reported */
	Dwfl *dwfl;		/* holding this module alone */
	Dwfl_Module *mod;	/* NULL: libdw made nothing of the file */
	/* its functions per compile unit, indexed at the first lookup in one */
	struct fnindex *fns;
	struct module_file *mfile;	/* the module's userdata */
	/* its symbols by address (see src/symbols/symtab.h); a Go program's
	 * from its .gopclntab where they name nothing (stripped: .dynsym's few) */
	struct symtab *symtab;
	struct gopclntab *gosyms;
	/* FILE_*: until FILE_READY, the module is the warming thread's alone */
	int state;
	struct symfile *queued;		/* the next file to warm */
};

/*
 * The first name asked of a file loads its symbol table (45 ms for
 * libLLVM's or node's, sorted), its debug file and the index of its units:
 * done on the thread that reads the ring buffers, a report kept them unread
 * for 130 ms. A thread warms each file as soon as a process maps it; the
 * writers wait for it while they read events (profile__show). Each file has
 * a Dwfl of its own, so the two threads never share one.
 */
enum { FILE_QUEUED, FILE_READY };

struct symbolizer {
	int refs;
	bool frozen;			/* the maps are not read again */
	pid_t pid;
	/* the target's root directory, held open: debug files are looked up
	 * lazily, possibly after the process (and its /proc entry) is gone */
	int root_fd;
	struct table *locations;	/* return address -> struct sym_location * */
	struct table *strings;		/* hash -> char *, interned names and paths */
	struct table *modules;		/* mapping start -> struct sym_module * */
	struct sym_module **all_modules; /* every one made, owned */
	size_t nmodules;
	/* as of the last refresh, for [anon] and second mappings; with the
	 * code mapped before and gone since (maps__keep_code) */
	struct maps maps;
	uint64_t last_refresh_ns;
	/* a file loaded where another one was gets the first layer where it
	 * overlaps none */
	struct span *spans;
	size_t nspans, spans_cap;
	size_t *contested;		/* indexes of the contested spans */
	size_t ncontested;
	const volatile uint32_t *generation;
	uint32_t read_gen;		/* the generation of the last read of the maps */
	/* a JIT's names for its code (/tmp/perf-PID.map), as last read */
	struct perfmap *perfmap;
	/* CPython's frames, when the process runs an interpreter we know */
	struct pyframes *py;
	uint64_t py_eval_start;
};

/*
 * A module's file as it was when reported (its Dwfl_Module's userdata).
 * libelf maps the file: once it is truncated, reading past the new end is
 * SIGBUS, so a file that changed size or was written since is not read
 * again, and its frames are [unknown] (one truncated while a lookup reads
 * it still is a crash). Held through our own descriptor: libdw may close its
 * own, and the process may be gone.
 */
struct module_file {
	int fd;
	off_t size;
	struct timespec mtime;
	bool changed;
	int root_fd;		/* the target's root, our own copy: its debug files */
};

static uint64_t hash_string(const char *str)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *str; str++)
		h = (h ^ (unsigned char)*str) * 0x100000001b3ULL;
	return h | 1;
}

/* one copy of each string, alive as long as the symbolizer */
static const char *intern(struct symbolizer *s, const char *str)
{
	uint64_t h = hash_string(str);
	char **slot;
	bool existed;

	for (;; h += 2) {	/* on a (rare) collision, probe the next odd key */
		slot = table__upsert(s->strings, h, &existed);
		if (!slot)
			return "[unknown]";
		if (!existed) {
			*slot = strdup(str);
			return *slot ? *slot : "[unknown]";
		}
		if (!strcmp(*slot, str))
			return *slot;
	}
}

static char *symbolizer__demangle(const char *name)
{
	if (!name || name[0] != '_')
		return NULL;
	/* C++ (_Z...), Rust legacy (_ZN...17h<hash>E, hash dropped) and Rust v0 (_R...) */
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
}

static const char *intern_demangled(struct symbolizer *s, const char *name)
{
	char *demangled = symbolizer__demangle(name);
	const char *result;

	if (!demangled)
		return intern(s, name);
	result = intern(s, demangled);
	free(demangled);
	return result;
}

/* the debug file open as fd is the one for mod: the same build-id, or
 * (without one) the CRC its .gnu_debuglink asks for */
static bool debug_file_fits(Dwfl_Module *mod, int fd, GElf_Word crc)
{
	const unsigned char *want;
	const void *got;
	unsigned char buf[65536];
	GElf_Addr vaddr;
	int nwant, ngot;
	uLong sum = crc32(0, NULL, 0);
	ssize_t n;
	bool fits;
	Elf *elf;

	nwant = dwfl_module_build_id(mod, &want, &vaddr);
	if (nwant > 0) {
		elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		if (!elf)
			return false;
		ngot = dwelf_elf_gnu_build_id(elf, &got);
		fits = ngot == nwant && !memcmp(got, want, nwant);
		elf_end(elf);
		return fits;
	}
	for (off_t at = 0; (n = pread(fd, buf, sizeof(buf), at)) > 0; at += n)
		sum = crc32(sum, buf, (uInt)n);
	return n == 0 && (GElf_Word)sum == crc;
}

/*
 * The target's own debug files, inside its root: by build-id under its
 * /usr/lib/debug, and by the .gnu_debuglink name beside the binary, in
 * .debug/ there, and under /usr/lib/debug. Every path is resolved in the
 * target's root and only a regular file is read (safeopen.h).
 */
static int find_in_root(Dwfl_Module *mod, int root_fd, const char *path, const char *debuglink,
			GElf_Word crc, char **found)
{
	char dir[PATH_MAX], hex[2 * 64 + 1];
	const unsigned char *id;
	GElf_Addr vaddr;
	int nid, i, fd, n = 0;
	char candidates[4][PATH_MAX + 64];
	const char *slash = strrchr(path, '/');

	nid = dwfl_module_build_id(mod, &id, &vaddr);
	if (nid > 1 && nid <= 64) {
		for (i = 0; i < nid; i++)
			snprintf(hex + 2 * i, 3, "%02x", id[i]);
		snprintf(candidates[n++], sizeof(candidates[0]), "/usr/lib/debug/.build-id/%.2s/%s.debug",
			 hex, hex + 2);
	}
	if (debuglink && slash && !strchr(debuglink, '/')) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
		snprintf(candidates[n++], sizeof(candidates[0]), "%s/%s", dir, debuglink);
		snprintf(candidates[n++], sizeof(candidates[0]), "%s/.debug/%s", dir, debuglink);
		snprintf(candidates[n++], sizeof(candidates[0]), "/usr/lib/debug%s/%s", dir, debuglink);
	}
	for (i = 0; i < n; i++) {
		fd = safeopen__in_root(root_fd, candidates[i]);
		if (fd < 0)
			continue;
		if (debug_file_fits(mod, fd, crc)) {
			*found = strdup(candidates[i]);
			return fd;
		}
		close(fd);
	}
	return -1;
}

static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name, const char *debuglink,
			  GElf_Word crc, char **found)
{
	struct module_file *file = *userdata;
	uint64_t began;
	int fd;

	/* the host's own /usr/lib/debug and debuginfod: no file name, so that
	 * libdw opens nothing by a path of the target's */
	began = debuginfod__begin();
	fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, NULL, debuglink, crc,
					  found);
	debuginfod__end(began, fd >= 0);
	if (fd >= 0 || !file || file->root_fd < 0 || !modname || modname[0] != '/')
		return fd;
	/* the alternate (dwz) file, asked for with the debug file's name: on
	 * the host only (libdw checks nothing of what is handed back for it) */
	if (file_name && strcmp(file_name, modname))
		return -1;
	return find_in_root(mod, file->root_fd, modname, debuglink, crc, found);
}

/* libdw looks only in the host's /usr/lib/debug (and asks debuginfod);
 * the target's own debug files are ours to find (find_debuginfo) */
static char debuginfo_dir[] = "/usr/lib/debug";
static char *debuginfo_path = debuginfo_dir;
static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};
static struct symfile *symfiles;	/* every file open, in any process */

static pthread_mutex_t warm_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t warm_cond = PTHREAD_COND_INITIALIZER;	/* queued, or warmed */
static struct symfile *warm_head, *warm_tail;
static bool warm_thread;

static bool file_ready(const struct symfile *f)
{
	return __atomic_load_n(&f->state, __ATOMIC_ACQUIRE) == FILE_READY;
}

/* what the first lookups in the file would load */
static void warm(struct symfile *f)
{
	Dwarf_Addr low = 0, bias;
	const unsigned char *id;
	GElf_Addr id_addr;
	Elf *elf;

	symtab__new(f->mod, &f->symtab);
	elf = dwfl_module_getelf(f->mod, &bias);
	if (elf)
		gopclntab__new(elf, &f->gosyms);
	dwfl_module_build_id(f->mod, &id, &id_addr);
	dwfl_module_info(f->mod, NULL, &low, NULL, NULL, NULL, NULL, NULL);
	/* the debug file, and libdwfl's table of units by address */
	dwfl_module_addrdie(f->mod, low, &bias);
}

static void *warm_files(void *arg)
{
	struct symfile *f;

	(void)arg;
	for (;;) {
		pthread_mutex_lock(&warm_lock);
		while (!warm_head)
			pthread_cond_wait(&warm_cond, &warm_lock);
		f = warm_head;
		warm_head = f->queued;
		if (!warm_head)
			warm_tail = NULL;
		pthread_mutex_unlock(&warm_lock);
		warm(f);
		pthread_mutex_lock(&warm_lock);
		__atomic_store_n(&f->state, FILE_READY, __ATOMIC_RELEASE);
		pthread_cond_broadcast(&warm_cond);
		pthread_mutex_unlock(&warm_lock);
	}
	return NULL;
}

/* f is warmed on the thread, or here and now if there is none */
static void queue_warm(struct symfile *f)
{
	pthread_attr_t attr;
	pthread_t thread;
	sigset_t all, old;

	pthread_mutex_lock(&warm_lock);
	if (!warm_thread) {
		/* signals are the main thread's (its signal fd) */
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		warm_thread = !pthread_create(&thread, &attr, warm_files, NULL);
		pthread_attr_destroy(&attr);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	if (warm_thread) {
		f->state = FILE_QUEUED;
		f->queued = NULL;
		if (warm_tail)
			warm_tail->queued = f;
		else
			warm_head = f;
		warm_tail = f;
		pthread_cond_signal(&warm_cond);
	}
	pthread_mutex_unlock(&warm_lock);
	if (!warm_thread) {
		warm(f);
		f->state = FILE_READY;
	}
}

/* until f is warm (the thread has it, or has it queued) */
static void wait_warm(struct symfile *f)
{
	if (file_ready(f))
		return;
	pthread_mutex_lock(&warm_lock);
	while (!file_ready(f))
		pthread_cond_wait(&warm_cond, &warm_lock);
	pthread_mutex_unlock(&warm_lock);
}

struct symbolizer *symbolizer__new(pid_t pid)
{
	struct symbolizer *s = calloc(1, sizeof(*s));
	char path[128];

	if (!s)
		return NULL;
	s->refs = 1;
	s->pid = pid;
	s->root_fd = -1;
	if (!maps__task_dir(pid, path, sizeof(path) - 5)) {
		strcat(path, "/root");
		s->root_fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	s->locations = table__new(sizeof(struct sym_location *));
	s->strings = table__new(sizeof(char *));
	s->modules = table__new(sizeof(struct sym_module *));
	s->perfmap = perfmap__new();
	if (!s->locations || !s->strings || !s->modules || !s->perfmap) {
		symbolizer__destroy(s);
		return NULL;
	}
	return s;
}

static int free_module_file(Dwfl_Module *mod, void **userdata, const char *name,
			    Dwarf_Addr start, void *arg)
{
	struct module_file *file = *userdata;

	if (file) {
		close(file->fd);
		if (file->root_fd >= 0)
			close(file->root_fd);
		free(file);
		*userdata = NULL;
	}
	return DWARF_CB_OK;
}

/* one span less points at f */
static void symfile_put(struct symfile *f)
{
	struct symfile **link;

	if (!f || --f->refs > 0)
		return;
	if (f->mod)
		wait_warm(f);
	for (link = &symfiles; *link; link = &(*link)->next)
		if (*link == f) {
			*link = f->next;
			break;
		}
	symtab__destroy(f->symtab);
	gopclntab__destroy(f->gosyms);
	if (f->dwfl) {
		dwfl_getmodules(f->dwfl, free_module_file, NULL, 0);
		dwfl_end(f->dwfl);
	}
	fnindex__destroy(f->fns);
	free(f);
}

struct symbolizer *symbolizer__get(struct symbolizer *s)
{
	if (s)
		s->refs++;
	return s;
}

void symbolizer__freeze(struct symbolizer *s)
{
	if (s)
		s->frozen = true;
}

bool symbolizer__contested(const struct symbolizer *s)
{
	return s && s->ncontested;
}

void symbolizer__destroy(struct symbolizer *s)
{
	size_t pos = 0;
	void **p;

	if (!s || --s->refs > 0)
		return;
	if (s->locations) {
		while ((p = table__next(s->locations, &pos, NULL)))
			free(*p);	/* frames live in the same allocation */
		table__destroy(s->locations);
	}
	pos = 0;
	if (s->strings) {
		while ((p = table__next(s->strings, &pos, NULL)))
			free(*p);
		table__destroy(s->strings);
	}
	table__destroy(s->modules);
	while (s->nmodules)
		free(s->all_modules[--s->nmodules]);
	free(s->all_modules);
	while (s->nspans)
		symfile_put(s->spans[--s->nspans].file);
	free(s->spans);
	free(s->contested);
	perfmap__destroy(s->perfmap);
	pyframes__destroy(s->py);
	maps__clear(&s->maps);
	if (s->root_fd >= 0)
		close(s->root_fd);
	free(s);
}

/* the mapping of the same file at offset 0 gives the load base: the nearest
 * one below, as a file can be loaded twice (dlmopen) */
static const struct mapping *first_mapping(const struct maps *maps, const struct mapping *m)
{
	const struct mapping *first = NULL;
	size_t i;

	for (i = 0; i < maps->count && maps->mappings[i].start <= m->start; i++) {
		const struct mapping *c = &maps->mappings[i];

		if (c->inode == m->inode && c->dev_major == m->dev_major &&
		    c->dev_minor == m->dev_minor && c->offset == 0 && c->path &&
		    !strcmp(c->path, m->path))
			first = c;
	}
	return first;
}

/* reports the ELF file open as fd, mapped from base; takes fd. root_fd:
 * where its debug files are looked for, -1 for nowhere but the host's */
static Dwfl_Module *report_file(Dwfl *dwfl, const char *name, int root_fd, int fd, uint64_t base,
				struct module_file **mfile)
{
	struct module_file *file = calloc(1, sizeof(*file));
	Dwfl_Module *mod = NULL;
	void **userdata;
	struct stat st;

	if (!file)
		goto fail;
	file->fd = -1;
	file->root_fd = -1;
	if (root_fd >= 0 && (file->root_fd = fcntl(root_fd, F_DUPFD_CLOEXEC, 0)) < 0)
		goto fail;
	if (fstat(fd, &st) || (file->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0)
		goto fail;
	file->size = st.st_size;
	file->mtime = st.st_mtim;
	/* libdw owns fd once it made a module of it */
	mod = dwfl_report_elf(dwfl, name, name, fd, base, false);
	if (!mod)
		goto fail;
	dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	*userdata = file;
	*mfile = file;
	return mod;
fail:
	if (file && file->fd >= 0)
		close(file->fd);
	if (file && file->root_fd >= 0)
		close(file->root_fd);
	free(file);
	if (!mod)
		close(fd);
	return NULL;
}

/* a file of its own for the ELF file open as fd (taken), reported at base;
 * NULL when out of memory */
static struct symfile *symfile_new(const char *name, int root_fd, int fd, uint64_t base,
				   uint64_t dev, uint64_t ino)
{
	struct symfile *f = calloc(1, sizeof(*f));

	if (f)
		f->dwfl = dwfl_begin(&callbacks);
	if (!f || !f->dwfl) {
		free(f);
		close(fd);
		return NULL;
	}
	f->refs = 1;
	f->dev = dev;
	f->ino = ino;
	f->base = base;
	/* none: lookups go without an index */
	f->fns = fnindex__new();
	dwfl_report_begin(f->dwfl);
	f->mod = report_file(f->dwfl, name, root_fd, fd, base, &f->mfile);
	dwfl_report_end(f->dwfl, NULL, NULL);
	f->state = FILE_READY;
	if (f->mod)
		queue_warm(f);
	f->next = symfiles;
	symfiles = f;
	return f;
}

/* has the module's file been truncated or written since it was reported? */
static bool file_changed(const struct symfile *f)
{
	struct module_file *file = f->mfile;
	struct stat st;

	if (!file || file->changed)
		return true;
	if (fstat(file->fd, &st) || st.st_size != file->size ||
	    st.st_mtim.tv_sec != file->mtime.tv_sec || st.st_mtim.tv_nsec != file->mtime.tv_nsec)
		file->changed = true;
	return file->changed;
}

/* the file of the span from first on: one another process opened, or
 * opened now; NULL when it cannot be read (yet) */
static struct symfile *open_file(struct symbolizer *s, const struct span *sp,
				 const struct mapping *first)
{
	struct symfile *f;
	int fd;

	for (f = symfiles; f; f = f->next)
		if (f->dev == sp->dev && f->ino == sp->ino && (!f->mod || !file_changed(f))) {
			f->refs++;
			return f;
		}
	fd = maps__open(s->pid, first);
	if (fd < 0)
		return NULL;
	return symfile_new(first->path, s->root_fd, fd, first->start, sp->dev, sp->ino);
}

static uint32_t generation(const struct symbolizer *s)
{
	return s->generation ? __atomic_load_n(s->generation, __ATOMIC_ACQUIRE) : 0;
}

void symbolizer__set_generation(struct symbolizer *s, const volatile uint32_t *generation)
{
	s->generation = generation;
	s->read_gen = generation ? *generation : 0;
}

static bool same_file(const struct span *sp, const struct mapping *m)
{
	return sp->dev == makedev(m->dev_major, m->dev_minor) && sp->ino == m->inode;
}

/* the layer of the file of span made: the one it had at the same place
 * before, else the first where it overlaps no other file; marks overlaps */
static uint16_t pick_layer(struct symbolizer *s, size_t made, const struct mapping *first)
{
	struct span *sp = &s->spans[made];
	int layer, again = -1;
	uint32_t busy = 0;
	size_t i;

	for (i = 0; i < made; i++) {
		struct span *t = &s->spans[i];

		if (t->start == sp->start && same_file(t, first))
			again = t->layer;
		if (t->end <= sp->start || t->start >= sp->end || same_file(t, first))
			continue;
		if (t->layer < MAX_LAYERS)
			busy |= 1U << t->layer;
		if (!t->contested) {
			t->contested = true;
			s->contested[s->ncontested++] = i;
		}
		if (!sp->contested) {
			sp->contested = true;
			s->contested[s->ncontested++] = made;
		}
	}
	if (again >= 0)
		return (uint16_t)again;
	for (layer = 0; layer < MAX_LAYERS && (busy & (1U << layer)); layer++)
		;
	return layer == MAX_LAYERS ? SYM_LAYER_UNKNOWN : (uint16_t)layer;
}

static bool same_inode(const struct mapping *a, const struct mapping *b)
{
	return a->inode == b->inode && a->dev_major == b->dev_major && a->dev_minor == b->dev_minor;
}

/* the last mapping of the load of a file that begins at first: its
 * mappings in a row, and past anonymous ones (a segment's .bss) those
 * further on whose place is first's plus about their offset (a library
 * whose hot text lies in a segment of its own past its data, at a 2 MiB
 * boundary: rustc's LLVM and driver). Another copy of the file begins again
 * at offset 0; node's copy of its builtins lies far from the file's place. */
static const struct mapping *load_end(const struct maps *maps, const struct mapping *first)
{
	const struct mapping *last = first, *end = maps->mappings + maps->count, *m;

	for (m = first + 1; m < end; m++) {
		if (!m->path && m->inode == 0)
			continue;
		if (!same_inode(m, first) || m->offset == 0 ||
		    m->start - first->start < m->offset ||
		    m->start - first->start - m->offset >= LOAD_SLACK)
			break;
		last = m;
	}
	return last;
}

/* the span of the file mapped from first (its offset-0 mapping) on */
static struct span *note_span(struct symbolizer *s, const struct maps *maps,
			      const struct mapping *first, const char *path)
{
	const struct mapping *last;
	struct span *sp;
	size_t i;

	for (i = 0; i < s->nspans; i++)
		if (s->spans[i].open && s->spans[i].start == first->start &&
		    same_file(&s->spans[i], first))
			return &s->spans[i];
	last = load_end(maps, first);
	if (s->nspans == s->spans_cap) {
		size_t cap = s->spans_cap ? 2 * s->spans_cap : 64;
		struct span *grown = realloc(s->spans, cap * sizeof(*grown));
		size_t *contested;

		if (!grown)
			return NULL;
		s->spans = grown;
		contested = realloc(s->contested, cap * sizeof(*contested));
		if (!contested)
			return NULL;
		s->contested = contested;
		s->spans_cap = cap;
	}
	sp = &s->spans[s->nspans];
	*sp = (struct span){
		.start = first->start,
		.end = last->end,
		.dev = makedev(first->dev_major, first->dev_minor),
		.ino = first->inode,
		.first_gen = NO_GEN,
		.open = true,
		.path = intern(s, path),
	};
	sp->layer = pick_layer(s, s->nspans, first);
	s->nspans++;
	return sp;
}

/* the pid of s's process in its own namespace (the one its perf map is
 * named with), or 0 */
static pid_t own_pid(const struct symbolizer *s)
{
	char pid[16];
	unsigned int depth;
	int own;

	snprintf(pid, sizeof(pid), "%d", s->pid);
	return procfs__nspid(pid, &own, &depth) ? 0 : own;
}

int symbolizer__refresh(struct symbolizer *s)
{
	uint32_t gen = 0, after = 0;
	struct maps maps = {};
	bool sure = false;
	int err, tries;
	size_t j;

	if (s->frozen)
		return 0;
	s->last_refresh_ns = clock__now_ns();
	/* the maps are those of one generation when none began while they were read */
	for (tries = 0; tries < 3 && !sure; tries++) {
		maps__clear(&maps);
		gen = generation(s);
		err = maps__read(s->pid, &maps);
		if (err)
			return err;
		after = generation(s);
		sure = gen == after;
	}
	/* an exiting process (a zombie, until its parent reaps it) maps
	 * nothing: keep what it mapped, for [anon] and deleted files */
	if (!maps.count)
		return -ESRCH;
	if (s->root_fd >= 0)
		perfmap__read(s->perfmap, s->root_fd, s->pid, own_pid(s));
	for (j = 0; j < s->nspans; j++)
		s->spans[j].seen = false;
	for (j = 0; j < maps.count; j++) {
		const struct mapping *m = &maps.mappings[j], *first;
		struct span *sp;

		if (!m->exec || !m->path || m->path[0] != '/' || m->deleted)
			continue;
		first = first_mapping(&maps, m);
		sp = first ? note_span(s, &maps, first, m->path) : NULL;
		if (!sp)
			continue;
		sp->seen = true;
		if (sure) {
			if (sp->first_gen == NO_GEN)
				sp->first_gen = gen;
			sp->last_gen = gen;
		}
		if (!sp->file && sp->layer != SYM_LAYER_UNKNOWN)
			sp->file = open_file(s, sp, first);
	}
	for (j = 0; j < s->nspans; j++)
		s->spans[j].open = s->spans[j].seen;
	s->read_gen = after;
	/* out of memory, the code that went away is unknown from here */
	maps__keep_code(&maps, &s->maps, KEPT_CODE_MAX);
	maps__clear(&s->maps);
	s->maps = maps;
	return 0;
}

/* the layer of addr in generation gen: 0 outside contested places */
static uint64_t layer_at(const struct symbolizer *s, uint64_t addr, uint32_t gen)
{
	bool contested = false;
	size_t i;

	for (i = 0; i < s->ncontested; i++) {
		const struct span *sp = &s->spans[s->contested[i]];

		if (addr < sp->start || addr >= sp->end)
			continue;
		contested = true;
		if (sp->first_gen != NO_GEN && sp->first_gen <= gen && gen <= sp->last_gen)
			return sp->layer;
	}
	return contested ? SYM_LAYER_UNKNOWN : 0;
}

const uint64_t *symbolizer__map_frames(struct symbolizer *s, uint16_t gen16,
				       const uint64_t *frames, uint32_t nframes, uint64_t *buf)
{
	uint32_t gen = s->read_gen, now, i;
	bool mapped = false;

	if (gen16 != (uint16_t)gen) {
		/* a stack is never newer than the count it was taken under */
		now = generation(s);
		gen = now - (uint16_t)(now - gen16);
		/* taken after the last read: read again before its frames are named */
		if ((int32_t)(gen - s->read_gen) > 0)
			symbolizer__refresh(s);
	}
	if (!s->ncontested)
		return frames;
	for (i = 0; i < nframes; i++) {
		/* a return address: the call before it is what lies in the place */
		uint64_t layer = layer_at(s, frames[i] - 1, gen);

		buf[i] = frames[i] | layer << SYM_LAYER_SHIFT;
		mapped |= layer != 0;
	}
	return mapped ? buf : frames;
}

/* the span of layer that holds addr, with its file open: the one mapped
 * now, else the last one seen there; valid until the next refresh */
static const struct span *find_span(const struct symbolizer *s, uint64_t layer, uint64_t addr)
{
	const struct span *found = NULL;
	size_t i = s->nspans;

	while (i--) {
		const struct span *sp = &s->spans[i];

		if (sp->layer != layer || addr < sp->start || addr >= sp->end || !sp->file ||
		    !sp->file->mod)
			continue;
		if (sp->open)
			return sp;
		if (!found)
			found = sp;
	}
	return found;
}

static const struct span *span_of(struct symbolizer *s, uint64_t layer, uint64_t addr)
{
	const struct span *sp = find_span(s, layer, addr);

	if (!sp && !layer && clock__now_ns() - s->last_refresh_ns > REFRESH_EVERY_NS) {
		/* code mapped since the last look (dlopen): read the maps again */
		symbolizer__refresh(s);
		sp = find_span(s, layer, addr);
	}
	return sp;
}

/*
 * A file's code mapped a second time, away from its place with the rest of
 * the file (node maps V8's builtins again, near its JIT code): *addr moved
 * to the same byte of the file where it is mapped in its place, and the
 * span there; NULL when the file has no such place.
 */
static const struct span *second_mapping(const struct symbolizer *s, Dwarf_Addr *addr)
{
	const struct mapping *m = maps__find(&s->maps, *addr), *p;
	const struct span *sp;
	uint64_t off;
	size_t i;

	if (!m || !m->exec || !m->path || m->path[0] != '/')
		return NULL;
	off = m->offset + (*addr - m->start);
	for (i = 0; i < s->maps.count; i++) {
		p = &s->maps.mappings[i];
		if (p == m || !p->exec || p->inode != m->inode || p->dev_major != m->dev_major ||
		    p->dev_minor != m->dev_minor || off < p->offset ||
		    off - p->offset >= p->end - p->start)
			continue;
		sp = find_span(s, 0, p->start + (off - p->offset));
		if (sp) {
			*addr = p->start + (off - p->offset);
			return sp;
		}
	}
	return NULL;
}

/* addr of the process, as the shared module of sp's file knows it */
static Dwarf_Addr file_addr(const struct span *sp, uint64_t addr)
{
	return addr - sp->start + sp->file->base;
}

static const char *outside_modules(struct symbolizer *s, uint64_t addr)
{
	const struct mapping *m = maps__find(&s->maps, addr);

	if (!m || !m->exec)
		return "[unknown]";
	if (!m->path) {
		/* JIT or other generated code: named by the runtime, if it says */
		const char *name = perfmap__name(s->perfmap, addr);

		return name ? name : "[anon]";
	}
	return m->path[0] == '[' ? intern(s, m->path) : "[unknown]";
}

static const char *build_id_hex(struct symbolizer *s, Dwfl_Module *mod)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *bits;
	char hex[2 * 64 + 1];
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(mod, &bits, &vaddr), i;

	if (n <= 0 || n > 64)
		return NULL;
	for (i = 0; i < n; i++) {
		hex[2 * i] = digits[bits[i] >> 4];
		hex[2 * i + 1] = digits[bits[i] & 15];
	}
	hex[2 * n] = '\0';
	return intern(s, hex);
}

/*
 * The mapping of addr in module mod: the executable mapping of the maps that
 * holds it, as pprof (and Go's own profiles) describe a mapping; for a module
 * unmapped since (dlclose), its whole span from file offset 0.
 */
static const struct sym_module *module_mapping(struct symbolizer *s, const struct span *sp,
					       uint64_t addr)
{
	const struct mapping *m = maps__find(&s->maps, addr);
	struct sym_module info = { .path = sp->path }, *made, **slot, **grown;
	Dwfl_Module *mod = sp->file->mod;
	Dwarf_Addr low = 0, high = 0;
	const char *path = sp->path;
	bool existed;

	if (m && m->exec && m->path && !strcmp(m->path, path)) {
		info.start = m->start;
		info.limit = m->end;
		info.file_offset = m->offset;
	} else {
		dwfl_module_info(mod, NULL, &low, &high, NULL, NULL, NULL, NULL);
		info.start = low - sp->file->base + sp->start;
		info.limit = high - sp->file->base + sp->start;
	}
	slot = table__upsert(s->modules, info.start ? info.start : 1, &existed);
	if (!slot)
		return NULL;
	/* the same start for another file: a library loaded where one was unloaded */
	if (existed && (*slot)->limit == info.limit && !strcmp((*slot)->path, path))
		return *slot;
	grown = realloc(s->all_modules, (s->nmodules + 1) * sizeof(*grown));
	if (!grown)
		return existed ? *slot : NULL;
	s->all_modules = grown;
	made = malloc(sizeof(*made));
	if (!made)
		return existed ? *slot : NULL;
	info.build_id = build_id_hex(s, mod);
	*made = info;
	s->all_modules[s->nmodules++] = made;
	*slot = made;
	return made;
}

/* the names scopes__frames finds, kept as long as s */
static const char *name_frame(void *ctx, const char *str, bool mangled)
{
	return mangled ? intern_demangled(ctx, str) : intern(ctx, str);
}

/* a Python frame's location: the script's file is its module */
static struct sym_location *python_location(struct symbolizer *s, uint64_t frame)
{
	const struct sym_frame *f = s->py ? pyframes__frame(s->py, SYM_ADDR(frame)) : NULL;
	struct sym_location *loc;

	if (!f)
		return NULL;
	loc = calloc(1, sizeof(*loc) + sizeof(*f));
	if (!loc)
		return NULL;
	loc->module = f->file;
	loc->symbol = f->function;
	loc->nframes = 1;
	memcpy(loc + 1, f, sizeof(*f));
	loc->frames = (const struct sym_frame *)(loc + 1);
	return loc;
}

static struct sym_location *lookup(struct symbolizer *s, uint64_t ret_addr)
{
	struct sym_frame frames[SYM_MAX_INLINE];
	/* a return address points after the call: look up the call itself */
	Dwarf_Addr addr = SYM_ADDR(ret_addr) - 1;
	uint64_t layer = SYM_LAYER(ret_addr);
	const struct span *sp = span_of(s, layer, addr);
	bool second = !sp && !layer && (sp = second_mapping(s, &addr));
	Dwfl_Module *mod = sp ? sp->file->mod : NULL;
	struct sym_location *loc;
	const char *symbol = NULL, *module = NULL;
	const struct sym_module *mapping = NULL;
	uint64_t offset = 0, size = 0;
	int n = 0, i;

	if (mod) {
		module = sp->path;
		wait_warm(sp->file);
	}
	if (mod && !file_changed(sp->file)) {
		Dwarf_Addr at = file_addr(sp, addr);
		struct symtab_hit hit;

		/* reads the build-id, from the file; a second mapping's
		 * addresses lie in none of pprof's mappings */
		mapping = second ? NULL : module_mapping(s, sp, addr);
		if ((sp->file->symtab && !symtab__find(sp->file->symtab, at, &hit) && *hit.name) ||
		    (sp->file->gosyms && !gopclntab__find(sp->file->gosyms, at, &hit))) {
			symbol = intern_demangled(s, hit.name);
			offset = at - hit.value + 1;
			size = hit.size;
		}
		n = scopes__frames(sp->file->fns, mod, at, frames, SYM_MAX_INLINE,
				   &(struct scope_namer){ name_frame, s });
	}
	if (n == 0) {
		frames[0].function = NULL;
		frames[0].file = NULL;
		frames[0].line = 0;
		frames[0].inlined = false;
		n = 1;
	}
	/* the concrete function is best named by its symbol */
	if (!frames[n - 1].function || (symbol && !frames[n - 1].inlined))
		frames[n - 1].function = symbol;
	for (i = 0; i < n; i++)
		if (!frames[i].function)
			frames[i].function = mod || layer ? "[unknown]" : outside_modules(s, addr);

	loc = malloc(sizeof(*loc) + n * sizeof(frames[0]));
	if (!loc)
		return NULL;
	loc->module = module;
	loc->mapping = mapping;
	loc->symbol = symbol;
	loc->offset = offset;
	loc->symbol_size = size;
	loc->nframes = n;
	memcpy(loc + 1, frames, n * sizeof(frames[0]));
	loc->frames = (const struct sym_frame *)(loc + 1);
	return loc;
}

const struct sym_location *symbolizer__locate(struct symbolizer *s, uint64_t ret_addr)
{
	static const struct sym_frame unknown_frame = { .function = "[unknown]" };
	static const struct sym_location unknown = { .nframes = 1, .frames = &unknown_frame };
	struct sym_location **cached = table__lookup(s->locations, ret_addr);
	struct sym_location *loc;

	if (cached)
		return *cached;
	loc = SYM_LAYER(ret_addr) == PY_SYM_LAYER ? python_location(s, ret_addr)
						 : lookup(s, ret_addr);
	if (!loc)
		return &unknown;
	/* outside every module the answer may change once the maps are re-read */
	if (!loc->module && !strcmp(loc->frames[0].function, "[unknown]")) {
		free(loc);
		return &unknown;
	}
	cached = table__upsert(s->locations, ret_addr, NULL);
	if (!cached) {
		free(loc);
		return &unknown;
	}
	*cached = loc;
	return loc;
}

int symbolizer__set_python(struct symbolizer *s, const struct py_layout *layout,
			   uint64_t eval_start, uint64_t eval_end)
{
	/* the same interpreter where it was: its frames stay named */
	if (s->py && s->py_eval_start == eval_start)
		return 0;
	pyframes__destroy(s->py);
	s->py = pyframes__new(s->pid, layout, eval_start, eval_end);
	s->py_eval_start = eval_start;
	return s->py ? 0 : -ENOMEM;
}

uint32_t symbolizer__merge_python(struct symbolizer *s, const uint64_t *frames, uint32_t nframes,
				  const struct py_frame *py, uint32_t npy, uint64_t *out,
				  uint32_t room)
{
	if (!s->py)
		return 0;
	return pyframes__merge(s->py, frames, nframes, py, npy, out, room);
}

size_t symbolizer__open_files(void)
{
	const struct symfile *f;
	size_t n = 0;

	for (f = symfiles; f; f = f->next)
		n++;
	return n;
}

bool symbolizer__ready(struct symbolizer *s, uint64_t ret_addr)
{
	const struct span *sp;

	if (table__lookup(s->locations, ret_addr))
		return true;
	sp = find_span(s, SYM_LAYER(ret_addr), SYM_ADDR(ret_addr) - 1);
	return !sp || file_ready(sp->file);
}

void symbolizer__await(unsigned int ms)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += (long)ms * 1000000;
	until.tv_sec += until.tv_nsec / 1000000000;
	until.tv_nsec %= 1000000000;
	pthread_mutex_lock(&warm_lock);
	if (warm_head || warm_thread)
		pthread_cond_timedwait(&warm_cond, &warm_lock, &until);
	pthread_mutex_unlock(&warm_lock);
}

bool symbolizer__in_module(struct symbolizer *s, uint64_t ret_addr)
{
	struct sym_location **cached = table__lookup(s->locations, ret_addr);
	const struct mapping *m;
	Dwarf_Addr at;

	if (cached)
		return true;	/* only located addresses are cached */
	/* a layer is given only to frames in a file's place */
	if (SYM_LAYER(ret_addr))
		return true;
	if (span_of(s, 0, ret_addr - 1))
		return true;
	at = ret_addr - 1;
	if (second_mapping(s, &at))
		return true;
	m = maps__find(&s->maps, ret_addr - 1);
	return m && m->exec;
}

// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "attach.h"
#include "closer.h"
#include "elffacts.h"
#include "maps.h"
#include "allocfns.h"
#include "named.h"
#include "probesite.h"
#include "procfs.h"
#include "pyframes.h"
#include "tracelloc.h"
#include "tracelloc.skel.h"

static const char *attach__families(void)
{
	static char list[128];
	size_t len = 0;
	int lib;

	if (list[0])
		return list;
	for (lib = 0; lib < LIB__COUNT; lib++)
		if (lib != LIB_STDCXX && lib != LIB_LD && lib != LIB_NAMED &&
		    elffacts__family_name(lib))
			len += snprintf(list + len, sizeof(list) - len, "%s%s", len ? ", " : "",
					elffacts__family_name(lib));
	return list;
}

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
	struct site sites[MAX_PROBE_DEFS + 2 * MAX_NAMED_FNS];
	size_t nsites;
	size_t nfamily_sites;	/* of elffacts__defs: one allocator is what we trace */
	struct probe_def named_defs[MAX_NAMED_FNS];
	/* a named function that is a known allocator's, probed as that */
	const struct probe_def *named_known[MAX_NAMED_FNS];
	bool multi;		/* one uprobe_multi link per object and direction */
	struct bpf_link **links; /* otherwise one perf-event link per probe */
	size_t nlinks;
	int *link_fds;		/* the uprobe_multi links */
	size_t nlink_fds;
	int nprobes;
	char *culprit;
	bool stripped;		/* a mapped object had no symbol table at all */
	/* the interpreter whose pymalloc is not probed, why, and whether the
	 * attach line said so; whether the process asks for CPython's debug
	 * hooks (0: not known yet, 1: no, 2: yes) */
	char pymalloc_unprobed[64];
	const char *pymalloc_why;
	bool pymalloc_told;
	uint8_t py_debug;
	/* V8's executable (node), and how its JIT frames are named */
	char v8_file[64];
	const char *v8_names;
	bool v8_told;
	bool go;		/* Go's runtime is mapped: it makes raw system calls */
	/* ld.so's _r_debug: its file, its vaddr, and the vaddr less the file
	 * offset of the code's segment; where it is now (0: unknown) */
	struct file_id ld_file;
	uint64_t r_debug_vaddr;
	uint64_t ld_code_delta;
	uint64_t r_debug_addr;
	struct file_id go_file;	/* the file of a Go program examined */
	/* CPython's interpreter (its executable or libpython): the file, its
	 * facts, and where its code is now (py_mapped: it is) */
	struct file_id py_file;
	uint32_t py_version;
	uint64_t py_runtime_vaddr, py_eval_vaddr, py_eval_size, py_code_delta, py_bias;
	bool py_mapped;
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

static const struct site *site_at(const struct attach *a, size_t object, uint64_t offset)
{
	size_t i;

	for (i = 0; i < a->nsites; i++)
		if (a->sites[i].object == object && a->sites[i].file_offset == offset)
			return &a->sites[i];
	return NULL;
}

/* the cookie of def's probe at its entry */
static uint64_t site_cookie_at_entry(const struct attach *a, const struct probe_def *def)
{
	if (def >= a->named_defs && def < a->named_defs + MAX_NAMED_FNS)
		return named__cookie(a->opts.named, def - a->named_defs);
	return allocfns__cookie(def->fn);
}

static int add_site(struct attach *a, const struct probe_def *def, const struct mapping *m, int fd,
		    bool *any, uint64_t offset, uint64_t shift, uint64_t cookie)
{
	const struct site *same;
	int err;

	if (!*any) {
		err = add_object(a, m->path, fd);
		if (err)
			return err;
		*any = true;
	}
	same = site_at(a, a->nobjects - 1, offset + shift);
	if (same) {
		if (def >= a->named_defs && def < a->named_defs + MAX_NAMED_FNS &&
		    !(same->def >= a->named_defs && same->def < a->named_defs + MAX_NAMED_FNS))
			a->named_known[def - a->named_defs] = same->def;
		return 0;
	}
	if (a->nsites == sizeof(a->sites) / sizeof(a->sites[0]))
		return -E2BIG;
	a->sites[a->nsites++] = (struct site){ .def = def, .object = a->nobjects - 1,
					       .file_offset = offset + shift, .shift = shift,
					       .cookie = cookie };
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
			       f->named_shift[j], f->named_cookie[j]);
		if (err)
			return err;
		if (*any)
			a->objects[a->nobjects - 1].library = f->scan.soname[0] != '\0';
	}
	return 0;
}

/* records the sites one mapped object offers; *foreign set when it is an
 * allocator we do not trace */
/*
 * Whether pymalloc in f is left unprobed: inlined into its callers, or
 * wrapped in CPython's debug hooks, whose blocks of the raw domain (malloc's)
 * are taken and given back inside pymalloc's calls, its free among them,
 * which has no return probe to tell what is nested in it.
 */
static bool pymalloc_unprobed(struct attach *a, const struct file_facts *f,
			      const struct mapping *m)
{
	const char *why = NULL;

	if (!a->py_debug)
		a->py_debug = pyframes__debug_hooks(a->pid) ? 2 : 1;
	if (f->pymalloc_inlined)
		why = "inlined in";
	else if (a->py_debug == 2 || f->scan.py_debug_build)
		why = "behind its debug hooks in";
	if (why && !a->pymalloc_unprobed[0]) {
		snprintf(a->pymalloc_unprobed, sizeof(a->pymalloc_unprobed), "%s", base_name(m->path));
		a->pymalloc_why = why;
	}
	return why != NULL;
}

/* whether the process was told to write a perf map: on its command line or
 * in NODE_OPTIONS */
static bool v8_flag(pid_t pid, const char *flag)
{
	return procfs__list_has(pid, "cmdline", flag) || procfs__list_has(pid, "environ", flag);
}

/*
 * V8 names its builtins in the executable's symbol table, and its JIT code
 * only in /tmp/perf-PID.map, which node writes when asked; interpreted
 * functions run in one trampoline unless each gets a copy of its own.
 */
static void note_v8(struct attach *a, const struct mapping *m)
{
	snprintf(a->v8_file, sizeof(a->v8_file), "%s", base_name(m->path));
	if (!v8_flag(a->pid, "--perf-basic-prof") && !v8_flag(a->pid, "--perf-prof"))
		a->v8_names = "its JIT frames unnamed: start it with --perf-basic-prof "
			      "--interpreted-frames-native-stack to name them";
	else if (!v8_flag(a->pid, "--interpreted-frames-native-stack"))
		a->v8_names = "interpreted functions seen as its trampoline: add "
			      "--interpreted-frames-native-stack to name them";
	else
		a->v8_names = "its JIT frames named from its perf map";
}

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
	f = elffacts__of(fd, m->offset,
			 &(struct elffacts_opts){ a->opts.probe_at_symbol, a->opts.named, a->named_defs },
			 &uncached);
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
	if (elffacts__stripped_static(scan))
		a->stripped = true;
	if ((scan->marks & MARK_V8) && !a->v8_file[0])
		note_v8(a, m);
	if (scan->marks & MARK_GO)
		a->go_file = (struct file_id){ m->inode, m->dev_major, m->dev_minor };
	if (f->py_version && !f->delta_err && !a->py_version) {
		a->py_file = (struct file_id){ m->inode, m->dev_major, m->dev_minor };
		a->py_version = f->py_version;
		a->py_runtime_vaddr = scan->py_runtime;
		a->py_eval_vaddr = scan->py_eval;
		a->py_eval_size = scan->py_eval_size;
		a->py_code_delta = f->code_delta;
	}
	if (scan->r_debug && !strncmp(scan->soname, "ld-linux", 8) && !f->delta_err) {
		a->ld_code_delta = f->code_delta;
		a->ld_file = (struct file_id){ m->inode, m->dev_major, m->dev_minor };
		a->r_debug_vaddr = scan->r_debug;
	}
	for (j = 0; j < elffacts__ndefs; j++) {
		const struct probe_def *def = &elffacts__defs[j];
		uint64_t offset, shift;

		if (!f->has_offset[j] || !elffacts__is_library(scan, def->lib) ||
		    (elffacts__maps_call(def) && a->opts.no_mmap) ||
		    (def->fn == FN_EXIT && !a->opts.hold_at_exit) ||
		    (def->lib == LIB_PYMALLOC && pymalloc_unprobed(a, f, m)))
			continue;
		offset = f->offset[j];
		/* a second glibc, from another file: one allocator is what we trace */
		if (a->nfamily_sites == elffacts__ndefs) {
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
		a->sites[a->nsites].def = def;
		a->sites[a->nsites].object = a->nobjects - 1;
		a->sites[a->nsites].file_offset = offset + shift;
		a->sites[a->nsites].shift = shift;
		a->sites[a->nsites].cookie = f->cookie[j];
		a->nsites++;
		a->nfamily_sites++;
		/* the allocator's functions, as the user knows them */
		/* the functions of a family: exit is the leak check's, not its */
		if (def->lib != LIB_LD && !elffacts__maps_call(def) && def->fn != FN_EXIT)
			a->objects[a->nobjects - 1].sites[def->lib]++;
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
	a->py_mapped = false;
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
		if (!a->py_mapped && a->py_version && m->inode == a->py_file.inode &&
		    m->dev_major == a->py_file.dev_major && m->dev_minor == a->py_file.dev_minor) {
			/* 0 for an executable linked at its place (not PIE) */
			a->py_bias = m->start - m->offset - a->py_code_delta;
			a->py_mapped = true;
		}
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

		if (a->sites[j].def->fn != FN_MALLOC && a->sites[j].def->fn != FN_GO_MALLOC)
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
	uint64_t offsets[MAX_PROBE_DEFS], cookies[MAX_PROBE_DEFS];
	struct link_create_uprobe_multi attr;
	size_t i, n = 0;
	int fd;

	for (i = 0; i < a->nsites; i++) {
		const struct site *site = &a->sites[i];

		if (site->object != object || (retprobe && elffacts__entry_only(site->def)))
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
	 * and returns without them; sites are in elffacts__defs order, so free
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
		if (elffacts__entry_only(a->sites[i].def))
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
	return mmap && munmap && !a->go;
}

static void set_alloc_code(const struct attach *a, struct proc_state *state)
{
	int n = 0;
	size_t i;

	for (i = 0; i < a->nobjects && n < MAX_ALLOC_CODE; i++) {
		const struct object *o = &a->objects[i];

		int lib, functions = 0;

		/* a program's own allocator is not one, whose mmap is its own */
		for (lib = 0; lib < LIB__COUNT; lib++)
			functions += lib == LIB_NAMED ? 0 : o->sites[lib];
		/* ld.so, probed for its hook only, is the loader (loader_start) */
		if (!o->mapped || !o->library || !functions)
			continue;
		state->alloc_code_start[n] = o->code_start;
		state->alloc_code_end[n++] = o->code_end;
	}
	for (; n < MAX_ALLOC_CODE; n++)
		state->alloc_code_start[n] = state->alloc_code_end[n] = 0;
}

const char *attach__maps_unseen(const struct attach *a)
{
	size_t i;

	if (a->go)
		return "Go's runtime";
	/* musl's libc.so, which is its loader too, names no SONAME: its
	 * calls are taken as a static libc's, which may make them raw */
	for (i = 0; i < a->nsites; i++)
		if (a->sites[i].def->lib == LIB_MUSL && a->objects[a->sites[i].object].mapped &&
		    strstr(base_name(a->objects[a->sites[i].object].name), ".so"))
			return "musl's libc.so, which has no SONAME and is taken for a static libc";
	return "a static executable";
}

int attach__python(const struct attach *a, struct attach_python *py)
{
	memset(py, 0, sizeof(*py));
	if (!a->py_version || !a->py_mapped)
		return -ENOENT;
	py->version = a->py_version;
	py->layout = pyframes__layout(a->py_version >> 16);
	py->runtime = a->py_bias + a->py_runtime_vaddr;
	py->eval_start = a->py_bias + a->py_eval_vaddr;
	py->eval_end = py->eval_start + a->py_eval_size;
	return py->layout ? 0 : -ENOTSUP;
}

bool attach__set_state(const struct attach *a, struct proc_state *state)
{
	struct attach_python py;

	memset(&state->py, 0, sizeof(state->py));
	if (!attach__python(a, &py)) {
		state->py = py.layout->bpf;
		state->py.tstate_addr += py.runtime;
	}
	state->loader_start = a->loader_start;
	state->loader_end = a->loader_end;
	/* a dlopen's libraries wait for their tables (see EVENT_MAPS_HELD);
	 * struct r_debug: r_version, r_map, r_brk, then r_state */
	state->r_state_addr = a->r_debug_addr ? a->r_debug_addr + 24 : 0;
	set_alloc_code(a, state);
	state->maps_probed = attach__maps_probed(a);
	return state->maps_probed;
}

void attach__verdict(const struct attach *a, pid_t pid, int err, char *buf, size_t size)
{
	if (err == -ENOENT)
		snprintf(buf, size, "pid %d maps no allocator tracelloc knows (%s)", pid,
			 attach__families());
	else if (err == -ENOEXEC)
		snprintf(buf, size, "pid %d runs a static binary without a symbol table (stripped): "
			 "nothing names its malloc", pid);
	else if (err == -EMEDIUMTYPE)
		snprintf(buf, size, "pid %d uses an allocator tracelloc does not trace (malloc is "
			 "defined in %s)", pid, attach__culprit(a));
	else
		snprintf(buf, size, "cannot read the objects mapped by pid %d: %s", pid,
			 strerror(-err));
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

const char *attach__named_known(const struct attach *a, int i)
{
	const struct probe_def *def = i >= 0 && i < MAX_NAMED_FNS ? a->named_known[i] : NULL;

	return def ? elffacts__family_name(def->lib) : NULL;
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

bool attach__go_heap(const struct attach *a)
{
	size_t i;

	for (i = 0; i < a->nsites; i++)
		if (a->sites[i].def->fn == FN_GO_MALLOC)
			return true;
	return false;
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
		family = site->def->lib == LIB_LD ? "ld.so" : elffacts__family_name(site->def->lib);
		fprintf(out, "tracelloc: probe %s (%s, %s) at offset %#" PRIx64 ", %s\n",
			site->def->symbol, family, base_name(a->objects[site->object].name),
			site->file_offset, elffacts__entry_only(site->def) ? "entry" : "entry and return");
	}
	for (i = 0; i < a->nsites; i++) {
		site = &a->sites[i];
		if (!site->shift)
			continue;
		fprintf(out, "tracelloc: %s probed at +%" PRIu64 " (an instruction the kernel emulates)",
			site->def->symbol, site->shift);
		allocfns__describe_moves(site->cookie, site_cookie_at_entry(a, site->def), out);
		fputc('\n', out);
	}
}

static void describe_objects(struct attach *a, size_t from, FILE *out)
{
	bool first = true;
	size_t i, lib;

	for (i = from; i < a->nobjects; i++) {
		for (lib = 0; lib < LIB__COUNT; lib++) {
			if (!a->objects[i].sites[lib])
				continue;	/* ld.so: only its hook */
			fprintf(out, "%s%s in %s (%d functions)", first ? "" : ", ", elffacts__family_name(lib),
				base_name(a->objects[i].name), a->objects[i].sites[lib]);
			first = false;
		}
	}
	if (a->v8_file[0] && !a->v8_told) {
		fprintf(out, "%sV8 in %s (%s)", first ? "" : ", ", a->v8_file, a->v8_names);
		a->v8_told = true;
		first = false;
	}
	if (a->pymalloc_unprobed[0] && !a->pymalloc_told) {
		fprintf(out, "%spymalloc %s %s (its objects seen as its arenas: run it with "
			"PYTHONMALLOC=malloc to see each)", first ? "" : ", ", a->pymalloc_why,
			a->pymalloc_unprobed);
		a->pymalloc_told = true;
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

/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_ATTACH_H
#define TRACELLOC_ATTACH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct tracelloc_bpf;
struct named_fns;
struct proc_state;

/*
 * Finds the allocator entry points (glibc, libstdc++) in the objects a process
 * maps, and attaches the BPF programs to them.
 */
struct attach;

struct attach_opts {
	/* probe every function at its symbol, as other tools do (for measuring) */
	bool probe_at_symbol;
	/* libc's mmap, munmap and mremap are not probed (--no-mmap) */
	bool no_mmap;
	/* exit() is probed: --leak-check holds the process there */
	bool hold_at_exit;
	/* closes the uprobe_multi links once they go; NULL: at once */
	struct closer *closer;
	/* the program's own allocator functions, probed too; NULL: none */
	const struct named_fns *named;
};

struct attach *attach__new(struct tracelloc_bpf *skel, pid_t pid, const struct attach_opts *opts);
void attach__destroy(struct attach *a);	/* detaches */

/*
 * Reads the process's maps and finds the probe sites.
 * -ESRCH: no such process; -ENOENT: no allocator of a known family mapped;
 * -ENOEXEC: none, and a static binary without symbols is mapped;
 * -EMEDIUMTYPE: another object defines malloc (an allocator we do not trace);
 * attach__culprit() names the object then.
 */
int attach__find(struct attach *a);
/* before the BPF object is loaded: picks the kind of link the kernel offers */
int attach__prepare(struct attach *a);
/* the same for another process, once the programs are loaded (the kind
 * they were loaded for; -EOPNOTSUPP when this process needs the other) */
int attach__prepare_loaded(struct attach *a);
/* after it is loaded: attaches every found site, return probes first, then
 * free, then the allocators */
int attach__attach(struct attach *a);

/* the target's maps changed (an exec): probes on the objects not seen yet.
 * Errors as attach__find's, for the maps as they are now */
int attach__refresh(struct attach *a);
/* ld.so is mapped, and its hook probed: it will say when libraries come */
bool attach__loader_probed(const struct attach *a);
/* what the BPF side keeps of the process's probes (struct proc_state):
 * where ld.so's code is, the probed allocator libraries' code (their
 * calls of mmap are the allocators' own), ld.so's r_state (a dlopen waits
 * there for its tables), and whether every mapping of the program is seen
 * at its libc's mmap, munmap, mremap and mprotect, which it returns: if
 * not, the system-call tracepoints are needed (a static executable, whose
 * libc may make raw calls; Go's runtime; where the wrappers are probed
 * too, the tracepoints leave the calls made inside them to the probes) */
bool attach__set_state(const struct attach *a, struct proc_state *state);

/* CPython's interpreter in the process, where it is mapped now */
struct py_layout;

struct attach_python {
	uint32_t version;		/* Py_Version: 0x030b07f0 is 3.11.7 */
	const struct py_layout *layout;	/* NULL: a version tracelloc has no layout of */
	uint64_t runtime;		/* _PyRuntime */
	uint64_t eval_start, eval_end;	/* _PyEval_EvalFrameDefault's code */
};
/* 0; -ENOENT: no interpreter mapped; -ENOTSUP: one of a version without
 * a layout (py->version says which) */
int attach__python(const struct attach *a, struct attach_python *py);
/* why the program's mappings are not all seen at its libc's calls (after
 * attach__set_state() said so): "Go's runtime", "a static executable"... */
const char *attach__maps_unseen(const struct attach *a);
/* the process's mmap and munmap are probed in its libc: its mappings are
 * seen there, no system-call program needed */
bool attach__maps_probed(const struct attach *a);
const char *attach__culprit(const struct attach *a);
/* why pid cannot be traced, after attach__find() or attach__refresh()
 * failed with err, as one line after "tracelloc: " */
void attach__verdict(const struct attach *a, pid_t pid, int err, char *buf, size_t size);
/* the first of the named functions (attach_opts.named) that no object
 * probed so far defines; -1: none */
int attach__named_missing(const struct attach *a);
/* the allocator family ("glibc") whose function named function i is, probed
 * as that one's and not again; NULL if it is none's */
const char *attach__named_known(const struct attach *a, int i);
/* Go's heap is traced: runtime.mallocgc is probed */
bool attach__go_heap(const struct attach *a);
int attach__probe_count(const struct attach *a);
/* "uprobe_multi" or "perf-event": the kind of links in use */
const char *attach__link_kind(const struct attach *a);
/* do the probes stop once the thread they filter on exits? (perf-event links) */
bool attach__per_thread_filter(const struct attach *a);
/* "glibc in libc.so.6 (10 functions), libstdc++ in libstdc++.so.6 (8 functions)" */
void attach__describe(struct attach *a, FILE *out);
/* the same, of the objects probed since the last description, as one line
 * after prefix; nothing when there are none (out NULL: they count as told) */
void attach__describe_new(struct attach *a, const char *prefix, FILE *out);
/* one line per probe (function, family, module, offset, entry or entry and
 * return), then one per probe placed past its symbol */
void attach__describe_sites(const struct attach *a, FILE *out);

#endif

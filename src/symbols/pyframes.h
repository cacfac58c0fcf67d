/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_PYFRAMES_H
#define TRACELLOC_PYFRAMES_H

#include <stdint.h>
#include <sys/types.h>

#include "symframe.h"
#include "tracelloc.h"

/*
 * CPython's own frames, read from outside: the BPF side walks the thread's
 * frame list at an allocation (struct py_event), and this room puts the
 * Python frames in place of the eval loop's native frames and names them
 * from the code objects in the process's memory (co_qualname, co_filename,
 * the line from co_linetable).
 *
 * The layouts are CPython's own, per minor version, as its headers of that
 * version lay out the structs (checked against the interpreter's debug
 * info, tests/python.sh): the interpreter exports _PyRuntime and
 * Py_Version, and no layout table of its own before 3.13.
 */
struct py_layout {
	unsigned int version;		/* 0x030b: 3.11 */
	struct py_offsets bpf;		/* what the walk reads (tstate_addr: _PyRuntime's offset) */
	/* the code object, for its names */
	unsigned short code_filename, code_qualname, code_firstlineno, code_linetable;
	/* str: its length, state and where a compact ASCII one's data starts;
	 * bytes: size and data */
	unsigned short str_length, str_state, str_ascii_data, str_compact_data;
	unsigned short bytes_size, bytes_data;
};

/* the layout of Py_Version's major.minor (Py_Version >> 16); NULL: none known */
const struct py_layout *pyframes__layout(unsigned int major_minor);

struct pyframes;

/* the Python frames of process pid, whose eval loop's code is
 * [eval_start, eval_end); NULL when out of memory */
struct pyframes *pyframes__new(pid_t pid, const struct py_layout *layout, uint64_t eval_start,
			       uint64_t eval_end);
void pyframes__destroy(struct pyframes *p);

/*
 * The native stack (innermost first) with the Python frames of py (as the
 * BPF side sends them) in place of the eval loop's frames, each C call of
 * the loop its own run of them; Python frames beyond the native stack's end
 * (it was cut) go at its end. Into out (room frames); the count. A Python
 * frame is PY_SYM_FRAME(index) of the frame's code and line, named at once
 * (the code object may be gone by the report).
 */
uint32_t pyframes__merge(struct pyframes *p, const uint64_t *native, uint32_t nnative,
			 const struct py_frame *py, uint32_t npy, uint64_t *out, uint32_t room);
/* a merged frame's names; NULL for an index not made */
const struct sym_frame *pyframes__frame(const struct pyframes *p, uint64_t index);

/* a Python frame in a stack: its own layer (symbolize.h's SYM_LAYER) */
#define PY_SYM_LAYER UINT64_C(0x1e)
#define PY_SYM_FRAME(index) ((PY_SYM_LAYER << 47) | (uint64_t)(index))

/* whether CPython's debug hooks wrap its allocators in process pid, as its
 * environment (PYTHONMALLOC=debug, ..._debug, PYTHONDEVMODE) or command
 * line (-X dev) asks: they take blocks of the raw domain (malloc) inside
 * pymalloc's calls and free them inside its free */
bool pyframes__debug_hooks(pid_t pid);
/* a code object's line of instruction lasti, from its 3.11+ location table
 * (Objects/locations.md); -1: none */
int pyframes__line(const uint8_t *table, size_t len, int firstlineno, uint32_t lasti);

#endif

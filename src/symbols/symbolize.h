/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_SYMBOLIZE_H
#define TRACELLOC_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "symframe.h"

/*
 * Names for code addresses of one process, through libdw. The files of the
 * process are opened while it lives (through /proc/PID/map_files, so a
 * process in a container works) and stay open, so stacks can still be named
 * after it exits. Results are cached per address, strings interned.
 */
struct symbolizer;

/* the mapped object of a frame, as pprof describes it */
struct sym_module {
	const char *path;	/* as the process maps it */
	const char *build_id;	/* hex; NULL when the object has none */
	uint64_t start;		/* the executable mapping that holds the frame */
	uint64_t limit;
	uint64_t file_offset;	/* of start, in the file */
};

struct sym_location {
	const char *module;	/* path of the mapped object, NULL when in none */
	const struct sym_module *mapping; /* NULL when in none */
	const char *symbol;	/* ELF symbol, demangled; NULL when none */
	uint64_t offset;	/* of the return address from the symbol's start */
	uint64_t symbol_size;
	uint32_t nframes;	/* at least 1 */
	const struct sym_frame *frames;	/* innermost (inlined) first, concrete last */
};

/*
 * A library unloaded (dlclose) and another loaded at the same place give one
 * return address two meanings. Frames are named after the mapping that was
 * live when their stack was taken: ld.so counts its changes to the maps (a
 * generation, see bpf/), every stack carries the count, and the symbolizer
 * notes in which generations it saw each file at each place.
 * symbolizer__map_frames() gives a frame in such a contested place the
 * number of its file's layer in its top bits (0 for the first file seen
 * there), so that a writer's stacks and names keep the two apart;
 * SYM_ADDR() is the address the process used.
 */
#define SYM_LAYER_SHIFT 47
#define SYM_ADDR(frame) ((uint64_t)(frame) & ((UINT64_C(1) << SYM_LAYER_SHIFT) - 1))
#define SYM_LAYER(frame) (((uint64_t)(frame) >> SYM_LAYER_SHIFT) & 0x1f)
/* the place changed hands in a generation the maps were never read in */
#define SYM_LAYER_UNKNOWN UINT64_C(0x1f)
/*
 * With several processes traced, bits 52-62 of a frame (and of a block's
 * address in the heap) number the process it is of (src/model/processes.h): the
 * symbolizer of one process never sees them.
 */

struct symbolizer *symbolizer__new(pid_t pid);
/* one reference less; the last one destroys it */
void symbolizer__destroy(struct symbolizer *s);
/* one reference more: a forked child, whose files are its parent's at the
 * same places, names its frames with its parent's symbolizer (libdw's
 * state of a file is megabytes: a thousand workers would hold a thousand) */
struct symbolizer *symbolizer__get(struct symbolizer *s);
/* the maps are never read again (the process called exec or exited: what
 * it mapped is what its frames are named from) */
void symbolizer__freeze(struct symbolizer *s);
/* some place held one file, then another (layers): a fork's child cannot
 * share it, as its stacks would not be mapped to their layers */
bool symbolizer__contested(const struct symbolizer *s);

/* reports the modules the process maps now; negative errno when it is gone */
int symbolizer__refresh(struct symbolizer *s);
/* where ld.so's count of changes to the maps can be read (it only grows);
 * without it, the maps never change meaning */
void symbolizer__set_generation(struct symbolizer *s, const volatile uint32_t *generation);
/*
 * The frames of a stack taken in generation gen (its low 16 bits), as
 * interned: frames itself, or buf (room for nframes) where a frame lies in
 * a contested place. Reads the maps first when gen is newer than the last
 * read.
 */
const uint64_t *symbolizer__map_frames(struct symbolizer *s, uint16_t gen,
				       const uint64_t *frames, uint32_t nframes, uint64_t *buf);
/* what is known of return address ret_addr (looked up at ret_addr - 1, the
 * call); never NULL; owned by the symbolizer */
const struct sym_location *symbolizer__locate(struct symbolizer *s, uint64_t ret_addr);
/* is ret_addr inside a module of the process? */
bool symbolizer__in_module(struct symbolizer *s, uint64_t ret_addr);
/* can ret_addr be located at once? false while the thread that loads each
 * new file's symbols and debug information has the file of ret_addr */
bool symbolizer__ready(struct symbolizer *s, uint64_t ret_addr);
/* waits until the thread has loaded a file, at most ms */
void symbolizer__await(unsigned int ms);

/* the files open for naming frames, whatever the number of symbolizers:
 * each is held once, for every process that maps it */
size_t symbolizer__open_files(void);

struct py_layout;
struct py_frame;
/* the process runs CPython (pyframes.h): its frames are named from then on */
int symbolizer__set_python(struct symbolizer *s, const struct py_layout *layout,
			   uint64_t eval_start, uint64_t eval_end);
/* frames with the Python frames py in place of the eval loop's, into out;
 * the count (0: no interpreter set, frames stay as they are) */
uint32_t symbolizer__merge_python(struct symbolizer *s, const uint64_t *frames, uint32_t nframes,
				  const struct py_frame *py, uint32_t npy, uint64_t *out,
				  uint32_t room);


#endif

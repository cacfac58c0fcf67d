/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_SYMBOLIZE_H
#define TRACELLOC_SYMBOLIZE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Names for code addresses of one process, through libdw. The files of the
 * process are opened while it lives (through /proc/PID/map_files, so a
 * process in a container works) and stay open, so stacks can still be named
 * after it exits. Results are cached per address, strings interned.
 */
struct symbolizer;

/* most frames one return address expands to (a concrete function and what was inlined into it) */
#define SYM_MAX_INLINE 32

/* one source-level frame: a return address gives one, plus one per inlined call */
struct sym_frame {
	const char *function;	/* demangled; "[unknown]", "[anon]" when not known */
	const char *file;	/* NULL without debug info */
	int line;
	bool inlined;		/* inlined into the next frame of the location */
};

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

struct symbolizer *symbolizer__new(pid_t pid);
void symbolizer__destroy(struct symbolizer *s);

/* reports the modules the process maps now; negative errno when it is gone */
int symbolizer__refresh(struct symbolizer *s);
/* what is known of return address ret_addr (looked up at ret_addr - 1, the
 * call); never NULL; owned by the symbolizer */
const struct sym_location *symbolizer__locate(struct symbolizer *s, uint64_t ret_addr);
/* is ret_addr inside a module of the process? */
bool symbolizer__in_module(struct symbolizer *s, uint64_t ret_addr);

/* demangled C++ or Rust name (Rust hashes dropped), or NULL when not mangled; malloc'ed */
char *symbolizer__demangle(const char *name);

#endif

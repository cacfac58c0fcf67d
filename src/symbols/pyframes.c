// SPDX-License-Identifier: GPL-2.0
/* CPython's frames, merged into native stacks and named (see pyframes.h) */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "procfs.h"
#include "pyframes.h"
#include "table.h"

/*
 * The offsets of CPython's structs as its headers of each version lay
 * them out (Include/internal/pycore_frame.h, pycore_runtime.h,
 * cpython/code.h, cpython/unicodeobject.h), read off the interpreters'
 * debug info with gdb (`p &((PyThreadState *)0)->cframe`, ...); the same on
 * every x86-64 build of a minor version.
 */
static const struct py_layout layouts[] = {
	{
		.version = 0x030b,
		.bpf = {
			.tstate_addr = 576,	/* gilstate.tstate_current */
			.tstate_chain = { PY_NO_FIELD, PY_NO_FIELD },
			.tstate_thread_id = 152,
			.tstate_cframe = 56,
			.cframe_frame = 8,
			.frame_code = 32,
			.frame_previous = 48,
			.frame_prev_instr = 56,
			.frame_entry = 68,
			.frame_owner = 69,
			.code_units = 184,
			.code_names = 112,
			.owner_cstack = 0xff,
		},
		.code_filename = 112, .code_qualname = 128, .code_firstlineno = 72,
		.code_linetable = 136,
		.str_length = 16, .str_state = 32, .str_ascii_data = 48, .str_compact_data = 72,
		.bytes_size = 16, .bytes_data = 32,
	},
	{
		.version = 0x030c,
		.bpf = {
			/* interpreters.main, its ceval.gil, the GIL's last_holder */
			.tstate_addr = 48,
			.tstate_chain = { 384, 8 },
			.tstate_thread_id = 136,
			.tstate_cframe = 56,
			.cframe_frame = 0,
			.frame_code = 0,
			.frame_previous = 8,
			.frame_prev_instr = 56,
			.frame_entry = PY_NO_FIELD,
			.frame_owner = 70,
			.code_units = 192,
			.code_names = 112,
			.owner_cstack = 3,	/* FRAME_OWNED_BY_CSTACK */
		},
		.code_filename = 112, .code_qualname = 128, .code_firstlineno = 68,
		.code_linetable = 136,
		.str_length = 16, .str_state = 32, .str_ascii_data = 40, .str_compact_data = 56,
		.bytes_size = 16, .bytes_data = 32,
	},
};

const struct py_layout *pyframes__layout(unsigned int major_minor)
{
	size_t i;

	for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i].version == major_minor)
			return &layouts[i];
	return NULL;
}

/* what a code object says of itself, read once */
struct code_info {
	uint64_t code;			/* its address */
	uint64_t names;			/* as py_frame.names */
	const char *qualname;
	const char *filename;
	int firstlineno;
	uint8_t *linetable;
	size_t linetable_len;
};

/* more of a code object's line table than this is not read */
#define LINETABLE_MAX (256 << 10)
#define NAME_MAX_BYTES 1024

struct pyframes {
	pid_t pid;
	const struct py_layout *layout;
	uint64_t eval_start, eval_end;
	struct table *codes;		/* code object's address -> struct code_info */
	struct table *keys;		/* code | line << 48 -> index + 1 */
	struct sym_frame *frames;	/* by index */
	size_t nframes, cap;
	char **strings;			/* owned, for frames' names */
	size_t nstrings;
};

struct pyframes *pyframes__new(pid_t pid, const struct py_layout *layout, uint64_t eval_start,
			       uint64_t eval_end)
{
	struct pyframes *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->pid = pid;
	p->layout = layout;
	p->eval_start = eval_start;
	p->eval_end = eval_end;
	p->codes = table__new(sizeof(struct code_info));
	p->keys = table__new(sizeof(uint32_t));
	if (!p->codes || !p->keys) {
		pyframes__destroy(p);
		return NULL;
	}
	return p;
}

void pyframes__destroy(struct pyframes *p)
{
	struct code_info *c;
	size_t pos = 0, i;
	uint64_t key;

	if (!p)
		return;
	while (p->codes && (c = table__next(p->codes, &pos, &key)))
		free(c->linetable);
	table__destroy(p->codes);
	table__destroy(p->keys);
	for (i = 0; i < p->nstrings; i++)
		free(p->strings[i]);
	free(p->strings);
	free(p->frames);
	free(p);
}

static int read_mem(const struct pyframes *p, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };

	return process_vm_readv(p->pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -EFAULT;
}

static const char *keep(struct pyframes *p, char *str)
{
	char **grown;

	if (!str)
		return NULL;
	grown = realloc(p->strings, (p->nstrings + 1) * sizeof(*grown));
	if (!grown) {
		free(str);
		return NULL;
	}
	p->strings = grown;
	p->strings[p->nstrings++] = str;
	return str;
}

/* a str object's text as UTF-8, or NULL */
static char *read_str(const struct pyframes *p, uint64_t obj)
{
	const struct py_layout *l = p->layout;
	uint64_t length;
	uint32_t state, kind, i;
	uint8_t raw[NAME_MAX_BYTES * 4];
	char *out;
	size_t n = 0;

	if (!obj || read_mem(p, obj + l->str_length, &length, sizeof(length)) ||
	    read_mem(p, obj + l->str_state, &state, sizeof(state)))
		return NULL;
	kind = (state >> 2) & 7;
	/* compact only: the text follows the object */
	if (!(state & (1U << 5)) || (kind != 1 && kind != 2 && kind != 4) || length > NAME_MAX_BYTES)
		return NULL;
	if (read_mem(p, obj + ((state & (1U << 6)) ? l->str_ascii_data : l->str_compact_data),
		     raw, length * kind))
		return NULL;
	out = malloc(length * 4 + 1);
	if (!out)
		return NULL;
	for (i = 0; i < length; i++) {
		uint32_t c = kind == 1 ? raw[i] : kind == 2 ? ((uint16_t *)raw)[i] : ((uint32_t *)raw)[i];

		if (c < 0x80) {
			out[n++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
		} else if (c < 0x800) {
			out[n++] = 0xc0 | c >> 6;
			out[n++] = 0x80 | (c & 0x3f);
		} else if (c < 0x10000) {
			out[n++] = 0xe0 | c >> 12;
			out[n++] = 0x80 | ((c >> 6) & 0x3f);
			out[n++] = 0x80 | (c & 0x3f);
		} else {
			out[n++] = 0xf0 | c >> 18;
			out[n++] = 0x80 | ((c >> 12) & 0x3f);
			out[n++] = 0x80 | ((c >> 6) & 0x3f);
			out[n++] = 0x80 | (c & 0x3f);
		}
	}
	out[n] = '\0';
	return out;
}

/* a code object's address and names, mixed: a key of the tables */
static uint64_t code_key(uint64_t code, uint64_t names)
{
	uint64_t x = code ^ (names * 0x9e3779b97f4a7c15ULL);

	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ULL;
	return x ^ (x >> 29);
}

/* a code object, told from one freed at its place by its names */
static const struct code_info *code_of(struct pyframes *p, uint64_t code, uint64_t names)
{
	const struct py_layout *l = p->layout;
	struct code_info *c;
	uint64_t qualname, filename, table;
	int64_t len;
	int32_t first;
	bool existed;

	c = table__upsert(p->codes, code_key(code, names), &existed);
	if (!c)
		return NULL;
	if (existed && c->code == code && c->names == names)
		return c;
	free(c->linetable);
	*c = (struct code_info){ .code = code, .names = names };
	if (read_mem(p, code + l->code_qualname, &qualname, sizeof(qualname)) ||
	    read_mem(p, code + l->code_filename, &filename, sizeof(filename)) ||
	    read_mem(p, code + l->code_firstlineno, &first, sizeof(first)) ||
	    read_mem(p, code + l->code_linetable, &table, sizeof(table)))
		return c;	/* unreadable (the process ended): [unknown python] */
	/* freed and made again since the walk read it: not named wrong */
	if ((filename ^ qualname << 1) != names)
		return c;
	c->qualname = keep(p, read_str(p, qualname));
	c->filename = keep(p, read_str(p, filename));
	c->firstlineno = first;
	if (!table || read_mem(p, table + l->bytes_size, &len, sizeof(len)) || len <= 0 ||
	    len > LINETABLE_MAX)
		return c;
	c->linetable = malloc(len);
	if (c->linetable && read_mem(p, table + l->bytes_data, c->linetable, len)) {
		free(c->linetable);
		c->linetable = NULL;
	}
	c->linetable_len = c->linetable ? len : 0;
	return c;
}

/* Objects/locations.md: 6-bit chunks, least significant first, 0x40 set
 * where another follows */
static bool varint(const uint8_t *t, size_t len, size_t *at, uint32_t *out)
{
	uint32_t v = 0, shift = 0;
	uint8_t b;

	do {
		if (*at >= len || shift > 28)
			return false;
		b = t[(*at)++];
		v |= (uint32_t)(b & 63) << shift;
		shift += 6;
	} while (b & 64);
	*out = v;
	return true;
}

static bool svarint(const uint8_t *t, size_t len, size_t *at, int *out)
{
	uint32_t v;

	if (!varint(t, len, at, &v))
		return false;
	*out = (v & 1) ? -(int)(v >> 1) : (int)(v >> 1);
	return true;
}

int pyframes__line(const uint8_t *t, size_t len, int firstlineno, uint32_t lasti)
{
	uint32_t addr = 0, skip;
	int line = firstlineno, delta;
	size_t at = 0;

	while (at < len) {
		uint8_t first = t[at++];
		uint32_t code = (first >> 3) & 15, units = (first & 7) + 1;
		bool none = false;

		if (!(first & 0x80))
			return -1;	/* not an entry's first byte */
		delta = 0;
		if (code == 15) {
			none = true;
		} else if (code == 14) {
			if (!svarint(t, len, &at, &delta) || !varint(t, len, &at, &skip) ||
			    !varint(t, len, &at, &skip) || !varint(t, len, &at, &skip))
				return -1;
		} else if (code == 13) {
			if (!svarint(t, len, &at, &delta))
				return -1;
		} else if (code >= 10) {
			delta = code - 10;
			at += 2;
		} else {
			at += 1;
		}
		line += delta;
		if (lasti < addr + units)
			return none ? -1 : line;
		addr += units;
	}
	return -1;
}

/* the index of the frame of code at its instruction lasti, made if new */
static int frame_index(struct pyframes *p, uint64_t code, uint64_t names, uint32_t lasti,
		       uint64_t *index)
{
	const struct code_info *c = code_of(p, code, names);
	int line = c && c->linetable ? pyframes__line(c->linetable, c->linetable_len,
						       c->firstlineno, lasti) : -1;
	uint64_t key = code_key(code, names) + (uint64_t)(line < 0 ? 0 : line) * 0x100000001b3ULL;
	uint32_t *slot;
	bool existed;

	if (line < 0 && c)
		line = c->firstlineno;
	slot = table__upsert(p->keys, key, &existed);
	if (!slot)
		return -ENOMEM;
	if (!existed) {
		if (p->nframes == p->cap) {
			size_t cap = p->cap ? 2 * p->cap : 256;
			struct sym_frame *grown = realloc(p->frames, cap * sizeof(*grown));

			if (!grown) {
				table__remove(p->keys, key, NULL);
				return -ENOMEM;
			}
			p->frames = grown;
			p->cap = cap;
		}
		p->frames[p->nframes] = (struct sym_frame){
			.function = c && c->qualname ? c->qualname : "[unknown python]",
			.file = c ? c->filename : NULL,
			.line = line > 0 ? line : 0,
		};
		*slot = ++p->nframes;
	}
	*index = *slot;
	return 0;
}

const struct sym_frame *pyframes__frame(const struct pyframes *p, uint64_t index)
{
	return index >= 1 && index <= p->nframes ? &p->frames[index - 1] : NULL;
}

/* the next C call's run of Python frames, from py[*at]: into out */
static uint32_t put_run(struct pyframes *p, const struct py_frame *py, uint32_t npy,
			uint32_t *at, uint64_t *out, uint32_t n, uint32_t room)
{
	uint64_t index;

	while (*at < npy && n < room) {
		uint64_t f = py[*at].at, names = py[*at].names;

		(*at)++;
		if (!frame_index(p, f & PY_CODE_MASK, names, (f >> PY_LASTI_SHIFT) & PY_LASTI_MAX,
				 &index))
			out[n++] = PY_SYM_FRAME(index);
		if (f & PY_ENTRY)
			break;
	}
	return n;
}

uint32_t pyframes__merge(struct pyframes *p, const uint64_t *native, uint32_t nnative,
			 const struct py_frame *py, uint32_t npy, uint64_t *out, uint32_t room)
{
	uint32_t i, n = 0, at = 0;

	for (i = 0; i < nnative && n < room; i++) {
		/* a return address into the eval loop: that call's frames */
		uint64_t pc = native[i] & ((UINT64_C(1) << 47) - 1);

		if (at < npy && pc > p->eval_start && pc <= p->eval_end)
			n = put_run(p, py, npy, &at, out, n, room);
		else
			out[n++] = native[i];
	}
	while (at < npy && n < room)
		n = put_run(p, py, npy, &at, out, n, room);
	return n;
}

/* an environment that asks for the debug hooks */
static bool env_asks_debug(const char *s, void *ctx)
{
	if (!strncmp(s, "PYTHONMALLOC=", 13))
		return strstr(s + 13, "debug") != NULL;
	return !strncmp(s, "PYTHONDEVMODE=", 14) && s[14] != '\0';
}

/* -X dev, -Xdev (the script's own arguments too: a false alarm costs
 * pymalloc's detail, not its truth); ctx: whether the last one was -X */
static bool arg_asks_debug(const char *s, void *ctx)
{
	bool *x = ctx, debug = (*x && !strcmp(s, "dev")) || !strcmp(s, "-Xdev");

	*x = !strcmp(s, "-X");
	return debug;
}

bool pyframes__debug_hooks(pid_t pid)
{
	bool x = false;

	return procfs__list_any(pid, "environ", env_asks_debug, NULL) ||
	       procfs__list_any(pid, "cmdline", arg_asks_debug, &x);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The message is written as it is built. Protobuf lets a message go out
 * field by field, and a repeated field's elements one at a time (tag, length,
 * element): a sample is packed (by protobuf-c, from the structs protoc-c
 * generates from src/write/proto/profile.proto) as soon as its stack is walked, and
 * nothing holds the whole message. The fields go out in the order of their
 * numbers, as protobuf-c packs a whole message, so the stream is the bytes it
 * would have packed. zlib compresses it a chunk at a time, and the daemon
 * reads its events between two (profile__idle): a profile of a million stacks
 * takes seconds to write, and the ring buffers must not wait that long.
 *
 * Every table of the message is deduplicated as it is filled: a string, a
 * function (name and file), a mapping and a location (return address)
 * appear once, and everything else refers to them by index or id. The tables
 * go out after the samples: only then are they complete.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "pprof.h"
#include "processes.h"
#include "profile.pb-c.h"
#include "table.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;

/* Profile.sample_type, as Go's heap profile (its four first), then what
 * was live when the heap was at its peak, then (--leak-check) what the
 * last leak check found lost (definitely and indirectly), then (with a
 * baseline mark) what is live of what was allocated since the mark, then
 * (several processes) what those that exited held at their exits: the
 * order of every sample's values, those that are written */
enum {
	V_ALLOC_OBJECTS, V_ALLOC_SPACE, V_INUSE_OBJECTS, V_INUSE_SPACE, V_PEAK_OBJECTS,
	V_PEAK_SPACE, V_LEAKED_OBJECTS, V_LEAKED_SPACE, V_SINCE_MARK_OBJECTS, V_SINCE_MARK_SPACE,
	V_EXIT_OBJECTS, V_EXIT_SPACE, V__COUNT
};

static const char *const value_types[V__COUNT][2] = {
	[V_ALLOC_OBJECTS] = { "alloc_objects", "count" },
	[V_ALLOC_SPACE] = { "alloc_space", "bytes" },
	[V_INUSE_OBJECTS] = { "inuse_objects", "count" },
	[V_INUSE_SPACE] = { "inuse_space", "bytes" },
	[V_PEAK_OBJECTS] = { "peak_objects", "count" },
	[V_PEAK_SPACE] = { "peak_space", "bytes" },
	[V_LEAKED_OBJECTS] = { "leaked_objects", "count" },
	[V_LEAKED_SPACE] = { "leaked_space", "bytes" },
	[V_SINCE_MARK_OBJECTS] = { "since_mark_objects", "count" },
	[V_SINCE_MARK_SPACE] = { "since_mark_space", "bytes" },
	[V_EXIT_OBJECTS] = { "exit_objects", "count" },
	[V_EXIT_SPACE] = { "exit_space", "bytes" },
};

/* Profile's repeated fields, by number (src/write/proto/profile.proto) */
enum { F_SAMPLE = 2, F_MAPPING = 3, F_LOCATION = 4, F_FUNCTION = 5, F_STRING_TABLE = 6 };

/* frames without an address (the allocator frame) are located by their function;
 * user-space addresses never have this bit */
#define LOCATION_OF_FUNCTION (1ULL << 63)

struct builder {
	struct table *string_index;	/* hash of a string -> its index */
	char **strings;
	size_t nstrings, strings_cap;
	struct table *function_ids;	/* name index << 32 | file index, + 1 -> id */
	Function *functions;
	size_t nfunctions, functions_cap;
	struct table *mapping_ids;	/* struct sym_module * -> id */
	Mapping *mappings;
	size_t nmappings, mappings_cap;
	struct table *location_ids;	/* return address -> id */
	Location *locations;
	size_t nlocations, locations_cap;
	uint64_t *sample_ids;		/* location ids of the sample being written */
	size_t sample_ids_cap;
	int err;			/* the first failure; later steps do nothing */
};

/* room for one more element of size in *array; NULL when there is none */
static void *grow(void *array, size_t *cap, size_t n, size_t size)
{
	size_t new_cap = *cap ? *cap * 2 : 64;
	void *grown;

	if (n < *cap)
		return array;
	grown = realloc(array, new_cap * size);
	if (grown)
		*cap = new_cap;
	return grown;
}

#define GROW(b, field) \
	((b)->field = grow((b)->field, &(b)->field##_cap, (b)->n##field, sizeof(*(b)->field)))

static uint64_t hash_string(const char *str)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	for (; *str; str++)
		h = (h ^ (unsigned char)*str) * 0x100000001b3ULL;
	return h | 1;
}

static int64_t string_index(struct builder *b, const char *str)
{
	uint64_t h, *slot;
	char **grown, *copy;
	bool existed;

	if (!str || !*str || b->err)
		return 0;	/* string_table[0] is "" */
	for (h = hash_string(str);; h += 2) {	/* on a collision, the next odd key */
		slot = table__upsert(b->string_index, h, &existed);
		if (!slot)
			goto nomem;
		if (!existed)
			break;
		if (!strcmp(b->strings[*slot], str))
			return (int64_t)*slot;
	}
	grown = grow(b->strings, &b->strings_cap, b->nstrings, sizeof(*grown));
	copy = grown ? strdup(str) : NULL;
	if (grown)
		b->strings = grown;
	if (!copy) {
		table__remove(b->string_index, h, NULL);
		goto nomem;
	}
	*slot = b->nstrings;
	b->strings[b->nstrings++] = copy;
	return (int64_t)*slot;
nomem:
	b->err = -ENOMEM;
	return 0;
}

static uint64_t function_id(struct builder *b, const char *name, const char *file)
{
	int64_t name_index = string_index(b, name), file_index = string_index(b, file);
	uint64_t key = ((uint64_t)name_index << 32 | (uint64_t)file_index) + 1, *slot;
	Function *f;
	bool existed;

	if (b->err)
		return 0;
	slot = table__upsert(b->function_ids, key, &existed);
	if (slot && existed)
		return *slot;
	if (!slot || !GROW(b, functions)) {
		if (slot)
			table__remove(b->function_ids, key, NULL);
		b->err = -ENOMEM;
		return 0;
	}
	f = &b->functions[b->nfunctions++];
	perftools__profiles__function__init(f);
	f->id = b->nfunctions;
	f->name = name_index;
	/* the symbol as the system knows it: we keep demangled names only */
	f->system_name = name_index;
	f->filename = file_index;
	*slot = f->id;
	return f->id;
}

static uint64_t mapping_id(struct builder *b, const struct sym_module *mod)
{
	uint64_t *slot;
	Mapping *m;
	bool existed;

	if (!mod || b->err)
		return 0;
	slot = table__upsert(b->mapping_ids, (uint64_t)(uintptr_t)mod, &existed);
	if (slot && existed)
		return *slot;
	if (!slot || !GROW(b, mappings)) {
		if (slot)
			table__remove(b->mapping_ids, (uint64_t)(uintptr_t)mod, NULL);
		b->err = -ENOMEM;
		return 0;
	}
	m = &b->mappings[b->nmappings++];
	perftools__profiles__mapping__init(m);
	m->id = b->nmappings;
	m->memory_start = mod->start;
	m->memory_limit = mod->limit;
	m->file_offset = mod->file_offset;
	m->filename = string_index(b, mod->path);
	m->build_id = string_index(b, mod->build_id);
	*slot = m->id;
	return m->id;
}

/* what the frames of a location tell of their mapping: pprof symbolizes
 * again only what a mapping says it lacks */
static void mark_mapping(Mapping *m, const struct shown_frame *frames, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (strcmp(frames[i].function, "[unknown]"))
			m->has_functions = true;
		if (frames[i].file)
			m->has_filenames = m->has_inline_frames = true;
		if (frames[i].line > 0)
			m->has_line_numbers = true;
	}
}

/* the location of frames[0..n): one return address, its inlined calls first */
static uint64_t location_id(struct builder *b, const struct shown_frame *frames, int n)
{
	uint64_t key, *slot;
	Line **line_ptrs;
	Location *loc;
	bool existed;
	int i;

	if (frames[0].addr)
		key = frames[0].addr;
	else
		key = LOCATION_OF_FUNCTION | function_id(b, frames[0].function, frames[0].file);
	if (b->err)
		return 0;
	slot = table__upsert(b->location_ids, key, &existed);
	if (slot && existed)
		return *slot;
	/* one block: the line pointers, then the lines */
	line_ptrs = slot ? calloc(n, sizeof(Line *) + sizeof(Line)) : NULL;
	if (!line_ptrs || !GROW(b, locations)) {
		free(line_ptrs);
		if (slot)
			table__remove(b->location_ids, key, NULL);
		b->err = -ENOMEM;
		return 0;
	}
	loc = &b->locations[b->nlocations++];
	perftools__profiles__location__init(loc);
	loc->id = b->nlocations;
	*slot = loc->id;
	loc->n_line = n;
	loc->line = line_ptrs;
	for (i = 0; i < n; i++) {
		Line *line = (Line *)(line_ptrs + n) + i;

		perftools__profiles__line__init(line);
		line->function_id = function_id(b, frames[i].function, frames[i].file);
		line->line = frames[i].line;
		line_ptrs[i] = line;
	}
	if (!frames[0].addr)
		return loc->id;
	/* the call instruction, which the lines describe, not the return address */
	loc->address = SYM_ADDR(frames[0].addr) - 1;
	loc->mapping_id = mapping_id(b, frames[0].loc ? frames[0].loc->mapping : NULL);
	if (loc->mapping_id)
		mark_mapping(&b->mappings[loc->mapping_id - 1], frames, n);
	return loc->id;
}

/* ------------------------------------------------------------ the stream */

#define CHUNK (1 << 16)

/* protobuf-c packs into it; zlib compresses it a chunk at a time */
struct stream {
	ProtobufCBuffer buffer;		/* first: protobuf-c appends through it */
	z_stream z;
	FILE *out;
	struct profile *p;		/* idles after every chunk */
	size_t ntypes;			/* the sample types written: */
	uint8_t types[V__COUNT];	/* each one's value, in order */
	size_t pending;			/* bytes waiting in in[] */
	int err;
	uint8_t in[CHUNK];
	uint8_t out_chunk[CHUNK];
};

/* compresses what waits, writing what zlib gives back as it comes; flush:
 * Z_NO_FLUSH, or Z_FINISH at the end */
static void stream_deflate(struct stream *st, int flush)
{
	size_t have;
	int ret;

	st->z.next_in = st->in;
	st->z.avail_in = (uInt)st->pending;
	do {
		st->z.next_out = st->out_chunk;
		st->z.avail_out = sizeof(st->out_chunk);
		ret = deflate(&st->z, flush);
		have = sizeof(st->out_chunk) - st->z.avail_out;
		if (ret == Z_STREAM_ERROR || (have && fwrite(st->out_chunk, 1, have, st->out) != have)) {
			st->err = -EIO;
			return;
		}
		profile__idle(st->p);
	} while (flush == Z_FINISH ? ret != Z_STREAM_END : st->z.avail_out == 0);
	st->pending = 0;
}

static void stream_append(ProtobufCBuffer *buffer, size_t len, const uint8_t *data)
{
	struct stream *st = (struct stream *)buffer;
	size_t n;

	while (len && !st->err) {
		n = len < CHUNK - st->pending ? len : CHUNK - st->pending;
		memcpy(st->in + st->pending, data, n);
		st->pending += n;
		data += n;
		len -= n;
		if (st->pending == CHUNK)
			stream_deflate(st, Z_NO_FLUSH);
	}
}

static struct stream *stream_new(FILE *out, struct profile *p)
{
	struct stream *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	/* gzip at the speed Go's own profiles are written with; 15 + 16: a
	 * window of 32K, with a gzip header and trailer */
	if (deflateInit2(&st->z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(st);
		return NULL;
	}
	st->buffer.append = stream_append;
	st->out = out;
	st->p = p;
	return st;
}

static int stream_finish(struct stream *st)
{
	if (!st->err)
		stream_deflate(st, Z_FINISH);
	return st->err;
}

static void stream_destroy(struct stream *st)
{
	if (!st)
		return;
	deflateEnd(&st->z);
	free(st);
}

static void put_varint(struct stream *st, uint64_t v)
{
	uint8_t bytes[10];
	size_t n = 0;

	do {
		bytes[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	stream_append(&st->buffer, n, bytes);
}

/* one element of a repeated field of Profile: tag, length, bytes */
static void put_bytes(struct stream *st, uint32_t field, const void *data, size_t size)
{
	put_varint(st, (uint64_t)field << 3 | PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED);
	put_varint(st, size);
	stream_append(&st->buffer, size, data);
}

static void put_message(struct stream *st, uint32_t field, const ProtobufCMessage *msg)
{
	put_varint(st, (uint64_t)field << 3 | PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED);
	put_varint(st, protobuf_c_message_get_packed_size(msg));
	protobuf_c_message_pack_to_buffer(msg, &st->buffer);
}

/* ---------------------------------------------------------- the message */

static int put_sample(struct builder *b, struct stream *st, const struct profile_stack *s,
		      const struct shown_frame *frames, int n)
{
	Sample sample = PERFTOOLS__PROFILES__SAMPLE__INIT;
	Perftools__Profiles__Label label = PERFTOOLS__PROFILES__LABEL__INIT;
	Perftools__Profiles__Label pid = PERFTOOLS__PROFILES__LABEL__INIT;
	Perftools__Profiles__Label *labels[2];
	const char *thread = profile__thread(st->p, s);
	uint32_t process = profile__process_id(st->p, s);
	size_t nlabels = 0;
	int64_t all[V__COUNT], values[V__COUNT];
	uint64_t *grown;
	int i, j;

	if ((size_t)n > b->sample_ids_cap) {
		grown = realloc(b->sample_ids, n * sizeof(*grown));
		if (!grown)
			return b->err = -ENOMEM;
		b->sample_ids = grown;
		b->sample_ids_cap = n;
	}
	sample.location_id = b->sample_ids;
	/* the frames of one return address (shown innermost first) make one location */
	for (i = 0; i < n; i = j) {
		for (j = i + 1; frames[i].frame >= 0 && j < n && frames[j].frame == frames[i].frame; j++)
			;
		sample.location_id[sample.n_location_id++] = location_id(b, frames + i, j - i);
	}
	if (b->err)
		return b->err;
	all[V_ALLOC_OBJECTS] = (int64_t)s->totals.alloc_count;
	all[V_ALLOC_SPACE] = (int64_t)s->totals.alloc_bytes;
	all[V_INUSE_OBJECTS] = (int64_t)s->totals.live_count;
	all[V_INUSE_SPACE] = (int64_t)s->totals.live_bytes;
	all[V_PEAK_OBJECTS] = (int64_t)s->totals.peak_count;
	all[V_PEAK_SPACE] = (int64_t)s->totals.peak_bytes;
	all[V_LEAKED_OBJECTS] = (int64_t)s->leaked_count;
	all[V_LEAKED_SPACE] = (int64_t)s->leaked_bytes;
	all[V_SINCE_MARK_OBJECTS] = (int64_t)s->since_mark_count;
	all[V_SINCE_MARK_SPACE] = (int64_t)s->since_mark_bytes;
	all[V_EXIT_OBJECTS] = (int64_t)s->totals.exit_count;
	all[V_EXIT_SPACE] = (int64_t)s->totals.exit_bytes;
	for (i = 0; i < (int)st->ntypes; i++)
		values[i] = all[st->types[i]];
	/* cppcheck-suppress unreadVariable ; packed through sample.base */
	sample.n_value = st->ntypes;
	/* cppcheck-suppress unreadVariable ; packed through sample.base */
	sample.value = values;
	if (process) {
		/* cppcheck-suppress unreadVariable ; packed through sample.base */
		pid.key = string_index(b, "pid");
		/* cppcheck-suppress unreadVariable ; packed through sample.base */
		pid.num = processes__pid(st->p->opts.processes, process);
		labels[nlabels++] = &pid;
	}
	if (thread) {
		/* the bare name: "thread NAME" is the stack's root frame */
		label.key = string_index(b, "thread");
		label.str = string_index(b, thread + strlen("thread "));
		labels[nlabels++] = &label;
	}
	if (nlabels) {
		/* cppcheck-suppress unreadVariable ; packed through sample.base */
		sample.n_label = nlabels;
		/* cppcheck-suppress unreadVariable ; packed through sample.base */
		sample.label = labels;
	}
	put_message(st, F_SAMPLE, &sample.base);
	return st->err;
}

static void builder_destroy(struct builder *b)
{
	size_t i;

	for (i = 0; i < b->nstrings; i++)
		free(b->strings[i]);
	free(b->strings);
	for (i = 0; i < b->nlocations; i++)
		free(b->locations[i].line);
	free(b->locations);
	free(b->sample_ids);
	free(b->functions);
	free(b->mappings);
	table__destroy(b->string_index);
	table__destroy(b->function_ids);
	table__destroy(b->mapping_ids);
	table__destroy(b->location_ids);
}

static int builder_init(struct builder *b)
{
	memset(b, 0, sizeof(*b));
	b->string_index = table__new(sizeof(uint64_t));
	b->function_ids = table__new(sizeof(uint64_t));
	b->mapping_ids = table__new(sizeof(uint64_t));
	b->location_ids = table__new(sizeof(uint64_t));
	b->strings = grow(NULL, &b->strings_cap, 0, sizeof(*b->strings));
	if (!b->string_index || !b->function_ids || !b->mapping_ids || !b->location_ids ||
	    !b->strings || !(b->strings[0] = strdup("")))
		return -ENOMEM;
	b->nstrings = 1;
	return 0;
}

/* the main binary first (pprof names the profile after mapping[0]): it is
 * mapped below the libraries */
static int by_start(const void *a, const void *b)
{
	const Mapping *x = *(Mapping *const *)a, *y = *(Mapping *const *)b;

	return x->memory_start < y->memory_start ? -1 : x->memory_start > y->memory_start;
}

/* the fields before the samples (field 1) */
static void put_head(struct stream *st, const int64_t type_strings[V__COUNT][2])
{
	ValueType types[V__COUNT], *type_ptrs[V__COUNT];
	Profile head = PERFTOOLS__PROFILES__PROFILE__INIT;
	size_t i;

	for (i = 0; i < st->ntypes; i++) {
		perftools__profiles__value_type__init(&types[i]);
		types[i].type = type_strings[i][0];
		types[i].unit = type_strings[i][1];
		type_ptrs[i] = &types[i];
	}
	head.n_sample_type = st->ntypes;
	head.sample_type = type_ptrs;
	perftools__profiles__profile__pack_to_buffer(&head, &st->buffer);
}

/* the fields after the samples (3 to 14): the tables, complete now */
static int put_tail(struct stream *st, struct builder *b, const struct pprof_opts *opts,
		    const int64_t type_strings[V__COUNT][2])
{
	Profile tail = PERFTOOLS__PROFILES__PROFILE__INIT;
	int64_t comment = string_index(b, opts->comment);
	ValueType period_type;
	Mapping **mappings;
	size_t i;

	perftools__profiles__value_type__init(&period_type);
	period_type.type = string_index(b, "space");
	period_type.unit = type_strings[V_ALLOC_SPACE][1];
	if (b->err)
		return b->err;
	mappings = calloc(b->nmappings ? b->nmappings : 1, sizeof(*mappings));
	if (!mappings)
		return -ENOMEM;
	for (i = 0; i < b->nmappings; i++)
		mappings[i] = &b->mappings[i];
	qsort(mappings, b->nmappings, sizeof(*mappings), by_start);
	for (i = 0; i < b->nmappings; i++)
		put_message(st, F_MAPPING, &mappings[i]->base);
	free(mappings);
	for (i = 0; i < b->nlocations; i++)
		put_message(st, F_LOCATION, &b->locations[i].base);
	for (i = 0; i < b->nfunctions; i++)
		put_message(st, F_FUNCTION, &b->functions[i].base);
	for (i = 0; i < b->nstrings; i++)
		put_bytes(st, F_STRING_TABLE, b->strings[i], strlen(b->strings[i]));

	tail.default_sample_type = type_strings[opts->view == PPROF_ALLOCS ? V_ALLOC_SPACE :
						V_INUSE_SPACE][0];
	tail.period_type = &period_type;
	tail.period = opts->period ? (int64_t)opts->period : 1;
	tail.time_nanos = opts->time_ns;
	tail.duration_nanos = opts->duration_ns;
	if (comment) {
		tail.n_comment = 1;
		tail.comment = &comment;
	}
	perftools__profiles__profile__pack_to_buffer(&tail, &st->buffer);
	return st->err;
}

int pprof__write(FILE *out, struct profile *p, const struct pprof_opts *opts)
{
	int64_t type_strings[V__COUNT][2];
	const struct shown_frame *frames;
	struct stream *st = NULL;
	struct builder b;
	size_t i;
	int err, n;

	err = builder_init(&b);
	/* the sample types first: they open the string table, as in Go's profiles */
	if (!err && !(st = stream_new(out, p)))
		err = -ENOMEM;
	for (i = 0; !err && i < V__COUNT; i++)
		if ((i != V_LEAKED_OBJECTS && i != V_LEAKED_SPACE) || opts->leaked)
			if ((i != V_SINCE_MARK_OBJECTS && i != V_SINCE_MARK_SPACE) || p->mark_ns)
				if ((i != V_EXIT_OBJECTS && i != V_EXIT_SPACE) || p->opts.processes)
					st->types[st->ntypes++] = (uint8_t)i;
	for (i = 0; !err && i < st->ntypes; i++) {
		type_strings[i][0] = string_index(&b, value_types[st->types[i]][0]);
		type_strings[i][1] = string_index(&b, value_types[st->types[i]][1]);
	}
	if (!err && b.err)
		err = b.err;
	if (!err)
		put_head(st, type_strings);
	for (i = 0; i < p->count && !err; i++) {
		n = profile__show(p, &p->stacks[i], &frames);
		if (n < 0)
			err = n;
		else if (n > 0)
			err = put_sample(&b, st, &p->stacks[i], frames, n);
	}
	if (!err)
		err = put_tail(st, &b, opts, type_strings);
	if (!err)
		err = stream_finish(st);
	stream_destroy(st);
	builder_destroy(&b);
	if (!err && ferror(out))
		err = -EIO;
	return err;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The message is built with the structs that protoc-c generates from
 * src/proto/profile.proto, packed by protobuf-c, then gzipped with zlib.
 *
 * Every table of the message is deduplicated as it is filled: a string, a
 * function (name and file), a mapping and a location (return address)
 * appear once, and everything else refers to them by index or id.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "pprof.h"
#include "profile.pb-c.h"
#include "table.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;

/* Profile.sample_type, as Go's heap profile: the order of every sample's values */
enum { V_ALLOC_OBJECTS, V_ALLOC_SPACE, V_INUSE_OBJECTS, V_INUSE_SPACE, V__COUNT };

static const char *const value_types[V__COUNT][2] = {
	[V_ALLOC_OBJECTS] = { "alloc_objects", "count" },
	[V_ALLOC_SPACE] = { "alloc_space", "bytes" },
	[V_INUSE_OBJECTS] = { "inuse_objects", "count" },
	[V_INUSE_SPACE] = { "inuse_space", "bytes" },
};

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
	Sample *samples;
	size_t nsamples, samples_cap;
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

static int add_sample(struct builder *b, const struct profile_stack *s,
		      const struct shown_frame *frames, int n)
{
	uint64_t *ids;
	int64_t *values;
	Sample *sample;
	int i, j;

	/* one block: location ids, then values */
	ids = calloc(1, n * sizeof(*ids) + V__COUNT * sizeof(*values));
	if (!ids || !GROW(b, samples)) {
		free(ids);
		return b->err = -ENOMEM;
	}
	values = (int64_t *)(ids + n);
	sample = &b->samples[b->nsamples++];
	perftools__profiles__sample__init(sample);
	sample->location_id = ids;
	sample->value = values;
	sample->n_value = V__COUNT;
	/* the frames of one return address (shown innermost first) make one location */
	for (i = 0; i < n; i = j) {
		for (j = i + 1; frames[i].frame >= 0 && j < n && frames[j].frame == frames[i].frame; j++)
			;
		ids[sample->n_location_id++] = location_id(b, frames + i, j - i);
	}
	values[V_ALLOC_OBJECTS] = (int64_t)s->totals.alloc_count;
	values[V_ALLOC_SPACE] = (int64_t)s->totals.alloc_bytes;
	values[V_INUSE_OBJECTS] = (int64_t)s->totals.live_count;
	values[V_INUSE_SPACE] = (int64_t)s->totals.live_bytes;
	return b->err;
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
	for (i = 0; i < b->nsamples; i++)
		free(b->samples[i].location_id);
	free(b->samples);
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

/* gzip, at the speed Go's own profiles are written with */
static int write_gzip(FILE *out, const uint8_t *data, size_t size)
{
	unsigned char chunk[1 << 16];
	z_stream z = {};
	size_t have;
	int ret, err = 0;

	/* 15 + 16: a window of 32K, with a gzip header and trailer */
	if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)data;
	z.avail_in = (uInt)size;
	do {
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		ret = deflate(&z, Z_FINISH);
		have = sizeof(chunk) - z.avail_out;
		/* cppcheck-suppress uninitvar ; deflate wrote it, through z.next_out */
		if (ret == Z_STREAM_ERROR || (have && fwrite(chunk, 1, have, out) != have))
			err = -EIO;
	} while (!err && ret != Z_STREAM_END);
	deflateEnd(&z);
	return err;
}

static int pack_gzip(FILE *out, const Profile *msg)
{
	size_t size = perftools__profiles__profile__get_packed_size(msg);
	uint8_t *packed;
	int err;

	/* uInt: zlib takes at most 4 GiB in one go */
	if (size > UINT32_MAX)
		return -EFBIG;
	packed = malloc(size ? size : 1);
	if (!packed)
		return -ENOMEM;
	perftools__profiles__profile__pack(msg, packed);
	err = write_gzip(out, packed, size);
	free(packed);
	if (!err && ferror(out))
		err = -EIO;
	return err;
}

/* the main binary first (pprof names the profile after mapping[0]): it is
 * mapped below the libraries */
static int by_start(const void *a, const void *b)
{
	const Mapping *x = *(Mapping *const *)a, *y = *(Mapping *const *)b;

	return x->memory_start < y->memory_start ? -1 : x->memory_start > y->memory_start;
}

static int emit(FILE *out, struct builder *b, const struct pprof_opts *opts,
		const int64_t type_strings[V__COUNT][2])
{
	ValueType types[V__COUNT], *type_ptrs[V__COUNT], period_type;
	Profile msg = PERFTOOLS__PROFILES__PROFILE__INIT;
	int64_t comment = string_index(b, opts->comment);
	void **ptrs;
	size_t i, n;
	int err;

	if (b->err)
		return b->err;
	n = b->nsamples + b->nmappings + b->nlocations + b->nfunctions;
	ptrs = calloc(n ? n : 1, sizeof(*ptrs));
	if (!ptrs)
		return -ENOMEM;
	for (i = 0; i < V__COUNT; i++) {
		perftools__profiles__value_type__init(&types[i]);
		types[i].type = type_strings[i][0];
		types[i].unit = type_strings[i][1];
		type_ptrs[i] = &types[i];
	}
	msg.n_sample_type = V__COUNT;
	msg.sample_type = type_ptrs;
	msg.default_sample_type = type_strings[opts->view == PPROF_ALLOCS ? V_ALLOC_SPACE :
					       V_INUSE_SPACE][0];
	perftools__profiles__value_type__init(&period_type);
	period_type.type = string_index(b, "space");
	period_type.unit = type_strings[V_ALLOC_SPACE][1];
	msg.period_type = &period_type;
	msg.period = opts->period ? (int64_t)opts->period : 1;
	msg.time_nanos = opts->time_ns;
	msg.duration_nanos = opts->duration_ns;
	if (comment) {
		msg.n_comment = 1;
		msg.comment = &comment;
	}

	msg.sample = (Sample **)ptrs;
	for (i = 0; i < b->nsamples; i++)
		msg.sample[msg.n_sample++] = &b->samples[i];
	msg.mapping = (Mapping **)(ptrs + b->nsamples);
	for (i = 0; i < b->nmappings; i++)
		msg.mapping[msg.n_mapping++] = &b->mappings[i];
	qsort(msg.mapping, msg.n_mapping, sizeof(*msg.mapping), by_start);
	msg.location = (Location **)(ptrs + b->nsamples + b->nmappings);
	for (i = 0; i < b->nlocations; i++)
		msg.location[msg.n_location++] = &b->locations[i];
	msg.function = (Function **)(ptrs + b->nsamples + b->nmappings + b->nlocations);
	for (i = 0; i < b->nfunctions; i++)
		msg.function[msg.n_function++] = &b->functions[i];
	/* the string table last: nothing adds to it any more */
	msg.n_string_table = b->nstrings;
	msg.string_table = b->strings;
	err = b->err ? b->err : pack_gzip(out, &msg);
	free(ptrs);
	return err;
}

int pprof__write(FILE *out, struct profile *p, const struct pprof_opts *opts)
{
	int64_t type_strings[V__COUNT][2];
	const struct shown_frame *frames;
	struct builder b;
	size_t i;
	int err, n;

	err = builder_init(&b);
	/* the sample types first: they open the string table, as in Go's profiles */
	for (i = 0; i < V__COUNT && !err; i++) {
		type_strings[i][0] = string_index(&b, value_types[i][0]);
		type_strings[i][1] = string_index(&b, value_types[i][1]);
	}
	for (i = 0; i < p->count && !err; i++) {
		n = profile__show(p, &p->stacks[i], &frames);
		if (n < 0)
			err = n;
		else if (n > 0)
			err = add_sample(&b, &p->stacks[i], frames, n);
	}
	if (!err)
		err = b.err ? b.err : emit(out, &b, opts, type_strings);
	builder_destroy(&b);
	return err;
}

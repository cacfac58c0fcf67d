// SPDX-License-Identifier: GPL-2.0
/* pprof.c: a profile of a known heap, read back with protobuf-c's decoder */
#include <errno.h>
#include <stdlib.h>
#include <zlib.h>

#include "busy_heap.h"
#include "filter.h"
#include "heap.h"
#include "pprof.h"
#include "profile.h"
#include "profile.pb-c.h"
#include "test.h"
#include "tracelloc.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Location Location;

/* innermost first; S4 shares its two inner frames with S1 */
static const uint64_t S1[] = { 0x401100, 0x402200, 0x403300 };
static const uint64_t S2[] = { 0x501100, 0x502200 };
static const uint64_t S4[] = { 0x401100, 0x402200, 0x404400 };

/*
 *   S1: malloc(100) kept, calloc 20 freed   alloc 2 / 120 B, live 1 / 100 B
 *   S2: new(7) kept                          alloc 1 / 7 B,   live 1 / 7 B
 *   S4: malloc(30) x 2, both freed           alloc 2 / 60 B,  live 0 / 0 B
 */
static struct heap *known_heap(void)
{
	struct heap *h = heap__new();

	if (!h)
		return NULL;
	if (heap__alloc(h, 1, 0x1000, 100, 1, FN_MALLOC, S1, 3) ||
	    heap__alloc(h, 1, 0x2000, 20, 2, FN_CALLOC, S1, 3) ||
	    heap__alloc(h, 2, 0x3000, 7, 3, FN_NEW, S2, 2) ||
	    heap__alloc(h, 2, 0x4000, 30, 4, FN_MALLOC, S4, 3) ||
	    heap__alloc(h, 2, 0x5000, 30, 5, FN_MALLOC, S4, 3)) {
		heap__destroy(h);
		return NULL;
	}
	heap__free(h, 1, 0x2000);
	heap__free(h, 2, 0x4000);
	heap__free(h, 2, 0x5000);
	return h;
}

/* gunzip */
static uint8_t *inflate_all(const char *data, size_t size, size_t *out_size)
{
	size_t cap = 1 << 16;
	uint8_t *out = malloc(cap);
	z_stream z = {};
	int ret = Z_OK;

	if (!out || inflateInit2(&z, 15 + 16) != Z_OK) {
		free(out);
		return NULL;
	}
	z.next_in = (Bytef *)data;
	z.avail_in = (uInt)size;
	while (ret == Z_OK) {
		if (z.total_out == cap) {
			uint8_t *grown = realloc(out, cap * 2);

			if (!grown)
				break;
			out = grown;
			cap *= 2;
		}
		z.next_out = out + z.total_out;
		z.avail_out = (uInt)(cap - z.total_out);
		ret = inflate(&z, Z_NO_FLUSH);
	}
	*out_size = z.total_out;
	inflateEnd(&z);
	if (ret != Z_STREAM_END) {
		free(out);
		return NULL;
	}
	return out;
}

struct written {
	char *gz;		/* what pprof__write wrote */
	size_t gz_size;
	Profile *profile;	/* decoded */
};

static void written_free(struct written *w)
{
	if (w->profile)
		perftools__profiles__profile__free_unpacked(w->profile, NULL);
	free(w->gz);
}

/* writes the profile of h and decodes it; asserts */
/* p written, then read back; p destroyed */
static void write_profile(struct profile *p, const struct pprof_opts *opts, struct written *w)
{
	uint8_t *raw;
	size_t raw_size = 0;
	FILE *out;
	int err;

	memset(w, 0, sizeof(*w));
	ASSERT_OK_PTR(p, "profile__snapshot");
	out = open_memstream(&w->gz, &w->gz_size);
	err = out ? pprof__write(out, p, opts) : -ENOMEM;
	if (out)
		fclose(out);
	profile__destroy(p);
	ASSERT_OK(err, "pprof__write");
	ASSERT_GE(w->gz_size, 18, "a gzip stream's header and trailer");
	ASSERT_EQ((uint8_t)w->gz[0], 0x1f, "gzip magic");
	ASSERT_EQ((uint8_t)w->gz[1], 0x8b, "gzip magic");
	raw = inflate_all(w->gz, w->gz_size, &raw_size);
	ASSERT_OK_PTR(raw, "gunzip");
	w->profile = perftools__profiles__profile__unpack(NULL, raw_size, raw);
	free(raw);
	ASSERT_OK_PTR(w->profile, "decode profile.proto");
}

static void write_and_read(struct heap *h, const struct profile_opts *popts,
			   const struct pprof_opts *opts, struct written *w)
{
	write_profile(profile__snapshot(h, popts), opts, w);
}

static const char *str(const Profile *pr, int64_t index)
{
	return index >= 0 && (size_t)index < pr->n_string_table ? pr->string_table[index] : "(out of range)";
}

static const Location *location(const Profile *pr, uint64_t id)
{
	size_t i;

	for (i = 0; i < pr->n_location; i++)
		if (pr->location[i]->id == id)
			return pr->location[i];
	return NULL;
}

/* the sample of a stack: skip locations, then those of frames (leaf first) */
static const Sample *find_sample(const Profile *pr, const uint64_t *frames, size_t n, size_t skip)
{
	size_t i, j;

	for (i = 0; i < pr->n_sample; i++) {
		const Sample *s = pr->sample[i];

		if (s->n_location_id != n + skip)
			continue;
		for (j = 0; j < n; j++) {
			const Location *loc = location(pr, s->location_id[skip + j]);

			/* located at the call, the byte before the return address */
			if (!loc || loc->address != frames[j] - 1)
				break;
		}
		if (j == n)
			return s;
	}
	return NULL;
}

static void check_sample(const Profile *pr, const uint64_t *frames, size_t n, size_t skip,
			 const int64_t want[4], const char *what)
{
	const Sample *s = find_sample(pr, frames, n, skip);
	size_t i;

	ASSERT_OK_PTR(s, "%s: a sample with its frames", what);
	ASSERT_EQ(s->n_value, 6, "%s: values", what);
	for (i = 0; i < 4; i++)
		ASSERT_EQ(s->value[i], want[i], "%s: value %zu (%s)", what, i,
			  str(pr, pr->sample_type[i]->type));
}

TEST(pprof_heap_profile)
{
	static const char *const types[6][2] = {
		{ "alloc_objects", "count" }, { "alloc_space", "bytes" },
		{ "inuse_objects", "count" }, { "inuse_space", "bytes" },
		{ "peak_objects", "count" }, { "peak_space", "bytes" },
	};
	struct pprof_opts opts = { .view = PPROF_INUSE, .time_ns = 1234567890123LL,
				   .duration_ns = 5000000000LL, .comment = "tracelloc: pid 42" };
	struct heap *h = known_heap();
	struct written w;
	const Profile *pr;
	size_t i, j, unknown = 0;

	ASSERT_OK_PTR(h, "heap");
	write_and_read(h, NULL, &opts, &w);
	heap__destroy(h);
	if (test__failed())
		goto out;
	pr = w.profile;

	ASSERT_GE(pr->n_string_table, 1, "string table");
	ASSERT_STREQ(pr->string_table[0], "", "string_table[0]");
	ASSERT_EQ(pr->n_sample_type, 6, "sample types");
	for (i = 0; i < 6; i++) {
		ASSERT_STREQ(str(pr, pr->sample_type[i]->type), types[i][0], "sample type %zu", i);
		ASSERT_STREQ(str(pr, pr->sample_type[i]->unit), types[i][1], "unit of sample type %zu", i);
	}
	ASSERT_STREQ(str(pr, pr->default_sample_type), "inuse_space", "default sample type");
	ASSERT_OK_PTR(pr->period_type, "period type");
	ASSERT_STREQ(str(pr, pr->period_type->type), "space", "period type");
	ASSERT_STREQ(str(pr, pr->period_type->unit), "bytes", "period unit");
	ASSERT_EQ(pr->period, 1, "period: every byte");
	ASSERT_EQ(pr->time_nanos, 1234567890123LL, "time");
	ASSERT_EQ(pr->duration_nanos, 5000000000LL, "duration");
	ASSERT_EQ(pr->n_comment, 1, "comments");
	ASSERT_STREQ(str(pr, pr->comment[0]), "tracelloc: pid 42", "comment");

	/* one sample per stack, values in the order of the sample types */
	ASSERT_EQ(pr->n_sample, 3, "samples");
	check_sample(pr, S1, 3, 0, (int64_t[]){ 2, 120, 1, 100 }, "S1");
	check_sample(pr, S2, 2, 0, (int64_t[]){ 1, 7, 1, 7 }, "S2");
	check_sample(pr, S4, 3, 0, (int64_t[]){ 2, 60, 0, 0 }, "S4");
	if (test__failed())
		goto out;

	/* a location per address: S1 and S4 share two; no mapping without a symbolizer */
	ASSERT_EQ(pr->n_location, 6, "locations (distinct addresses)");
	ASSERT_EQ(pr->n_mapping, 0, "mappings");
	for (i = 0; i < pr->n_location; i++) {
		ASSERT_EQ(pr->location[i]->id, i + 1, "location ids are dense");
		ASSERT_EQ(pr->location[i]->mapping_id, 0, "location %zu: mapping", i);
		ASSERT_EQ(pr->location[i]->n_line, 1, "location %zu: lines", i);
	}
	/* every frame is "[unknown]": one function, one string */
	ASSERT_EQ(pr->n_function, 1, "functions");
	ASSERT_STREQ(str(pr, pr->function[0]->name), "[unknown]", "function name");
	for (i = 0; i < pr->n_location; i++)
		ASSERT_EQ(pr->location[i]->line[0]->function_id, pr->function[0]->id,
			  "location %zu: function", i);
	/* no string twice */
	for (i = 0; i < pr->n_string_table; i++) {
		unknown += !strcmp(pr->string_table[i], "[unknown]");
		for (j = i + 1; j < pr->n_string_table; j++)
			ASSERT_TRUE(strcmp(pr->string_table[i], pr->string_table[j]),
				    "strings %zu and %zu are both \"%s\"", i, j, pr->string_table[i]);
	}
	ASSERT_EQ(unknown, 1, "\"[unknown]\" in the string table");
out:
	written_free(&w);
}

TEST(pprof_leaked_sample_types)
{
	struct pprof_opts opts = { .view = PPROF_INUSE, .leaked = true };
	struct heap *h = known_heap();
	struct profile *p;
	struct written w;
	const Sample *sa;
	size_t i;

	ASSERT_OK_PTR(h, "heap");
	p = profile__snapshot(h, NULL);
	ASSERT_OK_PTR(p, "profile__snapshot");
	/* what a leak check found lost on S1's stack (recording.c sets these) */
	for (i = 0; i < p->count; i++)
		if (p->stacks[i].totals.live_bytes == 100) {
			p->stacks[i].leaked_bytes = 100;
			p->stacks[i].leaked_count = 1;
		}
	write_profile(p, &opts, &w);
	heap__destroy(h);
	if (test__failed())
		goto out;
	ASSERT_EQ(w.profile->n_sample_type, 8, "sample types, with --leak-check");
	ASSERT_STREQ(str(w.profile, w.profile->sample_type[6]->type), "leaked_objects", "type 6");
	ASSERT_STREQ(str(w.profile, w.profile->sample_type[7]->type), "leaked_space", "type 7");
	ASSERT_STREQ(str(w.profile, w.profile->sample_type[7]->unit), "bytes", "unit 7");
	sa = find_sample(w.profile, S1, 3, 0);
	ASSERT_OK_PTR(sa, "S1's sample");
	ASSERT_EQ(sa->n_value, 8, "S1: values");
	ASSERT_EQ(sa->value[6], 1, "S1: leaked_objects");
	ASSERT_EQ(sa->value[7], 100, "S1: leaked_space");
	sa = find_sample(w.profile, S2, 2, 0);
	ASSERT_OK_PTR(sa, "S2's sample");
	ASSERT_EQ(sa->value[7], 0, "S2: nothing leaked");
out:
	written_free(&w);
}

TEST(pprof_allocs_view_and_period)
{
	struct pprof_opts opts = { .view = PPROF_ALLOCS, .period = 4096 };
	struct heap *h = known_heap();
	struct written w;

	ASSERT_OK_PTR(h, "heap");
	write_and_read(h, NULL, &opts, &w);
	heap__destroy(h);
	if (!test__failed()) {
		ASSERT_STREQ(str(w.profile, w.profile->default_sample_type), "alloc_space",
			     "default sample type of /allocs");
		ASSERT_EQ(w.profile->period, 4096, "period: --sample-bytes");
		ASSERT_EQ(w.profile->n_comment, 0, "no comment");
	}
	written_free(&w);
}

TEST(pprof_allocator_frame)
{
	struct profile_opts popts = { .allocator_frame = true };
	struct pprof_opts opts = {};
	const Location *malloc_loc, *new_loc, *s4_leaf;
	const Sample *s1, *s2, *s4;
	struct heap *h = known_heap();
	struct written w;
	const Profile *pr;

	ASSERT_OK_PTR(h, "heap");
	write_and_read(h, &popts, &opts, &w);
	heap__destroy(h);
	if (test__failed())
		goto out;
	pr = w.profile;
	/* the allocator is the leaf, a location without an address */
	check_sample(pr, S1, 3, 1, (int64_t[]){ 2, 120, 1, 100 }, "S1 under malloc");
	check_sample(pr, S2, 2, 1, (int64_t[]){ 1, 7, 1, 7 }, "S2 under operator new");
	check_sample(pr, S4, 3, 1, (int64_t[]){ 2, 60, 0, 0 }, "S4 under malloc");
	s1 = find_sample(pr, S1, 3, 1);
	s2 = find_sample(pr, S2, 2, 1);
	s4 = find_sample(pr, S4, 3, 1);
	ASSERT_TRUE(s1 && s2 && s4, "samples");
	malloc_loc = location(pr, s1->location_id[0]);
	new_loc = location(pr, s2->location_id[0]);
	s4_leaf = location(pr, s4->location_id[0]);
	ASSERT_OK_PTR(malloc_loc, "malloc's location");
	ASSERT_OK_PTR(new_loc, "operator new's location");
	ASSERT_EQ(malloc_loc->address, 0, "the allocator frame has no address");
	ASSERT_EQ(malloc_loc->n_line, 1, "malloc: lines");
	ASSERT_STREQ(str(pr, pr->function[malloc_loc->line[0]->function_id - 1]->name), "malloc",
		     "leaf of S1");
	ASSERT_STREQ(str(pr, pr->function[new_loc->line[0]->function_id - 1]->name), "operator new",
		     "leaf of S2");
	/* S1 and S4 both call malloc: one location for both */
	ASSERT_TRUE(s4_leaf == malloc_loc, "S1 and S4 share malloc's location");
	ASSERT_EQ(pr->n_location, 8, "locations: 6 addresses, malloc, operator new");
out:
	written_free(&w);
}

TEST(pprof_include_leaves_stacks_out)
{
	struct filter *f = filter__new(false);
	struct profile_opts popts = { .filter = f };
	struct pprof_opts opts = {};
	struct heap *h = known_heap();
	struct written w;

	ASSERT_OK_PTR(f, "filter");
	ASSERT_OK_PTR(h, "heap");
	ASSERT_OK(filter__include(f, "^no such function$"), "--include");
	write_and_read(h, &popts, &opts, &w);
	heap__destroy(h);
	filter__destroy(f);
	if (!test__failed()) {
		ASSERT_EQ(w.profile->n_sample, 0, "samples left by --include");
		ASSERT_EQ(w.profile->n_location, 0, "locations");
		ASSERT_EQ(w.profile->n_sample_type, 6, "sample types of an empty profile");
	}
	written_free(&w);
}

/*
 * A profile of many stacks is streamed, in chunks, idling between them,
 * while events change the heap and move the frames of its stacks: it is the
 * profile of the snapshot still, and the bytes protobuf-c packs for it.
 */
TEST(pprof_streamed_while_events_arrive)
{
	const uint32_t nstacks = 30000;
	struct pprof_opts opts = { .time_ns = 1, .comment = "busy" };
	struct profile_opts popts = {};
	uint8_t *raw = NULL, *repacked = NULL;
	size_t raw_size = 0, gz_size = 0, i, j;
	struct profile *p = NULL;
	Profile *pr = NULL;
	struct busy_heap b;
	char *gz = NULL;
	FILE *out;
	int err;

	ASSERT_OK(busy_heap__init(&b, nstacks), "heap");
	b.few = true;
	p = profile__snapshot(b.heap, &popts);
	ASSERT_OK_PTR(p, "profile__snapshot");
	busy_heap__attach(&b, &p->opts);
	out = open_memstream(&gz, &gz_size);
	ASSERT_OK_PTR(out, "open_memstream");
	err = pprof__write(out, p, &opts);
	fclose(out);
	ASSERT_OK(err, "pprof__write");
	ASSERT_OK(b.err, "allocations while it was written");
	raw = inflate_all(gz, gz_size, &raw_size);
	ASSERT_OK_PTR(raw, "gunzip");
	ASSERT_GT(raw_size, 8 << 16, "several chunks to compress");
	ASSERT_GE(b.idle_calls, nstacks + raw_size / (1 << 16), "idle calls: a stack, a chunk");
	pr = perftools__profiles__profile__unpack(NULL, raw_size, raw);
	ASSERT_OK_PTR(pr, "decode profile.proto");
	repacked = malloc(raw_size);
	ASSERT_OK_PTR(repacked, "malloc");
	ASSERT_EQ(perftools__profiles__profile__get_packed_size(pr), raw_size, "packed size");
	perftools__profiles__profile__pack(pr, repacked);
	ASSERT_TRUE(!memcmp(repacked, raw, raw_size), "the bytes protobuf-c packs");

	ASSERT_EQ(pr->n_sample, nstacks, "samples: the stacks of the snapshot");
	for (i = 0; i < pr->n_location; i++)
		ASSERT_EQ(pr->location[i]->id, i + 1, "location ids are dense");
	for (i = 0; i < nstacks; i++) {
		const Sample *s = pr->sample[i];
		const uint64_t *frames;
		uint32_t n;

		frames = busy_heap__frames(&b, (uint32_t)i, &n);
		ASSERT_EQ(s->n_location_id, n, "sample %zu: locations", i);
		for (j = 0; j < n; j++)
			ASSERT_EQ(pr->location[s->location_id[j] - 1]->address, frames[j] - 1,
				  "sample %zu: frame %zu", i, j);
		ASSERT_EQ(s->n_value, 6, "sample %zu: values", i);
		ASSERT_EQ(s->value[0], 1, "sample %zu: alloc_objects", i);
		ASSERT_EQ(s->value[1], busy_heap__size((uint32_t)i), "sample %zu: alloc_space", i);
		ASSERT_EQ(s->value[2], 1, "sample %zu: inuse_objects", i);
		ASSERT_EQ(s->value[3], busy_heap__size((uint32_t)i), "sample %zu: inuse_space", i);
	}
	ASSERT_STREQ(str(pr, pr->comment[0]), "busy", "comment, after the samples");
	perftools__profiles__profile__free_unpacked(pr, NULL);
	free(repacked);
	free(raw);
	free(gz);
	profile__destroy(p);
	busy_heap__destroy(&b);
}

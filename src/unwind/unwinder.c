// SPDX-License-Identifier: GPL-2.0
/*
 * The unwind tables of the traced process, kept in the BPF maps. Rows are
 * only appended: a walk that read an older module list still finds its rows.
 * The module list is written into the half the BPF side does not read, then
 * the half is switched; a walk reads the half once, at its start.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "maps.h"
#include "unwind.h"
#include "tracelloc.h"
#include "unwinder.h"

#define MAX_EXEC_SEGMENTS 4
/* an array map's values are 8-byte aligned */
#define ROW_STRIDE ((sizeof(struct unwind_row) + 7) & ~(size_t)7)

struct exec_segment {
	uint64_t offset;	/* page-aligned file offset, as the maps show it */
	uint64_t vaddr;		/* page-aligned */
};

/* one file, by device and inode */
struct file_table {
	unsigned int dev_major, dev_minor;
	uint64_t inode;
	int status;		/* 0: rows; -ENODATA etc.: no table (frame pointers) */
	bool dropped;		/* its rows did not fit: its frames end the stack */
	struct unwind_table *table;	/* until its rows are in the map */
	uint32_t first_row, nrows;
	struct exec_segment segs[MAX_EXEC_SEGMENTS];
	size_t nsegs;
};

/* one traced process: its slot's part of the module map */
struct unwinder_proc {
	pid_t pid;			/* 0: the slot is free */
	/* the executable mappings as last seen, to skip a refresh that changes nothing */
	struct mapping *seen;
	size_t nseen;
};

struct unwinder {
	struct file_table *files;	/* of every process: a file's rows are stored once */
	size_t nfiles, files_cap;
	struct unwinder_proc procs[MAX_PROCS];
	size_t nslots;			/* slots the module map has room for */
	struct unwinder_maps maps;
	/* the chunks of the rows made so far, mmapped, ROW_STRIDE apart */
	void *chunks[MAX_ROW_CHUNKS];
	size_t nchunks;
	struct unwind_module *mods;	/* mmapped module map */
	size_t rows_used;
	bool published;
	struct unwinder_stats stats;
};

static int read_segments(int fd, struct file_table *f)
{
	GElf_Phdr phdr;
	size_t i, n;
	Elf *elf;

	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return -ENOEXEC;
	if (elf_getphdrnum(elf, &n)) {
		elf_end(elf);
		return -ENOEXEC;
	}
	for (i = 0; i < n && f->nsegs < MAX_EXEC_SEGMENTS; i++) {
		if (!gelf_getphdr(elf, i, &phdr) || phdr.p_type != PT_LOAD || !(phdr.p_flags & PF_X))
			continue;
		f->segs[f->nsegs].offset = phdr.p_offset & ~4095ULL;
		f->segs[f->nsegs].vaddr = phdr.p_vaddr & ~4095ULL;
		f->nsegs++;
	}
	elf_end(elf);
	return 0;
}

static bool is_table_mapping(const struct mapping *m)
{
	/* a deleted file too: map_files still opens what is mapped */
	return m->exec && m->path && m->path[0] == '/' && m->inode;
}

static struct file_table *find_file(struct unwinder *u, const struct mapping *m)
{
	size_t i;

	for (i = 0; i < u->nfiles; i++)
		if (u->files[i].inode == m->inode && u->files[i].dev_major == m->dev_major &&
		    u->files[i].dev_minor == m->dev_minor)
			return &u->files[i];
	return NULL;
}

#define CHUNK_BYTES ((size_t)ROW_CHUNK_ROWS * ROW_STRIDE)

/* chunks enough for rows rows: 0, or negative errno (-ENOSPC: no more) */
static int make_chunks(struct unwinder *u, size_t rows)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_MMAPABLE);
	uint32_t idx;
	void *mem;
	int fd, err;

	while (u->nchunks * ROW_CHUNK_ROWS < rows) {
		if (u->nchunks == MAX_ROW_CHUNKS)
			return -ENOSPC;
		fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "unwind_chunk", sizeof(uint32_t),
				    sizeof(struct unwind_row), ROW_CHUNK_ROWS, &opts);
		if (fd < 0)
			return -errno;
		mem = mmap(NULL, CHUNK_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		idx = u->nchunks;
		err = mem == MAP_FAILED ? -errno : 0;
		/* the walks find it once it is in the outer map; the mapping
		 * and the outer map hold it from here */
		if (!err && bpf_map_update_elem(u->maps.rows_fd, &idx, &fd, BPF_ANY))
			err = -errno;
		close(fd);
		if (err) {
			if (mem != MAP_FAILED)
				munmap(mem, CHUNK_BYTES);
			return err;
		}
		u->chunks[u->nchunks++] = mem;
	}
	return 0;
}

/* appends the table's rows to the map, or marks the file dropped */
static void store_rows(struct unwinder *u, struct file_table *f)
{
	const struct unwind_row *rows;
	size_t count, i, at;

	if (!f->table)
		return;
	rows = unwind__rows(f->table, &count);
	if (count > (size_t)MAX_ROW_CHUNKS * ROW_CHUNK_ROWS - u->rows_used ||
	    make_chunks(u, u->rows_used + count)) {
		f->dropped = true;
		u->stats.dropped++;
	} else {
		for (i = 0; i < count; i++) {
			at = u->rows_used + i;
			memcpy((char *)u->chunks[at / ROW_CHUNK_ROWS] +
				       (at % ROW_CHUNK_ROWS) * ROW_STRIDE,
			       &rows[i], sizeof(rows[i]));
		}
		f->first_row = u->rows_used;
		f->nrows = count;
		u->rows_used += count;
	}
	unwind__destroy(f->table);
	f->table = NULL;
}

/* the table of m's file, built on first sight */
static struct file_table *file_of(struct unwinder *u, pid_t pid, const struct mapping *m)
{
	struct unwind_stats st;
	struct file_table *f = find_file(u, m), *grown;
	uint64_t start;
	int fd;

	if (f)
		return f;
	if (u->nfiles == u->files_cap) {
		size_t cap = u->files_cap ? 2 * u->files_cap : 16;

		grown = realloc(u->files, cap * sizeof(*grown));
		if (!grown)
			return NULL;
		u->files = grown;
		u->files_cap = cap;
	}
	f = &u->files[u->nfiles++];
	memset(f, 0, sizeof(*f));
	f->dev_major = m->dev_major;
	f->dev_minor = m->dev_minor;
	f->inode = m->inode;
	fd = maps__open(pid, m);
	if (fd < 0) {
		f->status = fd;
		return f;
	}
	start = clock__now_ns();
	f->status = read_segments(fd, f);
	if (!f->status)
		f->status = unwind__build(fd, NULL, &f->table);
	close(fd);
	u->stats.build_ns += clock__now_ns() - start;
	if (f->status)
		return f;
	unwind__stats(f->table, &st);
	u->stats.files++;
	u->stats.text_bytes += st.text_bytes;
	u->stats.rows += st.rows;
	if (u->published)
		store_rows(u, f);
	return f;
}

static int by_start(const void *a, const void *b)
{
	const struct unwind_module *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static bool same_mapping(const struct mapping *a, const struct mapping *b)
{
	return a->start == b->start && a->end == b->end && a->inode == b->inode &&
	       a->offset == b->offset;
}

/* has any executable mapping changed since the last look? keeps the new list */
static bool exec_changed(struct unwinder_proc *u, const struct maps *maps)
{
	struct mapping *seen;
	size_t i, n = 0, count = 0;
	bool changed;

	for (i = 0; i < maps->count; i++)
		if (maps->mappings[i].exec)
			count++;
	changed = count != u->nseen;
	for (i = 0; !changed && i < maps->count; i++)
		if (maps->mappings[i].exec && !same_mapping(&maps->mappings[i], &u->seen[n++]))
			changed = true;
	if (!changed)
		return false;
	seen = calloc(count ? count : 1, sizeof(*seen));
	if (!seen)
		return true;
	for (i = 0, n = 0; i < maps->count; i++)
		if (maps->mappings[i].exec) {
			seen[n] = maps->mappings[i];
			seen[n++].path = NULL;
		}
	free(u->seen);
	u->seen = seen;
	u->nseen = n;
	return true;
}

/* the module list of these maps, into the half the BPF side does not read */
static void publish_modules(struct unwinder *u, uint32_t slot, const struct maps *maps)
{
	struct proc_state *proc = &u->maps.procs[slot];
	uint32_t version = __atomic_load_n(&proc->mods_version, __ATOMIC_RELAXED) + 1;
	uint32_t half = version & 1;
	struct unwind_module *out = u->mods + (slot * 2 + half) * MAX_UNWIND_MODULES;
	pid_t pid = u->procs[slot].pid;
	const struct mapping *m;
	struct file_table *f;
	size_t i, j, n = 0;

	for (i = 0; i < maps->count; i++) {
		m = &maps->mappings[i];
		if (m->path && !strcmp(m->path, "[uprobes]")) {
			proc->uprobes_start = m->start;
			__atomic_store_n(&proc->uprobes_end, m->end, __ATOMIC_RELEASE);
			continue;
		}
		if (!is_table_mapping(m) || n == MAX_UNWIND_MODULES)
			continue;
		f = file_of(u, pid, m);
		if (!f)
			continue;
		for (j = 0; j < f->nsegs && f->segs[j].offset != m->offset; j++)
			;
		out[n].start = m->start;
		out[n].end = m->end;
		if (f->status || j == f->nsegs) {
			/* no unwind information: frame pointers, where allowed */
			out[n].bias = 0;
			out[n].first_row = UNWIND_NO_CFI;
			out[n].nrows = 0;
			n++;
			continue;
		}
		out[n].bias = m->start - f->segs[j].vaddr;
		out[n].first_row = f->first_row;
		/* no rows: the frames in it end the stack rather than guess */
		out[n].nrows = f->dropped ? 0 : f->nrows;
		n++;
	}
	qsort(out, n, sizeof(*out), by_start);
	__atomic_store_n(&proc->mods_count[half], n, __ATOMIC_RELEASE);
	/* a new version also tells the walks that the rows they cached by pc
	 * may be of another module now */
	__atomic_store_n(&proc->mods_version, version, __ATOMIC_RELEASE);
}

int unwinder__new(pid_t pid, struct unwinder **out)
{
	struct maps maps = {};
	struct unwinder *u;
	size_t i;
	int err;

	elf_version(EV_CURRENT);
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->procs[0].pid = pid;
	u->nslots = 1;
	/* none yet (--comm): the tables come with the processes */
	if (!pid) {
		*out = u;
		return 0;
	}
	err = maps__read(pid, &maps);
	if (err) {
		free(u);
		return err;
	}
	for (i = 0; i < maps.count; i++)
		if (is_table_mapping(&maps.mappings[i]) && !file_of(u, pid, &maps.mappings[i])) {
			maps__clear(&maps);
			unwinder__destroy(u);
			return -ENOMEM;
		}
	maps__clear(&maps);
	*out = u;
	return 0;
}

static size_t mods_bytes(const struct unwinder *u)
{
	return u->nslots * 2 * MAX_UNWIND_MODULES * sizeof(struct unwind_module);
}

void unwinder__set_slots(struct unwinder *u, size_t nslots)
{
	if (u->published || nslots < 1 || nslots > MAX_PROCS)
		return;
	u->nslots = nslots;
}

size_t unwinder__mods_entries(const struct unwinder *u)
{
	return u->nslots * 2 * MAX_UNWIND_MODULES;
}

int unwinder__publish(struct unwinder *u, const struct unwinder_maps *maps)
{
	void *mods;
	size_t i;

	mods = mmap(NULL, mods_bytes(u), PROT_READ | PROT_WRITE, MAP_SHARED, maps->mods_fd, 0);
	if (mods == MAP_FAILED)
		return -errno;
	u->mods = mods;
	u->maps = *maps;
	u->published = true;
	for (i = 0; i < u->nfiles; i++)
		store_rows(u, &u->files[i]);
	free(u->procs[0].seen);
	u->procs[0].seen = NULL;
	u->procs[0].nseen = 0;
	return unwinder__refresh(u, 0);
}

int unwinder__refresh(struct unwinder *u, uint32_t slot)
{
	struct maps maps = {};
	int err;

	if (!u || !u->published || slot >= u->nslots || !u->procs[slot].pid)
		return 0;
	err = maps__read(u->procs[slot].pid, &maps);
	if (err)
		return err;
	if (exec_changed(&u->procs[slot], &maps))
		publish_modules(u, slot, &maps);
	maps__clear(&maps);
	return 0;
}

int unwinder__add(struct unwinder *u, uint32_t slot, pid_t pid)
{
	if (!u || slot >= u->nslots)
		return -ENOSPC;
	unwinder__remove(u, slot);
	u->procs[slot].pid = pid;
	return unwinder__refresh(u, slot);
}

void unwinder__remove(struct unwinder *u, uint32_t slot)
{
	struct proc_state *proc;

	if (!u || slot >= u->nslots)
		return;
	free(u->procs[slot].seen);
	u->procs[slot] = (struct unwinder_proc){ 0 };
	if (!u->published)
		return;
	/* an empty list, so the next process in the slot starts clean */
	proc = &u->maps.procs[slot];
	__atomic_store_n(&proc->mods_count[(proc->mods_version + 1) & 1], 0, __ATOMIC_RELEASE);
	__atomic_store_n(&proc->mods_version, proc->mods_version + 1, __ATOMIC_RELEASE);
}

void unwinder__stats(const struct unwinder *u, struct unwinder_stats *stats)
{
	*stats = u->stats;
	stats->capacity = u->nchunks * ROW_CHUNK_ROWS;
	stats->bytes = u->rows_used * ROW_STRIDE;
}

void unwinder__destroy(struct unwinder *u)
{
	size_t i;

	if (!u)
		return;
	for (i = 0; i < u->nfiles; i++)
		unwind__destroy(u->files[i].table);
	for (i = 0; i < u->nchunks; i++)
		munmap(u->chunks[i], CHUNK_BYTES);
	if (u->mods)
		munmap(u->mods, mods_bytes(u));
	for (i = 0; i < MAX_PROCS; i++)
		free(u->procs[i].seen);
	free(u->files);
	free(u);
}

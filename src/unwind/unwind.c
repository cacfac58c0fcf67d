// SPDX-License-Identifier: GPL-2.0
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "gopclntab.h"
#include "probesite.h"
#include "table.h"
#include "unwind.h"

/* DWARF register numbers of x86-64 */
#define REG_RBP 6
#define REG_RSP 7
#define REG_RIP 16
#define RA_AT_CFA (-8)
/* what a row can hold */
#define ROW_PC_LIMIT 0xffffffffULL
#define RBP_OFFSET_MIN (-32768)
#define RBP_OFFSET_MAX 32767
/* glibc's vfprintf has a frame of 33360 bytes: more than 16 bits */
#define CFA_OFFSET_MIN (-(1LL << 31))
#define CFA_OFFSET_MAX ((1LL << 31) - 1)
#define PLT_CFA_OFFSET 8

/*
 * libdw runs an FDE's program from its start for every row it is asked for:
 * reading an FDE costs (rows) x (program bytes), quadratic in a corrupt one.
 * An FDE is read up to FDE_WORK_MAX, the rest of it is UNKNOWN (the largest
 * in Debian's libclang-14 costs 2^24.3, perl's 2^19, gcc-12's cc1 2^26.7: a
 * generated function of 122 KiB with 6,300 rows, read in 90 ms). The whole file gets
 * WORK_PER_CFI_BYTE per byte of CFI (libc needs 9, perl 27, libclang 31) and
 * a time limit (they take 30-60 ns per byte), against what libdw does that
 * we cannot see: an .eh_frame_hdr that leads it to other entries.
 */
#define FDE_WORK_MAX (1ULL << 28)
#define WORK_MIN (1ULL << 26)
#define WORK_PER_CFI_BYTE 512
#define TIME_MIN_NS (2 * 1000000000ULL)
#define TIME_PER_CFI_BYTE_NS 1000
#define CLOCK_EVERY 64

/* an FDE as read from the CFI section, before libdw interprets it */
struct fde {
	uint64_t start;
	uint64_t end;
	uint64_t program_len;
};

/* a range of executable code: a PT_LOAD with PF_X, below ROW_PC_LIMIT */
struct segment {
	uint64_t start;
	uint64_t end;
};

struct cfi_source {
	const char *name;
	Dwarf_CFI *cfi;
	Elf_Data *data;		/* the section libdw reads the entries from */
	uint64_t vaddr;		/* of data, for pc-relative pointers */
	bool eh_frame;
	Dwarf *dwarf;		/* .debug_frame: owns cfi */
	Elf *elf;		/* a separate debug file */
	int fd;
};

struct unwind_table {
	struct unwind_row *rows;
	size_t nrows;
	size_t cap;
	struct unwind_stats stats;
};

struct builder {
	struct unwind_table *table;
	const unsigned char *e_ident;
	struct cfi_source src;
	struct segment *segments;
	size_t nsegments;
	struct fde *fdes;
	size_t nfdes;
	size_t fdes_cap;
	struct table *cies;	/* CIE offset + 1 -> its FDE pointer encoding + 1, or 0: unusable */
	uint64_t work;
	uint64_t work_max;
	uint64_t deadline_ns;
	uint64_t calls;
};

const char *unwind__cfa_kind_name(unsigned int kind)
{
	static const char *const names[] = {
		[UNWIND_CFA_GAP] = "gap",
		[UNWIND_CFA_RSP] = "rsp",
		[UNWIND_CFA_RBP] = "rbp",
		[UNWIND_CFA_PLT] = "plt",
		[UNWIND_CFA_DEREF_RBP] = "deref_rbp",
		[UNWIND_CFA_SIGNAL] = "signal",
		[UNWIND_CFA_OUTERMOST] = "outermost",
		[UNWIND_CFA_UNKNOWN] = "unknown",
		[UNWIND_CFA_SWITCH] = "switch",
	};

	return kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "?";
}

/* The encoded pointers of the CFI, read as libdw reads them (its
 * encoded-value.h): the same bytes must give the same FDE ranges. */
static size_t encoded_size(uint8_t encoding, const uint8_t *p, const uint8_t *end)
{
	if (encoding == DW_EH_PE_omit)
		return 0;
	switch (encoding & 0x07) {
	case DW_EH_PE_udata2:
		return 2;
	case DW_EH_PE_udata4:
		return 4;
	case DW_EH_PE_udata8:
	case DW_EH_PE_absptr:
		return 8;
	case DW_EH_PE_uleb128:
		for (const uint8_t *q = p; p && q < end;)
			if (*q++ & 0x80)
				return q - p;
		return 0;
	default:
		return 0;
	}
}

static uint64_t read_le(const uint8_t *p, size_t size)
{
	uint64_t value = 0;

	while (size--)
		value = (value << 8) | p[size];
	return value;
}

static int read_leb128(const uint8_t **p, const uint8_t *end, bool is_signed, uint64_t *value)
{
	unsigned int shift = 0;
	uint8_t byte;

	*value = 0;
	do {
		if (*p >= end)
			return -EINVAL;
		byte = *(*p)++;
		if (shift < 64)
			*value |= (uint64_t)(byte & 0x7f) << shift;
		shift += 7;
	} while (byte & 0x80);
	if (is_signed && shift < 64 && (byte & 0x40))
		*value |= ~0ULL << shift;
	return 0;
}

static int read_encoded(const struct cfi_source *src, uint8_t encoding, const uint8_t **p,
			uint64_t *value)
{
	const uint8_t *buf = src->data->d_buf, *end = buf + src->data->d_size;
	static const uint8_t sizes[] = {
		[DW_EH_PE_absptr] = 8, [DW_EH_PE_udata2] = 2, [DW_EH_PE_udata4] = 4,
		[DW_EH_PE_udata8] = 8, [DW_EH_PE_sdata2] = 2, [DW_EH_PE_sdata4] = 4,
		[DW_EH_PE_sdata8] = 8,
	};
	uint64_t base = 0, offset;
	size_t size;

	switch (encoding & 0x70) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_textrel:	/* libdw takes text and data bases as 0 */
	case DW_EH_PE_datarel:
	case DW_EH_PE_funcrel:
		break;
	case DW_EH_PE_pcrel:
		base = src->vaddr + (*p - buf);
		break;
	case DW_EH_PE_aligned:
		size = encoded_size(encoding, *p, end);
		if (!size)
			return -EINVAL;
		offset = (src->vaddr + (*p - buf)) & (size - 1);
		if (offset && (size_t)(end - *p) < size - offset)
			return -EINVAL;
		if (offset)
			*p += size - offset;
		break;
	default:
		return -EINVAL;
	}

	switch (encoding & 0x0f) {
	case DW_EH_PE_uleb128:
	case DW_EH_PE_sleb128:
		if (read_leb128(p, end, (encoding & 0x0f) == DW_EH_PE_sleb128, value))
			return -EINVAL;
		break;
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata2:
	case DW_EH_PE_udata4:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata2:
	case DW_EH_PE_sdata4:
	case DW_EH_PE_sdata8:
		size = sizes[encoding & 0x0f];
		if ((size_t)(end - *p) < size)
			return -EINVAL;
		*value = read_le(*p, size);
		if ((encoding & 0x0f) == DW_EH_PE_sdata2)
			*value = (int64_t)(int16_t)*value;
		else if ((encoding & 0x0f) == DW_EH_PE_sdata4)
			*value = (int64_t)(int32_t)*value;
		*p += size;
		break;
	default:
		return -EINVAL;
	}
	*value += base;

	if (encoding & DW_EH_PE_indirect) {
		if (*value < src->vaddr || src->data->d_size < 8 ||
		    *value - src->vaddr > src->data->d_size - 8)
			return -EINVAL;
		*value = read_le(buf + (*value - src->vaddr), 8);
	}
	return 0;
}

/* the encoding of the initial locations of a CIE's FDEs, from its
 * augmentation, as libdw's intern_new_cie reads it */
static int parse_cie(const struct builder *b, Dwarf_Off offset, uint8_t *fde_encoding)
{
	const uint8_t *data, *end;
	Dwarf_CFI_Entry entry;
	Dwarf_Off next;
	bool sized = false;
	uint8_t encoding = DW_EH_PE_absptr;
	const char *ap;
	size_t size;

	if (dwarf_next_cfi(b->e_ident, b->src.data, b->src.eh_frame, offset, &next, &entry) ||
	    !dwarf_cfi_cie_p(&entry))
		return -EINVAL;
	data = entry.cie.augmentation_data;
	end = data + entry.cie.augmentation_data_size;
	for (ap = entry.cie.augmentation; *ap; ap++) {
		switch (*ap) {
		case 'z':
			sized = true;
			continue;
		case 'S':
			continue;
		case 'L':
		case 'R':
			if (data >= end)
				return -EINVAL;
			if (*ap == 'R')
				encoding = *data;
			data++;
			continue;
		case 'P':
			if (data >= end)
				return -EINVAL;
			size = encoded_size(*data, data + 1, end);
			data++;
			if ((size_t)(end - data) < size)
				return -EINVAL;
			data += size;
			continue;
		default:
			if (sized)
				continue;
		}
		break;
	}
	if ((encoding & 0x0f) == DW_EH_PE_absptr)
		encoding |= DW_EH_PE_udata8;
	*fde_encoding = encoding;
	return 0;
}

static int cie_encoding(struct builder *b, Dwarf_Off offset, uint8_t *encoding)
{
	uint16_t *cached;
	bool existed;

	if (offset >= b->src.data->d_size)
		return -EINVAL;
	cached = table__upsert(b->cies, offset + 1, &existed);
	if (!cached)
		return -ENOMEM;
	if (!existed)
		*cached = parse_cie(b, offset, encoding) ? 0 : *encoding + 1;
	if (!*cached)
		return -EINVAL;
	*encoding = *cached - 1;
	return 0;
}

static int add_fde(struct builder *b, const Dwarf_FDE *entry)
{
	const uint8_t *p = entry->start;
	uint64_t start, range;
	uint8_t encoding;
	struct fde *fde;
	int err;

	err = cie_encoding(b, entry->CIE_pointer, &encoding);
	if (err)
		return err == -ENOMEM ? err : 0;
	if (read_encoded(&b->src, encoding, &p, &start) ||
	    read_encoded(&b->src, encoding & 0x0f, &p, &range))
		return 0;
	/* libdw drops an FDE that covers nothing */
	if (start + range <= start)
		return 0;
	if (b->nfdes == b->fdes_cap) {
		size_t cap = b->fdes_cap ? b->fdes_cap * 2 : 1024;
		struct fde *fdes = realloc(b->fdes, cap * sizeof(*fdes));

		if (!fdes)
			return -ENOMEM;
		b->fdes = fdes;
		b->fdes_cap = cap;
	}
	fde = &b->fdes[b->nfdes++];
	fde->start = start;
	fde->end = start + range;
	fde->program_len = p < entry->end ? (uint64_t)(entry->end - p) : 0;
	return 0;
}

/* every FDE of the section: libdw does not hand out their ranges */
static int read_fdes(struct builder *b)
{
	size_t max_entries = b->src.data->d_size / 8 + 1, i;
	Dwarf_Off offset = 0, next;
	int err;

	for (i = 0; i < max_entries; i++) {
		Dwarf_CFI_Entry entry;
		int ret;

		next = offset;
		ret = dwarf_next_cfi(b->e_ident, b->src.data, b->src.eh_frame, offset, &next, &entry);
		if (ret > 0)
			break;
		if (ret == 0 && !dwarf_cfi_cie_p(&entry)) {
			err = add_fde(b, &entry.fde);
			if (err)
				return err;
		}
		/* like libdw, step over an entry it cannot read if its length can be */
		if (next <= offset || next == (Dwarf_Off)-1)
			break;
		offset = next;
	}
	return 0;
}

static int compare_fdes(const void *a, const void *b)
{
	const struct fde *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return 0;
}

static int compare_segments(const void *a, const void *b)
{
	const struct segment *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

/* the executable PT_LOADs, sorted, overlaps merged, cut to what a row's pc holds */
static int read_segments(struct builder *b, Elf *elf)
{
	size_t phnum, i, n = 0;

	if (elf_getphdrnum(elf, &phnum))
		return -ENOEXEC;
	b->segments = calloc(phnum ? phnum : 1, sizeof(*b->segments));
	if (!b->segments)
		return -ENOMEM;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr mem, *phdr = gelf_getphdr(elf, i, &mem);
		uint64_t end;

		if (!phdr || phdr->p_type != PT_LOAD || !(phdr->p_flags & PF_X))
			continue;
		if (phdr->p_vaddr >= ROW_PC_LIMIT || !phdr->p_memsz)
			continue;
		end = phdr->p_memsz > ROW_PC_LIMIT - phdr->p_vaddr ? ROW_PC_LIMIT
								    : phdr->p_vaddr + phdr->p_memsz;
		b->segments[n].start = phdr->p_vaddr;
		b->segments[n].end = end;
		n++;
	}
	qsort(b->segments, n, sizeof(*b->segments), compare_segments);
	b->nsegments = 0;
	for (i = 0; i < n; i++) {
		struct segment *last = b->nsegments ? &b->segments[b->nsegments - 1] : NULL;

		if (last && b->segments[i].start <= last->end) {
			if (b->segments[i].end > last->end)
				last->end = b->segments[i].end;
			continue;
		}
		b->segments[b->nsegments++] = b->segments[i];
	}
	for (i = 0; i < b->nsegments; i++)
		b->table->stats.text_bytes += b->segments[i].end - b->segments[i].start;
	return b->nsegments ? 0 : -ENODATA;
}

static bool fits_cfa(int64_t offset)
{
	return offset >= CFA_OFFSET_MIN && offset <= CFA_OFFSET_MAX;
}

static bool fits_rbp(int64_t offset)
{
	return offset >= RBP_OFFSET_MIN && offset <= RBP_OFFSET_MAX;
}

/* DW_OP_call_frame_cfa [DW_OP_plus_uconst N]: saved at CFA + N (N signed,
 * as libdw stores it unsigned) */
static bool is_at_cfa(const Dwarf_Op *ops, size_t nops, int64_t *offset)
{
	if (!ops || !nops || ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	if (nops == 1) {
		*offset = 0;
		return true;
	}
	if (nops == 2 && ops[1].atom == DW_OP_plus_uconst) {
		*offset = (int64_t)ops[1].number;
		return true;
	}
	return false;
}

/* DW_OP_bregN off, alone; in a register's rule, after the
 * DW_OP_call_frame_cfa that libdw puts first (the CFA pushed before the
 * expression, which leaves it below the result) */
static bool is_breg(const Dwarf_Op *ops, size_t nops, int reg, int64_t *offset)
{
	if (nops == 2 && ops[0].atom == DW_OP_call_frame_cfa) {
		ops++;
		nops--;
	}
	if (nops != 1 || ops[0].atom != DW_OP_breg0 + reg)
		return false;
	*offset = (int64_t)ops[0].number;
	return true;
}

/* binutils' x86-64 .plt: rsp + 8 + (((rip & 15) >= T) << 3) */
static bool is_plt(const Dwarf_Op *ops, size_t nops, int64_t *threshold)
{
	static const uint8_t shape[] = {
		DW_OP_breg7, DW_OP_breg16, DW_OP_lit15, DW_OP_and, 0, DW_OP_ge,
		DW_OP_lit3, DW_OP_shl, DW_OP_plus,
	};
	size_t i;

	if (nops != sizeof(shape))
		return false;
	for (i = 0; i < nops; i++)
		if (shape[i] && ops[i].atom != shape[i])
			return false;
	if (ops[0].number != PLT_CFA_OFFSET || ops[1].number != 0 ||
	    ops[4].atom < DW_OP_lit1 || ops[4].atom > DW_OP_lit15)
		return false;
	*threshold = ops[4].atom - DW_OP_lit0;
	return true;
}

static void classify_cfa(Dwarf_Frame *frame, struct unwind_row *row)
{
	Dwarf_Op *ops;
	size_t nops;
	int64_t offset;

	row->cfa_kind = UNWIND_CFA_UNKNOWN;
	if (dwarf_frame_cfa(frame, &ops, &nops) || !nops)
		return;
	if (nops == 1 && ops[0].atom == DW_OP_bregx) {
		/* a register and an offset: libdw keeps them in number, number2 */
		offset = (int64_t)ops[0].number2;
		if (!fits_cfa(offset))
			return;
		if (ops[0].number == REG_RSP)
			row->cfa_kind = UNWIND_CFA_RSP;
		else if (ops[0].number == REG_RBP)
			row->cfa_kind = UNWIND_CFA_RBP;
		else
			return;
		row->cfa_offset = offset;
	} else if (is_plt(ops, nops, &offset)) {
		row->cfa_kind = UNWIND_CFA_PLT;
		row->cfa_offset = offset;
	} else if (nops == 2 && ops[0].atom == DW_OP_breg6 && ops[1].atom == DW_OP_deref) {
		/* gcc's stack realignment: the CFA was saved below the frame */
		offset = (int64_t)ops[0].number;
		if (!fits_cfa(offset))
			return;
		row->cfa_kind = UNWIND_CFA_DEREF_RBP;
		row->cfa_offset = offset;
	}
}

static void classify_rbp(Dwarf_Frame *frame, struct unwind_row *row)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	int64_t offset;

	row->rbp_kind = UNWIND_RBP_UNKNOWN;
	if (dwarf_frame_register(frame, REG_RBP, mem, &ops, &nops))
		return;
	if (!nops) {
		row->rbp_kind = ops ? UNWIND_RBP_UNDEFINED : UNWIND_RBP_SAME;
		return;
	}
	if (is_at_cfa(ops, nops, &offset) && fits_rbp(offset)) {
		row->rbp_kind = UNWIND_RBP_AT_CFA;
		row->rbp_offset = offset;
	} else if (is_breg(ops, nops, REG_RBP, &offset) && fits_rbp(offset)) {
		row->rbp_kind = UNWIND_RBP_AT_RBP;
		row->rbp_offset = offset;
	}
}

/* glibc's __restore_rt: every register is in the ucontext on the stack,
 * CFA = *(rsp + N) (the saved rsp), the return address (the saved rip) at
 * rsp + N + 8, rbp at rsp + M */
static void classify_signal(Dwarf_Frame *frame, const Dwarf_Op *ra_ops, size_t ra_nops,
			    struct unwind_row *row)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	int64_t rsp_at, rip_at, rbp_at;

	row->cfa_kind = UNWIND_CFA_UNKNOWN;
	if (dwarf_frame_cfa(frame, &ops, &nops) || nops != 2 || ops[0].atom != DW_OP_breg7 ||
	    ops[1].atom != DW_OP_deref)
		return;
	rsp_at = (int64_t)ops[0].number;
	if (!is_breg(ra_ops, ra_nops, REG_RSP, &rip_at) || rip_at != rsp_at + 8)
		return;
	if (dwarf_frame_register(frame, REG_RBP, mem, &ops, &nops) ||
	    !is_breg(ops, nops, REG_RSP, &rbp_at))
		return;
	if (!fits_cfa(rsp_at) || !fits_rbp(rbp_at))
		return;
	row->cfa_kind = UNWIND_CFA_SIGNAL;
	row->cfa_offset = rsp_at;
	row->rbp_offset = rbp_at;
}

static void classify(Dwarf_Frame *frame, int ra_reg, bool signal, struct unwind_row *row)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	int64_t offset;

	memset(row, 0, sizeof(*row));
	row->cfa_kind = UNWIND_CFA_UNKNOWN;
	if (ra_reg != REG_RIP || dwarf_frame_register(frame, REG_RIP, mem, &ops, &nops))
		return;
	if (!nops && ops) {
		row->cfa_kind = UNWIND_CFA_OUTERMOST;
		return;
	}
	if (signal) {
		classify_signal(frame, ops, nops, row);
		return;
	}
	if (!is_at_cfa(ops, nops, &offset) || offset != RA_AT_CFA)
		return;
	classify_cfa(frame, row);
	if (row->cfa_kind == UNWIND_CFA_UNKNOWN) {
		memset(row, 0, sizeof(*row));
		row->cfa_kind = UNWIND_CFA_UNKNOWN;
		return;
	}
	classify_rbp(frame, row);
}

/* appends a row; one at the same pc as the last replaces it (the GAP that
 * ends an FDE, when the next one starts there) */
static int emit(struct unwind_table *t, uint64_t pc, const struct unwind_row *row)
{
	struct unwind_row *last = t->nrows ? &t->rows[t->nrows - 1] : NULL;

	if (last && last->pc > pc)
		return 0;	/* cannot happen: spans and segments are sorted */
	if (!last || last->pc != pc) {
		if (t->nrows == t->cap) {
			size_t cap = t->cap ? t->cap * 2 : 4096;
			struct unwind_row *rows = realloc(t->rows, cap * sizeof(*rows));

			if (!rows)
				return -ENOMEM;
			t->rows = rows;
			t->cap = cap;
		}
		last = &t->rows[t->nrows++];
	}
	*last = *row;
	last->pc = pc;
	return 0;
}

static int emit_kind(struct unwind_table *t, uint64_t pc, enum unwind_cfa kind)
{
	struct unwind_row row = { .cfa_kind = kind };

	return emit(t, pc, &row);
}

static int over_budget(struct builder *b)
{
	if (b->work > b->work_max)
		return -ETIMEDOUT;
	if (++b->calls % CLOCK_EVERY == 0 && clock__now_ns() > b->deadline_ns)
		return -ETIMEDOUT;
	return 0;
}

/*
 * The rows of one FDE over [lo, hi), asked of libdw row by row. Rows that
 * libdw cannot give, or that do not lie in this FDE (libdw found another,
 * through a corrupt .eh_frame_hdr), are UNKNOWN to the FDE's end.
 */
static int walk_fde(struct builder *b, const struct fde *fde, uint64_t lo, uint64_t hi,
		    bool *bad)
{
	uint64_t pc = lo, cost = fde->program_len + 1, work = 0;
	uint64_t max_rows = fde->program_len + 2, rows = 0;
	int err;

	while (pc < hi) {
		Dwarf_Addr start, end;
		Dwarf_Frame *frame;
		struct unwind_row row;
		bool signal;
		int ra_reg;

		err = over_budget(b);
		if (err)
			return err;
		/* each row but the first needs an advance in the program */
		if (++rows > max_rows || (work += cost) > FDE_WORK_MAX)
			goto unknown;
		b->work += cost;
		if (dwarf_cfi_addrframe(b->src.cfi, pc, &frame))
			goto unknown;
		ra_reg = dwarf_frame_info(frame, &start, &end, &signal);
		if (ra_reg < 0 || start > pc || end <= pc || start < fde->start || end > fde->end) {
			free(frame);
			goto unknown;
		}
		classify(frame, ra_reg, signal, &row);
		free(frame);
		err = emit(b->table, pc, &row);
		if (err)
			return err;
		pc = end;
	}
	return 0;
unknown:
	*bad = true;
	return emit_kind(b->table, pc, UNWIND_CFA_UNKNOWN);
}

/* FDEs sorted by start; a group of overlapping ones is UNKNOWN as a whole */
static int walk_fdes(struct builder *b)
{
	size_t i = 0, j, seg = 0, k;
	int err;

	qsort(b->fdes, b->nfdes, sizeof(*b->fdes), compare_fdes);
	while (i < b->nfdes) {
		uint64_t start = b->fdes[i].start, end = b->fdes[i].end;
		bool bad = false, covers = false;

		for (j = i + 1; j < b->nfdes && b->fdes[j].start < end; j++)
			if (b->fdes[j].end > end)
				end = b->fdes[j].end;
		while (seg < b->nsegments && b->segments[seg].end <= start)
			seg++;
		for (k = seg; k < b->nsegments && b->segments[k].start < end; k++) {
			uint64_t lo = start > b->segments[k].start ? start : b->segments[k].start;
			uint64_t hi = end < b->segments[k].end ? end : b->segments[k].end;

			covers = true;
			if (j - i > 1) {
				bad = true;
				err = emit_kind(b->table, lo, UNWIND_CFA_UNKNOWN);
			} else {
				err = walk_fde(b, &b->fdes[i], lo, hi, &bad);
			}
			if (!err)
				err = emit_kind(b->table, hi, UNWIND_CFA_GAP);
			if (err)
				return err;
		}
		if (covers) {
			b->table->stats.fdes += j - i;
			if (bad)
				b->table->stats.bad_fdes += j - i;
		}
		i = j;
	}
	return 0;
}

static Elf_Scn *find_section(Elf *elf, const char *name, const char *alt_name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr mem, *shdr = gelf_getshdr(scn, &mem);
		const char *scn_name;

		if (!shdr || shdr->sh_type == SHT_NOBITS)
			continue;
		scn_name = elf_strptr(elf, shstrndx, shdr->sh_name);
		if (scn_name && (!strcmp(scn_name, name) || (alt_name && !strcmp(scn_name, alt_name))))
			return scn;
	}
	return NULL;
}

static void close_source(struct cfi_source *src)
{
	if (src->dwarf)
		dwarf_end(src->dwarf);
	else if (src->cfi)
		dwarf_cfi_end(src->cfi);
	if (src->elf)
		elf_end(src->elf);
	if (src->fd >= 0)
		close(src->fd);
	memset(src, 0, sizeof(*src));
	src->fd = -1;
}

static int open_eh_frame(struct cfi_source *src, Elf *elf)
{
	Elf_Scn *scn = find_section(elf, ".eh_frame", NULL);
	GElf_Shdr mem, *shdr;

	if (!scn || !(shdr = gelf_getshdr(scn, &mem)))
		return -ENODATA;
	src->name = ".eh_frame";
	src->eh_frame = true;
	src->vaddr = shdr->sh_addr;
	src->data = elf_rawdata(scn, NULL);
	if (!src->data || !src->data->d_buf)
		return -ENODATA;
	src->cfi = dwarf_getcfi_elf(elf);
	return src->cfi ? 0 : -ENODATA;
}

/* libdw decompresses the section when it opens the Dwarf: read it after */
static int open_debug_frame(struct cfi_source *src, Elf *elf, const char *name)
{
	Elf_Scn *scn;

	src->name = name;
	src->dwarf = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (!src->dwarf)
		return -ENODATA;
	src->cfi = dwarf_getcfi(src->dwarf);
	scn = find_section(elf, ".debug_frame", ".zdebug_frame");
	if (!src->cfi || !scn)
		return -ENODATA;
	src->data = elf_getdata(scn, NULL);
	return src->data && src->data->d_buf ? 0 : -ENODATA;
}

static bool is_x86_64(Elf *elf)
{
	GElf_Ehdr mem, *ehdr;

	if (elf_kind(elf) != ELF_K_ELF || !(ehdr = gelf_getehdr(elf, &mem)))
		return false;
	return ehdr->e_ident[EI_CLASS] == ELFCLASS64 && ehdr->e_ident[EI_DATA] == ELFDATA2LSB &&
	       ehdr->e_machine == EM_X86_64;
}

static int open_debug_file(struct cfi_source *src, const char *path)
{
	src->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (src->fd < 0)
		return -errno;
	src->elf = elf_begin(src->fd, ELF_C_READ_MMAP, NULL);
	if (!src->elf || !is_x86_64(src->elf))
		return -ENOEXEC;
	return open_debug_frame(src, src->elf, "debug file");
}

/* reads the FDEs of the first source that has some: .eh_frame, the file's
 * .debug_frame, the debug file's */
static int read_cfi(struct builder *b, Elf *elf, const struct unwind_opts *opts)
{
	int source, err;

	for (source = 0; source < 3; source++) {
		close_source(&b->src);
		b->nfdes = 0;
		table__clear(b->cies);
		if (source == 0)
			err = open_eh_frame(&b->src, elf);
		else if (source == 1)
			err = open_debug_frame(&b->src, elf, ".debug_frame");
		else if (opts && opts->debug_path)
			err = open_debug_file(&b->src, opts->debug_path);
		else
			err = -ENODATA;
		if (err == -ENOMEM)
			return err;
		if (err)
			continue;
		err = read_fdes(b);
		if (err)
			return err;
		if (b->nfdes) {
			b->table->stats.source = b->src.name;
			return 0;
		}
	}
	return -ENODATA;
}

/* adjacent rows that unwind alike are one */
static void merge_rows(struct unwind_table *t)
{
	size_t i, n = 0;

	for (i = 0; i < t->nrows; i++) {
		if (n) {
			struct unwind_row a = t->rows[n - 1], b = t->rows[i];

			a.pc = b.pc = 0;
			if (!memcmp(&a, &b, sizeof(a)))
				continue;
		}
		t->rows[n++] = t->rows[i];
	}
	t->nrows = n;
}

/*
 * System call wrappers without CFI (musl's libc has none for its C code):
 * the tracer takes a stack at a system call (mmap, mremap), where the pc is
 * inside the wrapper. One row at the instruction after its `syscall`, from
 * the wrapper's prologue, leads to its caller.
 */
static const char *const syscall_wrappers[] = {
	"mmap", "mmap64", "__mmap", "mremap", "__mremap", "syscall",
};

#define WRAPPER_CODE_MAX 256

/* the file's bytes at vaddr, from its executable PT_LOAD; 0 when none */
static size_t read_code(Elf *elf, int fd, uint64_t vaddr, uint8_t *buf, size_t size)
{
	size_t phnum, i;
	ssize_t n;

	if (elf_getphdrnum(elf, &phnum))
		return 0;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr mem, *phdr = gelf_getphdr(elf, i, &mem);
		uint64_t left;

		if (!phdr || phdr->p_type != PT_LOAD || !(phdr->p_flags & PF_X) ||
		    vaddr < phdr->p_vaddr || vaddr - phdr->p_vaddr >= phdr->p_filesz)
			continue;
		left = phdr->p_filesz - (vaddr - phdr->p_vaddr);
		n = pread(fd, buf, left < size ? left : size, phdr->p_offset + (vaddr - phdr->p_vaddr));
		return n > 0 ? (size_t)n : 0;
	}
	return 0;
}

/* a row from its pc up to end, and a GAP from there, where the table has
 * a GAP (or nothing) all along */
/* the index of the first row above pc */
static size_t first_row_above(const struct unwind_table *t, uint64_t pc)
{
	size_t lo = 0, hi = t->nrows;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int insert_row_until(struct unwind_table *t, const struct unwind_row *row, uint64_t end)
{
	size_t i = first_row_above(t, row->pc), add;
	struct unwind_row *rows;

	if ((i && t->rows[i - 1].cfa_kind != UNWIND_CFA_GAP) || (i < t->nrows && t->rows[i].pc < end))
		return 0;	/* CFI covers it, or part of it */
	add = i < t->nrows && t->rows[i].pc == end ? 1 : 2;
	rows = realloc(t->rows, (t->nrows + add) * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	t->rows = rows;
	t->cap = t->nrows + add;
	memmove(&rows[i + add], &rows[i], (t->nrows - i) * sizeof(*rows));
	rows[i] = *row;
	if (add == 2)
		rows[i + 1] = (struct unwind_row){ .pc = (uint32_t)end, .cfa_kind = UNWIND_CFA_GAP };
	t->nrows += add;
	return 0;
}

/* the function at [start, end) ends every stack, whatever its CFI says:
 * its rows give way to one, and the row in force at end holds from there */
static int mark_outermost(struct unwind_table *t, uint64_t start, uint64_t end)
{
	const struct unwind_row *at_end = unwind__find(t, end);
	struct unwind_row resume = { .cfa_kind = UNWIND_CFA_GAP };
	size_t lo = start ? first_row_above(t, start - 1) : 0, hi = first_row_above(t, end), n;
	struct unwind_row *rows = t->rows;

	if (at_end)
		resume = *at_end;
	resume.pc = (uint32_t)end;
	/* the rows [lo, hi) lie in [start, end]: two take their place */
	n = t->nrows - (hi - lo) + 2;
	if (n > t->nrows) {
		rows = realloc(t->rows, n * sizeof(*rows));
		if (!rows)
			return -ENOMEM;
		t->rows = rows;
		t->cap = n;
	}
	memmove(&rows[lo + 2], &rows[hi], (t->nrows - hi) * sizeof(*rows));
	rows[lo] = (struct unwind_row){ .pc = (uint32_t)start, .cfa_kind = UNWIND_CFA_OUTERMOST };
	rows[lo + 1] = resume;
	t->nrows = n;
	return 0;
}

/* a row at pc alone */
static int insert_row(struct unwind_table *t, const struct unwind_row *row)
{
	return insert_row_until(t, row, (uint64_t)row->pc + 1);
}

static int add_wrapper_row(struct unwind_table *t, Elf *elf, int fd, uint64_t vaddr)
{
	uint8_t code[WRAPPER_CODE_MAX];
	struct syscall_frame frame;
	struct unwind_row row = { .cfa_kind = UNWIND_CFA_RSP };
	const struct unwind_row *found = unwind__find(t, vaddr);
	size_t n;

	if (found && found->cfa_kind != UNWIND_CFA_GAP)
		return 0;
	n = read_code(elf, fd, vaddr, code, sizeof(code));
	if (!n || probesite__syscall_frame(code, n, &frame) || !fits_cfa(frame.cfa_offset) ||
	    !fits_rbp(frame.rbp_offset) || vaddr + frame.resume >= ROW_PC_LIMIT)
		return 0;
	row.pc = (uint32_t)(vaddr + frame.resume);
	row.cfa_offset = (int32_t)frame.cfa_offset;
	row.rbp_kind = frame.rbp_saved ? UNWIND_RBP_AT_CFA : UNWIND_RBP_SAME;
	row.rbp_offset = frame.rbp_saved ? (int16_t)frame.rbp_offset : 0;
	return insert_row(t, &row);
}

/*
 * Go's runtime switches stacks in assembly with no CFI (Go writes
 * .debug_frame, and a cgo program's .eh_frame covers its C code alone), so
 * its frames are walked by their frame pointers. Some say more. A C
 * function called through asmcgocall (cgo), or a function systemstack runs,
 * is on the thread's own stack, and the goroutine's frames above it are on
 * another, by rbp: the walk's reach from sp does not hold there (the
 * goroutine's frame that called the switch is not in the rbp chain, and is
 * not shown). A goroutine's first function returns into goexit, a thread's
 * into mstart or rt0_go, and mcall's function runs the scheduler on the
 * thread's stack: each stack ends there, not cut short.
 */
static const struct {
	const char *name;
	enum unwind_cfa kind;
	/* whatever its CFI says: rt0_go is jumped to, and Go's CFI for it
	 * leads into junk */
	bool over_cfi;
} go_runtime_fns[] = {
	{ "runtime.asmcgocall.abi0", UNWIND_CFA_SWITCH, false },
	{ "runtime.asmcgocall", UNWIND_CFA_SWITCH, false },
	{ "runtime.systemstack.abi0", UNWIND_CFA_SWITCH, false },
	{ "runtime.systemstack", UNWIND_CFA_SWITCH, false },
	/* a goroutine's stack grown (or a preemption): newstack runs on g0 */
	{ "runtime.morestack.abi0", UNWIND_CFA_SWITCH, false },
	{ "runtime.morestack", UNWIND_CFA_SWITCH, false },
	{ "runtime.goexit.abi0", UNWIND_CFA_OUTERMOST, false },
	{ "runtime.goexit", UNWIND_CFA_OUTERMOST, false },
	{ "runtime.mstart.abi0", UNWIND_CFA_OUTERMOST, false },
	{ "runtime.mstart", UNWIND_CFA_OUTERMOST, false },
	{ "runtime.rt0_go.abi0", UNWIND_CFA_OUTERMOST, true },
	{ "runtime.rt0_go", UNWIND_CFA_OUTERMOST, true },
	{ "runtime.mcall", UNWIND_CFA_OUTERMOST, false },
};

/* rows for the function sym names, if it is one of those above */
static int add_symbol_rows(struct unwind_table *t, Elf *elf, int fd, const char *name,
			   const GElf_Sym *sym)
{
	size_t j;
	int err;

	for (j = 0; j < sizeof(syscall_wrappers) / sizeof(syscall_wrappers[0]); j++) {
		if (strcmp(name, syscall_wrappers[j]))
			continue;
		err = add_wrapper_row(t, elf, fd, sym->st_value);
		if (err)
			return err;
	}
	for (j = 0; j < sizeof(go_runtime_fns) / sizeof(go_runtime_fns[0]); j++) {
		if (strcmp(name, go_runtime_fns[j].name) || !sym->st_size ||
		    sym->st_value + sym->st_size >= ROW_PC_LIMIT)
			continue;
		if (go_runtime_fns[j].over_cfi)
			err = mark_outermost(t, sym->st_value, sym->st_value + sym->st_size);
		else
			err = insert_row_until(t, &(struct unwind_row){
							.pc = (uint32_t)sym->st_value,
							.cfa_kind = go_runtime_fns[j].kind },
					       sym->st_value + sym->st_size);
		if (err)
			return err;
	}
	return 0;
}

/* a stripped Go program's functions are named by its .gopclntab alone */
static int add_go_rows(struct unwind_table *t, Elf *elf, int fd, const struct gopclntab *g)
{
	struct symtab_hit hit;
	GElf_Sym sym = {};
	size_t i;
	int err = 0;

	/* no CFI at all (-ldflags=-w): Go's code keeps frame pointers */
	if (!t->nrows && gopclntab__count(g) && !gopclntab__at(g, 0, &hit) &&
	    hit.value < ROW_PC_LIMIT)
		err = insert_row(t, &(struct unwind_row){ .pc = (uint32_t)hit.value,
							.cfa_kind = UNWIND_CFA_GAP });
	for (i = 0; !err && i < gopclntab__count(g); i++) {
		if (gopclntab__at(g, i, &hit) || strncmp(hit.name, "runtime.", 8))
			continue;
		sym.st_value = hit.value;
		sym.st_size = hit.size;
		err = add_symbol_rows(t, elf, fd, hit.name, &sym);
	}
	return err;
}

/* rows the CFI does not give, for functions known by name */
static int add_symbol_rows_all(struct unwind_table *t, Elf *elf, int fd)
{
	Elf_Scn *scn = NULL;
	size_t i, n;
	int err;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr mem, *sh = gelf_getshdr(scn, &mem);
		Elf_Data *data;

		if (!sh || (sh->sh_type != SHT_SYMTAB && sh->sh_type != SHT_DYNSYM) ||
		    !sh->sh_entsize || !(data = elf_getdata(scn, NULL)))
			continue;
		n = sh->sh_size / sh->sh_entsize;
		for (i = 0; i < n; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    !sym.st_value || GELF_ST_TYPE(sym.st_info) != STT_FUNC)
				continue;
			name = elf_strptr(elf, sh->sh_link, sym.st_name);
			err = name ? add_symbol_rows(t, elf, fd, name, &sym) : 0;
			if (err)
				return err;
		}
	}
	return 0;
}

int unwind__build(int fd, const struct unwind_opts *opts, struct unwind_table **out)
{
	struct builder b = { .src = { .fd = -1 } };
	uint64_t start_ns = clock__now_ns(), size;
	struct gopclntab *go = NULL;
	struct unwind_row *rows;
	Elf *elf = NULL;
	size_t i;
	int err;

	_Static_assert(sizeof(struct unwind_row) == 12, "a row is 12 bytes");
	*out = NULL;
	elf_version(EV_CURRENT);
	b.table = calloc(1, sizeof(*b.table));
	b.cies = table__new(sizeof(uint16_t));
	if (!b.table || !b.cies) {
		err = -ENOMEM;
		goto cleanup;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || !is_x86_64(elf)) {
		err = -ENOEXEC;
		goto cleanup;
	}
	b.e_ident = (const unsigned char *)elf_getident(elf, NULL);
	err = read_segments(&b, elf);
	if (err)
		goto cleanup;
	/* no CFI at all: a stripped Go program's rows come from its names */
	gopclntab__new(elf, &go);
	err = read_cfi(&b, elf, opts);
	if (err && (err != -ENODATA || !go))
		goto cleanup;
	if (err == -ENODATA)
		b.table->stats.source = "names";
	if (!err) {
		size = b.src.data->d_size;
		b.work_max = WORK_MIN + size * WORK_PER_CFI_BYTE;
		b.deadline_ns = start_ns + TIME_MIN_NS + size * TIME_PER_CFI_BYTE_NS;
		err = walk_fdes(&b);
		if (err)
			goto cleanup;
		merge_rows(b.table);
	}
	err = add_symbol_rows_all(b.table, elf, fd);
	if (!err && go)
		err = add_go_rows(b.table, elf, fd, go);
	if (err)
		goto cleanup;
	for (i = 0; i < b.table->nrows; i++)
		if (b.table->rows[i].cfa_kind != UNWIND_CFA_GAP)
			break;
	if (i == b.table->nrows) {
		err = -ENODATA;
		goto cleanup;
	}
	/* the table stays for as long as the file is mapped: no slack */
	rows = realloc(b.table->rows, b.table->nrows * sizeof(*rows));
	if (rows) {
		b.table->rows = rows;
		b.table->cap = b.table->nrows;
	}
	b.table->stats.rows = b.table->nrows;
	b.table->stats.bytes = b.table->nrows * sizeof(struct unwind_row);
	b.table->stats.build_ns = clock__now_ns() - start_ns;
	*out = b.table;
	b.table = NULL;
cleanup:
	gopclntab__destroy(go);
	close_source(&b.src);
	if (elf)
		elf_end(elf);
	table__destroy(b.cies);
	free(b.fdes);
	free(b.segments);
	unwind__destroy(b.table);
	return err;
}

void unwind__destroy(struct unwind_table *t)
{
	if (!t)
		return;
	free(t->rows);
	free(t);
}

const struct unwind_row *unwind__find(const struct unwind_table *t, uint64_t pc)
{
	size_t lo = 0, hi = t->nrows;

	if (pc > ROW_PC_LIMIT || !t->nrows || pc < t->rows[0].pc)
		return NULL;
	/* the last row whose pc is at or below pc */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].pc <= pc)
			lo = mid;
		else
			hi = mid;
	}
	return &t->rows[lo];
}

const struct unwind_row *unwind__rows(const struct unwind_table *t, size_t *count)
{
	*count = t->nrows;
	return t->rows;
}

void unwind__stats(const struct unwind_table *t, struct unwind_stats *stats)
{
	*stats = t->stats;
}

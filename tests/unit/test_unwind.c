// SPDX-License-Identifier: GPL-2.0
/*
 * The unwind tables of files on this machine (perl, built without frame
 * pointers; this process's libc) checked against libdw pc by pc, and of small
 * libraries compiled here (stack realignment, .debug_frame, a debug file, no
 * CFI, a corrupt FDE).
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "unwind.h"

#define PERL "/usr/bin/perl"
#define SPREAD_PCS 400
#define REG_RBP 6
#define REG_RSP 7
#define REG_RIP 16

/* a function that realigns its stack with a DRAP register (an over-aligned
 * local and a variable-length array), and a plain one after it */
static const char lib_source[] =
	"extern void sink(volatile char *p);\n"
	"int realign(int n)\n"
	"{\n"
	"	_Alignas(64) volatile char buf[64];\n"
	"	volatile char vla[n];\n"
	"\n"
	"	buf[0] = n;\n"
	"	vla[0] = 1;\n"
	"	sink(buf);\n"
	"	sink(vla);\n"
	"	return buf[0] + n;\n"
	"}\n"
	"\n"
	"int plain(int n)\n"
	"{\n"
	"	volatile char buf[32];\n"
	"\n"
	"	buf[0] = n;\n"
	"	sink(buf);\n"
	"	return buf[0];\n"
	"}\n";

/* built once, on first use: lib.so (.eh_frame), debugframe.so
 * (.debug_frame only), stripped.so and stripped.debug (its CFI in the debug
 * file), nocfi.so (no CFI at all) */
static char work_dir[] = "/tmp/tracelloc-unwind.XXXXXX";
static const char *const built[] = {
	"lib.c", "lib.so", "debugframe.so", "stripped.so", "stripped.debug", "nocfi.so",
	"corrupt.so", "notelf", "gort.c", "gort.so",
};
static int built_status = -1;

static void remove_work_dir(void)
{
	char path[256];
	size_t i;

	for (i = 0; i < sizeof(built) / sizeof(built[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", work_dir, built[i]);
		unlink(path);
	}
	rmdir(work_dir);
}

static const char *work_path(const char *name)
{
	static char paths[4][256];
	static int next;
	char *path = paths[next++ % 4];

	snprintf(path, sizeof(paths[0]), "%s/%s", work_dir, name);
	return path;
}

static int build_libs(void)
{
	char cmd[2048];
	FILE *f;

	if (built_status >= 0)
		return built_status;
	built_status = 1;
	if (!mkdtemp(work_dir))
		return built_status;
	atexit(remove_work_dir);
	f = fopen(work_path("lib.c"), "w");
	if (!f)
		return built_status;
	fputs(lib_source, f);
	fclose(f);
	f = fopen(work_path("notelf"), "w");
	if (!f)
		return built_status;
	fputs("not an ELF file\n", f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "cd %s && L='-O2 -shared -fPIC -nostdlib' && "
		 "cc $L -o lib.so lib.c && "
		 "cc $L -g -fno-asynchronous-unwind-tables -o debugframe.so lib.c && "
		 "objcopy --only-keep-debug debugframe.so stripped.debug && "
		 "objcopy --strip-debug debugframe.so stripped.so && "
		 "cc $L -fno-asynchronous-unwind-tables -fno-unwind-tables -o nocfi.so lib.c",
		 work_dir);
	built_status = system(cmd) ? 1 : 0;
	return built_status;
}

static int build_table(const char *path, const char *debug_path, struct unwind_table **t)
{
	struct unwind_opts opts = { .debug_path = debug_path };
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	*t = NULL;
	if (fd < 0)
		return -errno;
	err = unwind__build(fd, &opts, t);
	close(fd);
	return err;
}

/* the value of a symbol of an ELF file (.symtab or .dynsym), 0 if none */
static uint64_t symbol_value(const char *path, const char *name, uint64_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf_Scn *scn = NULL;
	uint64_t value = 0;
	Elf *elf;

	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && !value && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr_mem, *shdr = gelf_getshdr(scn, &shdr_mem);
		Elf_Data *data;
		size_t i;

		if (!shdr || (shdr->sh_type != SHT_SYMTAB && shdr->sh_type != SHT_DYNSYM))
			continue;
		data = elf_getdata(scn, NULL);
		for (i = 0; data && shdr->sh_entsize && i < shdr->sh_size / shdr->sh_entsize; i++) {
			GElf_Sym sym;
			const char *sym_name;

			if (!gelf_getsym(data, i, &sym))
				break;
			sym_name = elf_strptr(elf, shdr->sh_link, sym.st_name);
			if (sym_name && !strcmp(sym_name, name) && sym.st_value) {
				value = sym.st_value;
				*size = sym.st_size;
				break;
			}
		}
	}
	elf_end(elf);
	close(fd);
	return value;
}

/* [addr, addr + size) of a section, 0 if none */
static uint64_t section_range(const char *path, const char *name, uint64_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf_Scn *scn = NULL;
	uint64_t addr = 0;
	size_t shstrndx;
	Elf *elf;

	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && !elf_getshdrstrndx(elf, &shstrndx)) {
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr mem, *shdr = gelf_getshdr(scn, &mem);
			const char *scn_name = shdr ? elf_strptr(elf, shstrndx, shdr->sh_name) : NULL;

			if (scn_name && !strcmp(scn_name, name)) {
				addr = shdr->sh_addr;
				*size = shdr->sh_size;
				break;
			}
		}
	}
	elf_end(elf);
	close(fd);
	return addr;
}

static int find_libc(struct dl_phdr_info *info, size_t size, void *arg)
{
	char *path = arg;

	if (strstr(info->dlpi_name, "/libc.so")) {
		snprintf(path, PATH_MAX, "%s", info->dlpi_name);
		return 1;
	}
	return 0;
}

/* the libc this process runs on */
static const char *libc_path(void)
{
	static char path[PATH_MAX];

	if (!path[0])
		dl_iterate_phdr(find_libc, path);
	return path[0] ? path : NULL;
}

static bool is_at_cfa(const Dwarf_Op *ops, size_t nops, int64_t *offset)
{
	if (nops == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		*offset = 0;
		return true;
	}
	if (nops == 2 && ops[0].atom == DW_OP_call_frame_cfa && ops[1].atom == DW_OP_plus_uconst) {
		*offset = (int64_t)ops[1].number;
		return true;
	}
	return false;
}

struct spread_counts {
	int no_cfi, register_cfa, at_cfa_rbp, other;
};

/* what libdw says at pc, against the row the table holds for it */
static void check_pc(const struct unwind_table *t, Dwarf_CFI *cfi, uint64_t pc,
		     struct spread_counts *counts)
{
	const struct unwind_row *row = unwind__find(t, pc);
	Dwarf_Op mem[3], *ops;
	Dwarf_Frame *frame;
	size_t nops;
	int64_t offset;
	bool signal;
	int cfa_kind;

	if (dwarf_cfi_addrframe(cfi, pc, &frame)) {
		counts->no_cfi++;
		ASSERT_TRUE(!row || row->cfa_kind == UNWIND_CFA_GAP ||
				    row->cfa_kind == UNWIND_CFA_UNKNOWN,
			    "row at %#lx where libdw has no frame", (unsigned long)pc);
		return;
	}
	ASSERT_OK_PTR(row, "row at %#lx", (unsigned long)pc);
	ASSERT_EQ(dwarf_frame_info(frame, NULL, NULL, &signal), REG_RIP, "return address column");
	ASSERT_OK(dwarf_frame_register(frame, REG_RIP, mem, &ops, &nops), "rip rule");
	if (!nops && ops) {
		ASSERT_EQ(row->cfa_kind, UNWIND_CFA_OUTERMOST, "outermost at %#lx", (unsigned long)pc);
		counts->other++;
		goto out;
	}
	ASSERT_OK(dwarf_frame_cfa(frame, &ops, &nops), "cfa at %#lx", (unsigned long)pc);
	if (signal || nops != 1 || ops[0].atom != DW_OP_bregx ||
	    (ops[0].number != REG_RSP && ops[0].number != REG_RBP)) {
		ASSERT_TRUE(row->cfa_kind != UNWIND_CFA_RSP && row->cfa_kind != UNWIND_CFA_RBP,
			    "cfa kind at %#lx", (unsigned long)pc);
		counts->other++;
		goto out;
	}
	cfa_kind = ops[0].number == REG_RSP ? UNWIND_CFA_RSP : UNWIND_CFA_RBP;
	ASSERT_EQ(row->cfa_kind, cfa_kind, "cfa register at %#lx", (unsigned long)pc);
	ASSERT_EQ(row->cfa_offset, (int64_t)ops[0].number2, "cfa offset at %#lx", (unsigned long)pc);
	counts->register_cfa++;

	ASSERT_OK(dwarf_frame_register(frame, REG_RBP, mem, &ops, &nops), "rbp rule");
	if (!nops) {
		ASSERT_EQ(row->rbp_kind, ops ? UNWIND_RBP_UNDEFINED : UNWIND_RBP_SAME,
			  "rbp at %#lx", (unsigned long)pc);
	} else if (is_at_cfa(ops, nops, &offset)) {
		ASSERT_EQ(row->rbp_kind, UNWIND_RBP_AT_CFA, "rbp saved at %#lx", (unsigned long)pc);
		ASSERT_EQ(row->rbp_offset, offset, "rbp offset at %#lx", (unsigned long)pc);
		counts->at_cfa_rbp++;
	}
out:
	free(frame);
}

/* pcs spread over the executable segments, against libdw's frames */
static void check_spread(const char *path)
{
	struct spread_counts counts = { 0 };
	struct unwind_table *t;
	uint64_t state = 0x5eed;
	Dwarf_CFI *cfi;
	size_t phnum, i;
	Elf *elf;
	int fd, n;

	ASSERT_OK(build_table(path, NULL, &t), "build %s", path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0, "open %s", path);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	cfi = elf ? dwarf_getcfi_elf(elf) : NULL;
	if (!cfi || elf_getphdrnum(elf, &phnum))
		phnum = 0;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr mem, *phdr = gelf_getphdr(elf, i, &mem);

		if (!phdr || phdr->p_type != PT_LOAD || !(phdr->p_flags & PF_X))
			continue;
		for (n = 0; n < SPREAD_PCS && !test__failed(); n++)
			ASSERT_HELPER(check_pc(t, cfi, phdr->p_vaddr + test__rand(&state) % phdr->p_memsz,
					       &counts));
	}
	if (cfi)
		dwarf_cfi_end(cfi);
	elf_end(elf);
	close(fd);
	unwind__destroy(t);
	if (test__failed())
		return;
	ASSERT_GT(phnum, 0, "%s: program headers and CFI", path);
	/* most of the code is covered, and saves rbp somewhere */
	ASSERT_GT(counts.register_cfa, SPREAD_PCS * 3 / 4, "%s: pcs with rsp or rbp + N", path);
	ASSERT_GT(counts.at_cfa_rbp, SPREAD_PCS / 4, "%s: pcs where rbp is saved", path);
}

TEST(unwind_perl_agrees_with_libdw)
{
	check_spread(PERL);
}

TEST(unwind_libc_agrees_with_libdw)
{
	ASSERT_OK_PTR(libc_path(), "this process's libc");
	check_spread(libc_path());
}

TEST(unwind_rows_sorted_merged_and_gap_terminated)
{
	const struct unwind_row *rows;
	struct unwind_stats stats;
	struct unwind_table *t;
	size_t n, i;

	ASSERT_OK(build_table(PERL, NULL, &t), "build perl");
	rows = unwind__rows(t, &n);
	unwind__stats(t, &stats);
	for (i = 1; i < n; i++) {
		struct unwind_row a = rows[i - 1], b = rows[i];

		if (a.pc >= b.pc)
			break;
		a.pc = b.pc = 0;
		if (!memcmp(&a, &b, sizeof(a)))
			break;
	}
	ASSERT_EQ(i, n, "rows ascending, no two alike in a row (row %zu)", i);
	ASSERT_EQ(rows[n - 1].cfa_kind, UNWIND_CFA_GAP, "last row");
	ASSERT_NULL(unwind__find(t, rows[0].pc - 1), "below the first row");
	ASSERT_TRUE(unwind__find(t, rows[0].pc) == &rows[0], "the first row's pc");
	ASSERT_TRUE(unwind__find(t, 1ULL << 40) == NULL, "above 32 bits");
	ASSERT_TRUE(unwind__find(t, rows[n - 1].pc + 4096) == &rows[n - 1], "past the last row");
	ASSERT_EQ(stats.rows, n, "stats rows");
	ASSERT_EQ(stats.bytes, n * sizeof(struct unwind_row), "stats bytes");
	ASSERT_EQ(stats.bad_fdes, 0, "perl's FDEs all read");
	ASSERT_STREQ(stats.source, ".eh_frame", "perl's CFI");
	ASSERT_GT(stats.text_bytes, 1 << 20, "perl's code");
	unwind__destroy(t);
}

/* glibc's __restore_rt: mov $15,%rax (rt_sigreturn); syscall */
static uint64_t find_restore_rt(const char *path)
{
	static const unsigned char code[] = { 0x48, 0xc7, 0xc0, 0x0f, 0, 0, 0, 0x0f, 0x05 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint64_t found = 0;
	int matches = 0;
	size_t phnum, i;
	Elf *elf;

	if (fd < 0)
		return 0;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_getphdrnum(elf, &phnum))
		phnum = 0;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr mem, *phdr = gelf_getphdr(elf, i, &mem);
		unsigned char *text;
		size_t j;

		if (!phdr || phdr->p_type != PT_LOAD || !(phdr->p_flags & PF_X))
			continue;
		text = malloc(phdr->p_filesz);
		if (text && pread(fd, text, phdr->p_filesz, phdr->p_offset) == (ssize_t)phdr->p_filesz) {
			for (j = 0; j + sizeof(code) <= phdr->p_filesz; j++) {
				if (!memcmp(text + j, code, sizeof(code))) {
					found = phdr->p_vaddr + j;
					matches++;
				}
			}
		}
		free(text);
	}
	elf_end(elf);
	close(fd);
	return matches == 1 ? found : 0;
}

TEST(unwind_libc_signal_outermost_plt)
{
	const char *libc = libc_path();
	uint64_t restore_rt, plt, plt_size, off;
	const struct unwind_row *row, *rows;
	struct unwind_table *t;
	size_t n, i;
	int outermost = 0, fd;

	ASSERT_OK_PTR(libc, "this process's libc");
	restore_rt = find_restore_rt(libc);
	ASSERT_NEQ(restore_rt, 0, "__restore_rt in libc");
	ASSERT_OK(build_table(libc, NULL, &t), "build libc");

	/* the return address into it is exact, and looked up less 1 */
	row = unwind__find(t, restore_rt);
	ASSERT_TRUE(row && row->cfa_kind == UNWIND_CFA_SIGNAL, "signal row at __restore_rt");
	ASSERT_TRUE(unwind__find(t, restore_rt - 1) == row, "signal row before __restore_rt");
	/* the kernel's ucontext: uc_mcontext at 40, rbp 10th and rsp 15th in it */
	ASSERT_EQ(row->cfa_offset, 40 + 15 * 8, "saved rsp");
	ASSERT_EQ(row->rbp_offset, 40 + 10 * 8, "saved rbp");

	/* clone's and clone3's child: xor %ebp,%ebp */
	fd = open(libc, O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0, "open libc");
	rows = unwind__rows(t, &n);
	for (i = 0; i < n; i++) {
		unsigned char code[2] = { 0 };

		if (rows[i].cfa_kind != UNWIND_CFA_OUTERMOST)
			continue;
		outermost++;
		/* libc's code is mapped at file offset = vaddr */
		if (pread(fd, code, 2, rows[i].pc) != 2 || code[0] != 0x31 || code[1] != 0xed)
			break;
	}
	close(fd);
	ASSERT_EQ(i, n, "outermost row %#x at xor %%ebp,%%ebp", i < n ? rows[i].pc : 0);
	ASSERT_EQ(outermost, 2, "outermost rows (clone, clone3)");

	/* .plt: plt0 pushes, then every 16-byte entry pushes its index at +6 */
	plt = section_range(libc, ".plt", &plt_size);
	ASSERT_NEQ(plt, 0, ".plt of libc");
	ASSERT_EQ(unwind__find(t, plt)->cfa_kind, UNWIND_CFA_RSP, "plt0");
	for (off = 16; off < plt_size; off += 16 * 7 + 5) {
		row = unwind__find(t, plt + off);
		ASSERT_EQ(row->cfa_kind, UNWIND_CFA_PLT, "plt entry at %#lx", (unsigned long)(plt + off));
		ASSERT_EQ(row->cfa_offset, 11, "pushed from rip & 15 >= 11");
	}
	unwind__destroy(t);
}

TEST(unwind_perl_start_is_outermost)
{
	struct unwind_table *t;
	uint64_t size, start = symbol_value(PERL, "_start", &size);
	const struct unwind_row *row;

	ASSERT_NEQ(start, 0, "_start in perl");
	ASSERT_OK(build_table(PERL, NULL, &t), "build perl");
	row = unwind__find(t, start);
	ASSERT_TRUE(row && row->cfa_kind == UNWIND_CFA_OUTERMOST, "_start");
	unwind__destroy(t);
}

/* each row of [start, start + size) */
static int rows_of(const struct unwind_table *t, uint64_t start, uint64_t size, int kind)
{
	const struct unwind_row *rows;
	size_t n, i;
	int count = 0;

	rows = unwind__rows(t, &n);
	for (i = 0; i < n; i++)
		if (rows[i].pc >= start && rows[i].pc < start + size && rows[i].cfa_kind == kind)
			count++;
	return count;
}

TEST(unwind_stack_realignment)
{
	uint64_t size, start;
	const struct unwind_row *rows;
	struct unwind_table *t;
	size_t n, i;

	ASSERT_OK(build_libs(), "compile the test libraries in %s", work_dir);
	start = symbol_value(work_path("lib.so"), "realign", &size);
	ASSERT_NEQ(start, 0, "realign in lib.so");
	ASSERT_OK(build_table(work_path("lib.so"), NULL, &t), "build lib.so");
	rows = unwind__rows(t, &n);
	for (i = 0; i < n; i++)
		if (rows[i].pc >= start && rows[i].pc < start + size &&
		    rows[i].cfa_kind == UNWIND_CFA_DEREF_RBP)
			break;
	ASSERT_LT(i, n, "a DEREF_RBP row in realign");
	/* gcc: CFA = *(rbp - 8), the caller's rbp at rbp */
	ASSERT_EQ(rows[i].cfa_offset, -8, "CFA saved at rbp - 8");
	ASSERT_EQ(rows[i].rbp_kind, UNWIND_RBP_AT_RBP, "rbp saved at rbp");
	ASSERT_EQ(rows[i].rbp_offset, 0, "rbp saved at rbp + 0");
	ASSERT_EQ(unwind__find(t, start)->cfa_kind, UNWIND_CFA_RSP, "realign's entry");
	unwind__destroy(t);
}

TEST(unwind_debug_frame_and_debug_file)
{
	struct unwind_stats stats;
	struct unwind_table *t;
	uint64_t size, start;

	ASSERT_OK(build_libs(), "compile the test libraries in %s", work_dir);
	start = symbol_value(work_path("debugframe.so"), "plain", &size);
	ASSERT_NEQ(start, 0, "plain in debugframe.so");

	ASSERT_OK(build_table(work_path("debugframe.so"), NULL, &t), "build debugframe.so");
	unwind__stats(t, &stats);
	ASSERT_STREQ(stats.source, ".debug_frame", "debugframe.so's CFI");
	ASSERT_EQ(unwind__find(t, start)->cfa_kind, UNWIND_CFA_RSP, "plain's entry");
	ASSERT_EQ(unwind__find(t, start)->cfa_offset, 8, "plain's entry");
	ASSERT_GT(rows_of(t, start, size, UNWIND_CFA_RSP), 1, "plain's rows");
	unwind__destroy(t);

	ASSERT_EQ(build_table(work_path("stripped.so"), NULL, &t), -ENODATA, "stripped.so alone");
	ASSERT_NULL(t, "no table");
	ASSERT_EQ(build_table(work_path("stripped.so"), work_path("nocfi.so"), &t), -ENODATA,
		  "stripped.so with a debug file without CFI");
	ASSERT_OK(build_table(work_path("stripped.so"), work_path("stripped.debug"), &t),
		  "stripped.so with its debug file");
	unwind__stats(t, &stats);
	ASSERT_STREQ(stats.source, "debug file", "stripped.so's CFI");
	ASSERT_GT(rows_of(t, start, size, UNWIND_CFA_RSP), 1, "plain's rows");
	unwind__destroy(t);
}

TEST(unwind_no_cfi)
{
	struct unwind_table *t = (void *)1;

	ASSERT_OK(build_libs(), "compile the test libraries in %s", work_dir);
	ASSERT_EQ(build_table(work_path("nocfi.so"), NULL, &t), -ENODATA, "a library without CFI");
	ASSERT_NULL(t, "no table");
	ASSERT_EQ(build_table(work_path("notelf"), NULL, &t), -ENOEXEC, "a text file");
	ASSERT_NULL(t, "no table");
	ASSERT_EQ(build_table(work_path("nocfi.so"), work_path("notelf"), &t), -ENODATA,
		  "a text file as debug file");
	ASSERT_NULL(t, "no table");
}

/* the instructions of the FDE that starts at pc: an unknown opcode there */
static int corrupt_fde(const char *path, uint64_t pc)
{
	int fd = open(path, O_RDWR | O_CLOEXEC), err = -ENOENT;
	uint64_t size, eh_frame = section_range(path, ".eh_frame", &size);
	unsigned char *data = malloc(size ? size : 1);
	uint64_t offset, frame_offset = 0;
	Elf_Data d;

	if (fd < 0 || !data || !eh_frame)
		goto out;
	/* the library is laid out with file offset = vaddr */
	if (pread(fd, data, size, eh_frame) != (ssize_t)size)
		goto out;
	d = (Elf_Data){ .d_buf = data, .d_size = size, .d_type = ELF_T_BYTE };
	for (offset = 0; offset < size;) {
		static const unsigned char e_ident[EI_NIDENT] = { [EI_CLASS] = ELFCLASS64,
								  [EI_DATA] = ELFDATA2LSB };
		Dwarf_CFI_Entry entry;
		Dwarf_Off next;
		int32_t rel;

		if (dwarf_next_cfi(e_ident, &d, true, offset, &next, &entry))
			break;
		if (!dwarf_cfi_cie_p(&entry)) {
			/* pc-relative sdata4 start, udata4 range, empty augmentation */
			frame_offset = (const unsigned char *)entry.fde.start - data;
			memcpy(&rel, entry.fde.start, 4);
			if (eh_frame + frame_offset + rel == pc) {
				unsigned char bad = 0x3f;

				err = pwrite(fd, &bad, 1, eh_frame + frame_offset + 9) == 1 ? 0 : -EIO;
				break;
			}
		}
		offset = next;
	}
out:
	free(data);
	if (fd >= 0)
		close(fd);
	return err;
}

TEST(unwind_corrupt_fde_loses_its_function)
{
	uint64_t realign_size, realign, plain_size, plain;
	struct unwind_stats stats;
	struct unwind_table *t;
	char cmd[1024];

	ASSERT_OK(build_libs(), "compile the test libraries in %s", work_dir);
	snprintf(cmd, sizeof(cmd), "cp %s %s", work_path("lib.so"), work_path("corrupt.so"));
	ASSERT_OK(system(cmd), "copy lib.so");
	realign = symbol_value(work_path("corrupt.so"), "realign", &realign_size);
	plain = symbol_value(work_path("corrupt.so"), "plain", &plain_size);
	ASSERT_TRUE(realign && plain, "realign and plain in lib.so");
	ASSERT_OK(corrupt_fde(work_path("corrupt.so"), realign), "corrupt realign's FDE");

	ASSERT_OK(build_table(work_path("corrupt.so"), NULL, &t), "build corrupt.so");
	unwind__stats(t, &stats);
	ASSERT_EQ(stats.bad_fdes, 1, "FDEs lost");
	ASSERT_EQ(unwind__find(t, realign)->cfa_kind, UNWIND_CFA_UNKNOWN, "realign's entry");
	ASSERT_EQ(unwind__find(t, realign + realign_size - 1)->cfa_kind, UNWIND_CFA_UNKNOWN,
		  "realign's end");
	ASSERT_EQ(rows_of(t, realign, realign_size, UNWIND_CFA_UNKNOWN), 1, "realign's rows");
	ASSERT_EQ(unwind__find(t, plain)->cfa_kind, UNWIND_CFA_RSP, "plain's entry");
	ASSERT_GT(rows_of(t, plain, plain_size, UNWIND_CFA_RSP), 1, "plain's rows");
	unwind__destroy(t);
}

/* a library with functions named as Go's runtime names its stack switches
 * and outermost frames, in assembly without CFI (as Go writes them), and
 * one with CFI under such a name */
static const char gort_source[] =
	"#define FN(name, body) __asm__(\".globl \" name \"\\n.type \" name \", @function\\n\" "
	"name \":\\n\" body \"\\n.size \" name \", .-\" name \"\\n\")\n"
	"FN(\"runtime.asmcgocall.abi0\", \"nop\\nnop\\ncall *%rax\\nret\");\n"
	"FN(\"runtime.goexit.abi0\", \"nop\\ncall plain\\nret\");\n"
	"FN(\"runtime.goexit1\", \"nop\\nret\");\n"
	"int plain(int n) { return n + 1; }\n"
	"int mcall(int n) __asm__(\"runtime.mcall\");\n"
	"int mcall(int n) { return plain(n) * 2; }\n";

TEST(unwind_go_runtime_switches_and_ends)
{
	uint64_t size, start;
	struct unwind_table *t;
	char cmd[512];
	FILE *f;

	ASSERT_OK(build_libs(), "compile the test libraries in %s", work_dir);
	f = fopen(work_path("gort.c"), "w");
	ASSERT_TRUE(f, "write gort.c");
	fputs(gort_source, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cd %s && cc -O1 -shared -fPIC -o gort.so gort.c", work_dir);
	ASSERT_OK(system(cmd), "compile gort.so");
	ASSERT_OK(build_table(work_path("gort.so"), NULL, &t), "build gort.so");

	start = symbol_value(work_path("gort.so"), "runtime.asmcgocall.abi0", &size);
	ASSERT_TRUE(start && size, "runtime.asmcgocall.abi0 in gort.so");
	ASSERT_EQ(unwind__find(t, start)->cfa_kind, UNWIND_CFA_SWITCH, "asmcgocall's entry");
	ASSERT_EQ(unwind__find(t, start + size - 1)->cfa_kind, UNWIND_CFA_SWITCH,
		  "asmcgocall's last byte");
	ASSERT_NEQ(unwind__find(t, start + size)->cfa_kind, UNWIND_CFA_SWITCH, "past asmcgocall");
	start = symbol_value(work_path("gort.so"), "runtime.goexit.abi0", &size);
	ASSERT_TRUE(start && size, "runtime.goexit.abi0 in gort.so");
	ASSERT_EQ(unwind__find(t, start + 1)->cfa_kind, UNWIND_CFA_OUTERMOST,
		  "a goroutine's first function returns into goexit: the stack ends");
	start = symbol_value(work_path("gort.so"), "runtime.goexit1", &size);
	ASSERT_TRUE(start && size, "runtime.goexit1 in gort.so");
	ASSERT_EQ(unwind__find(t, start)->cfa_kind, UNWIND_CFA_GAP, "goexit1 is no goexit");
	/* CFI says how to leave a function: its name changes nothing */
	start = symbol_value(work_path("gort.so"), "runtime.mcall", &size);
	ASSERT_TRUE(start && size, "runtime.mcall in gort.so");
	ASSERT_EQ(unwind__find(t, start)->cfa_kind, UNWIND_CFA_RSP, "mcall with CFI");
	unwind__destroy(t);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for what tracelloc reads from a target's files: one input
 * is one ELF file (mutated from real ones). It goes through
 *  - the symbolizer: reported to libdw as a module, then a handful of
 *    addresses inside it are located (symbol tables, DWARF scopes and inline
 *    chains, line tables, demangling, .gnu_debuglink and build-id lookups);
 *  - the allocator scan the attach uses (elffacts.c): symbol tables, SONAME,
 *    the PT_LOAD that holds each allocator, and the instructions at its entry;
 *  - the unwind table builder: .eh_frame (and the .eh_frame_hdr libdw
 *    searches), .debug_frame, the input as its own debug file; its rows
 *    must come out sorted, found by unwind__find, and end with a GAP.
 * Any crash, sanitizer report, leak or file left open is a bug. The static
 * functions are reached by including the sources.
 *
 *	make fuzz FUZZ_ARGS=-max_total_time=3600
 */
#include "symbolize.c"
#include "elffacts.c"
#include "unwind.h"

#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>

#define MODULE_BASE 0x7f0000000000ULL
#define MAX_SYMBOLS 16
#define SPREAD 8

/*
 * Leaks of memory that libdw allocated are not reported: libdw 0.188 (and
 * elfutils' current source) leaks the scope array of dwarf_getscopes when
 * the abstract origin of an inlined instance cannot be read or found, as in
 * corrupt DWARF (at most one array per address, as the daemon caches each
 * result). libdw has no frame pointers, so with the fast unwinder the one
 * frame known is libdw's; the slow one costs three quarters of the
 * executions. The daemon's own use of libdw (dwfl_end, the scope arrays) is
 * checked by the sanitized test suite, which suppresses nothing.
 */
const char *__lsan_default_suppressions(void)
{
	return "leak:libdw.so\n";
}

static char work_dir[] = "/tmp/tracelloc-fuzz.XXXXXX";
static char file_path[PATH_MAX];

static void remove_dir(void)
{
	unlink(file_path);
	rmdir(work_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	if (!mkdtemp(work_dir))
		abort();
	snprintf(file_path, sizeof(file_path), "%s/lib.so", work_dir);
	atexit(remove_dir);
	elf_version(EV_CURRENT);
	return 0;
}

/* descriptors open on files (libFuzzer's own pipes to the symbolizer come
 * and go): one more after an input than before it is a leak */
static int open_files(void)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *entry;
	int count = 0;

	if (!dir)
		abort();
	while ((entry = readdir(dir))) {
		char link[PATH_MAX], target[PATH_MAX];

		snprintf(link, sizeof(link), "/proc/self/fd/%s", entry->d_name);
		if (readlink(link, target, sizeof(target)) > 0 && target[0] == '/')
			count++;
	}
	closedir(dir);
	return count;
}

static int write_input(const uint8_t *data, size_t size)
{
	int fd = open(file_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	return fd;
}

static void locate(struct symbolizer *s, uint64_t addr)
{
	const struct sym_location *loc = symbolizer__locate(s, addr + 1);
	size_t len = 0;
	uint32_t i;

	/* touch every string, so a dangling one shows */
	if (loc->module)
		len += strlen(loc->module);
	if (loc->symbol)
		len += strlen(loc->symbol);
	for (i = 0; i < loc->nframes; i++) {
		len += strlen(loc->frames[i].function);
		if (loc->frames[i].file)
			len += strlen(loc->frames[i].file);
	}
	if (!loc->nframes || len == SIZE_MAX)
		abort();
	symbolizer__in_module(s, addr + 1);
}

static int locate_in_module(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start,
			    void *arg)
{
	struct symbolizer *s = arg;
	Dwarf_Addr low, high;
	int i, nsyms;

	dwfl_module_info(mod, NULL, &low, &high, NULL, NULL, NULL, NULL);
	for (i = 0; i < SPREAD; i++)
		locate(s, low + (high - low) / SPREAD * i);
	nsyms = dwfl_module_getsymtab(mod);
	for (i = 1; i < nsyms && i <= MAX_SYMBOLS; i++) {
		GElf_Addr value;
		GElf_Sym sym;

		if (dwfl_module_getsym_info(mod, i, &sym, &value, NULL, NULL, NULL) &&
		    GELF_ST_TYPE(sym.st_info) == STT_FUNC)
			locate(s, value + sym.st_size / 2);
	}
	return DWARF_CB_OK;
}

static void fuzz_symbolizer(void)
{
	/* pid 0: no /proc/0, so nothing but the input is ever reported */
	struct symbolizer *s = symbolizer__new(0);
	struct symfile *f;
	struct span *sp;
	Dwarf_Addr low = 0, high = 0;
	int fd;

	if (!s)
		abort();
	fd = open(file_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		abort();
	/* as a refresh would: one span of the file, from its base on */
	f = symfile_new(file_path, -1, fd, MODULE_BASE, 0, 0);
	if (f && f->mod)
		dwfl_module_info(f->mod, NULL, &low, &high, NULL, NULL, NULL, NULL);
	s->spans = calloc(1, sizeof(*s->spans));
	if (!s->spans)
		abort();
	sp = &s->spans[s->nspans++];
	*sp = (struct span){ .start = MODULE_BASE, .end = high > MODULE_BASE ? high : MODULE_BASE + 1,
			     .file = f, .path = file_path, .open = true };
	if (f)
		dwfl_getmodules(f->dwfl, locate_in_module, s, 0);
	locate(s, MODULE_BASE - 2);	/* outside */
	symbolizer__destroy(s);
}

static void fuzz_allocator_scan(int fd)
{
	struct elf_scan scan;
	size_t j;
	Elf *elf;

	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return;
	if (elffacts__scan(elf, &scan, NULL))
		goto out;
	elffacts__is_library(&scan, LIB_C);
	for (j = 0; j < elffacts__ndefs; j++) {
		uint64_t offset, cookie = allocfns__cookie(elffacts__defs[j].fn);

		if (!scan.vaddr[j] || elffacts__vaddr_to_offset(elf, scan.vaddr[j], &offset))
			continue;
		elffacts__entry_shift(fd, offset, false, &cookie);
	}
out:
	elf_end(elf);
}

static void fuzz_unwind(int fd)
{
	/* read for its .debug_frame when the input has no .eh_frame */
	struct unwind_opts opts = { .debug_path = file_path };
	const struct unwind_row *rows;
	struct unwind_table *t;
	size_t n, i;

	if (unwind__build(fd, &opts, &t))
		return;
	rows = unwind__rows(t, &n);
	if (!n || rows[n - 1].cfa_kind != UNWIND_CFA_GAP)
		abort();
	for (i = 0; i < n; i++) {
		if (rows[i].cfa_kind > UNWIND_CFA_UNKNOWN || rows[i].rbp_kind > UNWIND_RBP_UNDEFINED)
			abort();
		if ((i && rows[i].pc <= rows[i - 1].pc) || unwind__find(t, rows[i].pc) != &rows[i])
			abort();
	}
	unwind__destroy(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int files = open_files();
	int fd = write_input(data, size);

	fuzz_allocator_scan(fd);
	fuzz_unwind(fd);
	close(fd);
	fuzz_symbolizer();
	if (open_files() != files) {
		fprintf(stderr, "fuzz_elf: this input leaves a file open\n");
		abort();
	}
	return 0;
}

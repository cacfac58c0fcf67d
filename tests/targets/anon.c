/*
 * anon: calls malloc(4321) from machine code in an anonymous executable
 * mapping, as JIT-compiled code would; tracelloc must name that frame
 * [anon] and still find the caller (site_anon_caller) through the frame
 * pointer the generated code sets up. x86-64 only.
 *
 * With TL_PERF_MAP set, it names that code as a JIT does, in
 * /tmp/perf-PID.map ("ADDR SIZE jit_make_block"); with TL_PERF_MAP=link,
 * that file is a symlink to $TL_PERF_LINK instead, which tracelloc must
 * not follow. The file is removed at the end.
 *
 * With TL_JIT_NOFP set, it also calls malloc(1234) from generated code that
 * zeroes rbp first (site_anon_nofp_caller): code with no table and no frame
 * pointer, whose stack must end at its [anon] frame, counted cut short.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ledger.h"

SITE void *site_anon_caller(void *(*jit)(void))
{
	void *p = jit();
	lg_sink = p;
	return p;
}

SITE void *site_anon_nofp_caller(void *(*jit)(void))
{
	void *p = jit();
	lg_sink = p;
	return p;
}

int main(void)
{
	/* push %rbp; mov %rsp,%rbp; mov $4321,%edi; movabs $malloc,%rax;
	 * call *%rax; pop %rbp; ret */
	uint8_t code[] = { 0x55, 0x48, 0x89, 0xe5, 0xbf, 0xe1, 0x10, 0x00, 0x00, 0x48, 0xb8,
			   0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xd0, 0x5d, 0xc3 };
	void *(*target)(size_t) = malloc;
	char map_path[64] = "";
	uint8_t *page;

	memcpy(&code[11], &target, sizeof(target));
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	lg_check(page != MAP_FAILED, "mmap");
	memcpy(page, code, sizeof(code));
	/* the same with xor %ebp,%ebp for the mov %rsp,%rbp, and 1234 */
	code[1] = 0x31;
	code[2] = 0xed;
	code[3] = 0x90;
	code[5] = 0xd2;
	code[6] = 0x04;
	memcpy(page + 64, code, sizeof(code));
	if (getenv("TL_PERF_MAP")) {
		snprintf(map_path, sizeof(map_path), "/tmp/perf-%d.map", (int)getpid());
		if (!strcmp(getenv("TL_PERF_MAP"), "link")) {
			lg_check(symlink(getenv("TL_PERF_LINK"), map_path) == 0, "symlink");
		} else {
			FILE *f = fopen(map_path, "w");

			lg_check(f != NULL, "fopen %s", map_path);
			if (f) {
				fprintf(f, "%lx %zx jit_make_block\n", (unsigned long)(uintptr_t)page,
					sizeof(code));
				fclose(f);
			}
		}
		/* the tracer reads it while the process lives */
		usleep(300000);
	}
	lg_check(site_anon_caller((void *(*)(void))page) != NULL, "jit malloc");
	lg_alloc("site_anon_caller", 4321);
	if (getenv("TL_JIT_NOFP"))
		lg_check(site_anon_nofp_caller((void *(*)(void))(page + 64)) != NULL,
			 "jit malloc, no frame pointer");
	/* live on a little, as a JIT would: the tracer reads the maps meanwhile */
	usleep(300000);
	if (map_path[0])
		unlink(map_path);
	return lg_write();
}

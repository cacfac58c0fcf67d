/*
 * nofp_gap: code with no CFI inside a program whose unwind tables are read,
 * as V8's embedded builtins are in node: built without frame pointers, but
 * gap_framed (hand-written, no CFI) keeps one, as V8's code does; gap_junk
 * (no CFI either) puts a number that is no frame in rbp.
 *
 * Ledger (all exact; see ledger.h):
 *   site_gap    malloc(4096), kept: reached through gap_framed, whose
 *               caller (main) the stack must still reach
 *   site_junk   malloc(2048), kept: reached through gap_junk; its stack
 *               must end at gap_junk, with no frame made up past it
 */
#include "ledger.h"

/* gap_framed(fn): fn() under a frame pointer; gap_junk(fn): fn() with
 * rbp = 8 (restored after) */
__asm__(".text\n"
	".globl gap_framed\n"
	".type gap_framed, @function\n"
	"gap_framed:\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	call *%rdi\n"
	"	pop %rbp\n"
	"	ret\n"
	".size gap_framed, .-gap_framed\n"
	".globl gap_junk\n"
	".type gap_junk, @function\n"
	"gap_junk:\n"
	"	push %rbp\n"
	"	mov $8, %rbp\n"
	"	call *%rdi\n"
	"	pop %rbp\n"
	"	ret\n"
	".size gap_junk, .-gap_junk\n");

void gap_framed(void (*fn)(void));
void gap_junk(void (*fn)(void));

static void *kept[2];

SITE void site_gap(void)
{
	kept[0] = malloc(4096);
	lg_sink = kept[0];
}

SITE void site_junk(void)
{
	kept[1] = malloc(2048);
	lg_sink = kept[1];
}

int main(void)
{
	gap_framed(site_gap);
	lg_alloc("site_gap", 4096);
	gap_junk(site_junk);
	lg_alloc("site_junk", 2048);
	return lg_write();
}

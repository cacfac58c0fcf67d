// SPDX-License-Identifier: GPL-2.0
#include <capstone/capstone.h>
#include <stdbool.h>

#include "probesite.h"

/* how far to look: a shift is only worth it over a few flag-setting instructions */
#define MAX_SKIPPED 3

/*
 * The instructions x86 uprobes emulate rather than single-step
 * (arch/x86/kernel/uprobes.c: branch_setup_xol_ops, push_setup_xol_ops),
 * told by their opcode bytes, without prefixes.
 */
static bool emulated(const cs_insn *insn)
{
	const uint8_t *b = insn->bytes;

	if (insn->size == 2 && b[0] >= 0x70 && b[0] <= 0x7f)		/* jcc rel8 */
		return true;
	if (insn->size == 6 && b[0] == 0x0f && b[1] >= 0x80 && b[1] <= 0x8f)	/* jcc rel32 */
		return true;
	if ((insn->size == 5 && (b[0] == 0xe8 || b[0] == 0xe9)) ||	/* call, jmp rel32 */
	    (insn->size == 2 && b[0] == 0xeb))				/* jmp rel8 */
		return true;
	if ((insn->size == 1 && b[0] >= 0x50 && b[0] <= 0x57) ||		/* push reg */
	    (insn->size == 2 && b[0] == 0x41 && b[1] >= 0x50 && b[1] <= 0x57))
		return true;
	return insn->size == 1 && b[0] == 0x90;				/* nop */
}

/* writes only flags: skipping it leaves every argument register as it was */
static bool flags_only(const cs_insn *insn)
{
	const cs_x86 *x86 = &insn->detail->x86;
	int i;

	if (insn->id != X86_INS_TEST && insn->id != X86_INS_CMP)
		return false;
	/* registers and immediates only: no memory access to skip */
	for (i = 0; i < x86->op_count; i++)
		if (x86->operands[i].type == X86_OP_MEM)
			return false;
	return true;
}

size_t probesite__entry_shift(const uint8_t *code, size_t len)
{
	size_t shift = 0, result = 0, n, i;
	cs_insn *insns = NULL;
	csh handle;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &handle) != CS_ERR_OK)
		return 0;
	cs_option(handle, CS_OPT_DETAIL, CS_OPT_ON);
	n = cs_disasm(handle, code, len, 0, MAX_SKIPPED + 1, &insns);
	for (i = 0; i < n; i++) {
		if (emulated(&insns[i])) {
			result = shift;
			break;
		}
		if (!flags_only(&insns[i]))
			break;
		shift += insns[i].size;
	}
	cs_free(insns, n);
	cs_close(&handle);
	return result;
}

size_t probesite__return_shift(const uint8_t *code, size_t len)
{
	cs_insn *insns = NULL;
	size_t result = 0, n;
	csh handle;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &handle) != CS_ERR_OK)
		return 0;
	n = cs_disasm(handle, code, len, 0, 2, &insns);
	/* cmp and test write flags alone, whatever their operands */
	if (n == 2 && !emulated(&insns[0]) && emulated(&insns[1]) &&
	    (insns[0].id == X86_INS_CMP || insns[0].id == X86_INS_TEST))
		result = insns[0].size;
	cs_free(insns, n);
	cs_close(&handle);
	return result;
}

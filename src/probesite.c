// SPDX-License-Identifier: GPL-2.0
#include <capstone/capstone.h>
#include <errno.h>
#include <stdbool.h>

#include "probesite.h"

/* how far to look: a shift is only worth it over a few plain instructions */
#define MAX_SKIPPED 3
/* a free's probe reads its pointer alone: jemalloc's free looks its thread's
 * cache up in 9 plain instructions before its first branch */
#define MAX_SKIPPED_FREE 12

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

/* what a probe reads when it fires: the first three arguments (the entry
 * program takes no more; a free's, the first alone), and rsp (the return
 * address on top of the stack, for a return probe; the stack depth of a
 * nested free) */
static bool probe_reads(x86_reg r, bool free_only)
{
	switch (r) {
	case X86_REG_RSP: case X86_REG_ESP: case X86_REG_SP: case X86_REG_SPL:
	case X86_REG_RDI: case X86_REG_EDI: case X86_REG_DI: case X86_REG_DIL:
		return true;
	case X86_REG_RSI: case X86_REG_ESI: case X86_REG_SI: case X86_REG_SIL:
	case X86_REG_RDX: case X86_REG_EDX: case X86_REG_DX: case X86_REG_DL: case X86_REG_DH:
		return !free_only;
	default:
		return false;
	}
}

/*
 * Can the probe go past it? It still runs, in place, before the probe: it
 * must leave what the probe reads as the caller left it, write no memory
 * and not branch. A short list of plain instructions, checked operand by
 * operand: moves, compares, address arithmetic, nops.
 */
static bool skippable(csh handle, const cs_insn *insn, bool free_only)
{
	const cs_x86 *x86 = &insn->detail->x86;
	cs_regs read, written;
	uint8_t nread, nwritten;
	int i;

	switch (insn->id) {
	case X86_INS_MOV: case X86_INS_MOVZX: case X86_INS_MOVSX: case X86_INS_MOVSXD:
	case X86_INS_LEA: case X86_INS_CMP: case X86_INS_TEST: case X86_INS_AND: case X86_INS_OR:
	case X86_INS_XOR: case X86_INS_ADD: case X86_INS_SUB: case X86_INS_NOP:
	case X86_INS_ENDBR64: case X86_INS_SHR: case X86_INS_SHL: case X86_INS_SAR:
		break;
	default:
		return false;
	}
	for (i = 0; i < x86->op_count; i++)
		if (x86->operands[i].type == X86_OP_MEM && (x86->operands[i].access & CS_AC_WRITE))
			return false;
	if (cs_regs_access(handle, insn, read, &nread, written, &nwritten) != CS_ERR_OK)
		return false;
	for (i = 0; i < nwritten; i++)
		if (probe_reads(written[i], free_only))
			return false;
	return true;
}

/* does a direct branch of code (a jump, a call) land in (0, shift]? The
 * probe there would fire on that path too, with no call made */
static bool branch_into(csh handle, const uint8_t *code, size_t len, size_t shift)
{
	const uint8_t *at = code;
	uint64_t addr = 0, target;
	bool found = false;
	cs_insn *insn = cs_malloc(handle);
	const cs_x86_op *op;

	if (!insn)
		return true;
	while (!found && len) {
		/* bytes that are no instruction (padding, data): on past them */
		if (!cs_disasm_iter(handle, &at, &len, &addr, insn)) {
			at++;
			len--;
			addr++;
			continue;
		}
		if (!cs_insn_group(handle, insn, CS_GRP_JUMP) &&
		    !cs_insn_group(handle, insn, CS_GRP_CALL))
			continue;
		op = &insn->detail->x86.operands[0];
		if (insn->detail->x86.op_count != 1 || op->type != X86_OP_IMM)
			continue;
		target = (uint64_t)op->imm;
		found = target > 0 && target <= shift;
	}
	cs_free(insn, 1);
	return found;
}

/* bytes past the entry to the first emulated instruction, reached through
 * skippable ones only; 0 when there is none or the entry is emulated.
 * free_only: the probe reads the first argument alone, up to
 * MAX_SKIPPED_FREE instructions are passed, and not into a place the rest of
 * code branches to */
static size_t shift_to_emulated(const uint8_t *code, size_t len, bool free_only)
{
	size_t shift = 0, result = 0, n, i, max = free_only ? MAX_SKIPPED_FREE : MAX_SKIPPED;
	cs_insn *insns = NULL;
	csh handle;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &handle) != CS_ERR_OK)
		return 0;
	cs_option(handle, CS_OPT_DETAIL, CS_OPT_ON);
	n = cs_disasm(handle, code, len, 0, max + 1, &insns);
	for (i = 0; i < n; i++) {
		if (emulated(&insns[i])) {
			result = shift;
			break;
		}
		if (!skippable(handle, &insns[i], free_only))
			break;
		shift += insns[i].size;
	}
	cs_free(insns, n);
	if (result && free_only && branch_into(handle, code, len, result))
		result = 0;
	cs_close(&handle);
	return result;
}

size_t probesite__entry_shift(const uint8_t *code, size_t len)
{
	return shift_to_emulated(code, len, false);
}

size_t probesite__return_shift(const uint8_t *code, size_t len)
{
	return shift_to_emulated(code, len, false);
}

size_t probesite__free_shift(const uint8_t *code, size_t len)
{
	return shift_to_emulated(code, len, true);
}

/* how far a wrapper's system call may lie from its entry */
#define MAX_WRAPPER_INSNS 48

/* the register an instruction names as its operand i, or X86_REG_INVALID */
static x86_reg operand_reg(const cs_insn *insn, int i)
{
	const cs_x86 *x86 = &insn->detail->x86;

	return i < x86->op_count && x86->operands[i].type == X86_OP_REG ? x86->operands[i].reg
									 : X86_REG_INVALID;
}

int probesite__syscall_frame(const uint8_t *code, size_t len, struct syscall_frame *out)
{
	int64_t depth = 0, rbp_depth = 0;	/* bytes below the return address */
	bool rbp_changed = false;
	int err = -ENOENT;
	cs_insn *insns = NULL;
	const cs_x86 *x86;
	size_t n, i;
	csh handle;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &handle) != CS_ERR_OK)
		return -ENOMEM;
	cs_option(handle, CS_OPT_DETAIL, CS_OPT_ON);
	n = cs_disasm(handle, code, len, 0, MAX_WRAPPER_INSNS, &insns);
	for (i = 0; i < n; i++) {
		const cs_insn *insn = &insns[i];
		cs_regs read, written;
		uint8_t nread, nwritten, k;

		x86 = &insn->detail->x86;
		if (insn->id == X86_INS_SYSCALL) {
			out->resume = insn->address + insn->size;
			out->cfa_offset = depth + 8;
			out->rbp_saved = rbp_depth != 0;
			out->rbp_offset = -(8 + rbp_depth);
			err = rbp_changed && !rbp_depth ? -EINVAL : 0;
			break;
		}
		/* the path to the call is straight: what returns or leaves
		 * the function first is not a wrapper's */
		if (insn->id == X86_INS_RET || insn->id == X86_INS_JMP) {
			err = -ENOENT;
			break;
		}
		if (insn->id == X86_INS_PUSH) {
			depth += 8;
			if (operand_reg(insn, 0) == X86_REG_RBP && !rbp_depth)
				rbp_depth = depth;
			continue;
		}
		if (insn->id == X86_INS_POP) {
			depth -= 8;
			if (operand_reg(insn, 0) == X86_REG_RBP)
				rbp_changed = true;
			continue;
		}
		if ((insn->id == X86_INS_SUB || insn->id == X86_INS_ADD) &&
		    operand_reg(insn, 0) == X86_REG_RSP && x86->op_count == 2 &&
		    x86->operands[1].type == X86_OP_IMM) {
			depth += insn->id == X86_INS_SUB ? x86->operands[1].imm : -x86->operands[1].imm;
			continue;
		}
		if (cs_regs_access(handle, insn, read, &nread, written, &nwritten) != CS_ERR_OK) {
			err = -EINVAL;
			break;
		}
		for (k = 0; k < nwritten; k++) {
			/* calls leave rsp as it was; any other write of it is not followed */
			if (written[k] == X86_REG_RSP && insn->id != X86_INS_CALL)
				err = -EINVAL;
			if (written[k] == X86_REG_RBP || written[k] == X86_REG_EBP)
				rbp_changed = true;
		}
		if (err == -EINVAL)
			break;
	}
	if (!err && depth < 0)
		err = -EINVAL;
	cs_free(insns, n);
	cs_close(&handle);
	return err;
}

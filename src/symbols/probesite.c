// SPDX-License-Identifier: GPL-2.0
#include <capstone/capstone.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>

#include "probesite.h"

/* how far to look: jemalloc's free looks its thread's cache up in 9 plain
 * instructions before its first branch */
#define MAX_SKIPPED 12

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

#define REG_RSP (-1)

/* the register r is part of: 1-6 for those that pass arguments 1-6,
 * PROBE_REG_RAX, REG_RSP, or 0 for any other. A write of any part of one
 * (eax, dil) changes what it holds. */
static int reg_slot(x86_reg r)
{
	switch (r) {
	case X86_REG_RDI: case X86_REG_EDI: case X86_REG_DI: case X86_REG_DIL:
		return 1;
	case X86_REG_RSI: case X86_REG_ESI: case X86_REG_SI: case X86_REG_SIL:
		return 2;
	case X86_REG_RDX: case X86_REG_EDX: case X86_REG_DX: case X86_REG_DL: case X86_REG_DH:
		return 3;
	case X86_REG_RCX: case X86_REG_ECX: case X86_REG_CX: case X86_REG_CL: case X86_REG_CH:
		return 4;
	case X86_REG_R8: case X86_REG_R8D: case X86_REG_R8W: case X86_REG_R8B:
		return 5;
	case X86_REG_R9: case X86_REG_R9D: case X86_REG_R9W: case X86_REG_R9B:
		return 6;
	case X86_REG_RAX: case X86_REG_EAX: case X86_REG_AX: case X86_REG_AL: case X86_REG_AH:
		return PROBE_REG_RAX;
	case X86_REG_RSP: case X86_REG_ESP: case X86_REG_SP: case X86_REG_SPL:
		return REG_RSP;
	default:
		return 0;
	}
}

/* a 64-bit register's slot (a copy of a 32-bit one is no copy of a size) */
static int whole_slot(x86_reg r)
{
	switch (r) {
	case X86_REG_RDI: case X86_REG_RSI: case X86_REG_RDX: case X86_REG_RCX:
	case X86_REG_R8: case X86_REG_R9: case X86_REG_RAX:
		return reg_slot(r);
	default:
		return 0;
	}
}

/*
 * Can the probe go past it? It still runs, in place, before the probe: it
 * must write no memory, leave rsp as it is and not branch. A short list of
 * plain instructions: moves, compares, address arithmetic, shifts, nops.
 * loc[n] (bit r: register r) follows where argument n is: a move from one
 * register to another copies it, any other write of a register loses what
 * it held.
 */
static bool follow(csh handle, const cs_insn *insn, uint8_t loc[7])
{
	const cs_x86 *x86 = &insn->detail->x86;
	int i, n, slot, from = 0, to = 0;
	cs_regs read, written;
	uint8_t nread, nwritten;

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
	if (insn->id == X86_INS_MOV && x86->op_count == 2 && x86->operands[0].type == X86_OP_REG &&
	    x86->operands[1].type == X86_OP_REG) {
		to = whole_slot(x86->operands[0].reg);
		from = whole_slot(x86->operands[1].reg);
	}
	for (i = 0; i < nwritten; i++) {
		slot = reg_slot(written[i]);
		if (slot == REG_RSP)
			return false;
		for (n = 1; slot > 0 && n <= 6; n++)
			loc[n] &= ~(1u << slot);
	}
	for (n = 1; to && from && n <= 6; n++)
		if (loc[n] & (1u << from))
			loc[n] |= 1u << to;
	return true;
}

/* is every argument the probe reads still where it may read it? */
static bool args_kept(const uint8_t loc[7], const struct probe_args *args)
{
	int n;

	for (n = 1; n <= 6; n++) {
		if ((args->fixed & (1u << n)) && !(loc[n] & (1u << n)))
			return false;
		if ((args->moved & (1u << n)) && !loc[n])
			return false;
	}
	return true;
}

/* does a direct branch of code (a jump, a call) land in (0, shift]? The
 * probe there would fire on that path too, with no call made. The whole
 * function is read, so without capstone's details (they made this scan most
 * of an attach's time): a direct branch is a j*, call or loop* whose operand
 * is an address, printed as one hex number */
static bool branch_into(const uint8_t *code, size_t len, size_t shift)
{
	const uint8_t *at = code;
	uint64_t addr = 0, target;
	bool found = false;
	cs_insn *insn;
	char *end;
	csh handle;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &handle) != CS_ERR_OK)
		return true;
	insn = cs_malloc(handle);
	if (!insn) {
		cs_close(&handle);
		return true;
	}
	while (!found && len) {
		/* bytes that are no instruction (padding, data): on past them */
		if (!cs_disasm_iter(handle, &at, &len, &addr, insn)) {
			at++;
			len--;
			addr++;
			continue;
		}
		if (insn->mnemonic[0] != 'j' && strncmp(insn->mnemonic, "call", 4) &&
		    strncmp(insn->mnemonic, "loop", 4))
			continue;
		if (strncmp(insn->op_str, "0x", 2) && !(insn->op_str[0] >= '0' && insn->op_str[0] <= '9'))
			continue;
		errno = 0;
		target = strtoull(insn->op_str, &end, 0);
		if (errno || *end)
			continue;
		found = target > 0 && target <= shift;
	}
	cs_free(insn, 1);
	cs_close(&handle);
	return found;
}

size_t probesite__shift(const uint8_t *code, size_t len, struct probe_args *args)
{
	size_t shift = 0, result = 0, n, i;
	uint8_t loc[7] = { 0 };
	cs_insn *insns = NULL;
	csh handle;
	int k;

	for (k = 0; k <= 6; k++)
		args->at[k] = k;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &handle) != CS_ERR_OK)
		return 0;
	for (k = 1; k <= 6; k++)
		loc[k] = 1u << k;
	cs_option(handle, CS_OPT_DETAIL, CS_OPT_ON);
	n = cs_disasm(handle, code, len, 0, MAX_SKIPPED + 1, &insns);
	for (i = 0; i < n; i++) {
		if (emulated(&insns[i])) {
			result = shift;
			break;
		}
		if (!follow(handle, &insns[i], loc) || !args_kept(loc, args))
			break;
		shift += insns[i].size;
	}
	cs_free(insns, n);
	if (result && branch_into(code, len, result))
		result = 0;
	cs_close(&handle);
	/* an argument still in its own register is read there */
	for (k = 1; result && k <= 6; k++) {
		if (loc[k] & (1u << k))
			continue;
		args->at[k] = 0;
		for (i = 1; i <= PROBE_REG_RAX && !args->at[k]; i++)
			if (loc[k] & (1u << i))
				args->at[k] = i;
	}
	return result;
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

/* how far a dispatcher's indirect jump may be from its entry */
#define MAX_DISPATCH_INSNS 8

int probesite__dispatch_slot(const uint8_t *code, size_t len, uint64_t at, uint64_t *slot)
{
	cs_insn *insns = NULL;
	int ret = -ENOENT;
	size_t n, i;
	csh handle;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &handle) != CS_ERR_OK)
		return -ENOMEM;
	cs_option(handle, CS_OPT_DETAIL, CS_OPT_ON);
	n = cs_disasm(handle, code, len, at, MAX_DISPATCH_INSNS, &insns);
	for (i = 0; i < n; i++) {
		const cs_insn *insn = &insns[i];
		const cs_x86 *x86 = &insn->detail->x86;
		const cs_x86_op *op = &x86->operands[0];

		/* a compare on the way: the allocator's own code, or a guess at
		 * the pointer's target with that target's code inlined */
		if (insn->id == X86_INS_CMP || insn->id == X86_INS_RET || insn->id == X86_INS_CALL)
			break;
		if (insn->id != X86_INS_JMP || x86->op_count != 1)
			continue;
		if (op->type != X86_OP_MEM)
			break;
		if (op->mem.base == X86_REG_RIP && op->mem.index == X86_REG_INVALID) {
			*slot = insn->address + insn->size + (uint64_t)op->mem.disp;
			ret = 1;
		} else {
			ret = 0;
		}
		break;
	}
	cs_free(insns, n);
	cs_close(&handle);
	return ret;
}

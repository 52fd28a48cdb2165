/* The access stubs of the guarded system registers (see sysreg_safe.h): one read and one write
 * stub per row of sysreg_table.h, A64_SYSREG_STUB_BYTES apart in table order, the access first:
 *
 *   uint64_t read_stub(uint64_t *val):  mrs x2, <reg>; str x2, [x0]; mov x0, #0; ret
 *   uint64_t write_stub(uint64_t val):  msr <reg>, x0; isb; mov x0, #0; ret
 *
 * Both return 0. When the access raises a synchronous exception, the vectors (traps.c)
 * resume at x30 — the caller — with x0 = the ESR and the fault flag: the stub is a leaf, so x30
 * still holds the return address. The register is named by its generic S<op0>_<op1>_C<n>_C<m>_<op2>
 * form, which every assembler takes whether it knows the name or not. */
#include "arch/aarch64/sysreg_table.h"

.macro SR_READ name, op0, op1, crn, crm, op2
	.balign A64_SYSREG_STUB_BYTES
	.type a64_sr_rd_\name, %function
a64_sr_rd_\name:
	mrs	x2, S\op0\()_\op1\()_C\crn\()_C\crm\()_\op2
	str	x2, [x0]
	mov	x0, #0
	ret
	.size a64_sr_rd_\name, . - a64_sr_rd_\name
.endm

.macro SR_WRITE name, op0, op1, crn, crm, op2
	.balign A64_SYSREG_STUB_BYTES
	.type a64_sr_wr_\name, %function
a64_sr_wr_\name:
	msr	S\op0\()_\op1\()_C\crn\()_C\crm\()_\op2, x0
	isb
	mov	x0, #0
	ret
	.size a64_sr_wr_\name, . - a64_sr_wr_\name
.endm

#define SR_READ_ROW(id, name, op0, op1, crn, crm, op2, ...) SR_READ name, op0, op1, crn, crm, op2;
#define SR_WRITE_ROW(id, name, op0, op1, crn, crm, op2, ...) SR_WRITE name, op0, op1, crn, crm, op2;

	.text
	.balign A64_SYSREG_STUB_BYTES
	.global a64_sysreg_read_stubs
a64_sysreg_read_stubs:
	A64_SYSREG_LIST(SR_READ_ROW)
	.global a64_sysreg_read_end
a64_sysreg_read_end:

	.balign A64_SYSREG_STUB_BYTES
	.global a64_sysreg_write_stubs
a64_sysreg_write_stubs:
	A64_SYSREG_LIST(SR_WRITE_ROW)
	.global a64_sysreg_write_end
a64_sysreg_write_end:

	.section .note.GNU-stack, "", %progbits

/* The assembly half of the traps unit (traps.c is the C half): the EL1 exception vectors, their
 * EL2 twin, and the recovery points (see traps.h). The IRQ entries call irq.c's dispatcher.
 *
 * vbar_el1 points at a64_vectors: 16 entries of 128 bytes (current EL with SP0, current EL with
 * SPx, lower EL AArch64, lower EL AArch32; each sync, IRQ, FIQ, SError). Every entry saves x0-x30,
 * ELR, SPSR, ESR, FAR and the interrupted SP in a frame on the current stack (struct a64_frame,
 * traps.c depends on the layout) and calls a64_trap_handler(frame, kind) with kind = entry index.
 * The handler may change the frame's ELR, SPSR, x0 and x1: they are what the eret resumes with.
 *
 * The IRQ entries (1: current EL with SP0, 5: with SPx) take their own short path instead (see
 * arch/aarch64/include/cpu/irq.h): CNTVCT_EL0 is read first, then only the caller-saved registers, x29/x30
 * and ELR/SPSR are saved and a64_irq_dispatch(entry_stamp, elr) is called; before the eret the
 * counter is read again into a64_irq_exit_cycles.
 *
 * fault_try(j) saves the callee-saved registers x19-x30 and SP in j and returns 0; the handler
 * resumes at a64_fault_resume with x0 = j, x1 = vector + 1, which restores them and returns x1 from
 * fault_try a second time (through the saved x30). */

#define FRAME_SIZE 288 /* x0-x30, elr, spsr, esr, far, sp: 36 x 8, a multiple of 16 */
#define OFF_ELR 248
#define OFF_SPSR 256
#define OFF_ESR 264
#define OFF_FAR 272
#define OFF_SP 280

	.text

#define IRQ_FRAME 192 /* x0-x18, x29, x30, elr, spsr: 23 x 8, rounded to 16 */
#define IRQ_OFF_X29 152
#define IRQ_OFF_ELR 168

.macro VIRQ
	.balign 128
	sub	sp, sp, #IRQ_FRAME
	stp	x0, x1, [sp, #0]
	mrs	x0, cntvct_el0 /* the entry stamp: first */
	b	a64_irq_common
.endm

.macro VENTRY kind, common=a64_trap_common
	.balign 128
	sub	sp, sp, #FRAME_SIZE
	stp	x0, x1, [sp, #0]
	mov	x1, #\kind
	b	\common
.endm

	.balign 2048
	.global a64_vectors
a64_vectors:
	VENTRY 0
	VIRQ
	VENTRY 2
	VENTRY 3
	VENTRY 4
	VIRQ
	VENTRY 6
	VENTRY 7
	VENTRY 8
	VENTRY 9
	VENTRY 10
	VENTRY 11
	VENTRY 12
	VENTRY 13
	VENTRY 14
	VENTRY 15

a64_irq_common:
	stp	x2, x3, [sp, #16]
	stp	x4, x5, [sp, #32]
	stp	x6, x7, [sp, #48]
	stp	x8, x9, [sp, #64]
	stp	x10, x11, [sp, #80]
	stp	x12, x13, [sp, #96]
	stp	x14, x15, [sp, #112]
	stp	x16, x17, [sp, #128]
	str	x18, [sp, #144]
	stp	x29, x30, [sp, #IRQ_OFF_X29]
	mrs	x2, elr_el1
	mrs	x3, spsr_el1
	stp	x2, x3, [sp, #IRQ_OFF_ELR]
	mov	x1, x2
	bl	a64_irq_dispatch
	ldp	x2, x3, [sp, #IRQ_OFF_ELR]
	msr	elr_el1, x2
	msr	spsr_el1, x3
	mrs	x0, cntvct_el0 /* the exit stamp */
	adrp	x1, a64_irq_exit_cycles
	str	x0, [x1, :lo12:a64_irq_exit_cycles]
	ldp	x2, x3, [sp, #16]
	ldp	x4, x5, [sp, #32]
	ldp	x6, x7, [sp, #48]
	ldp	x8, x9, [sp, #64]
	ldp	x10, x11, [sp, #80]
	ldp	x12, x13, [sp, #96]
	ldp	x14, x15, [sp, #112]
	ldp	x16, x17, [sp, #128]
	ldr	x18, [sp, #144]
	ldp	x29, x30, [sp, #IRQ_OFF_X29]
	ldp	x0, x1, [sp, #0]
	add	sp, sp, #IRQ_FRAME
	eret

/* The synchronous / SError path at EL\el: the full frame, the handler, the eret (ELR_EL\el and
 * SPSR_EL\el as the handler left them in the frame). */
.macro TRAP_COMMON el
	stp	x2, x3, [sp, #16]
	stp	x4, x5, [sp, #32]
	stp	x6, x7, [sp, #48]
	stp	x8, x9, [sp, #64]
	stp	x10, x11, [sp, #80]
	stp	x12, x13, [sp, #96]
	stp	x14, x15, [sp, #112]
	stp	x16, x17, [sp, #128]
	stp	x18, x19, [sp, #144]
	stp	x20, x21, [sp, #160]
	stp	x22, x23, [sp, #176]
	stp	x24, x25, [sp, #192]
	stp	x26, x27, [sp, #208]
	stp	x28, x29, [sp, #224]
	str	x30, [sp, #240]
	mrs	x2, elr_el\el
	mrs	x3, spsr_el\el
	stp	x2, x3, [sp, #OFF_ELR]
	mrs	x2, esr_el\el
	mrs	x3, far_el\el
	stp	x2, x3, [sp, #OFF_ESR]
	add	x2, sp, #FRAME_SIZE
	str	x2, [sp, #OFF_SP]
	mov	x0, sp
	bl	a64_trap_handler
	ldp	x2, x3, [sp, #OFF_ELR]
	msr	elr_el\el, x2
	msr	spsr_el\el, x3
	ldp	x2, x3, [sp, #16]
	ldp	x4, x5, [sp, #32]
	ldp	x6, x7, [sp, #48]
	ldp	x8, x9, [sp, #64]
	ldp	x10, x11, [sp, #80]
	ldp	x12, x13, [sp, #96]
	ldp	x14, x15, [sp, #112]
	ldp	x16, x17, [sp, #128]
	ldp	x18, x19, [sp, #144]
	ldp	x20, x21, [sp, #160]
	ldp	x22, x23, [sp, #176]
	ldp	x24, x25, [sp, #192]
	ldp	x26, x27, [sp, #208]
	ldp	x28, x29, [sp, #224]
	ldr	x30, [sp, #240]
	ldp	x0, x1, [sp, #0]
	add	sp, sp, #FRAME_SIZE
	eret
.endm

a64_trap_common:
	TRAP_COMMON 1

/* The EL2 table (traps_init at EL2, when the firmware runs us there): every entry takes the full
 * path — at EL2 no interrupt is routed to us (HCR_EL2.IMO/FMO are the firmware's, DAIF masked),
 * so an IRQ or FIQ entry is only ever an unexpected exception and reported as such. */
	.balign 2048
	.global a64_vectors_el2
a64_vectors_el2:
	.irp kind, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	VENTRY \kind, a64_trap_common_el2
	.endr

a64_trap_common_el2:
	TRAP_COMMON 2

/* int fault_try(struct fault_jmp *j) */
	.global fault_try
	.type fault_try, %function
fault_try:
	stp	x19, x20, [x0, #0]
	stp	x21, x22, [x0, #16]
	stp	x23, x24, [x0, #32]
	stp	x25, x26, [x0, #48]
	stp	x27, x28, [x0, #64]
	stp	x29, x30, [x0, #80]
	mov	x2, sp
	str	x2, [x0, #96]
	mov	x0, #0
	ret
	.size fault_try, . - fault_try

/* Entered by eret from the handler: x0 = the recovery point, x1 = fault_try's second result. */
	.global a64_fault_resume
	.type a64_fault_resume, %function
a64_fault_resume:
	ldp	x19, x20, [x0, #0]
	ldp	x21, x22, [x0, #16]
	ldp	x23, x24, [x0, #32]
	ldp	x25, x26, [x0, #48]
	ldp	x27, x28, [x0, #64]
	ldp	x29, x30, [x0, #80]
	ldr	x2, [x0, #96]
	mov	sp, x2
	mov	x0, x1
	ret
	.size a64_fault_resume, . - a64_fault_resume

	.section .note.GNU-stack, "", %progbits

/* Start-up trampoline for application processors, and their idle halt.
 *
 * [ap_start_begin, ap_start_end) is copied by smp.c to a 4 KiB page below 1 MiB; a STARTUP IPI
 * with that page's number starts the AP there in real mode (CS = page >> 4, IP = 0). It then
 *   16-bit: finds its own linear address from CS, points a temporary GDT at it, sets CR0.PE;
 *   32-bit: loads CR4 (PAE), CR3 (a top-level table below 4 GiB), EFER (LME, NXE: OVMF maps
 *           data pages no-execute), sets CR0.PG -> IA-32e compatibility mode;
 *   64-bit: loads the BSP's own CR3, CR0, CR4 and XCR0, the stack, and calls the C entry.
 * Everything is addressed relative to the page (no relocations inside the trampoline); the BSP
 * fills the parameter block (ap_start.h) before each STARTUP, one AP at a time. Each stage writes
 * its number into the block, so an AP that does not come up says how far it got. */
#include "arch/x86_64/ap_start.h"

/* Offset of a parameter-block field from the start of the page. */
#define D(field) (ap_start_data - ap_start_begin + (field))

	.text
	.balign 16
	.globl ap_start_begin, ap_start_data, ap_start_end

	.code16
ap_start_begin:
	cli
	cld
	movw %cs, %ax
	movw %ax, %ds
	movl $AP_STAGE_REAL, D(AP_D_STAGE)
	xorl %ebx, %ebx
	movw %ax, %bx
	shll $4, %ebx				/* ebx = linear address of the page, from here on */
	movw $(AP_GDT_ENTRIES * 8 - 1), D(AP_D_GDTR)
	leal D(AP_D_GDT)(%ebx), %eax
	movl %eax, D(AP_D_GDTR + 2)
	leal (ap_pm32 - ap_start_begin)(%ebx), %eax
	movl %eax, D(AP_D_FAR32)
	movw $AP_SEL_CODE32, D(AP_D_FAR32 + 4)
	leal (ap_lm64 - ap_start_begin)(%ebx), %eax
	movl %eax, D(AP_D_FAR64)
	movw $AP_SEL_CODE64, D(AP_D_FAR64 + 4)
	lgdtl D(AP_D_GDTR)
	movl %cr0, %eax
	orl $X86_CR0_PE, %eax
	movl %eax, %cr0
	ljmpl *D(AP_D_FAR32)

	.code32
ap_pm32:
	movw $AP_SEL_DATA, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movw %ax, %fs
	movw %ax, %gs
	movl $AP_STAGE_PROT, D(AP_D_STAGE)(%ebx)
	movl D(AP_D_CR4_32)(%ebx), %eax
	movl %eax, %cr4
	movl D(AP_D_CR3_32)(%ebx), %eax
	movl %eax, %cr3
	movl $X86_MSR_EFER, %ecx
	movl D(AP_D_EFER)(%ebx), %eax
	movl D(AP_D_EFER + 4)(%ebx), %edx
	wrmsr
	movl %cr0, %eax
	orl $(X86_CR0_PG | X86_CR0_PE), %eax
	movl %eax, %cr0				/* paging on with EFER.LME: IA-32e mode */
	ljmp *D(AP_D_FAR64)(%ebx)

	.code64
ap_lm64:
	movl %ebx, %ebx				/* the upper halves are undefined after the switch */
	movl $AP_STAGE_LONG, D(AP_D_STAGE)(%rbx)
	movq D(AP_D_CR3)(%rbx), %rax
	movq %rax, %cr3
	movq D(AP_D_CR0)(%rbx), %rax		/* before CR4: CR4.CET needs CR0.WP */
	movq %rax, %cr0
	movq D(AP_D_CR4)(%rbx), %rax
	movq %rax, %cr4
	movq D(AP_D_XCR0)(%rbx), %rax
	testq %rax, %rax
	jz 1f
	movq %rax, %rdx
	shrq $32, %rdx
	movl $X86_XCR_XFEATURE_ENABLED, %ecx
	xsetbv
1:	movq D(AP_D_STACK)(%rbx), %rsp		/* 16-byte aligned: the call leaves it as the ABI wants */
	movq D(AP_D_ARG)(%rbx), %rdi
	movq D(AP_D_ENTRY)(%rbx), %rax
	xorl %ebp, %ebp
	callq *%rax
2:	cli					/* the C entry does not return; if it did, stop here */
	hlt
	jmp 2b

	.balign 16
ap_start_data:
	.long 0, 0
	.long AP_DESC_LOW_FLAT, AP_DESC_HIGH_CODE32
	.long AP_DESC_LOW_FLAT, AP_DESC_HIGH_DATA
	.long AP_DESC_LOW_FLAT, AP_DESC_HIGH_CODE64
	.fill AP_D_SIZE - AP_D_GDTR, 1, 0
ap_start_end:

/* void ap_park_wait(const volatile uint64_t *word, uint64_t seen): halt until *word != seen.
 * Interrupts are masked on APs, so only an NMI (or INIT) ends the hlt; the NMI handler moves a
 * return address equal to ap_park_hlt past the hlt (see ap_start.h), closing the window between
 * the compare and the hlt. */
	.globl ap_park_wait, ap_park_hlt
ap_park_wait:
1:	cmpq %rsi, (%rdi)
	jne 2f
ap_park_hlt:
	hlt
	jmp 1b
2:	ret

	.section .note.GNU-stack, "", @progbits

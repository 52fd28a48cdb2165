/* Layout shared by the application-processor start-up trampoline (ap_start.S) and smp.c, which
 * copies it into the start-up page below 1 MiB and fills in its parameter block. Included from
 * assembly too: constants only outside the __ASSEMBLER__ part. */
#ifndef ARCH_X86_64_AP_START_H
#define ARCH_X86_64_AP_START_H

/* Control registers and EFER (Intel SDM vol. 3A, 2.5 and 2.2.1). */
#define X86_CR0_PE (1 << 0)
#define X86_CR0_PG 0x80000000
#define X86_CR4_PAE (1 << 5)
#define X86_CR4_LA57 (1 << 12)
#define X86_CR4_PCIDE (1 << 17)
#define X86_CR4_OSXSAVE (1 << 18)
#define X86_MSR_EFER 0xC0000080
#define X86_EFER_SCE (1 << 0)
#define X86_EFER_LME (1 << 8)
#define X86_EFER_NXE (1 << 11)
#define X86_XCR_XFEATURE_ENABLED 0 /* XCR0 */

/* Temporary GDT of the trampoline (only until the AP loads its own). */
#define AP_SEL_CODE32 0x08
#define AP_SEL_DATA 0x10
#define AP_SEL_CODE64 0x18
#define AP_GDT_ENTRIES 4

/* Descriptor fields (SDM vol. 3A, 3.4.5), as the two 32-bit halves of a descriptor: flat 4 GiB,
 * 4 KiB granularity, present, ring 0. */
#define AP_DESC_LOW_FLAT 0x0000FFFF   /* limit 15:0 = 0xFFFF, base 15:0 = 0 */
#define AP_DESC_ACCESSED (1 << 8)     /* set, so the CPU need not write it */
#define AP_DESC_TYPE_CODE_RX (0xA << 8) /* execute/read */
#define AP_DESC_TYPE_DATA_RW (0x2 << 8) /* read/write */
#define AP_DESC_S (1 << 12)           /* code or data, not system */
#define AP_DESC_P (1 << 15)
#define AP_DESC_LIMIT_HI (0xF << 16)  /* limit 19:16 */
#define AP_DESC_L (1 << 21)           /* 64-bit code */
#define AP_DESC_DB (1 << 22)          /* 32-bit default operand size */
#define AP_DESC_G (1 << 23)           /* 4 KiB granularity */
#define AP_DESC_HIGH_CODE32 (AP_DESC_ACCESSED | AP_DESC_TYPE_CODE_RX | AP_DESC_S | AP_DESC_P | AP_DESC_LIMIT_HI | AP_DESC_DB | AP_DESC_G)
#define AP_DESC_HIGH_DATA (AP_DESC_ACCESSED | AP_DESC_TYPE_DATA_RW | AP_DESC_S | AP_DESC_P | AP_DESC_LIMIT_HI | AP_DESC_DB | AP_DESC_G)
#define AP_DESC_HIGH_CODE64 (AP_DESC_ACCESSED | AP_DESC_TYPE_CODE_RX | AP_DESC_S | AP_DESC_P | AP_DESC_LIMIT_HI | AP_DESC_L | AP_DESC_G)

/* Parameter block at ap_start_data (offsets). The BSP fills everything from AP_D_CR3_32 on. */
#define AP_D_GDT 0x00     /* AP_GDT_ENTRIES descriptors (assembled in) */
#define AP_D_GDTR 0x20    /* limit (2), base (4): written by the AP from CS */
#define AP_D_FAR32 0x28   /* offset (4), selector (2): jump into 32-bit code, written by the AP */
#define AP_D_FAR64 0x30   /* offset (4), selector (2): jump into 64-bit code, written by the AP */
#define AP_D_CR3_32 0x38  /* top-level page table below 4 GiB, loaded before paging is on */
#define AP_D_CR3 0x40     /* the BSP's CR3, loaded in 64-bit mode */
#define AP_D_CR4_32 0x48  /* CR4 to enable paging with: PAE (and LA57 as the BSP has) */
#define AP_D_CR4 0x50     /* the BSP's CR4 */
#define AP_D_CR0 0x58     /* the BSP's CR0 (caches on, WP, NE, ...) */
#define AP_D_EFER 0x60    /* LME, plus NXE and SCE as the BSP has */
#define AP_D_XCR0 0x68    /* the BSP's XCR0, 0 = leave alone (no OSXSAVE) */
#define AP_D_STACK 0x70   /* stack top for the C entry */
#define AP_D_ENTRY 0x78   /* C entry: void entry(void *arg) */
#define AP_D_ARG 0x80
#define AP_D_STAGE 0x88   /* AP_STAGE_*: how far the AP got */
#define AP_D_SIZE 0x90

#define AP_STAGE_NONE 0
#define AP_STAGE_REAL 1   /* running the 16-bit code */
#define AP_STAGE_PROT 2   /* 32-bit protected mode */
#define AP_STAGE_LONG 3   /* 64-bit mode, about to call the C entry */

#define AP_PAGE_SIZE 4096

#ifndef __ASSEMBLER__
#include <stdint.h>

struct __attribute__((packed)) ap_start_params {
	uint64_t gdt[AP_GDT_ENTRIES];
	uint8_t gdtr[8];
	uint8_t far32[8];
	uint8_t far64[8];
	uint64_t cr3_32, cr3, cr4_32, cr4, cr0, efer, xcr0;
	uint64_t stack, entry, arg;
	volatile uint32_t stage;
	uint32_t pad;
};

_Static_assert(__builtin_offsetof(struct ap_start_params, cr3_32) == AP_D_CR3_32, "ap_start layout");
_Static_assert(__builtin_offsetof(struct ap_start_params, xcr0) == AP_D_XCR0, "ap_start layout");
_Static_assert(__builtin_offsetof(struct ap_start_params, stage) == AP_D_STAGE, "ap_start layout");
_Static_assert(sizeof(struct ap_start_params) == AP_D_SIZE, "ap_start layout");

/* The trampoline image (ap_start.S): copy [begin, end) to the start-up page. */
extern const uint8_t ap_start_begin[], ap_start_data[], ap_start_end[];

/* Idle until *word != seen, halted (interrupts stay masked: an NMI wakes it). An NMI taken with
 * its return address at ap_park_hlt, before the hlt ran, must move it one byte on (past the hlt),
 * or the wake-up would be lost. */
void ap_park_wait(const volatile uint64_t *word, uint64_t seen);
extern const uint8_t ap_park_hlt[];
#define AP_HLT_INSN_BYTES 1
#endif

#endif

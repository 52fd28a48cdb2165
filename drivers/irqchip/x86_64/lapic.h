/* The local APIC, as far as starting and waking other processors needs it (Intel SDM vol. 3A,
 * chapter "Advanced Programmable Interrupt Controller"; register offsets from its table "Local
 * APIC Register Address Map"): read this CPU's APIC id, and send INIT, STARTUP and NMI
 * inter-processor interrupts through the ICR, each send bounded by the TSC.
 *
 * Access mode: xAPIC registers are memory-mapped at the base from IA32_APIC_BASE (or the MADT's
 * address when that MSR cannot be read). x2APIC registers are MSRs; they are used when the APIC
 * is in x2APIC mode (IA32_APIC_BASE.EXTD set; MMIO is then dead) and CPUID confirms x2APIC: as
 * the firmware handed over (real machines with APIC ids above 254), or after option
 * apic_mode=x2apic switched it (drivers/irqchip/x86_64/lapic_mode.c). The x2APIC paths run for real under QEMU 10
 * with -cpu max (tests/integration/x86_64/test_x2apic.py); QEMU 7.2 has no x2APIC. */
#ifndef DRIVERS_LAPIC_H
#define DRIVERS_LAPIC_H

#include <stdbool.h>
#include <stdint.h>

/* IA32_APIC_BASE (MSR 0x1B) */
#define MSR_IA32_APIC_BASE 0x1Bu
#define APIC_BASE_BSP (1ull << 8)      /* this is the bootstrap processor */
#define APIC_BASE_EXTD (1ull << 10)    /* x2APIC mode */
#define APIC_BASE_ENABLE (1ull << 11)  /* APIC globally enabled */
#define APIC_BASE_ADDR_MASK 0x000FFFFFFFFFF000ull

/* xAPIC register offsets (MMIO); the x2APIC MSR is X2APIC_MSR_BASE + (offset >> 4). */
#define LAPIC_REG_ID 0x020
#define LAPIC_REG_VERSION 0x030
#define LAPIC_REG_TPR 0x080
#define LAPIC_REG_EOI 0x0B0
#define LAPIC_REG_SVR 0x0F0
#define LAPIC_REG_ISR0 0x100 /* in-service: 8 registers of 32 vectors, 0x10 apart */
#define LAPIC_REG_TMR0 0x180 /* trigger mode, same layout */
#define LAPIC_REG_IRR0 0x200 /* requested (pending), same layout */
#define LAPIC_VEC_REG_STRIDE 0x10
#define LAPIC_VEC_REGS 8
#define LAPIC_REG_ESR 0x280
#define LAPIC_REG_ICR_LOW 0x300
#define LAPIC_REG_ICR_HIGH 0x310
#define LAPIC_REG_LVT_CMCI 0x2F0
#define LAPIC_REG_LVT_TIMER 0x320
#define LAPIC_REG_LVT_THERMAL 0x330
#define LAPIC_REG_LVT_PERF 0x340
#define LAPIC_REG_LVT_LINT0 0x350
#define LAPIC_REG_LVT_LINT1 0x360
#define LAPIC_REG_LVT_ERROR 0x370
#define LAPIC_REG_TIMER_INITIAL 0x380
#define LAPIC_REG_TIMER_CURRENT 0x390
#define LAPIC_REG_TIMER_DIVIDE 0x3E0
#define X2APIC_MSR_BASE 0x800u
#define X2APIC_MSR_SELF_IPI 0x83Fu /* x2APIC only: write the vector to interrupt this CPU */
#define X2APIC_MSR_ICR 0x830u /* one 64-bit register: destination in bits 63:32 */

#define LAPIC_ID_SHIFT 24           /* xAPIC: the id is bits 31:24 of the ID register */
#define LAPIC_XAPIC_MAX_ID 0xFEu    /* 0xFF is the xAPIC broadcast destination */
#define LAPIC_SVR_ENABLE (1u << 8)  /* APIC software enable */
#define LAPIC_SVR_VECTOR_MASK 0xFFu
#define LAPIC_SPURIOUS_VECTOR 0xFFu /* used only if we have to software-enable the APIC */

/* Version register: the number of LVT entries minus one in bits 23:16. */
#define LAPIC_VERSION_MAXLVT_SHIFT 16
#define LAPIC_VERSION_MAXLVT_MASK 0xFFu

/* Interrupt Command Register, low half */
#define ICR_VECTOR_MASK 0xFFu
#define ICR_DM_FIXED (0u << 8)
#define ICR_DM_NMI (4u << 8)
#define ICR_DM_INIT (5u << 8)
#define ICR_DM_STARTUP (6u << 8)
#define ICR_DEST_PHYSICAL (0u << 11)
#define ICR_DELIVERY_PENDING (1u << 12) /* xAPIC only: the send is not finished */
#define ICR_LEVEL_ASSERT (1u << 14)
#define ICR_TRIGGER_LEVEL (1u << 15)
#define ICR_SHORTHAND_NONE (0u << 18)
#define ICR_SHORTHAND_SELF (1u << 18)
#define ICR_XAPIC_DEST_SHIFT 24 /* in ICR high */
#define ICR_X2APIC_DEST_SHIFT 32

/* Error Status Register bits (the ones an IPI send can set) */
#define ESR_SEND_CHECKSUM (1u << 0)
#define ESR_SEND_ACCEPT (1u << 2)
#define ESR_SEND_ILLEGAL_VECTOR (1u << 5)
#define ESR_ILLEGAL_REG (1u << 7)

/* Upper bound on one IPI's delivery (the ICR's delivery-status bit). */
#define LAPIC_SEND_TIMEOUT_US 1000

/* Register access, replaceable so host unit tests can put a register model behind it. NULL in
 * struct lapic means the hardware: MMIO loads/stores and rdmsr_safe/wrmsr_safe. */
struct lapic_io {
	uint32_t (*mmio_read32)(void *ctx, uint64_t addr);
	void (*mmio_write32)(void *ctx, uint64_t addr, uint32_t v);
	int (*rdmsr)(void *ctx, uint32_t msr, uint64_t *v);  /* 0 = ok, as rdmsr_safe */
	int (*wrmsr)(void *ctx, uint32_t msr, uint64_t v);
	void *ctx;
	void (*wrmsr_fence)(void *ctx); /* optional: a test's stand-in for cpu_wrmsr_fence */
};

struct lapic {
	const struct lapic_io *io; /* NULL: the hardware */
	bool present;
	bool x2apic;         /* registers are MSRs */
	uint64_t base;       /* xAPIC MMIO base */
	uint64_t apic_base_msr; /* IA32_APIC_BASE as read (0 if unreadable) */
	const char *reason;  /* why the APIC is unusable, when !present */
};

enum lapic_send {
	LAPIC_SEND_OK,
	LAPIC_SEND_TIMEOUT,     /* the delivery-status bit stayed set */
	LAPIC_SEND_ERROR,       /* the ESR reported a send error */
	LAPIC_SEND_UNREACHABLE, /* the id does not fit the xAPIC destination field */
};

/* Decide the access mode and base. madt_base: the MADT's local APIC address (0 = unknown);
 * cpu_x2apic: CPUID.1:ECX.x2APIC. Needs traps installed (rdmsr_safe). Software-enables this CPU's
 * APIC if the firmware left it disabled (an IPI cannot be sent otherwise). */
bool lapic_init(struct lapic *l, uint64_t madt_base, bool cpu_x2apic);

/* Software-enable the calling CPU's local APIC (SVR bit 8) with our spurious vector, if it is off
 * (INIT leaves an AP's off, and then every LVT entry stays masked). */
void lapic_software_enable(const struct lapic *l);
uint32_t lapic_read(const struct lapic *l, unsigned reg);
void lapic_write(const struct lapic *l, unsigned reg, uint32_t v);
/* MSR access through the same io (the TSC-deadline and x2APIC MSRs); 0 = ok. */
int lapic_rdmsr(const struct lapic *l, uint32_t msr, uint64_t *v);
int lapic_wrmsr(const struct lapic *l, uint32_t msr, uint64_t v);
/* The same, ordered after every earlier load and store (mfence; lfence first): for the MSRs whose
 * WRMSR is not serialising, IA32_TSC_DEADLINE and the x2APIC registers that send (ICR, SELF IPI),
 * so that what was stored before an IPI or a deadline is visible when it fires. */
int lapic_wrmsr_ordered(const struct lapic *l, uint32_t msr, uint64_t v);
/* This CPU's APIC id (any CPU: the registers are per processor at the same address). */
uint32_t lapic_id(const struct lapic *l);
/* Clear and read the ESR. */
uint32_t lapic_error_status(const struct lapic *l);

/* Send one IPI (icr_low: ICR_DM_* | level/trigger | vector) to a physical APIC id and wait, at
 * most LAPIC_SEND_TIMEOUT_US, for its delivery. */
enum lapic_send lapic_send_ipi(const struct lapic *l, uint32_t apic_id, uint32_t icr_low, uint64_t tsc_hz);
enum lapic_send lapic_send_init(const struct lapic *l, uint32_t apic_id, uint64_t tsc_hz);
enum lapic_send lapic_send_init_deassert(const struct lapic *l, uint32_t apic_id, uint64_t tsc_hz);
/* STARTUP with the start-up page number (the AP starts in real mode at vector << 12). */
enum lapic_send lapic_send_startup(const struct lapic *l, uint32_t apic_id, uint8_t vector, uint64_t tsc_hz);
enum lapic_send lapic_send_nmi(const struct lapic *l, uint32_t apic_id, uint64_t tsc_hz);

const char *lapic_send_name(enum lapic_send s);

/* Busy-wait for `us` microseconds on the TSC (the SDM's INIT/STARTUP delays). */
void lapic_delay_us(uint64_t us, uint64_t tsc_hz);

#endif

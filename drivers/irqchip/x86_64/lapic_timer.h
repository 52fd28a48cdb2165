/* The local APIC as an interrupt source for the probes (Intel SDM vol. 3A, chapter "Advanced
 * Programmable Interrupt Controller": "APIC Timer", "Local Vector Table", "EOI Register", "Self
 * IPI Register"): the timer in one-shot, periodic and TSC-deadline modes, its frequency
 * calibrated against the TSC, self-IPIs, EOI, and masking the LVT entries the firmware may have
 * left live. Every register access goes through struct lapic (drivers/irqchip/x86_64/lapic.h), so the host unit
 * tests check the exact writes, in xAPIC (MMIO offsets) and x2APIC (MSR 0x800 + offset >> 4)
 * encodings, against a register model. */
#ifndef DRIVERS_LAPIC_TIMER_H
#define DRIVERS_LAPIC_TIMER_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/irqchip/x86_64/lapic.h"

/* LVT entry fields (timer, thermal, perf, LINT0/1, error, CMCI). */
#define LVT_VECTOR_MASK 0xFFu
#define LVT_DELIVERY_MODE_MASK (7u << 8) /* LINT0/1, thermal, perf, CMCI */
#define LVT_DELIVERY_EXTINT (7u << 8)
#define LVT_DELIVERY_NMI (4u << 8)
#define LVT_DELIVERY_PENDING (1u << 12)
#define LVT_MASKED (1u << 16)
/* LVT timer mode, bits 18:17 */
#define LVT_TIMER_MODE_SHIFT 17
#define LVT_TIMER_MODE_MASK (3u << LVT_TIMER_MODE_SHIFT)
#define LVT_TIMER_ONESHOT (0u << LVT_TIMER_MODE_SHIFT)
#define LVT_TIMER_PERIODIC (1u << LVT_TIMER_MODE_SHIFT)
#define LVT_TIMER_TSC_DEADLINE (2u << LVT_TIMER_MODE_SHIFT)

/* Divide configuration register: bits 0, 1 and 3 encode the divisor; 1011b divides by 1. */
#define LAPIC_DIVIDE_BY_1 0xBu
#define LAPIC_DIVIDE_BY_16 0x3u

#define MSR_IA32_TSC_DEADLINE 0x6E0u

/* The LVT entries other than the timer, in the order of struct lapic_lvt_state. Which exist
 * follows from the version register's max-LVT field (SDM: perf needs 4, thermal 5, CMCI 6). */
#define LAPIC_LVT_OTHERS 6
extern const unsigned lapic_lvt_regs[LAPIC_LVT_OTHERS];
extern const char *const lapic_lvt_names[LAPIC_LVT_OTHERS];

struct lapic_lvt_state {
	unsigned maxlvt;                      /* index of the last LVT entry */
	bool present[LAPIC_LVT_OTHERS];
	uint32_t found[LAPIC_LVT_OTHERS];     /* as the firmware left them */
	uint32_t timer_found;
};

/* Record every LVT entry and mask the timer, LINT0, LINT1, error, thermal, perf and CMCI:
 * nothing the firmware set up may interrupt a probe. */
void lapic_lvt_mask_all(const struct lapic *l, struct lapic_lvt_state *st);

/* Timer programming. All of them leave the divider at 1. */
void lapic_timer_stop(const struct lapic *l, uint8_t vector);
void lapic_timer_oneshot(const struct lapic *l, uint8_t vector, uint32_t count);
void lapic_timer_periodic(const struct lapic *l, uint8_t vector, uint32_t count);
/* TSC-deadline mode: the LVT first, then (ordered by a fence: the MMIO write and WRMSR are not
 * ordered otherwise) the deadline MSR. False when the MSR write faulted. */
bool lapic_timer_tsc_deadline(const struct lapic *l, uint8_t vector, uint64_t deadline_tsc);
/* A masked one-shot with the largest count: the counter runs and can be read, nothing fires. */
void lapic_timer_free_run(const struct lapic *l);
uint32_t lapic_timer_current(const struct lapic *l);

/* Ticks per second from two current-count readings `ticks` apart over `tsc_cycles` of a TSC
 * running at tsc_hz (0 when the input cannot give a rate). */
uint64_t lapic_timer_hz_from(uint32_t count_a, uint32_t count_b, uint64_t tsc_cycles, uint64_t tsc_hz);

/* TSC cycles per timer tick as a 32.32 fixed-point ratio, and its use. */
uint64_t lapic_ratio_q32(uint64_t tsc_hz, uint64_t timer_hz);
uint64_t lapic_ticks_to_tsc(uint64_t ticks, uint64_t ratio_q32);
uint64_t lapic_tsc_to_ticks(uint64_t cycles, uint64_t ratio_q32);

/* End of interrupt (write 0 to EOI). Not for the spurious vector. */
void lapic_eoi(const struct lapic *l);
/* The vector's bit in the interrupt request register (accepted by the APIC, not yet delivered
 * to the core) and in the in-service register (delivered, no EOI yet). */
bool lapic_vector_pending(const struct lapic *l, uint8_t vector);
bool lapic_vector_in_service(const struct lapic *l, uint8_t vector);
/* Vectors with their IRR (in_service false) or ISR bit set, from the 8 registers. */
unsigned lapic_vectors_set(const struct lapic *l, bool in_service);
/* Interrupt this CPU with `vector`: the SELF IPI MSR in x2APIC mode, the ICR with the "self"
 * shorthand in xAPIC mode. Returns without waiting for delivery. */
void lapic_self_ipi(const struct lapic *l, uint8_t vector);
/* Task priority 0: every vector may be delivered. */
void lapic_accept_all(const struct lapic *l);

#endif

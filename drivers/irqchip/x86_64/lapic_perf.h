/* The local APIC's performance-counter LVT entry (xAPIC offset 340H, x2APIC MSR 834H): where a
 * counter overflow with its interrupt bit set (a PMI, arch/x86_64/pmu_pmi.h) is delivered. Intel
 * SDM vol. 3A "Local Vector Table" (the entry is implementation specific, present when the
 * version register's max-LVT field is 4 or more); AMD APM vol. 2 16.4 "Local Vector Table"
 * (APIC340, the performance monitor counter entry).
 *
 * Intel sets the entry's mask bit when it delivers a PMI (SDM vol. 3A, figure "Local Vector
 * Table", the note on the performance counter entry; vol. 3B "Generating an Interrupt on
 * Overflow": "these processors mask PMIs upon receiving an interrupt. Clear this condition before
 * leaving the interrupt handler"; Linux's PMI handlers rewrite APIC_LVTPC on every PMI). So the
 * PMI handler calls lapic_perf_lvt_set again after pmu_pmi_ack, before its EOI; on AMD, which
 * leaves the entry alone, the rewrite costs one register write and changes nothing.
 * Register access through struct lapic (drivers/irqchip/x86_64/lapic.h): the unit tests check the exact writes
 * in both encodings against a register model. */
#ifndef DRIVERS_LAPIC_PERF_H
#define DRIVERS_LAPIC_PERF_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/irqchip/x86_64/lapic.h"

#define LVT_DELIVERY_FIXED (0u << 8) /* delivery mode 000: the vector, as an ordinary interrupt */
#define LAPIC_LVT_PERF_MIN_MAXLVT 4  /* the version register's max-LVT field when the entry exists */

/* True when this APIC has the performance-counter entry. */
bool lapic_perf_lvt_present(const struct lapic *l);
/* Deliver PMIs as `vector`, fixed delivery, unmasked (one write: also the unmask after a PMI). */
void lapic_perf_lvt_set(const struct lapic *l, uint8_t vector);
/* Mask the entry, keeping its vector and delivery mode (one read, one write). */
void lapic_perf_lvt_mask(const struct lapic *l);

#endif

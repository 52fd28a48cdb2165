/* The CPU-neutral table of the processors online on bare metal and the start-up report: what
 * arch/smp.h answers (smp_report, smp_cpus_online, smp_cpu_hw_id, smp_self_hw_id) and the steps
 * every port's bring-up shares (efi/<cpu>/smp.c: x86_64 INIT-SIPI-SIPI, AArch64 PSCI CPU_ON):
 * the BSP as CPU 0, the MADT's counts, which MADT entries to try, an AP recorded as failed or
 * numbered online, the totals. The job mailboxes (efi/smp.c) find an AP's mailbox here. The port
 * fills in its own report fields (the CPU tail, its reason) through smp_table_rep. */
#ifndef EFI_SMP_TABLE_H
#define EFI_SMP_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/smp.h"
#include "drivers/fw/madt.h"

struct smp_mailbox;


/* Start over with only the BSP online (hardware id bsp_hw_id) and madt's counts (NULL or invalid:
 * none): the report cleared. */
void smp_table_begin(uint32_t bsp_hw_id, const struct madt_info *madt);
/* The BSP's hardware id once the port can read it from its interrupt controller. */
void smp_table_bsp_id(uint32_t bsp_hw_id);
/* The report, for the port's own fields. */
struct smp_report *smp_table_rep(void);
/* The next MADT entry to start after index *i (advanced past it), given `tried` APs tried so far:
 * enabled, not the BSP, within max_cpus CPUs in all (those beyond count as not_started). NULL
 * when none is left. */
const struct madt_cpu *smp_table_next_ap(const struct madt_info *madt, unsigned *i, unsigned tried,
					 unsigned max_cpus);
/* An AP that did not come up: its id, how far its start-up code got (AP_STAGE_*), why. */
void smp_table_fail(uint32_t hw_id, unsigned stage, const char *reason);
/* An AP online as the next CPU number: its id, its job mailbox, the port's control block, and when
 * it was asked to start and came up (cycle counter: the slowest is reported). */
void smp_table_add(uint32_t hw_id, struct smp_mailbox *mb, void *block, uint64_t asked, uint64_t online);
/* The bring-up is over: its method and duration since t0. Returns the CPUs online. */
unsigned smp_table_done(const char *how, uint64_t t0);
/* CPU `cpu`'s hardware id once it is online; false before the table has it (the BSP before
 * smp_table_begin: the port then reads its own, smp_self_hw_id in efi/<cpu>/smp.c; this unit
 * never calls a port, so no call circle). */
bool smp_table_hw_id(unsigned cpu, uint32_t *id);
/* Online AP `cpu`'s mailbox and control block (NULL for the BSP, cpu 0, and CPUs not online). */
struct smp_mailbox *smp_table_mailbox(unsigned cpu);
void *smp_table_block(unsigned cpu);

#endif

/* What each architecture's UEFI entry supplies to the one entry of both (efi/main.c): the serial
 * port, the records only that machine has, what it must reserve before ExitBootServices, how it
 * takes the machine over afterwards (clocks, interrupt controller, other cores) and how it leaves.
 * x86_64: efi/x86_64/platform.c; AArch64: efi/aarch64/platform.c. main.c keeps the order of a run
 * and the state every architecture has (struct efi_boot). */
#ifndef EFI_PLATFORM_H
#define EFI_PLATFORM_H

#include <efi.h>
#include <stdbool.h>
#include <stddef.h>

#include "arch/cpu_info.h"
#include "bench/core/probe.h"
#include "bench/core/suite.h"
#include "drivers/fw/acpi.h"
#include "efi/boot_options.h"
#include "efi/discover.h"
#include "efi/exit_bs.h"
#include "bench/core/options.h"

struct efi_boot {
	struct config cfg;
	struct boot_messages *msgs; /* pool memory until the cfg record; NULL: there was none */
	struct efi_discovery disc;
	struct acpi_info acpi;
	struct cpu_info cpu;
	struct pmu_info pmu;
	struct arena arena;
	struct arena exec_arena;
	struct probe_env env;
	struct memmap_summary memmap;
	char fw_vendor[64];
	EFI_RUNTIME_SERVICES *rt;
};

/* The summary's line for the read overhead, in the counter's unit ("cycles" of the TSC, "ticks"
 * of a timer counter). */
extern const char efi_arch_overhead_label[];
/* Open the serial port the options, ACPI SPCR or the board default name (boot services are up;
 * no record stream yet). Returns where the choice came from ("option", "spcr", "default",
 * "none"). */
const char *efi_arch_serial_setup(struct efi_boot *b);
/* One line of the record stream to the wire (the emit sink). */
void efi_arch_serial_write(const char *line, unsigned len);
/* After the firmware record: the serial port's record, when there is a port. */
void efi_arch_emit_serial(struct efi_boot *b, const char *source);
/* After the ACPI records: what only this machine's tables say (AArch64: PSCI). */
void efi_arch_emit_boot_facts(struct efi_boot *b);
/* Before the arena: what this machine needs reserved while boot services are up. False with
 * *why when the machine cannot be taken over at all. */
bool efi_arch_reserve(struct efi_boot *b, const char **why);
/* Just before ExitBootServices: the function the suite ends a run with (powers off). */
void efi_arch_prepare_finish(struct efi_boot *b);
/* First thing after ExitBootServices: mask the firmware's interrupts (no handler of theirs any
 * more). */
void efi_arch_mask_interrupts(void);
/* Then, before the vectors: make the CPU's own level ours (AArch64 started at EL2: configure EL2
 * and continue at EL1, arch/aarch64/el2.h; x86_64: nothing). */
void efi_arch_own_cpu(const struct config *cfg);
/* After the vectors and the memory map record: the CPU and clock records, the counter frequency
 * (b->env.counter_hz), other cores, the interrupt platform (b->env.irq) and the environment flags
 * only this machine knows (env.traps, env.simd_enabled). */
void efi_arch_take_over(struct efi_boot *b);
/* Cache maintenance around DMA buffers of the USB path (efi/<cpu>/dma.c): before a device reads
 * [p, p + n), and before the CPU reads what a device wrote there. */
void efi_arch_dma_to_device(const void *p, size_t n);
void efi_arch_dma_from_device(void *p, size_t n);
/* Leave the machine the configured way; does not return. */
__attribute__((noreturn)) void efi_arch_finish(struct efi_boot *b, enum run_status status);

#endif

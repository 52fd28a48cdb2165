/* Processor start-up glue for the UEFI build (see smp_boot.h). */
#include "efi/smp_boot.h"

#include <efi.h>
#include <efilib.h>

#include "efi/x86_64/smp.h"
#include "bench/facts/smp.h"
#include "drivers/fw/madt.h"
#include "efi/x86_64/lowmem.h"
#include "efi/x86_64/madt_boot.h"

#define PAGE_BYTES 4096u

static struct {
	const struct madt_info *madt; /* NULL: none (madt_boot_reason) */
	EFI_PHYSICAL_ADDRESS lowpage;
	uint8_t *stacks;
	unsigned max_cpus;
	const char *reason; /* why nothing was reserved */
} sb;

void smp_boot_reserve(const struct acpi_info *acpi, bool enabled)
{
	EFI_PHYSICAL_ADDRESS stacks = 0;
	UINTN pages;

	/* Parsed even with smp=0: the record still says how many processors the platform has (and
	 * irq_boot.c reads it after ExitBootServices). */
	madt_boot_parse(acpi);
	sb.madt = madt_boot();
	if (!sb.madt) {
		sb.reason = enabled ? madt_boot_reason() : "disabled by option smp=0";
		return;
	}
	if (!enabled) {
		sb.reason = "disabled by option smp=0";
		return;
	}
	sb.max_cpus = sb.madt->num_enabled < SMP_MAX_CPUS ? sb.madt->num_enabled : SMP_MAX_CPUS;
	if (sb.max_cpus < 2) {
		sb.reason = "the MADT lists no other enabled processor";
		return;
	}
	sb.lowpage = lowmem_alloc(SMP_LOWMEM_PAGES, SMP_LOWMEM_LIMIT, EfiLoaderCode);
	if (!sb.lowpage) {
		sb.reason = "no free pages below 1 MiB for the start-up code";
		return;
	}
	pages = ((UINTN)(sb.max_cpus - 1) * SMP_STACK_SIZE + PAGE_BYTES - 1) / PAGE_BYTES;
	if (EFI_ERROR(uefi_call_wrapper(BS->AllocatePages, 4, AllocateAnyPages, EfiLoaderData, pages, &stacks))) {
		sb.reason = "no memory for the AP stacks";
		return;
	}
	sb.stacks = (uint8_t *)(UINTN)stacks;
}

unsigned smp_boot_start(uint64_t counter_hz)
{
	unsigned n = 1;

	if (!sb.reason)
		n = smp_start_aps(sb.madt, (void *)(UINTN)sb.lowpage, sb.stacks, SMP_STACK_SIZE, sb.max_cpus, counter_hz);
	else
		smp_start_none(sb.madt, sb.reason);
	smp_facts_emit();
	return n;
}

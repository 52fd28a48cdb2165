/* Processor start-up glue of the UEFI build, the same for every CPU (see smp_boot.h): the
 * decisions and the AP stacks here, the CPU's own steps in efi/<cpu>/smp_boot.c. */
#include "efi/smp_boot.h"

#include <efi.h>
#include <efilib.h>

#include "arch/smp.h"
#include "bench/facts/smp.h"

#define PAGE_BYTES 4096u

static struct {
	uint8_t *stacks;
	size_t stack_size;
	unsigned max_cpus;
	const char *reason; /* why nothing was reserved */
} sb = { .reason = "not prepared before ExitBootServices" };

static const char *reserve(const struct acpi_info *acpi, bool enabled)
{
	EFI_PHYSICAL_ADDRESS stacks = 0;
	unsigned cpus = 0;
	const char *why;
	UINTN pages;

	/* Parsed even with smp=0: the record still says how many processors the platform has. */
	why = smp_boot_cpu_parse(acpi, &cpus);
	if (!enabled)
		return "disabled by option smp=0";
	if (why)
		return why;
	sb.max_cpus = cpus < SMP_MAX_CPUS ? cpus : SMP_MAX_CPUS;
	why = smp_boot_cpu_reserve(acpi, sb.max_cpus, &sb.stack_size);
	if (why)
		return why;
	pages = ((UINTN)(sb.max_cpus - 1) * sb.stack_size + PAGE_BYTES - 1) / PAGE_BYTES;
	if (EFI_ERROR(uefi_call_wrapper(BS->AllocatePages, 4, AllocateAnyPages, EfiLoaderData, pages, &stacks)))
		return "no memory for the other CPUs' stacks";
	sb.stacks = (uint8_t *)(UINTN)stacks;
	return 0;
}

void smp_boot_reserve(const struct acpi_info *acpi, bool enabled)
{
	sb.reason = reserve(acpi, enabled);
}

unsigned smp_boot_start(uint64_t counter_hz)
{
	unsigned n = 1;

	if (!sb.reason)
		n = smp_boot_cpu_start(sb.stacks, sb.stack_size, sb.max_cpus, counter_hz);
	else
		smp_boot_cpu_none(sb.reason);
	smp_facts_emit();
	return n;
}

/* Core start-up glue of the AArch64 UEFI build (efi/smp_boot.h; efi/x86_64/smp_boot.c is x86_64's):
 * before ExitBootServices, parse the MADT's GICC entries into pool memory and reserve each other
 * core's control block and stack; after it, with our vectors installed and the generic timer's
 * rate known, start them through PSCI CPU_ON on the FADT's conduit (efi/aarch64/smp.c) and emit
 * `plat kind=smp`. */
#include "efi/smp_boot.h"

#include <efi.h>
#include <efilib.h>

#include "efi/aarch64/smp.h"
#include "bench/facts/smp.h"
#include "drivers/fw/aarch64/madt_gicc.h"

#define PAGE_BYTES 4096u

static struct {
	struct madt_info *madt; /* pool memory; NULL: none (reason) */
	bool use_hvc;
	uint8_t *stacks;
	unsigned max_cpus;
	const char *reason; /* why nothing was reserved */
} sb = { .reason = "not prepared before ExitBootServices" };

static const char *parse_madt(const struct acpi_info *acpi)
{
	struct madt_info *info = NULL;

	if (!acpi->madt)
		return "no MADT";
	if (EFI_ERROR(uefi_call_wrapper(BS->AllocatePool, 3, EfiLoaderData, sizeof(*info), (void **)&info)) ||
	    !info)
		return "no memory to parse the MADT";
	if (!madt_parse_gicc(acpi->madt, info)) {
		uefi_call_wrapper(BS->FreePool, 1, info);
		return "no valid MADT";
	}
	sb.madt = info;
	return 0;
}

void smp_boot_reserve(const struct acpi_info *acpi, bool enabled)
{
	EFI_PHYSICAL_ADDRESS stacks = 0;
	UINTN pages;

	/* Parsed even with smp=0: the record still says how many cores the platform has. */
	sb.reason = parse_madt(acpi);
	if (sb.reason)
		return;
	if (!enabled) {
		sb.reason = "disabled by option smp=0";
		return;
	}
	if (!(acpi->arm_boot_flags & ACPI_ARM_PSCI_COMPLIANT)) {
		sb.reason = "the FADT does not say PSCI is implemented: no CPU_ON";
		return;
	}
	sb.use_hvc = (acpi->arm_boot_flags & ACPI_ARM_PSCI_USE_HVC) != 0;
	sb.max_cpus = sb.madt->num_enabled < SMP_MAX_CPUS ? sb.madt->num_enabled : SMP_MAX_CPUS;
	if (sb.max_cpus < 2) {
		sb.reason = "the MADT lists no other enabled core";
		return;
	}
	pages = ((UINTN)(sb.max_cpus - 1) * SMP_STACK_SIZE + PAGE_BYTES - 1) / PAGE_BYTES;
	if (EFI_ERROR(uefi_call_wrapper(BS->AllocatePages, 4, AllocateAnyPages, EfiLoaderData, pages, &stacks))) {
		sb.reason = "no memory for the core stacks";
		return;
	}
	sb.stacks = (uint8_t *)(UINTN)stacks;
}

unsigned smp_boot_start(uint64_t counter_hz)
{
	unsigned n = 1;

	if (!sb.reason)
		n = smp_start_aps(sb.madt, sb.use_hvc, sb.stacks, SMP_STACK_SIZE, sb.max_cpus, counter_hz);
	else
		smp_start_none(sb.madt, sb.reason);
	smp_facts_emit();
	return n;
}

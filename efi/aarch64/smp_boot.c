/* The AArch64 steps of starting the cores (efi/smp_boot.h): the MADT's GICC entries parsed into
 * pool memory, and the FADT's PSCI conduit for CPU_ON (efi/aarch64/smp.c starts them). */
#include "efi/smp_boot.h"

#include <efi.h>
#include <efilib.h>

#include "efi/aarch64/smp.h"
#include "drivers/fw/aarch64/madt_gicc.h"

static struct madt_info *madt; /* pool memory; NULL: none */
static bool use_hvc;

const char *smp_boot_cpu_parse(const struct acpi_info *acpi, unsigned *enabled)
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
	madt = info;
	*enabled = madt->num_enabled;
	return 0;
}

const char *smp_boot_cpu_reserve(const struct acpi_info *acpi, unsigned max_cpus, size_t *stack_size)
{
	if (!(acpi->arm_boot_flags & ACPI_ARM_PSCI_COMPLIANT))
		return "the FADT does not say PSCI is implemented: no CPU_ON";
	use_hvc = (acpi->arm_boot_flags & ACPI_ARM_PSCI_USE_HVC) != 0;
	if (max_cpus < 2)
		return "the MADT lists no other enabled core";
	*stack_size = SMP_STACK_SIZE;
	return 0;
}

unsigned smp_boot_cpu_start(uint8_t *stacks, size_t stack_size, unsigned max_cpus, uint64_t counter_hz)
{
	return smp_start_aps(madt, use_hvc, stacks, stack_size, max_cpus, counter_hz);
}

void smp_boot_cpu_none(const char *reason)
{
	smp_start_none(madt, reason);
}

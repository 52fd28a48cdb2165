/* The x86_64 steps of starting the processors (efi/smp_boot.h): the MADT's local APICs, and the
 * start-up page below 1 MiB the INIT-SIPI-SIPI sequence needs (efi/x86_64/smp.c starts them). */
#include "efi/smp_boot.h"

#include <efi.h>
#include <efilib.h>

#include "efi/x86_64/smp.h"
#include "drivers/fw/madt.h"
#include "efi/x86_64/lowmem.h"
#include "efi/x86_64/madt_boot.h"

static const struct madt_info *madt; /* NULL: none (madt_boot_reason) */
static EFI_PHYSICAL_ADDRESS lowpage;

/* irq_boot.c reads the parsed MADT after ExitBootServices too. */
const char *smp_boot_cpu_parse(const struct acpi_info *acpi, unsigned *enabled)
{
	madt_boot_parse(acpi);
	madt = madt_boot();
	if (!madt)
		return madt_boot_reason();
	*enabled = madt->num_enabled;
	return 0;
}

const char *smp_boot_cpu_reserve(const struct acpi_info *acpi, unsigned max_cpus, size_t *stack_size)
{
	(void)acpi;
	if (max_cpus < 2)
		return "the MADT lists no other enabled processor";
	lowpage = lowmem_alloc(SMP_LOWMEM_PAGES, SMP_LOWMEM_LIMIT, EfiLoaderCode);
	if (!lowpage)
		return "no free pages below 1 MiB for the start-up code";
	*stack_size = SMP_STACK_SIZE;
	return 0;
}

unsigned smp_boot_cpu_start(uint8_t *stacks, size_t stack_size, unsigned max_cpus, uint64_t counter_hz)
{
	return smp_start_aps(madt, (void *)(UINTN)lowpage, stacks, stack_size, max_cpus, counter_hz);
}

void smp_boot_cpu_none(const char *reason)
{
	smp_start_none(madt, reason);
}

/* Power-off and reset paths (see power.h). */
#include "drivers/fw/x86_64/power.h"

#include "arch/x86_64/io.h"

#define PM1_CNT_SLP_TYP_SHIFT 10
#define PM1_CNT_SLP_EN (1u << 13)
#define PORT_RESET_CONTROL 0xCF9 /* PIIX/ICH reset control register */
#define RST_CPU 0x04
#define RST_SYS 0x02
#define PORT_KBC_COMMAND 0x64
#define KBC_PULSE_RESET 0xFE
/* Loops to give a power-state change time to take effect before trying the next way. */
#define SETTLE_SPINS 10000000u

static void settle(void)
{
	for (unsigned i = 0; i < SETTLE_SPINS; i++)
		cpu_relax();
}

void power_debug_exit(uint16_t port, uint32_t code)
{
	outl(port, code);
	settle();
}

void power_acpi_s5(const struct acpi_info *acpi)
{
	if (!acpi->fadt_present || !acpi->pm1a_cnt || !acpi->s5_found)
		return;
	outw(acpi->pm1a_cnt, (uint16_t)((acpi->s5_typ_a << PM1_CNT_SLP_TYP_SHIFT) | PM1_CNT_SLP_EN));
	if (acpi->pm1b_cnt)
		outw(acpi->pm1b_cnt, (uint16_t)((acpi->s5_typ_b << PM1_CNT_SLP_TYP_SHIFT) | PM1_CNT_SLP_EN));
	settle();
}

void power_reset(const struct acpi_info *acpi)
{
	if (acpi && acpi->reset_port) {
		outb(acpi->reset_port, acpi->reset_value);
		settle();
	}
	outb(PORT_RESET_CONTROL, RST_SYS | RST_CPU);
	settle();
	outb(PORT_KBC_COMMAND, KBC_PULSE_RESET);
	settle();
}

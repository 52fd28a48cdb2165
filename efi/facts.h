/* plat records for what the firmware discovered through UEFI: firmware identity, memory map,
 * ACPI tables, SMBIOS system, board and memory devices and the DRAM peak they imply, serial port,
 * HPET and PM timer. (CPU and TSC records come from bench/facts/x86_64/platform.c, shared with the hosted build.) */
#ifndef EFI_FACTS_H
#define EFI_FACTS_H

#include "drivers/fw/acpi.h"
#include "drivers/timer/hpet.h"
#include "drivers/serial/uart16550.h"
#include "efi/discover.h"

void facts_emit_firmware(const char *vendor, UINT32 fw_rev, UINT32 uefi_rev, const void *smbios_entry,
			 const struct acpi_info *acpi);
void facts_emit_memmap(const struct memmap_summary *s);
void facts_emit_acpi(const struct acpi_info *acpi);
void facts_emit_smbios(const void *smbios_entry);
/* How the serial line was set up: its rate (0 = as the firmware left it), where the port came
 * from, and the UART clock and divisor latch the rate was made with (divisor 0: not programmed). */
struct serial_setup {
	unsigned baud;
	const char *source;       /* option, spcr, default */
	uint32_t clock_hz;
	const char *clock_source; /* option, spcr, pc */
	uint16_t divisor;
};

void facts_emit_serial(const struct uart *u, const struct serial_setup *s);
void facts_emit_hpet(const struct acpi_info *acpi, const struct hpet *h, bool ok);

#endif

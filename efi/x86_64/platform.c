/* The x86_64 side of the UEFI entry (efi/platform.h): a 16550 UART (option, SPCR or COM1), the
 * IDT and exception stacks and the framebuffer reserved before ExitBootServices, and after it the
 * CPU records, the TSC calibrated against the ACPI PM timer and the HPET, the APIC mode, the APs
 * and the interrupt sources; the run ends through efi/x86_64/finish.c (isa-debug-exit, S5, reset). */
#include <efi.h>
#include <efilib.h>

#include "arch/cycles.h"
#include "arch/membw.h"
#include "arch/traps.h"
#include "arch/x86_64/cpu.h"
#include "bench/facts/x86_64/platform.h"
#include "drivers/timer/hpet.h"
#include "drivers/timer/x86_64/pm_timer.h"
#include "drivers/serial/uart16550.h"
#include "efi/x86_64/apic_mode_boot.h"
#include "efi/efi_util.h"
#include "efi/facts.h"
#include "efi/x86_64/finish.h"
#include "efi/x86_64/irq_boot.h"
#include "efi/platform.h"
#include "efi/smp_boot.h"
#include "lib/emit.h"

#define COM1_PORT 0x3F8
/* The line speed when the one asked for cannot be made (option serial_baud's default). */
#define SERIAL_BAUD_FALLBACK 115200u
#define PAGE_BYTES 4096ull
/* Stride in bytes between registers of an MMIO UART of the given access size (GAS encoding). */
#define GAS_ACCESS_DWORD 3

const char efi_arch_overhead_label[] = "timer overhead (cycles)";

static struct {
	struct uart uart;
	struct serial_setup line;
	unsigned refused_baud; /* a serial_baud the UART's clock cannot give: reported once the stream runs */
	struct pm_timer pm;
	struct hpet hpet;
	bool hpet_ok;
	struct finish_ctx fin;
} x;

void efi_arch_serial_write(const char *line, unsigned len)
{
	uart_write(&x.uart, line, len);
}

/* The UART's input clock: option serial_clock_hz, else the SPCR's (revision 3 and later) for the
 * UART the SPCR names, else the PC UART's 1.8432 MHz. */
static void serial_clock(const struct efi_boot *b, bool spcr_uart)
{
	x.line.clock_hz = UART_CLOCK_PC_HZ;
	x.line.clock_source = "pc";
	if (b->cfg.serial_clock_hz) {
		x.line.clock_hz = (uint32_t)b->cfg.serial_clock_hz;
		x.line.clock_source = "option";
	} else if (spcr_uart && b->acpi.spcr_clock_hz) {
		x.line.clock_hz = b->acpi.spcr_clock_hz;
		x.line.clock_source = "spcr";
	}
}

/* The divisor latch value for x.line.baud on the UART's clock. A rate the clock cannot make within
 * 2% is refused for SERIAL_BAUD_FALLBACK, and efi_arch_emit_serial says so; when the clock cannot
 * make that either, the firmware's setting stays (divisor 0). */
static uint16_t serial_divisor(void)
{
	uint16_t div = 0;

	if (uart_baud_divisor(x.line.clock_hz, x.line.baud, &div))
		return x.line.divisor = div;
	x.refused_baud = x.line.baud;
	x.line.baud = SERIAL_BAUD_FALLBACK;
	if (uart_baud_divisor(x.line.clock_hz, x.line.baud, &div))
		return x.line.divisor = div;
	x.line.baud = 0;
	return x.line.divisor = 0;
}

/* Option first, then ACPI SPCR, then COM1. */
const char *efi_arch_serial_setup(struct efi_boot *b)
{
	const char *source = "default";
	bool spcr_uart = false;
	enum uart_access access = UART_IO;
	uint64_t base = COM1_PORT;
	unsigned stride = 1;

	x.line.baud = (unsigned)b->cfg.serial_baud;
	if (b->cfg.serial_kind == SERIAL_NONE) {
		x.uart.present = false;
		return "none";
	}
	if (b->cfg.serial_kind == SERIAL_IO || b->cfg.serial_kind == SERIAL_MMIO) {
		source = "option";
		base = b->cfg.serial_base;
		access = b->cfg.serial_kind == SERIAL_IO ? UART_IO : UART_MMIO8;
	} else if (b->acpi.spcr_present) {
		source = "spcr";
		spcr_uart = true;
		base = b->acpi.spcr_base;
		if (b->acpi.spcr_space == ACPI_GAS_IO) {
			access = UART_IO;
		} else if (b->acpi.spcr_access == GAS_ACCESS_DWORD || b->acpi.spcr_bit_width == 32) {
			access = UART_MMIO32;
			stride = 4;
		} else {
			access = UART_MMIO8;
		}
		if (b->acpi.spcr_baud)
			x.line.baud = b->acpi.spcr_baud;
	}
	x.line.source = source;
	serial_clock(b, spcr_uart);
	if (!uart_init(&x.uart, access, base, stride, serial_divisor()))
		efi_con_line("baremetric: ", "no UART answers at the chosen serial port: records go to no wire");
	return source;
}

void efi_arch_emit_serial(struct efi_boot *b, const char *source)
{
	char text[160];
	struct sbuf sb;

	(void)b;
	(void)source; /* kept in x.line */
	if (x.refused_baud) {
		sb_init(&sb, text, sizeof(text));
		sb_puts(&sb, "serial_baud=");
		sb_u64(&sb, x.refused_baud);
		sb_puts(&sb, " refused: a 16550 on ");
		sb_u64(&sb, x.line.clock_hz);
		sb_puts(&sb, " Hz makes no rate within 2% of it (clock / (16 x k); serial_clock_hz); ");
		if (x.line.baud) {
			sb_puts(&sb, "running at ");
			sb_u64(&sb, x.line.baud);
		} else {
			sb_puts(&sb, "the firmware's rate stays");
		}
		emit_msg(MSG_WARN, text);
	}
	if (x.uart.present)
		facts_emit_serial(&x.uart, &x.line);
}

void efi_arch_emit_boot_facts(struct efi_boot *b)
{
	(void)b; /* the x86 tables' facts are all in the common ACPI records */
}

/* The BSP's IDT and IST stacks (see traps.h), and the framebuffer for the closing summary. */
bool efi_arch_reserve(struct efi_boot *b, const char **why)
{
	EFI_PHYSICAL_ADDRESS base = 0;

	discover_framebuffer(&b->disc);
	if (EFI_ERROR(uefi_call_wrapper(BS->AllocatePages, 4, AllocateAnyPages, EfiLoaderData,
					(TRAPS_BSP_MEM_BYTES + PAGE_BYTES - 1) / PAGE_BYTES, &base))) {
		*why = "no memory for the IDT and exception stacks: stopping without running probes";
		return false;
	}
	traps_provide_memory((void *)(UINTN)base);
	return true;
}

void efi_arch_prepare_finish(struct efi_boot *b)
{
	x.fin.cfg = &b->cfg;
	x.fin.acpi = &b->acpi;
	x.fin.have_fb = b->disc.have_fb;
	x.fin.fb = b->disc.fb;
	x.fin.hypervisor = b->cpu.hypervisor;
	x.fin.env = &b->env;
	x.fin.uart = &x.uart;
	x.fin.baud = x.line.baud;
	suite_init(&b->env, finish_exit);
	finish_set_ctx(&x.fin);
}

void efi_arch_mask_interrupts(void)
{
	cpu_cli();
}

void efi_arch_own_cpu(const struct config *cfg)
{
	(void)cfg;
}

static void calibrate_tsc(struct efi_boot *b)
{
	struct ref_clock refs[2];
	unsigned n = 0;

	if (b->acpi.pm_timer_port && pm_timer_init(&x.pm, b->acpi.pm_timer_port, b->acpi.pm_timer_32bit))
		refs[n++] = (struct ref_clock){ "pm_timer", PM_TIMER_HZ, x.pm.mask, pm_timer_read, &x.pm };
	else
		emit_msg(MSG_WARN, "no working ACPI PM timer: not used for TSC calibration");
	if (b->acpi.hpet_present)
		x.hpet_ok = hpet_init(&x.hpet, b->acpi.hpet_base);
	facts_emit_hpet(&b->acpi, &x.hpet, x.hpet_ok);
	if (x.hpet_ok)
		refs[n++] = (struct ref_clock){ "hpet", x.hpet.hz,
						x.hpet.counter_64bit ? ~0ull : 0xFFFFFFFFull, hpet_read, &x.hpet };
	b->env.counter_hz = platform_calibrate_tsc(&b->cpu, refs, n, (unsigned)b->cfg.tsc_cal_windows, b->cfg.tsc_cal_ms);
}

void efi_arch_take_over(struct efi_boot *b)
{
	arch_cpu_identify_privileged(&b->cpu);
	platform_emit_cpu(&b->cpu);
	platform_pmu(&b->cpu, &b->pmu);
	tsc_init(b->cpu.rdtscp);
	simd_enable();
	platform_emit_simd();
	calibrate_tsc(b);
	/* Option apic_mode: the BSP's APIC mode is settled before anything uses the APIC. */
	apic_mode_boot(b->cfg.apic_mode, b->cpu.x2apic);
	/* After the TSC is known (every wait of the start-up is bounded by it) and before the probes;
	 * the APs idle halted, costing the BSP's measurements nothing. */
	smp_boot_start(b->env.counter_hz);
	/* Firmware interrupt sources masked from here on; the probes arm their own. */
	b->env.irq = irq_boot_setup(x.hpet_ok ? &x.hpet : 0, &b->cpu, b->env.counter_hz);
	b->env.traps = true;
	b->env.simd_enabled = true;
}

void efi_arch_finish(struct efi_boot *b, enum run_status status)
{
	(void)b;
	finish(&x.fin, status);
}

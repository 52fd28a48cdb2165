/* ACPI power-management timer: a 3.579545 MHz free-running counter (24 or 32 bits) at an I/O port
 * from the FADT. A reference clock for calibrating the TSC. */
#ifndef DRIVERS_PM_TIMER_H
#define DRIVERS_PM_TIMER_H

#include <stdbool.h>
#include <stdint.h>

#define PM_TIMER_HZ 3579545u

struct pm_timer {
	uint16_t port;
	uint32_t mask;
};

bool pm_timer_init(struct pm_timer *t, uint16_t port, bool is_32bit);
uint64_t pm_timer_read(void *ctx); /* ctx = struct pm_timer * */

#endif

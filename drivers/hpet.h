/* High Precision Event Timer: its main counter as a reference clock. Firmware may leave it stopped,
 * so init enables it (and says whether it had to). Comparators come with the interrupt issue. */
#ifndef DRIVERS_HPET_H
#define DRIVERS_HPET_H

#include <stdbool.h>
#include <stdint.h>

struct hpet {
	uint64_t base;
	uint32_t period_fs; /* femtoseconds per tick */
	uint64_t hz;
	unsigned comparators;
	bool counter_64bit;
	bool was_enabled;
};

bool hpet_init(struct hpet *h, uint64_t base);
uint64_t hpet_read(void *ctx); /* ctx = struct hpet * */

#endif

/* A register model for the driver unit tests: a small address -> value store that every read
 * comes from and every write goes to, plus a log of the writes in order, so a test can assert
 * the exact register writes a driver makes (MMIO, MSR or port space, told apart by `space`). */
#ifndef TESTS_UNIT_REGMODEL_H
#define TESTS_UNIT_REGMODEL_H

#include <stdint.h>

#define REGMODEL_REGS 256
#define REGMODEL_LOG 512

enum reg_space { SPACE_MMIO = 'm', SPACE_MSR = 'r', SPACE_PORT = 'p' };

struct reg_write {
	char space;
	uint64_t addr, value;
};

struct regmodel {
	unsigned nregs;
	struct { char space; uint64_t addr, value; } regs[REGMODEL_REGS];
	unsigned nlog;
	struct reg_write log[REGMODEL_LOG];
	/* Indirect window (I/O APIC): writes to `sel_addr` select, `win_addr` reads/writes the
	 * selected register, stored under space 'i'. 0 = not modelled. */
	uint64_t sel_addr, win_addr;
	uint32_t selected;
};

void regmodel_reset(struct regmodel *m);
void regmodel_set(struct regmodel *m, char space, uint64_t addr, uint64_t value);
uint64_t regmodel_get(const struct regmodel *m, char space, uint64_t addr);
uint64_t regmodel_read(struct regmodel *m, char space, uint64_t addr);
void regmodel_write(struct regmodel *m, char space, uint64_t addr, uint64_t value);
/* Index of the first logged write to (space, addr) at or after `from`, or -1. */
int regmodel_find(const struct regmodel *m, char space, uint64_t addr, unsigned from);

#endif

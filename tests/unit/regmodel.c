/* Register model for the driver tests (see regmodel.h). */
#include "tests/unit/regmodel.h"

#include <string.h>

#define SPACE_INDIRECT 'i'

void regmodel_reset(struct regmodel *m)
{
	memset(m, 0, sizeof(*m));
}

static int slot(const struct regmodel *m, char space, uint64_t addr)
{
	for (unsigned i = 0; i < m->nregs; i++)
		if (m->regs[i].space == space && m->regs[i].addr == addr)
			return (int)i;
	return -1;
}

void regmodel_set(struct regmodel *m, char space, uint64_t addr, uint64_t value)
{
	int i = slot(m, space, addr);

	if (i < 0) {
		if (m->nregs >= REGMODEL_REGS)
			return;
		i = (int)m->nregs++;
		m->regs[i].space = space;
		m->regs[i].addr = addr;
	}
	m->regs[i].value = value;
}

uint64_t regmodel_get(const struct regmodel *m, char space, uint64_t addr)
{
	int i = slot(m, space, addr);

	return i < 0 ? 0 : m->regs[i].value;
}

uint64_t regmodel_read(struct regmodel *m, char space, uint64_t addr)
{
	if (space == SPACE_MMIO && m->win_addr && addr == m->win_addr)
		return regmodel_get(m, SPACE_INDIRECT, m->selected);
	return regmodel_get(m, space, addr);
}

void regmodel_write(struct regmodel *m, char space, uint64_t addr, uint64_t value)
{
	if (space == SPACE_MMIO && m->sel_addr && addr == m->sel_addr) {
		m->selected = (uint32_t)value;
		return; /* selections are not interesting writes */
	}
	if (space == SPACE_MMIO && m->win_addr && addr == m->win_addr) {
		space = SPACE_INDIRECT;
		addr = m->selected;
	}
	if (m->nlog < REGMODEL_LOG)
		m->log[m->nlog++] = (struct reg_write){ space, addr, value };
	regmodel_set(m, space, addr, value);
}

int regmodel_find(const struct regmodel *m, char space, uint64_t addr, unsigned from)
{
	for (unsigned i = from; i < m->nlog; i++)
		if (m->log[i].space == space && m->log[i].addr == addr)
			return (int)i;
	return -1;
}

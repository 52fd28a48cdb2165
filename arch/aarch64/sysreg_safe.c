/* Guarded system-register access (see sysreg_safe.h): the calls to the stubs of sysreg_stubs.S and
 * mops.S, and the decision when no vectors of ours catch a fault. Turning a stub's fault into a
 * return is the vectors' job (traps.c), as the exception table is on x86_64. */
#include "arch/aarch64/sysreg_safe.h"

#include "arch/aarch64/cpu.h"
#include "arch/traps.h"

typedef uint64_t (*read_stub_fn)(uint64_t *val);
typedef uint64_t (*write_stub_fn)(uint64_t val);

void sysreg_id_snapshot(struct a64_id_snapshot *id)
{
	*id = (struct a64_id_snapshot){ 0 };
	id->reg[A64_GATE_PFR0] = sysreg_read(id_aa64pfr0_el1);
	id->reg[A64_GATE_DFR0] = sysreg_read(id_aa64dfr0_el1);
	id->reg[A64_GATE_ISAR0] = sysreg_read(id_aa64isar0_el1);
	id->reg[A64_GATE_MMFR0] = sysreg_read(id_aa64mmfr0_el1);
	id->el = cpu_current_el();
}

bool sysreg_guarded(void)
{
	return traps_catch_faults();
}

static struct sysreg_result settle(struct sysreg_result r, uint64_t status)
{
	if (status & SYSREG_FAULT_FLAG) {
		r.outcome = SYSREG_FAULT;
		r.esr = status & SYSREG_ESR_MASK;
		r.value = 0;
	} else {
		r.outcome = SYSREG_OK;
	}
	return r;
}

static struct sysreg_result access(enum a64_sysreg id, bool write, uint64_t val)
{
	struct sysreg_result r = { SYSREG_NOT_TRIED, 0, 0, sysreg_guarded() };
	struct a64_id_snapshot ids;
	uint64_t status;

	if ((unsigned)id >= A64_SR_COUNT)
		return r;
	if (!r.guarded) {
		/* Nothing catches a fault here: touch only what the ID registers say exists. */
		sysreg_id_snapshot(&ids);
		if (a64_sysreg_plan(&a64_sysregs[id], &ids, false, false) != A64_SR_PLAN_ACCESS)
			return r;
	}
	if (write) {
		status = ((write_stub_fn)(uintptr_t)(a64_sysreg_write_stubs + id * A64_SYSREG_STUB_BYTES))(val);
	} else {
		status = ((read_stub_fn)(uintptr_t)(a64_sysreg_read_stubs + id * A64_SYSREG_STUB_BYTES))(&r.value);
	}
	return settle(r, status);
}

struct sysreg_result sysreg_try_mops(void *buf, uint64_t bytes, uint8_t value)
{
	struct sysreg_result r = { SYSREG_NOT_TRIED, 0, 0, sysreg_guarded() };

	if (!r.guarded)
		return r;
	return settle(r, a64_mops_probe(buf, bytes, value));
}

struct sysreg_result sysreg_try_read(enum a64_sysreg id)
{
	return access(id, false, 0);
}

struct sysreg_result sysreg_try_write(enum a64_sysreg id, uint64_t val)
{
	return access(id, true, val);
}

bool sysreg_read_safe(enum a64_sysreg id, uint64_t *val)
{
	struct sysreg_result r = access(id, false, 0);

	*val = r.value;
	return r.outcome == SYSREG_OK;
}

bool sysreg_write_safe(enum a64_sysreg id, uint64_t val)
{
	return access(id, true, val).outcome == SYSREG_OK;
}

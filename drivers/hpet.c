/* HPET (IA-PC HPET specification 1.0a, section 2.3). */
#include "drivers/hpet.h"

#include "arch/x86_64/io.h"

#define HPET_REG_CAP_ID 0x000
#define HPET_REG_CONFIG 0x010
#define HPET_REG_MAIN_COUNTER 0x0F0

#define HPET_CAP_COUNT_SIZE_64 (1ull << 13)
#define HPET_CAP_NUM_TIM_SHIFT 8
#define HPET_CAP_NUM_TIM_MASK 0x1Full
#define HPET_CAP_PERIOD_SHIFT 32
#define HPET_CONFIG_ENABLE (1ull << 0)

#define HPET_PERIOD_MAX_FS 100000000u /* the spec's bound: at least 10 MHz */
#define FS_PER_S 1000000000000000ull
#define HPET_LIVENESS_READS 1000

bool hpet_init(struct hpet *h, uint64_t base)
{
	uint64_t cap, cfg, first;
	int i;

	h->base = base;
	if (!base)
		return false;
	cap = mmio_read64((uintptr_t)base + HPET_REG_CAP_ID);
	h->period_fs = (uint32_t)(cap >> HPET_CAP_PERIOD_SHIFT);
	if (h->period_fs == 0 || h->period_fs > HPET_PERIOD_MAX_FS)
		return false;
	h->hz = FS_PER_S / h->period_fs;
	h->comparators = (unsigned)((cap >> HPET_CAP_NUM_TIM_SHIFT) & HPET_CAP_NUM_TIM_MASK) + 1;
	h->counter_64bit = cap & HPET_CAP_COUNT_SIZE_64;
	cfg = mmio_read64((uintptr_t)base + HPET_REG_CONFIG);
	h->was_enabled = cfg & HPET_CONFIG_ENABLE;
	if (!h->was_enabled)
		mmio_write64((uintptr_t)base + HPET_REG_CONFIG, cfg | HPET_CONFIG_ENABLE);
	first = hpet_read(h);
	for (i = 0; i < HPET_LIVENESS_READS; i++)
		if (hpet_read(h) != first)
			return true;
	return false;
}

uint64_t hpet_read(void *ctx)
{
	const struct hpet *h = ctx;
	uint64_t v = mmio_read64((uintptr_t)h->base + HPET_REG_MAIN_COUNTER);

	return h->counter_64bit ? v : (v & 0xFFFFFFFFu);
}

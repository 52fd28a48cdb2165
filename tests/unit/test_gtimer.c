/* The EL1 generic timers (drivers/timer/aarch64/gtimer.c) against a register model: a one-shot writes the
 * compare value before ENABLE (virtual: the deadline itself; physical: plus the measured
 * CNTVOFF), stop clears CTL, the CNTVOFF measurement keeps the tightest CNTVCT bracket, and the
 * periodic grid's next point skips missed periods. */
#include "drivers/timer/aarch64/gtimer.h"
#include "tests/unit/regmodel.h"
#include "tests/unit/test.h"

#define SPACE_TIMER 't'

static struct regmodel m;
/* Counter reads from scripts: CNTVCT and CNTPCT values in read order. */
static const uint64_t *vct_script, *pct_script;
static unsigned vct_i, pct_i;

static uint64_t m_read(void *c, enum gtimer_reg r)
{
	(void)c;
	if (r == GT_CNTVCT && vct_script)
		return vct_script[vct_i++];
	if (r == GT_CNTPCT && pct_script)
		return pct_script[pct_i++];
	return regmodel_read(&m, SPACE_TIMER, r);
}

static void m_write(void *c, enum gtimer_reg r, uint64_t v)
{
	(void)c;
	regmodel_write(&m, SPACE_TIMER, r, v);
}

static const struct gtimer_io model_io = { m_read, m_write, 0 };

static void test_arm_and_stop(void)
{
	struct gtimer t = { &model_io, 1000, 0 };

	regmodel_reset(&m);
	gtimer_arm(&t, GT_VIRT, 5000);
	CHECK_EQ_U64(m.nlog, 2);
	CHECK_EQ_U64(m.log[0].addr, GT_CNTV_CVAL); /* compare value first ... */
	CHECK_EQ_U64(m.log[0].value, 5000);        /* ... the deadline itself: no offset */
	CHECK_EQ_U64(m.log[1].addr, GT_CNTV_CTL);  /* then ENABLE, IMASK clear */
	CHECK_EQ_U64(m.log[1].value, CNT_CTL_ENABLE);
	CHECK(gtimer_enabled(&t, GT_VIRT) && !gtimer_enabled(&t, GT_PHYS));
	CHECK_EQ_U64(gtimer_cval(&t, GT_VIRT), 5000);
	gtimer_arm(&t, GT_PHYS, 5000);
	CHECK_EQ_U64(m.log[2].addr, GT_CNTP_CVAL);
	CHECK_EQ_U64(m.log[2].value, 6000); /* CNTPCT = CNTVCT + CNTVOFF */
	CHECK_EQ_U64(m.log[3].addr, GT_CNTP_CTL);
	gtimer_stop(&t, GT_VIRT);
	CHECK_EQ_U64(m.log[4].addr, GT_CNTV_CTL);
	CHECK_EQ_U64(m.log[4].value, 0);
	CHECK(!gtimer_enabled(&t, GT_VIRT) && gtimer_enabled(&t, GT_PHYS));
	t.cntvoff = -200; /* a negative offset wraps correctly */
	gtimer_arm(&t, GT_PHYS, 5000);
	CHECK_EQ_U64(regmodel_get(&m, SPACE_TIMER, GT_CNTP_CVAL), 4800);
}

static void test_offset_tightest_bracket(void)
{
	/* three brackets: 10 wide, 2 wide (CNTPCT 1000 + 101 inside [100, 102]), 0 wide but with the
	 * counters reversed (ignored) ... then steady 6-wide ones */
	static const uint64_t vct[2 * GTIMER_OFFSET_TRIES] = { 0, 10, 100, 102, 300, 299 };
	static const uint64_t pct[GTIMER_OFFSET_TRIES] = { 1005, 1101, 1299 };
	uint64_t v[2 * GTIMER_OFFSET_TRIES], p[GTIMER_OFFSET_TRIES];
	struct gtimer t = { &model_io, 0, 0 };

	for (unsigned i = 0; i < GTIMER_OFFSET_TRIES; i++) {
		v[2 * i] = i < 3 ? vct[2 * i] : 1000 * i;
		v[2 * i + 1] = i < 3 ? vct[2 * i + 1] : 1000 * i + 6;
		p[i] = i < 3 ? pct[i] : 1000 * i + 1003;
	}
	vct_script = v, pct_script = p, vct_i = pct_i = 0;
	gtimer_measure_offset(&t);
	vct_script = pct_script = 0;
	CHECK_EQ_U64(vct_i, 2 * GTIMER_OFFSET_TRIES);
	CHECK_EQ_U64(pct_i, GTIMER_OFFSET_TRIES);
	CHECK_EQ_U64((uint64_t)t.cntvoff, 1000); /* 1101 - (100 + 1) */
	CHECK_EQ_U64(t.cntvoff_uncertainty, 1);
}

static void test_next_period(void)
{
	CHECK_EQ_U64(gtimer_next_period(1000, 100, 1050, 10), 1100); /* on time: the next point */
	CHECK_EQ_U64(gtimer_next_period(1000, 100, 1100, 10), 1200); /* a point equal to now has passed */
	CHECK_EQ_U64(gtimer_next_period(1000, 100, 1350, 10), 1400); /* two missed periods skipped */
	CHECK_EQ_U64(gtimer_next_period(1000, 100, 99999, 3), 1400);  /* bounded */
}

TEST_SUITE(gtimer) = {
	{ "arm_and_stop", test_arm_and_stop },
	{ "offset_tightest_bracket", test_offset_tightest_bracket },
	{ "next_period", test_next_period },
	{ 0, 0 },
};

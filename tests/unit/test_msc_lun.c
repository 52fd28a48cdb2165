/* LUN selection of the mass-storage driver (drivers/usb/msc.c msc_open_lun) against the BOT model
 * of msc_model.h: a card reader or U3 stick keeps its medium on a LUN other than 0 (BOT 3.2 GET
 * MAX LUN says how many there are, 5.1 bCBWLUN names one). LUN 0 of such a device answers
 * MEDIUM NOT PRESENT (SPC-4 sense 02/3A/00) at once, not after the not-ready wait, and the LUN
 * with the medium opens and moves data with every CBW naming it. */
#include <stdlib.h>
#include <string.h>

#include "drivers/usb/msc.h"
#include "msc_model.h"
#include "test.h"

#define BLOCK 512u
#define BLOCKS 256u

static struct msc_model model;
static struct usb_bulk_dev dev;
static struct msc msc;
static uint8_t scratch[MSC_SCRATCH_MIN] __attribute__((aligned(64)));
static uint8_t disk[BLOCKS * BLOCK];
static uint8_t buf[BLOCK] __attribute__((aligned(64)));

static void setup(uint8_t max_lun, uint8_t medium_lun)
{
	memset(disk, 0, sizeof(disk));
	msc_model_init(&model, BLOCK, BLOCKS, disk, BLOCKS);
	model.max_lun = max_lun;
	model.medium_lun = medium_lun;
	msc_model_dev(&model, &dev);
}

/* What save_stick.c does: LUN 0, then each LUN up to GET MAX LUN's answer; the first that opens. */
static int first_lun_with_medium(void)
{
	uint8_t max = 0;

	for (unsigned lun = 0; lun <= max; lun++) {
		int r = msc_open_lun(&msc, &dev, scratch, (uint8_t)lun);

		if (lun == 0)
			max = msc.max_lun;
		if (!r)
			return (int)lun;
	}
	return -1;
}

static void medium_on_lun_1(void)
{
	setup(1, 1);
	CHECK(msc_open(&msc, &dev, scratch) < 0);
	CHECK(strstr(msc_error(&msc), "ASC 0x3a") != 0); /* MEDIUM NOT PRESENT */
	CHECK_EQ_U64(msc.max_lun, 1);
	/* no medium: refused at once, not waited for (only the settle time before the first command) */
	CHECK(model.delay_us < MSC_SETTLE_US + MSC_TUR_DELAY_US);
	setup(1, 1);
	CHECK_EQ_U64(first_lun_with_medium(), 1);
	CHECK_EQ_U64(msc.blocks, BLOCKS);
	CHECK_EQ_U64(model.lun, 1);
	memset(disk + 7 * BLOCK, 0x5a, BLOCK);
	CHECK_EQ_U64(msc_read(&msc, 7, 1, buf), 0);
	CHECK_EQ_U64(buf[0], 0x5a);
	CHECK_EQ_U64(model.lun, 1);
	CHECK_EQ_U64(model.violations, 0);
}

static void one_lun_stays_on_lun_0(void)
{
	setup(0, 0);
	CHECK_EQ_U64(first_lun_with_medium(), 0);
	CHECK_EQ_U64(model.lun, 0);
	CHECK_EQ_U64(model.violations, 0);
}

static void no_lun_has_a_medium(void)
{
	setup(2, 7); /* three empty slots */
	CHECK_EQ_U64((uint64_t)(int64_t)first_lun_with_medium(), (uint64_t)(int64_t)-1);
	CHECK_EQ_U64(model.violations, 0);
}

TEST_SUITE(msc_lun) = {
	{ "medium_on_lun_1", medium_on_lun_1 },
	{ "one_lun_stays_on_lun_0", one_lun_stays_on_lun_0 },
	{ "no_lun_has_a_medium", no_lun_has_a_medium },
	{ 0, 0 },
};

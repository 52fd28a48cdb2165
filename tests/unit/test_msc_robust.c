/* Tests for what the mass-storage driver (drivers/usb/msc.c) does for real sticks QEMU's does not
 * need (issue 30), against the model device of msc_model.h: START UNIT for a unit that is not
 * ready until it gets one, the settle time and the per-command bound handed to the transport.
 * Recovery (reset recovery and one retry) and SYNCHRONIZE CACHE refused: test_msc.c. */
#include <stdlib.h>
#include <string.h>

#include "drivers/usb/msc.h"
#include "tests/unit/msc_model.h"
#include "tests/unit/test.h"

#define OP_TUR 0x00          /* SPC-4 TEST UNIT READY */
#define OP_REQUEST_SENSE 0x03 /* SPC-4 */
#define OP_START_STOP 0x1B   /* SBC-3 START STOP UNIT */
#define OP_RC10 0x25         /* SBC-3 READ CAPACITY(10) */

static struct msc_model model;
static struct usb_bulk_dev dev;
static struct msc msc;
static uint8_t scratch[MSC_SCRATCH_MIN] __attribute__((aligned(MSC_SCRATCH_SLOT)));
static uint8_t disk[64 * 512];

static void setup(void)
{
	memset(disk, 0, sizeof(disk));
	msc_model_init(&model, 512, 2048, disk, sizeof(disk) / 512);
	msc_model_dev(&model, &dev);
}

/* The operation code of the n-th CBW of the log, or -1. */
static int nth_cbw(unsigned n)
{
	for (unsigned i = 0; i < model.nev; i++)
		if (model.ev[i].kind == MODEL_EV_CBW && n-- == 0)
			return model.ev[i].op;
	return -1;
}

/* A unit that stays NOT READY, ASC 04h ASCQ 02h ("logical unit not ready, initializing command
 * required", SPC-4 sense codes) until it gets START UNIT (SBC-3 START STOP UNIT with START = 1):
 * the driver sends it right after the first such TEST UNIT READY and its REQUEST SENSE, then the
 * next TEST UNIT READY passes and the disk opens. */
static void not_ready_needs_start_unit(void)
{
	unsigned tur = 0;

	setup();
	model.start_needed = true;
	CHECK_EQ_U64(msc_open(&msc, &dev, scratch), 0);
	CHECK(msc.start_sent);
	CHECK_EQ_U64(model.starts, 1);
	CHECK_EQ_U64(model.turs, 2);
	while (nth_cbw(tur) >= 0 && nth_cbw(tur) != OP_TUR)
		tur++;
	CHECK_EQ_U64(nth_cbw(tur), OP_TUR);
	CHECK_EQ_U64(nth_cbw(tur + 1), OP_REQUEST_SENSE);
	CHECK_EQ_U64(nth_cbw(tur + 2), OP_START_STOP);
	CHECK_EQ_U64(nth_cbw(tur + 3), OP_TUR);
	CHECK_EQ_U64(nth_cbw(tur + 4), OP_RC10);
	CHECK_EQ_U64(msc.block_size, 512);
	CHECK_EQ_U64(model.violations, 0);
}

/* A ready unit is never sent START UNIT; the first command waits the settle time (Linux
 * usb-storage delay_use, 1 s) and every command gets SD_TIMEOUT (30 s) as its transport bound. */
static void settle_and_bounds(void)
{
	setup();
	CHECK_EQ_U64(msc_open(&msc, &dev, scratch), 0);
	CHECK(!msc.start_sent);
	CHECK_EQ_U64(model.starts, 0);
	CHECK_EQ_U64(model.delay_us, MSC_SETTLE_US);
	CHECK_EQ_U64(model.timeout_us, MSC_CMD_TIMEOUT_US);
	CHECK_EQ_U64(MSC_SYNC_TIMEOUT_US, 2ull * MSC_CMD_TIMEOUT_US);
	CHECK_EQ_U64(msc.retries, 0);
	/* The CBW (CPU-written) and the CSW, sense and data (device-written) never share a 128-byte
	 * cache-writeback granule (a 128-byte-line Arm core's CTR_EL0.CWG). */
	CHECK((uintptr_t)scratch % 128 == 0);
	CHECK(msc.bot.csw - msc.bot.cbw >= 128 && msc.sense - msc.bot.csw >= 128 && msc.data - msc.sense >= 128);
	CHECK(msc.data + 128 <= scratch + MSC_SCRATCH_MIN);
}

TEST_SUITE(msc_robust) = {
	{ "not_ready_needs_start_unit", not_ready_needs_start_unit },
	{ "settle_and_bounds", settle_and_bounds },
	{ 0, 0 },
};

/* Finding the stick by what it holds (drivers/usb/xhci_find.c xhci_find_msc) against the xHCI
 * model of xhci_model.h: the device path's port numbers only a first guess (AMI Aptio writes them
 * 1-based, UEFI 2.10 10.3.4.5 says 0-based), a USB 3 stick whose link fails training found on its
 * USB 2 twin and one a USB 2 reset moves found on its USB 3 port (xHCI 1.2 4.19.1, Supported
 * Protocol pairs), hub chains to the five tiers a route string reaches (8.9; USB 3.2 10.1.1) and a
 * sixth refused, and a walk where no device carries the nonce ending in bounded time with every
 * refused device's slot disabled (4.6.4). The "nonce" is which model device accept() is given:
 * the caller's reading of the file header is tested in test_save_log.c and test_msc_lun.c. */
#include <stdlib.h>
#include <string.h>

#include "drivers/usb/xhci.h"
#include "test.h"
#include "xhci_model.h"
#include "xhci_rig.h"

#define SEC 1000000ull
#define DEVS 12
#define WALK_BOUND_US (30 * SEC) /* a walk of a few ports and hubs: each wait of the driver is bounded */

struct rig {
	struct xhci_model m;
	struct usb_io io;
	struct usb_dma dma;
	struct xhci x;
	struct xhci_dev d;
	struct xm_dev dev[DEVS];
	const struct xm_dev *want; /* the device that "carries the nonce"; NULL: none does */
	unsigned asked;
	uint8_t *mem;
};

static struct rig *rig_new(void)
{
	struct rig *r = calloc(1, sizeof(*r));

	r->mem = xhci_rig_model(&r->m, &r->io, &r->dma);
	return r;
}

/* accept(): the model device behind the offered slot is the one wanted. */
static bool accept(void *ctx, struct xhci_dev *dev)
{
	struct rig *r = ctx;

	r->asked++;
	return r->want && r->m.slot[dev->slot].dev == r->want;
}

static int find(struct rig *r, const struct usb_port_path *hint, struct xhci_walk_stats *st)
{
	int rc = xhci_init(&r->x, XM_MMIO, &r->io, &r->dma);

	if (rc) {
		test_note("xhci_init: %s", xhci_error(&r->x));
		return rc;
	}
	rc = xhci_find_msc(&r->x, hint, accept, r, &r->d, st);
	test_note("walk: %s after %llu ms of model time, %u offered", rc ? xhci_error(&r->x) : "found",
		  (unsigned long long)(r->m.now / 1000), st->offered);
	return rc;
}

#define CHECK_MODEL(r)                                                                     \
	do {                                                                               \
		if ((r)->m.violations)                                                     \
			test_fail(__FILE__, __LINE__, "model saw %u spec violations, first: %s", \
				  (r)->m.violations, (r)->m.violation);                    \
	} while (0)

/* Found, still addressed on the model's device, and the refused ones' slots given back. */
static void check_found(struct rig *r, unsigned slots_kept)
{
	CHECK(r->d.slot != 0);
	CHECK(r->m.slot[r->d.slot].dev == r->want);
	CHECK(r->d.bulk_in.dci && r->d.bulk_out.dci);
	CHECK_EQ_U64(xm_slots_enabled(&r->m), slots_kept);
	CHECK(r->m.now < WALK_BOUND_US);
	CHECK_MODEL(r);
}

/* The path says port 3 as AMI writes it (one too many): port 3 holds another stick, which is read
 * and refused; the stick at port 2 is found, and the refused one's slot is disabled. */
static void one_based_port_hint(void)
{
	struct rig *r = rig_new();
	struct usb_port_path hint = { .depth = 1, .port = { 3 } };
	struct xhci_walk_stats st;

	xm_msc(&r->dev[0], XM_HS);
	xm_msc(&r->dev[1], XM_HS);
	xm_attach(&r->m, 2, &r->dev[0]);
	xm_attach(&r->m, 3, &r->dev[1]);
	r->want = &r->dev[0];
	CHECK_EQ_U64(find(r, &hint, &st), 0);
	CHECK_EQ_U64(st.offered, 2); /* the hinted port first, then port 2 */
	CHECK_EQ_U64(r->asked, 2);
	CHECK(xm_find_cmd(&r->m, 10, 0) >= 0); /* Disable Slot for the refused one */
	CHECK_EQ_U64(r->dev[1].address, 0);
	check_found(r, 1);
	XHCI_RIG_FREE(r);
}

/* Right hint: nothing else is touched (no other port reset, one device read). */
static void right_hint_touches_nothing_else(void)
{
	struct rig *r = rig_new();
	struct usb_port_path hint = { .depth = 1, .port = { 2 } };
	struct xhci_walk_stats st;

	xm_msc(&r->dev[0], XM_HS);
	xm_msc(&r->dev[1], XM_HS);
	xm_attach(&r->m, 2, &r->dev[0]);
	xm_attach(&r->m, 1, &r->dev[1]);
	r->want = &r->dev[0];
	CHECK_EQ_U64(find(r, &hint, &st), 0);
	CHECK_EQ_U64(st.offered, 1);
	CHECK_EQ_U64(r->m.port[1].pr_writes, 0);
	check_found(r, 1);
	XHCI_RIG_FREE(r);
}

/* USB 2 ports 1-4, USB 3 ports 5-8 (n2 = n3 = 4). The stick's SuperSpeed link at port 5 never
 * trains; its warm reset drops it to the USB 2 twin, port 1, visited already (empty then): the
 * second pass finds it there. The hint says port 6 (1-based). */
static void usb3_stick_falls_to_usb2_port(void)
{
	struct rig *r = rig_new();
	struct usb_port_path hint = { .depth = 1, .port = { 6 } };
	struct xhci_walk_stats st;

	r->m.usb3_first = false;
	xm_msc(&r->dev[0], XM_HS);
	r->m.port[5].needs_warm = true;
	r->m.port[5].moves_to = 1;
	xm_attach(&r->m, 5, &r->dev[0]);
	r->want = &r->dev[0];
	CHECK_EQ_U64(find(r, &hint, &st), 0);
	CHECK_EQ_U64(r->d.root_port, 1);
	CHECK_EQ_U64(r->d.speed, USB_SPEED_HIGH);
	CHECK_EQ_U64(r->m.port[5].wpr_writes, 1);
	CHECK_EQ_U64(st.offered, 1);
	check_found(r, 1);
	XHCI_RIG_FREE(r);
}

/* Same layout: a USB 2 reset of port 2 moves the stick to its USB 3 port 6, later in the walk's
 * order. */
static void usb2_reset_moves_stick_to_usb3_port(void)
{
	struct rig *r = rig_new();
	struct usb_port_path hint = { .depth = 1, .port = { 2 } };
	struct xhci_walk_stats st;

	r->m.usb3_first = false;
	xm_msc(&r->dev[0], XM_HS); /* high speed on the USB 2 port ... */
	r->m.port[2].moves_to = 6;
	xm_attach(&r->m, 2, &r->dev[0]);
	xm_msc(&r->dev[0], XM_SS); /* ... SuperSpeed once on its USB 3 port */
	r->want = &r->dev[0];
	CHECK_EQ_U64(find(r, &hint, &st), 0);
	CHECK_EQ_U64(r->d.root_port, 6);
	CHECK_EQ_U64(r->d.speed, USB_SPEED_SUPER);
	CHECK_EQ_U64(r->m.port[2].pr_writes, 1);
	check_found(r, 1);
	XHCI_RIG_FREE(r);
}

/* hub (root port 4) -> hub (its port 3) -> stick (port 1): route 0x13; the hint has only the
 * root port. The first hub's other port holds a stick that is refused. */
static void stick_two_hubs_deep(void)
{
	struct rig *r = rig_new();
	struct usb_port_path hint = { .depth = 1, .port = { 4 } };
	struct xhci_walk_stats st;

	xm_hub(&r->dev[0], XM_HS, 4);
	xm_hub(&r->dev[1], XM_HS, 4);
	xm_msc(&r->dev[2], XM_HS);
	xm_msc(&r->dev[3], XM_FS); /* a full-speed one behind the high-speed hub: its TT */
	r->dev[0].child[3] = &r->dev[1];
	r->dev[0].child[1] = &r->dev[3];
	r->dev[1].child[1] = &r->dev[2];
	xm_attach(&r->m, 4, &r->dev[0]);
	r->want = &r->dev[2];
	CHECK_EQ_U64(find(r, &hint, &st), 0);
	CHECK_EQ_U64(r->m.slot[r->d.slot].route, 0x13);
	CHECK_EQ_U64(r->m.slot[r->d.slot].root_port, 4);
	CHECK_EQ_U64(r->d.tier, 3);
	CHECK_EQ_U64(st.offered, 2);
	check_found(r, 3); /* two hubs and the stick */
	XHCI_RIG_FREE(r);
}

/* SuperSpeed hubs five deep, each at its port 2, the stick at the fifth's port 1: route 0x12222,
 * each hub told its depth (the model checks the value). A sixth hub below it is refused. */
static void five_tiers_and_no_sixth(void)
{
	struct rig *r = rig_new();
	struct xhci_walk_stats st;

	for (unsigned i = 0; i < 6; i++)
		xm_hub(&r->dev[i], XM_SS, 4);
	for (unsigned i = 0; i < 5; i++)
		r->dev[i].child[2] = &r->dev[i + 1];
	xm_msc(&r->dev[6], XM_SS);
	xm_msc(&r->dev[7], XM_SS);
	r->dev[4].child[1] = &r->dev[6];
	r->dev[5].child[1] = &r->dev[7]; /* behind a sixth hub: unreachable */
	xm_attach(&r->m, 5, &r->dev[0]);
	r->want = &r->dev[6];
	CHECK_EQ_U64(find(r, 0, &st), 0);
	CHECK_EQ_U64(r->m.slot[r->d.slot].route, 0x12222);
	CHECK_EQ_U64(r->d.tier, 6);
	for (unsigned i = 0; i < 5; i++)
		CHECK_EQ_U64(r->dev[i].depth_set_calls, 1);
	check_found(r, 6);
	XHCI_RIG_FREE(r);

	r = rig_new();
	for (unsigned i = 0; i < 6; i++)
		xm_hub(&r->dev[i], XM_SS, 4);
	for (unsigned i = 0; i < 5; i++)
		r->dev[i].child[2] = &r->dev[i + 1];
	xm_msc(&r->dev[7], XM_SS);
	r->dev[5].child[1] = &r->dev[7];
	xm_attach(&r->m, 5, &r->dev[0]);
	r->want = &r->dev[7];
	CHECK(find(r, 0, &st) != 0);
	CHECK_EQ_U64(st.hubs_too_deep, 1);
	CHECK_EQ_U64(st.offered, 0);
	CHECK(strstr(xhci_error(&r->x), "mass-storage") != 0);
	CHECK_EQ_U64(xm_slots_enabled(&r->m), 0);
	CHECK_MODEL(r);
	XHCI_RIG_FREE(r);
}

/* Two sticks and a hub, none the one: every device read once, every slot given back, the walk
 * bounded; with nothing connected at all, the error says so. */
static void no_device_carries_the_nonce(void)
{
	struct rig *r = rig_new();
	struct usb_port_path hint = { .depth = 2, .port = { 1, 2 } };
	struct xhci_walk_stats st;

	xm_msc(&r->dev[0], XM_HS);
	xm_hub(&r->dev[1], XM_HS, 4);
	xm_msc(&r->dev[2], XM_HS);
	r->dev[1].child[2] = &r->dev[2];
	xm_attach(&r->m, 1, &r->dev[0]);
	xm_attach(&r->m, 3, &r->dev[1]);
	r->want = 0;
	CHECK(find(r, &hint, &st) != 0);
	CHECK_EQ_U64(st.offered, 2);
	CHECK_EQ_U64(r->asked, 2);
	CHECK_EQ_U64(xm_slots_enabled(&r->m), 0);
	CHECK(r->m.now < WALK_BOUND_US);
	CHECK_MODEL(r);
	XHCI_RIG_FREE(r);

	r = rig_new();
	CHECK(find(r, &hint, &st) != 0);
	CHECK_EQ_U64(st.connected, 0);
	CHECK(strstr(xhci_error(&r->x), "no device connected") != 0);
	CHECK(r->m.now < 5 * SEC);
	CHECK_MODEL(r);
	XHCI_RIG_FREE(r);
}

TEST_SUITE(xhci_find) = {
	{ "one_based_port_hint", one_based_port_hint },
	{ "right_hint_touches_nothing_else", right_hint_touches_nothing_else },
	{ "usb3_stick_falls_to_usb2_port", usb3_stick_falls_to_usb2_port },
	{ "usb2_reset_moves_stick_to_usb3_port", usb2_reset_moves_stick_to_usb3_port },
	{ "stick_two_hubs_deep", stick_two_hubs_deep },
	{ "five_tiers_and_no_sixth", five_tiers_and_no_sixth },
	{ "no_device_carries_the_nonce", no_device_carries_the_nonce },
	{ 0, 0 },
};

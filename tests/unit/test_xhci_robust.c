/* Tests for what the xHCI driver does for real controllers QEMU's does not need (issue 30):
 * the Link TRB chain bit on 0.95 hosts, extended port speeds from the Supported Protocol
 * capability's PSI dwords (Gen 1x2, Gen 2x2), DMA buffers on the CPU's cache-writeback granule,
 * the bounded waits of mature drivers, and the end-of-run halt and reset. Against the controller
 * model of xhci_model.h; every case also fails on any rule the model saw broken. */
#include <stdlib.h>
#include <string.h>

#include "drivers/usb/xhci.h"
#include "drivers/usb/xhci_proto.h"
#include "tests/unit/test.h"
#include "tests/unit/xhci_model.h"
#include "tests/unit/xhci_rig.h"

#define SEC 1000000ull
#define MS 1000ull
#define TRB_CH (1u << 4)      /* xHCI 1.2 6.4.4.1 Link TRB: chain bit */
#define USBCMD_RS 1u          /* 5.4.1 */
#define USBCMD_HCRST 2u
#define USBSTS_HCH 1u         /* 5.4.2 */
#define RING_LINK 63          /* the driver's rings: 64 TRBs, the last the Link TRB */

/* PSI dword (xHCI 1.2 7.2.1, Table 7-10): PSIV 3:0, PSIE 5:4 (3: Gb/s), PLT 7:6 (0: symmetric),
 * PFD 8, LP 15:14 (0 SuperSpeed, 1 SuperSpeedPlus), PSIM 31:16. */
#define PSI(psiv, gbps, lp) ((uint32_t)(psiv) | 3u << 4 | 1u << 8 | (uint32_t)(lp) << 14 | (uint32_t)(gbps) << 16)

struct rig {
	struct xhci_model m;
	struct usb_io io;
	struct usb_dma dma;
	struct xhci x;
	struct xhci_dev d;
	struct xm_dev msc;
	uint8_t *mem;
};

static struct rig *rig_new(void)
{
	struct rig *r = calloc(1, sizeof(*r));

	r->mem = xhci_rig_model(&r->m, &r->io, &r->dma);
	return r;
}

static bool model_clean(struct rig *r)
{
	if (r->m.violations)
		test_note("model saw %u violations, first: %s", r->m.violations, r->m.violation);
	return r->m.violations == 0;
}

static bool open_msc(struct rig *r, int speed, unsigned port)
{
	struct usb_port_path path = { .depth = 1, .port = { (uint8_t)port } };

	xm_msc(&r->msc, speed);
	xm_attach(&r->m, port, &r->msc);
	if (xhci_init(&r->x, XM_MMIO, &r->io, &r->dma) || xhci_open_msc(&r->x, &path, &r->d)) {
		test_note("set-up failed: %s", xhci_error(&r->x));
		return false;
	}
	return true;
}

static bool loopback(struct rig *r, uint8_t *out, uint8_t *in, uint32_t n, uint8_t seed)
{
	return xhci_rig_loopback(&r->x, &r->d, out, in, n, seed, 3);
}

/* xHCI 1.2 4.11.5.1 with Linux XHCI_LINK_TRB_QUIRK: a 0.95 controller follows a Link TRB only
 * with the chain bit, so every Link TRB (command and transfer rings) carries it, also between
 * TDs; a 1.x controller's carries it only inside a TD. TDs of one TRB, through several wraps. */
static void link_trb_chain_on_095_host(void)
{
	static const uint16_t versions[] = { 0x95, 0x110 };

	for (unsigned v = 0; v < 2; v++) {
		struct rig *r = rig_new();
		uint8_t *out, *in;
		int bad = 0;

		r->m.version = versions[v];
		CHECK(open_msc(r, XM_HS, 5));
		CHECK_EQ_U64(r->x.version, versions[v]);
		out = usb_dma_alloc(&r->dma, 512, 64, 0);
		in = usb_dma_alloc(&r->dma, 512, 64, 0);
		for (int i = 0; i < 100; i++)
			bad += !loopback(r, out, in, 512, (uint8_t)i);
		CHECK_EQ_U64(bad, 0);
		CHECK(r->m.ring_wraps >= 3);
		CHECK_EQ_U64((r->x.cmd.trb[RING_LINK].control & TRB_CH) != 0, versions[v] == 0x95);
		CHECK_EQ_U64((r->d.bulk_in.ring.trb[RING_LINK].control & TRB_CH) != 0, versions[v] == 0x95);
		CHECK(model_clean(r));
		XHCI_RIG_FREE(r);
	}
}

/* The PSI table of a USB 3.2 controller (xHCI 1.2 7.2.1): PSIV 4 Gen 1 (5 Gb/s, SuperSpeed),
 * 5 Gen 2 (10 Gb/s), 6 a 5 Gb/s SuperSpeedPlus lane, 7 a 10 Gb/s one; with PORTLI's lane count
 * (5.4.10.2) they tell Gen 2x2 and Gen 1x2 from Gen 2x1 and Gen 1x1. */
static void psi_table_with_gen2x2(void)
{
	static const uint32_t table[] = { PSI(4, 5, 0), PSI(5, 10, 1), PSI(6, 5, 1), PSI(7, 10, 1) };
	struct xhci_link l;
	struct rig *r = rig_new();

	/* The decode alone. */
	CHECK(xhci_psi_decode(table, 4, 3, 7, 2, &l));
	CHECK_STR(l.name, "gen2x2");
	CHECK_EQ_U64(l.lane_bps, 10000000000ull);
	CHECK_EQ_U64(l.lanes, 2);
	CHECK(l.ssp && l.speed == USB_SPEED_SUPER_PLUS);
	CHECK(xhci_psi_decode(table, 4, 3, 6, 2, &l));
	CHECK_STR(l.name, "gen1x2");
	CHECK(xhci_psi_decode(table, 4, 3, 5, 1, &l));
	CHECK_STR(l.name, "gen2x1");
	CHECK(xhci_psi_decode(table, 4, 3, 4, 1, &l));
	CHECK_STR(l.name, "gen1x1");
	CHECK(l.speed == USB_SPEED_SUPER);
	CHECK(!xhci_psi_decode(table, 4, 3, 9, 1, &l));
	CHECK_STR(l.name, "unknown");
	/* No PSI dwords: the default IDs of 7.2.2.1.1 (3 high speed, 5 Gen 2). */
	CHECK(xhci_psi_decode(table, 0, 2, 3, 1, &l));
	CHECK_STR(l.name, "high");
	CHECK_EQ_U64(l.lane_bps, 480000000ull);
	CHECK(xhci_psi_decode(table, 0, 3, 5, 1, &l));
	CHECK_STR(l.name, "gen2x1");

	/* Through the controller: the capability's PSIC and dwords, PORTSC's speed, PORTLI's lanes. */
	r->m.npsi = 4;
	memcpy(r->m.psi, table, sizeof(table));
	CHECK_EQ_U64(xhci_init(&r->x, XM_MMIO, &r->io, &r->dma), 0);
	r->m.port[2].usb3 = r->m.port[3].usb3 = true;
	r->m.speed_override[2] = 7;
	r->m.lanes_minus_one[2] = 1;
	r->m.speed_override[3] = 6;
	r->m.lanes_minus_one[3] = 1;
	CHECK_EQ_U64(xhci_port_link(&r->x, 2, &l), 0);
	CHECK_STR(l.name, "gen2x2");
	CHECK_EQ_U64(l.psiv, 7);
	CHECK_EQ_U64(xhci_port_link(&r->x, 3, &l), 0);
	CHECK_STR(l.name, "gen1x2");
	r->m.speed_override[3] = 12;
	CHECK(xhci_port_link(&r->x, 3, &l) != 0);
	CHECK(strstr(xhci_error(&r->x), "PSI table") != 0);
	CHECK(xhci_port_link(&r->x, 99, &l) != 0);
	CHECK(model_clean(r));
	XHCI_RIG_FREE(r);
}

/* A stick on a Gen 2x2 link: the root port reports the PSI table's own ID (7, not one of the
 * default IDs 1..5), the stick opens as SuperSpeedPlus and its Slot Context's Speed is that ID
 * (xHCI 1.1 6.2.2: the PORTSC Port Speed); the model checks the slot context. */
static void stick_on_a_gen2x2_port_opens(void)
{
	static const uint32_t table[] = { PSI(4, 5, 0), PSI(5, 10, 1), PSI(6, 5, 1), PSI(7, 10, 1) };
	struct rig *r = rig_new();

	r->m.npsi = 4;
	memcpy(r->m.psi, table, sizeof(table));
	r->m.speed_override[2] = 7; /* ports 1..4 are the model's USB 3 ones */
	r->m.lanes_minus_one[2] = 1;
	CHECK(open_msc(r, XM_SS, 2));
	CHECK(r->d.speed == USB_SPEED_SUPER_PLUS);
	CHECK_EQ_U64(r->d.psiv, 7);
	CHECK_EQ_U64(r->m.slot[r->d.slot].speed, 7);
	CHECK(model_clean(r));
	XHCI_RIG_FREE(r);
}

static bool aligned(struct rig *r, const void *p, uint64_t a)
{
	uint64_t bus = usb_dma_bus(&r->dma, p);

	if (bus % a)
		test_note("bus address 0x%llx not on a %llu-byte granule", (unsigned long long)bus,
			  (unsigned long long)a);
	return bus % a == 0;
}

/* A CPU whose cache-writeback granule is 128 bytes (AArch64 CTR_EL0.CWG = 5, as on cores with
 * 128-byte lines): every DMA buffer starts on a granule and none shares one, so cleaning or
 * invalidating one never touches another's bytes; the driver works on such a region. */
static void cache_granule_128(void)
{
	static uint8_t region[4096] __attribute__((aligned(4096)));
	struct usb_dma d = { .base = region, .bus_base = 0x30000000, .size = sizeof(region), .granule = 128 };
	uint8_t *a = usb_dma_alloc(&d, 13, 1, 0), *b = usb_dma_alloc(&d, 13, 8, 0);
	uint8_t *c = usb_dma_alloc(&d, 200, 64, 0), *e = usb_dma_alloc(&d, 1, 1, 0);
	struct rig *r = rig_new();
	uint8_t *out, *in;

	CHECK(a && b && c && e);
	CHECK_EQ_U64(usb_dma_bus(&d, a) % 128, 0);
	CHECK_EQ_U64(usb_dma_bus(&d, b) - usb_dma_bus(&d, a), 128);
	CHECK_EQ_U64(usb_dma_bus(&d, c) - usb_dma_bus(&d, b), 128);
	CHECK_EQ_U64(usb_dma_bus(&d, e) - usb_dma_bus(&d, c), 256); /* 200 bytes take two granules */

	r->dma.granule = 128;
	CHECK(open_msc(r, XM_SS, 2));
	CHECK(aligned(r, r->x.dcbaa, 128) && aligned(r, r->x.cmd.trb, 128) && aligned(r, r->x.evt, 128));
	CHECK(aligned(r, r->x.desc, 128) && aligned(r, r->d.out_ctx, 128) && aligned(r, r->d.in_ctx, 128));
	CHECK(aligned(r, r->d.ep0.trb, 128) && aligned(r, r->d.bulk_in.ring.trb, 128));
	out = usb_dma_alloc(&r->dma, 1000, 1, 0);
	in = usb_dma_alloc(&r->dma, 1000, 1, 0);
	CHECK(aligned(r, out, 128) && aligned(r, in, 128));
	CHECK(loopback(r, out, in, 1000, 9));
	CHECK(model_clean(r));
	XHCI_RIG_FREE(r);
}

/* Bulk transfers wait SD_TIMEOUT (30 s, Linux drivers/scsi/sd.h) by default and what the class
 * driver sets otherwise (a cache flush: twice that); the error names the bound. */
static void bulk_timeout_as_set(void)
{
	struct rig *r = rig_new();
	uint8_t *in;
	uint64_t t0;
	uint32_t got;

	CHECK(open_msc(r, XM_HS, 5));
	in = usb_dma_alloc(&r->dma, 512, 64, 0);
	r->msc.nak_in = true;
	xhci_set_bulk_timeout(&r->x, 60 * SEC);
	t0 = r->m.now;
	CHECK_EQ_U64(xhci_bulk(&r->x, &r->d, true, in, 512, &got), (uint64_t)USB_XFER_ERROR);
	CHECK(r->m.now - t0 >= 60 * SEC && r->m.now - t0 <= 61 * SEC);
	CHECK(strstr(xhci_error(&r->x), "timed out: no completion event in ms 60000") != 0);
	CHECK(r->m.delay_calls < 1000000); /* polled ever less often, not a million times */
	CHECK(model_clean(r));
	XHCI_RIG_FREE(r);
}

/* End of run (Linux xhci_shutdown: xhci_halt, then xhci_reset with XHCI_RESET_SHORT_USEC):
 * Run/Stop cleared and HCH seen before HCRST is written, the reset waited for; nothing moves
 * after it. A controller whose reset never ends is given up after the short bound. */
static void shutdown_halts_then_resets(void)
{
	struct rig *r = rig_new();
	uint32_t usbcmd = XM_CAPLENGTH;
	unsigned from;
	int stop, rst;
	uint8_t *buf;
	uint32_t got;
	uint64_t t0;

	CHECK(open_msc(r, XM_HS, 5));
	buf = usb_dma_alloc(&r->dma, 512, 64, 0);
	from = r->m.nlog;
	CHECK_EQ_U64(xhci_shutdown(&r->x), 0);
	stop = xm_find(&r->m, usbcmd, from);
	rst = stop < 0 ? -1 : xm_find(&r->m, usbcmd, (unsigned)stop + 1);
	CHECK(stop >= 0 && !(r->m.log[stop].val & USBCMD_RS));
	CHECK(rst > stop && (r->m.log[rst].val & USBCMD_HCRST));
	CHECK_EQ_U64(r->m.usbcmd & (USBCMD_RS | USBCMD_HCRST), 0);
	CHECK(r->m.usbsts & USBSTS_HCH);
	CHECK(!r->x.running);
	CHECK_EQ_U64(xhci_bulk(&r->x, &r->d, false, buf, 512, &got), (uint64_t)USB_XFER_ERROR);
	CHECK(model_clean(r));
	XHCI_RIG_FREE(r);

	r = rig_new();
	CHECK(open_msc(r, XM_HS, 5));
	r->m.never_reset = true;
	t0 = r->m.now;
	CHECK_EQ_U64(xhci_shutdown(&r->x), (uint64_t)USB_XFER_ERROR);
	CHECK(strstr(xhci_error(&r->x), "HCRST") != 0);
	CHECK(r->m.now - t0 <= 300 * MS);
	XHCI_RIG_FREE(r);
}

TEST_SUITE(xhci_robust) = {
	{ "link_trb_chain_on_095_host", link_trb_chain_on_095_host },
	{ "psi_table_with_gen2x2", psi_table_with_gen2x2 },
	{ "stick_on_a_gen2x2_port_opens", stick_on_a_gen2x2_port_opens },
	{ "cache_granule_128", cache_granule_128 },
	{ "bulk_timeout_as_set", bulk_timeout_as_set },
	{ "shutdown_halts_then_resets", shutdown_halts_then_resets },
	{ 0, 0 },
};

/* Tests for the xHCI driver (drivers/usb/xhci*.c) against the controller model of xhci_model.h:
 * hand-off and reset order (xHCI 1.2 4.2, 7.1), root port resets (4.19), device set-up (4.3) at a
 * root port and behind a hub, bulk transfers through ring and event ring wraps (4.9), the 64 KiB
 * rules (6.4.1), short packets (4.10.1.1), stalls and their clearing (4.6.8, 4.6.10), timeouts,
 * and bounded waits. Every case also fails on any rule the model saw broken. */
#include <stdlib.h>
#include <string.h>

#include "drivers/usb/usb_std.h"
#include "drivers/usb/xhci.h"
#include "drivers/usb/xhci_regs.h"
#include "test.h"
#include "xhci_model.h"
#include "xhci_rig.h"

#define LEG_ENABLES (1u | 1u << 4 | 1u << 13 | 1u << 14 | 1u << 15) /* 7.1.2 SMI enables */
#define LEG_STATUS (7u << 29)                                        /* 7.1.2 RW1C SMI status */
#define USBCMD_OFF XM_CAPLENGTH
#define PORTSC_PRC (1u << 21)
#define SEC 1000000ull
#define CMD_EVALUATE 13
#define CMD_CONFIGURE 12
#define CMD_RESET_EP 14
#define CMD_STOP_EP 15
#define CMD_SET_DEQ 16

struct rig {
	struct xhci_model m;
	struct usb_io io;
	struct usb_dma dma;
	struct xhci x;
	struct xhci_dev d;
	struct xm_dev msc, hub;
	uint8_t *mem;
};

static struct rig *rig_new(void)
{
	struct rig *r = calloc(1, sizeof(*r));

	r->mem = xhci_rig_model(&r->m, &r->io, &r->dma);
	return r;
}

#define CHECK_MODEL(r)                                                                     \
	do {                                                                               \
		if ((r)->m.violations)                                                     \
			test_fail(__FILE__, __LINE__, "model saw %u spec violations, first: %s", \
				  (r)->m.violations, (r)->m.violation);                    \
	} while (0)

#define CHECK_OK(rc, r)                                                                    \
	do {                                                                               \
		int rc_ = (rc);                                                            \
		if (rc_ != 0)                                                              \
			test_fail(__FILE__, __LINE__, "%s = %d: %s", #rc, rc_, xhci_error(&(r)->x)); \
	} while (0)

/* A rig with a mass-storage device of `speed` at root port `port`, opened. */
static struct rig *rig_msc(int speed, unsigned port)
{
	struct rig *r = rig_new();
	struct usb_port_path path = { .depth = 1, .port = { (uint8_t)port } };

	xm_msc(&r->msc, speed);
	xm_attach(&r->m, port, &r->msc);
	CHECK_OK(xhci_init(&r->x, XM_MMIO, &r->io, &r->dma), r);
	CHECK_OK(xhci_open_msc(&r->x, &path, &r->d), r);
	return r;
}

static bool loopback(struct rig *r, uint8_t *out, uint8_t *in, uint32_t n, uint8_t seed)
{
	return xhci_rig_loopback(&r->x, &r->d, out, in, n, seed, 7);
}

static void dma_alloc_rules(void)
{
	static uint8_t region[8192] __attribute__((aligned(4096)));
	struct usb_dma d = { .base = region, .bus_base = 0x20000000, .size = sizeof(region) };
	uint8_t *a, *b, *c;

	memset(region, 0xaa, sizeof(region));
	a = usb_dma_alloc(&d, 10, 1, 0);
	b = usb_dma_alloc(&d, 100, 64, 0);
	c = usb_dma_alloc(&d, 4000, 64, 4096); /* would straddle 0x20001000 from 0x20000080 */
	CHECK(a && b && c);
	CHECK_EQ_U64(usb_dma_bus(&d, b) % 64, 0);
	CHECK_EQ_U64(usb_dma_bus(&d, c), 0x20001000);
	CHECK(b[0] == 0 && b[99] == 0 && c[3999] == 0);
	CHECK(usb_dma_alloc(&d, 200, 1, 0) == 0); /* full */
	CHECK(usb_dma_alloc(&d, 5000, 1, 4096) == 0); /* larger than its boundary */
}

/* 7.1.1 then 4.2: OS Owned, BIOS Owned clear, SMIs off, then stop, HCRST, set-up, run. */
static void handoff_then_reset_order(void)
{
	struct rig *r = rig_new();
	struct xhci_model *m = &r->m;
	int os, ctl, stop, rst, dcbaap, crcr, erstba, run;

	CHECK_OK(xhci_init(&r->x, XM_MMIO, &r->io, &r->dma), r);
	os = xm_find(m, XM_XECP, 0);
	ctl = xm_find(m, XM_XECP + 4, 0);
	stop = xm_find(m, USBCMD_OFF, 0);
	rst = stop >= 0 ? xm_find(m, USBCMD_OFF, (unsigned)stop + 1) : -1;
	dcbaap = xm_find(m, XM_CAPLENGTH + 0x30, 0);
	crcr = xm_find(m, XM_CAPLENGTH + 0x18, 0);
	erstba = xm_find(m, XM_RTSOFF + 0x20 + 0x14, 0);
	run = rst >= 0 ? xm_find(m, USBCMD_OFF, (unsigned)rst + 1) : -1;
	CHECK(os >= 0 && (m->log[os].val & 1u << 24));
	CHECK(ctl > os);
	CHECK(stop > ctl && (m->log[stop].val & 3u) == 0); /* RS = 0 first: the firmware left it running */
	CHECK(rst > stop && (m->log[rst].val & 2u));
	CHECK(dcbaap > rst && crcr > rst && erstba > rst);
	CHECK(run > erstba && run > dcbaap && run > crcr && (m->log[run].val & 1u));
	CHECK_EQ_U64(m->legctl & LEG_ENABLES, 0);
	CHECK_EQ_U64(m->legctl & LEG_STATUS, 0);
	CHECK_EQ_U64(m->legsup & (1u << 16), 0);
	CHECK(m->now >= m->bios_release_us);
	CHECK_EQ_U64(m->usbsts & 1u, 0); /* running */
	CHECK_MODEL(r);
	XHCI_RIG_FREE(r);
}

/* A BIOS that never releases the controller (real boards do): after the bounded wait the driver
 * clears BIOS Owned itself, as Linux's hand-off quirk does, turns the SMIs off (7.1.2) and goes on
 * to run the controller; it says so. */
static void bios_never_releases(void)
{
	struct rig *r = rig_new();

	r->m.bios_releases = false;
	CHECK_OK(xhci_init(&r->x, XM_MMIO, &r->io, &r->dma), r);
	CHECK(r->x.bios_forced && r->m.bios_taken);
	CHECK_EQ_U64(r->m.legsup & (1u << 16), 0);
	CHECK(r->m.legsup & (1u << 24));
	CHECK_EQ_U64(r->m.legctl & LEG_ENABLES, 0); /* SMIs off */
	CHECK_EQ_U64(r->m.legctl & LEG_STATUS, 0);
	CHECK(r->m.now >= SEC / 2 && r->m.now <= 2 * SEC); /* waited, bounded */
	CHECK_EQ_U64(r->m.usbsts & 1u, 0);                 /* running */
	CHECK_MODEL(r);
	XHCI_RIG_FREE(r);
}

/* A BIOS that releases in time: nothing forced. */
static void bios_releases_nothing_forced(void)
{
	struct rig *r = rig_new();

	CHECK_OK(xhci_init(&r->x, XM_MMIO, &r->io, &r->dma), r);
	CHECK(!r->x.bios_forced && !r->m.bios_taken);
	CHECK_MODEL(r);
	XHCI_RIG_FREE(r);
}

/* Max Scratchpad Buffers (xHCI 1.2 5.3.4 Table 5-13: Hi in HCSPARAMS2 bits 25:21, Lo in 31:27),
 * decoded from HCSPARAMS2 values of real controllers (the values Linux's HCS_MAX_SCRATCHPAD
 * decodes the same way): an Intel PCH xHCI asking 34 (Hi 1 < Lo 2), a VIA VL805 asking 31 (Lo
 * only), and a controller asking 32 (Hi 1 > Lo 0). */
static void scratchpad_count_from_hcsparams2(void)
{
	CHECK_EQ_U64(XHCI_HCS2_SCRATCH(0x14200054u), 34);
	CHECK_EQ_U64(XHCI_HCS2_SCRATCH(0xfc000031u), 31);
	CHECK_EQ_U64(XHCI_HCS2_SCRATCH(0x00200000u), 32);
	CHECK_EQ_U64(XHCI_HCS2_SCRATCH(0xffe00000u), 1023);
	CHECK_EQ_U64(XHCI_HCS2_SCRATCH(0x001fffffu), 0);
}

/* The driver gives the controller exactly the scratchpad pages it asks for, every entry a page
 * (the model checks the array when the controller is started), with Hi > Lo and Lo > Hi. */
static void scratchpads_allocated_as_asked(void)
{
	static const unsigned asks[] = { 34, 32, 31, 1, 0 };

	for (unsigned i = 0; i < sizeof(asks) / sizeof(asks[0]); i++) {
		struct rig *r = rig_new();

		r->m.scratchpads = asks[i];
		CHECK_OK(xhci_init(&r->x, XM_MMIO, &r->io, &r->dma), r);
		CHECK_EQ_U64(r->x.scratchpads, asks[i]);
		CHECK_MODEL(r);
		XHCI_RIG_FREE(r);
	}
}

static void reset_never_finishes(void)
{
	struct rig *r = rig_new();

	r->m.never_reset = true;
	CHECK_EQ_U64(xhci_init(&r->x, XM_MMIO, &r->io, &r->dma), (uint64_t)USB_XFER_ERROR);
	CHECK(strstr(xhci_error(&r->x), "HCRST") != 0);
	/* Linux waits 10 s for a reset (XHCI_RESET_LONG_USEC): so long, no longer. */
	CHECK(r->m.now >= 10 * SEC && r->m.now <= 11 * SEC);
	CHECK(r->m.delay_calls < 1000000);
	XHCI_RIG_FREE(r);
}

/* 4.19.1.1: a USB 2 port is reset by PR; the driver goes on only after PRC, and clears it. */
static void usb2_port_reset_waits_for_prc(void)
{
	struct rig *r = rig_new();
	struct usb_port_path path = { .depth = 1, .port = { 5 } }; /* QEMU layout: USB 2 ports 5..8 */
	struct xm_port *p = &r->m.port[5];

	r->m.port_reset_us = 150000;
	xm_msc(&r->msc, XM_HS);
	xm_attach(&r->m, 5, &r->msc);
	CHECK_OK(xhci_init(&r->x, XM_MMIO, &r->io, &r->dma), r);
	CHECK_OK(xhci_open_msc(&r->x, &path, &r->d), r);
	CHECK(p->prc_seen);
	CHECK_EQ_U64(p->pr_writes, 1);
	CHECK_EQ_U64(p->ped_writes, 0);
	CHECK_EQ_U64(p->portsc & PORTSC_PRC, 0);
	CHECK(r->m.now >= r->m.port_reset_us);
	CHECK_EQ_U64(r->d.speed, USB_SPEED_HIGH);
	CHECK_EQ_U64(r->d.iface, 1); /* interface 0 is not mass storage */
	CHECK_EQ_U64(r->d.bulk_in.dci, 3);
	CHECK_EQ_U64(r->d.bulk_out.dci, 4);
	CHECK_EQ_U64(r->d.bulk_in.mps, 512);
	CHECK_EQ_U64(r->m.slot[r->d.slot].root_port, 5);
	CHECK_EQ_U64(r->m.slot[r->d.slot].route, 0);
	CHECK_EQ_U64(r->msc.set_config_calls, 1);
	CHECK_MODEL(r);
	XHCI_RIG_FREE(r);
}

/* 4.19.1.2: a USB 3 port trains by itself: no PR; SuperSpeed EP0 512, companion burst. */
static void usb3_port_trains_itself(void)
{
	struct rig *r = rig_msc(XM_SS, 1);
	struct xm_slot *s = &r->m.slot[r->d.slot];

	CHECK_EQ_U64(r->m.port[1].pr_writes, 0);
	CHECK_EQ_U64(r->m.port[1].wpr_writes, 0);
	CHECK_EQ_U64(r->d.speed, USB_SPEED_SUPER);
	CHECK_EQ_U64(s->ep[1].mps, 512);
	CHECK_EQ_U64(s->ep[3].mps, 1024);
	CHECK_EQ_U64(s->ep[3].burst, 3);
	CHECK_EQ_U64(s->ep[4].type, 2); /* bulk OUT */
	CHECK_STR(usb_speed_name(r->d.speed), "super");
	CHECK_MODEL(r);
	XHCI_RIG_FREE(r);
}

/* 7.2: which ports are USB 3 comes from the Supported Protocol capabilities, not a layout. */
static void usb3_ports_after_usb2_ones(void)
{
	struct rig *r = rig_new();
	struct usb_port_path path = { .depth = 1, .port = { 6 } };

	r->m.usb3_first = false; /* USB 2 ports 1..4, USB 3 ports 5..8 */
	xm_msc(&r->msc, XM_SS);
	xm_attach(&r->m, 6, &r->msc);
	CHECK_OK(xhci_init(&r->x, XM_MMIO, &r->io, &r->dma), r);
	CHECK_OK(xhci_open_msc(&r->x, &path, &r->d), r);
	CHECK_EQ_U64(r->m.port[6].pr_writes, 0);
	CHECK_EQ_U64(r->d.speed, USB_SPEED_SUPER);
	CHECK_MODEL(r);
	XHCI_RIG_FREE(r);
}

static void usb3_stuck_link_warm_reset(void)
{
	struct rig *r = rig_new();
	struct usb_port_path path = { .depth = 1, .port = { 2 } };

	xm_msc(&r->msc, XM_SS);
	r->m.port[2].needs_warm = true;
	xm_attach(&r->m, 2, &r->msc);
	CHECK_OK(xhci_init(&r->x, XM_MMIO, &r->io, &r->dma), r);
	CHECK_OK(xhci_open_msc(&r->x, &path, &r->d), r);
	CHECK_EQ_U64(r->m.port[2].wpr_writes, 1);
	CHECK_MODEL(r);
	XHCI_RIG_FREE(r);
}

/* 4.3.3 / 4.6.7: full speed starts EP0 at 8 and takes bMaxPacketSize0 by Evaluate Context. */
static void full_speed_ep0_fixup(void)
{
	struct rig *r = rig_msc(XM_FS, 6);

	CHECK(xm_find_cmd(&r->m, CMD_EVALUATE, 0) >= 0);
	CHECK_EQ_U64(r->m.slot[r->d.slot].ep[1].mps, 64);
	CHECK_EQ_U64(r->d.ep0_mps, 64);
	CHECK_STR(usb_speed_name(r->d.speed), "full");
	CHECK_MODEL(r);
	XHCI_RIG_FREE(r);
}

/* Many small transfers: both bulk rings wrap through their Link TRBs (63 TRBs a lap) and the
 * event ring (64 entries) wraps several times, the cycle bits flipping each lap. */
static void ring_and_event_ring_wrap(void)
{
	struct rig *r = rig_msc(XM_SS, 1);
	uint8_t *out = usb_dma_alloc(&r->dma, 512, 64, 0), *in = usb_dma_alloc(&r->dma, 512, 64, 0);
	int bad = 0;

	for (int i = 0; i < 300; i++)
		bad += !loopback(r, out, in, 512, (uint8_t)i);
	CHECK_EQ_U64(bad, 0);
	CHECK(r->m.er_wraps >= 8);
	CHECK(r->m.ring_wraps >= 8);
	CHECK_MODEL(r);
	XHCI_RIG_FREE(r);
}

/* 6.4.1: no TRB buffer across 64 KiB, TDs of at most 64 KiB: 150000 bytes are three TDs. */
static void transfer_over_64k_is_split(void)
{
	struct rig *r = rig_msc(XM_HS, 5);
	uint8_t *big = usb_dma_alloc(&r->dma, 2 * 160 * 1024, 65536, 0);
	uint8_t *out = big + 0xf00, *in = big + 160 * 1024 + 0x80;
	unsigned tds = 0, first = r->m.ntd;

	CHECK(big != 0);
	CHECK(loopback(r, out, in, 150000, 3));
	for (unsigned i = first; i < r->m.ntd; i++) {
		if (r->m.td[i].ep != 4)
			continue;
		tds++;
		CHECK(r->m.td[i].bytes <= 65536);
		CHECK(r->m.td[i].trbs <= 2);
	}
	CHECK_EQ_U64(tds, 3);
	CHECK_MODEL(r);
	XHCI_RIG_FREE(r);
}

/* 4.11.5.1: TDs of two TRBs (a buffer across a 64 KiB boundary) on a ring of 63: one of them
 * goes on past the Link TRB, which must then carry the chain bit. */
static void chained_td_across_the_link_trb(void)
{
	struct rig *r = rig_msc(XM_HS, 5);
	uint8_t *buf = usb_dma_alloc(&r->dma, 3 * 65536, 65536, 0);
	uint8_t *out = buf + 65536 - 4096, *in = buf + 2 * 65536 - 4096;
	int bad = 0;

	for (int i = 0; i < 40; i++)
		bad += !loopback(r, out, in, 8192, (uint8_t)i);
	CHECK_EQ_U64(bad, 0);
	CHECK_MODEL(r);
	XHCI_RIG_FREE(r);
}

/* 4.10.1.1: a short IN transfer ends with what came; a controller that also reports the TD's
 * last TRB (4.10.1.1.2) leaves an event the next transfer must not take for its own. */
static void short_packet_actual_length(void)
{
	struct rig *r = rig_msc(XM_SS, 1);
	uint8_t *buf = usb_dma_alloc(&r->dma, 3 * 65536, 65536, 0), *out = buf, *in = buf + 65536 - 4096;
	uint32_t got = 0;

	uint64_t t0;

	for (int two = 0; two < 2; two++) {
		r->m.short_two_events = two; /* QEMU posts one event, 4.10.1.1.2 two */
		memset(out, 0x5a + two, 100);
		CHECK_OK(xhci_bulk(&r->x, &r->d, false, out, 100, &got), r);
		t0 = r->m.now;
		CHECK_OK(xhci_bulk(&r->x, &r->d, true, in, 8192, &got), r); /* two TRBs: short in the first */
		CHECK_EQ_U64(got, 100);
		CHECK(in[99] == 0x5a + two);
		CHECK(r->m.now - t0 < SEC / 10); /* done at the short packet, no wait for more */
		CHECK(loopback(r, out, in, 64, 9));
	}
	CHECK_MODEL(r);
	XHCI_RIG_FREE(r);
}

/* A stall returns USB_XFER_STALL; clear halt is Reset Endpoint, Set TR Dequeue Pointer past the
 * failed TD (to the ring's enqueue position and cycle) and CLEAR_FEATURE(ENDPOINT_HALT); many
 * rounds wrap the command ring too. */
static void stall_and_clear_halt(void)
{
	struct rig *r = rig_msc(XM_HS, 5);
	uint8_t *out = usb_dma_alloc(&r->dma, 512, 64, 0), *in = usb_dma_alloc(&r->dma, 512, 64, 0);
	uint32_t got;

	for (int round = 0; round < 40; round++) {
		unsigned from = r->m.ncmd;
		int reset, deq;
		uint64_t want;

		r->msc.stall_next_in = true;
		CHECK_EQ_U64(xhci_bulk(&r->x, &r->d, true, in, 512, &got), (uint64_t)USB_XFER_STALL);
		want = (r->d.bulk_in.ring.bus + 16ull * r->d.bulk_in.ring.enq) | r->d.bulk_in.ring.cycle;
		CHECK_OK(xhci_clear_halt(&r->x, &r->d, true), r);
		reset = xm_find_cmd(&r->m, CMD_RESET_EP, from);
		deq = xm_find_cmd(&r->m, CMD_SET_DEQ, from);
		CHECK(reset >= 0 && deq > reset);
		if (reset >= 0 && deq >= 0) {
			CHECK_EQ_U64(r->m.cmd[reset].ep, 3);
			CHECK_EQ_U64(r->m.cmd[deq].ep, 3);
			CHECK_EQ_U64(r->m.cmd[deq].param, want);
			CHECK_EQ_U64(r->m.cmd[deq].cc, 1);
		}
		CHECK_EQ_U64(r->msc.clear_halts, (uint64_t)round + 1);
		CHECK_EQ_U64(r->msc.clear_halt_ep, 0x81);
		CHECK(loopback(r, out, in, 512, (uint8_t)round));
	}
	CHECK(r->m.ncmd > 64); /* past a lap of the command ring */
	CHECK_MODEL(r);
	XHCI_RIG_FREE(r);
}

/* Clearing an endpoint that is not halted resets the host side's toggle too: Stop Endpoint and
 * Configure Endpoint dropping and adding it (4.6.6), then CLEAR_FEATURE. */
static void clear_halt_of_a_running_endpoint(void)
{
	struct rig *r = rig_msc(XM_HS, 5);
	uint8_t *out = usb_dma_alloc(&r->dma, 512, 64, 0), *in = usb_dma_alloc(&r->dma, 512, 64, 0);
	unsigned from;

	CHECK(loopback(r, out, in, 512, 1));
	from = r->m.ncmd;
	CHECK_OK(xhci_clear_halt(&r->x, &r->d, false), r);
	CHECK(xm_find_cmd(&r->m, CMD_STOP_EP, from) >= 0);
	CHECK(xm_find_cmd(&r->m, CMD_CONFIGURE, from) > xm_find_cmd(&r->m, CMD_STOP_EP, from));
	CHECK_EQ_U64(r->msc.clear_halt_ep, 0x02);
	CHECK(loopback(r, out, in, 512, 2));
	CHECK_MODEL(r);
	XHCI_RIG_FREE(r);
}

/* A device that never answers: the transfer gives up after its bound, the endpoint is stopped
 * and moved past the TD (4.6.9, 4.6.10), and the next transfer works. */
static void transfer_timeout_recovers(void)
{
	struct rig *r = rig_msc(XM_HS, 5);
	uint8_t *out = usb_dma_alloc(&r->dma, 512, 64, 0), *in = usb_dma_alloc(&r->dma, 512, 64, 0);
	uint64_t t0 = r->m.now;
	unsigned from = r->m.ncmd;
	uint32_t got;

	r->msc.nak_in = true;
	CHECK_EQ_U64(xhci_bulk(&r->x, &r->d, true, in, 512, &got), (uint64_t)USB_XFER_ERROR);
	CHECK(strstr(xhci_error(&r->x), "timed out") != 0);
	CHECK(r->m.now - t0 >= 30 * SEC && r->m.now - t0 <= 31 * SEC); /* Linux SD_TIMEOUT */
	CHECK(xm_find_cmd(&r->m, CMD_STOP_EP, from) >= 0);
	CHECK(xm_find_cmd(&r->m, CMD_SET_DEQ, from) > xm_find_cmd(&r->m, CMD_STOP_EP, from));
	r->msc.nak_in = false;
	CHECK(loopback(r, out, in, 512, 4));
	CHECK_MODEL(r);
	XHCI_RIG_FREE(r);
}

/* Depth 2: the hub at a root port is set up and its port reset by class requests; the device
 * behind gets route string = hub port, root port = the hub's; TT fields only behind a high-speed
 * hub for a full/low-speed device (the model checks both). */
static struct rig *rig_hub(int hub_speed, int dev_speed, unsigned root, unsigned hport)
{
	struct rig *r = rig_new();
	struct usb_port_path path = { .depth = 2, .port = { (uint8_t)root, (uint8_t)hport } };

	xm_hub(&r->hub, hub_speed, 4);
	xm_msc(&r->msc, dev_speed);
	r->hub.child[hport] = &r->msc;
	xm_attach(&r->m, root, &r->hub);
	CHECK_OK(xhci_init(&r->x, XM_MMIO, &r->io, &r->dma), r);
	CHECK_OK(xhci_open_msc(&r->x, &path, &r->d), r);
	return r;
}

static void device_behind_full_speed_hub(void)
{
	struct rig *r = rig_hub(XM_FS, XM_FS, 6, 3); /* QEMU's usb-hub is full speed */
	struct xm_slot *s = &r->m.slot[r->d.slot], *h = &r->m.slot[r->x.hub[0].slot];
	uint8_t *out = usb_dma_alloc(&r->dma, 64, 64, 0), *in = usb_dma_alloc(&r->dma, 64, 64, 0);

	CHECK_EQ_U64(s->route, 3);
	CHECK_EQ_U64(s->root_port, 6);
	CHECK_EQ_U64(s->tt_slot, 0);
	CHECK(h->hub);
	CHECK_EQ_U64(h->nports, 4);
	CHECK_EQ_U64(r->hub.port_resets, 1);
	CHECK_EQ_U64(r->hub.change[3] & USB_PORT_STAT_C_RESET, 0);
	CHECK_EQ_U64(r->d.speed, USB_SPEED_FULL);
	CHECK(loopback(r, out, in, 64, 5));
	CHECK_MODEL(r);
	XHCI_RIG_FREE(r);
}

static void full_speed_device_behind_high_speed_hub(void)
{
	struct rig *r = rig_hub(XM_HS, XM_FS, 5, 2);
	struct xm_slot *s = &r->m.slot[r->d.slot];

	CHECK_EQ_U64(s->tt_slot, r->x.hub[0].slot);
	CHECK_EQ_U64(s->tt_port, 2);
	CHECK_EQ_U64(s->route, 2);
	CHECK_MODEL(r);
	XHCI_RIG_FREE(r);
}

static void device_behind_superspeed_hub(void)
{
	struct rig *r = rig_hub(XM_SS, XM_SS, 1, 4);

	CHECK_EQ_U64(r->hub.depth_set_calls, 1);
	CHECK_EQ_U64(r->m.slot[r->d.slot].route, 4);
	CHECK_EQ_U64(r->d.speed, USB_SPEED_SUPER);
	CHECK_MODEL(r);
	XHCI_RIG_FREE(r);
}

static void nothing_connected_is_bounded(void)
{
	struct rig *r = rig_new();
	struct usb_port_path path = { .depth = 1, .port = { 7 } };

	CHECK_OK(xhci_init(&r->x, XM_MMIO, &r->io, &r->dma), r);
	CHECK_EQ_U64(xhci_open_msc(&r->x, &path, &r->d), (uint64_t)USB_XFER_ERROR);
	CHECK(strstr(xhci_error(&r->x), "nothing connected") != 0);
	CHECK(r->m.now <= 3 * SEC);
	CHECK_MODEL(r);
	XHCI_RIG_FREE(r);
}

TEST_SUITE(xhci) = {
	{ "dma_alloc_rules", dma_alloc_rules },
	{ "handoff_then_reset_order", handoff_then_reset_order },
	{ "bios_never_releases", bios_never_releases },
	{ "bios_releases_nothing_forced", bios_releases_nothing_forced },
	{ "scratchpad_count_from_hcsparams2", scratchpad_count_from_hcsparams2 },
	{ "scratchpads_allocated_as_asked", scratchpads_allocated_as_asked },
	{ "reset_never_finishes", reset_never_finishes },
	{ "usb2_port_reset_waits_for_prc", usb2_port_reset_waits_for_prc },
	{ "usb3_port_trains_itself", usb3_port_trains_itself },
	{ "usb3_ports_after_usb2_ones", usb3_ports_after_usb2_ones },
	{ "usb3_stuck_link_warm_reset", usb3_stuck_link_warm_reset },
	{ "full_speed_ep0_fixup", full_speed_ep0_fixup },
	{ "ring_and_event_ring_wrap", ring_and_event_ring_wrap },
	{ "transfer_over_64k_is_split", transfer_over_64k_is_split },
	{ "chained_td_across_the_link_trb", chained_td_across_the_link_trb },
	{ "short_packet_actual_length", short_packet_actual_length },
	{ "stall_and_clear_halt", stall_and_clear_halt },
	{ "clear_halt_of_a_running_endpoint", clear_halt_of_a_running_endpoint },
	{ "transfer_timeout_recovers", transfer_timeout_recovers },
	{ "device_behind_full_speed_hub", device_behind_full_speed_hub },
	{ "full_speed_device_behind_high_speed_hub", full_speed_device_behind_high_speed_hub },
	{ "device_behind_superspeed_hub", device_behind_superspeed_hub },
	{ "nothing_connected_is_bounded", nothing_connected_is_bounded },
	{ 0, 0 },
};

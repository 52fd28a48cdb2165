/* Intel 7/8-series xHCI port routing (drivers/usb/xhci_intel.c) against a configuration space
 * array: only the switchable PCH ids of Linux's pci-quirks.c (usb_is_intel_ppt/lpt_switchable_xhci:
 * 0x1E31, 0x8C31, 0x9C31) are touched; USB3_PSSEN (0xD8) gets USB3PRM (0xDC), then XUSB2PR (0xD0)
 * gets XUSB2PRM (0xD4); bits above the 15 port bits stay as read. */
#include <string.h>

#include "drivers/usb/xhci_intel.h"
#include "test.h"

#define CFG_WORDS 64

struct cfg {
	uint32_t w[CFG_WORDS];
	unsigned writes;
	uint16_t order[4];
};

static uint32_t rd(void *ctx, uint16_t off)
{
	return ((struct cfg *)ctx)->w[off / 4];
}

static void wr(void *ctx, uint16_t off, uint32_t v)
{
	struct cfg *c = ctx;

	if (c->writes < 4)
		c->order[c->writes] = off;
	c->writes++;
	c->w[off / 4] = v;
}

static void setup(struct cfg *c, struct xhci_pci_cfg *io)
{
	memset(c, 0, sizeof(*c));
	c->w[0xD0 / 4] = 0xA5A50000u;  /* reserved bits set, no port on xHCI */
	c->w[0xD4 / 4] = 0x00003FFFu;  /* 14 switchable USB 2 ports */
	c->w[0xD8 / 4] = 0;
	c->w[0xDC / 4] = 0xFFFF003Fu;  /* 6 USB 3 ports (reserved high bits read as ones) */
	*io = (struct xhci_pci_cfg){ .ctx = c, .read32 = rd, .write32 = wr };
}

static void lynx_point_routed(void)
{
	struct cfg c;
	struct xhci_pci_cfg io;
	struct xhci_intel_routing r;

	setup(&c, &io);
	CHECK(xhci_intel_route_ports(0x8086, 0x8C31, &io, &r));
	CHECK_EQ_U64(c.w[0xD8 / 4], 0x3F);
	CHECK_EQ_U64(c.w[0xD0 / 4], 0xA5A53FFFu);
	CHECK_EQ_U64(r.usb3_enabled, 0x3F);
	CHECK_EQ_U64(r.usb2_to_xhci, 0x3FFF);
	CHECK_EQ_U64(c.writes, 2);
	CHECK_EQ_U64(c.order[0], 0xD8); /* SuperSpeed on before the USB 2 halves move */
	CHECK_EQ_U64(c.order[1], 0xD0);
	setup(&c, &io);
	CHECK(xhci_intel_route_ports(0x8086, 0x1E31, &io, &r));
	setup(&c, &io);
	CHECK(xhci_intel_route_ports(0x8086, 0x9C31, &io, &r));
}

static void other_controllers_untouched(void)
{
	static const uint16_t ids[][2] = { { 0x1B36, 0x000D }, /* QEMU qemu-xhci */
					   { 0x1033, 0x0194 }, /* NEC uPD720200 */
					   { 0x8086, 0xA12F }, /* Intel 100 series: no EHCI to switch from */
					   { 0x8086, 0x8C26 } }; /* Lynx Point's EHCI, not its xHCI */
	struct cfg c;
	struct xhci_pci_cfg io;
	struct xhci_intel_routing r;

	for (unsigned i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		setup(&c, &io);
		CHECK(!xhci_intel_route_ports(ids[i][0], ids[i][1], &io, &r));
		CHECK_EQ_U64(c.writes, 0);
	}
}

TEST_SUITE(xhci_intel) = {
	{ "lynx_point_routed", lynx_point_routed },
	{ "other_controllers_untouched", other_controllers_untouched },
	{ 0, 0 },
};

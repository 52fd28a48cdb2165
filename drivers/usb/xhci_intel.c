/* Intel 7/8-series xHCI port routing (see xhci_intel.h). Registers of the xHCI function's
 * configuration space (Intel 7 Series / C216 and 8 Series / C220 chipset datasheets, xHCI
 * configuration registers; the offsets Linux's pci-quirks.c uses). */
#include "drivers/usb/xhci_intel.h"

#define PCI_VENDOR_INTEL 0x8086
#define INTEL_PPT_XHCI 0x1E31    /* 7 series (Panther Point) */
#define INTEL_LPT_XHCI 0x8C31    /* 8 series (Lynx Point) */
#define INTEL_LPT_LP_XHCI 0x9C31 /* 8 series mobile (Lynx Point-LP) */

#define INTEL_XUSB2PR 0xD0     /* USB 2 port routing: 1 = the port is on xHCI */
#define INTEL_XUSB2PRM 0xD4    /* the ports XUSB2PR may switch (firmware's mask) */
#define INTEL_USB3_PSSEN 0xD8  /* SuperSpeed enable per USB 3 port */
#define INTEL_USB3PRM 0xDC     /* the ports USB3_PSSEN may switch on */
#define INTEL_PORT_MASK 0x7FFFu /* at most 15 ports: the rest of each register is reserved */

static bool switchable(uint16_t vendor, uint16_t device)
{
	return vendor == PCI_VENDOR_INTEL &&
	       (device == INTEL_PPT_XHCI || device == INTEL_LPT_XHCI || device == INTEL_LPT_LP_XHCI);
}

/* Sets the routing register `reg` to the ports its mask register allows, keeping reserved bits. */
static uint32_t route(const struct xhci_pci_cfg *cfg, uint16_t reg, uint16_t mask_reg)
{
	uint32_t allowed = cfg->read32(cfg->ctx, mask_reg) & INTEL_PORT_MASK;
	uint32_t v = cfg->read32(cfg->ctx, reg);

	cfg->write32(cfg->ctx, reg, (v & ~INTEL_PORT_MASK) | allowed);
	return allowed;
}

bool xhci_intel_route_ports(uint16_t vendor, uint16_t device, const struct xhci_pci_cfg *cfg,
			    struct xhci_intel_routing *out)
{
	if (!switchable(vendor, device) || !cfg)
		return false;
	/* SuperSpeed first, then the USB 2 half: a stick moved to xHCI can train at once */
	out->usb3_enabled = route(cfg, INTEL_USB3_PSSEN, INTEL_USB3PRM);
	out->usb2_to_xhci = route(cfg, INTEL_XUSB2PR, INTEL_XUSB2PRM);
	return true;
}

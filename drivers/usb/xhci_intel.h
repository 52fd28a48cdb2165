/* Intel 7- and 8-series PCH (Panther Point, Lynx Point) xHCI port routing: on these chipsets each
 * USB 2 port is wired to both the EHCI and the xHCI controller and each USB 3 port's SuperSpeed
 * pins can be off, and the firmware may leave them on EHCI and off. Before our xHCI driver takes
 * the controller, every port the chipset allows goes to xHCI (XUSB2PR from XUSB2PRM) and every
 * allowed SuperSpeed port is switched on (USB3_PSSEN from USB3PRM), as Linux's
 * usb_enable_intel_xhci_ports does (drivers/usb/host/pci-quirks.c, the same registers and IDs).
 * A stick switched over re-enumerates; the walk of xhci_find.c meets it wherever it lands. */
#ifndef DRIVERS_USB_XHCI_INTEL_H
#define DRIVERS_USB_XHCI_INTEL_H

#include <stdbool.h>
#include <stdint.h>

/* The xHCI function's PCI configuration space (ECAM after boot services). */
struct xhci_pci_cfg {
	void *ctx;
	uint32_t (*read32)(void *ctx, uint16_t off);
	void (*write32)(void *ctx, uint16_t off, uint32_t v);
};

/* What xhci_intel_route_ports did: the masks written. */
struct xhci_intel_routing {
	uint32_t usb2_to_xhci; /* XUSB2PR: USB 2 ports now on xHCI */
	uint32_t usb3_enabled; /* USB3_PSSEN: SuperSpeed ports now on */
};

/* For the PCI ids of a switchable Intel xHCI only (else false, nothing touched): the routing
 * above, *out the masks. */
bool xhci_intel_route_ports(uint16_t vendor, uint16_t device, const struct xhci_pci_cfg *cfg,
			    struct xhci_intel_routing *out);

#endif

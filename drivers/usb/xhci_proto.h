/* The speed of an xHCI root port's link from its protocol's Protocol Speed ID table (xHCI 1.2
 * 7.2.1 Supported Protocol capability: PSIC and the PSI dwords, 7.2.2.1.1 the default IDs when a
 * protocol lists none) and the port's lane count (5.4.10.2 PORTLI, USB 3 ports): what tells a USB
 * 3.2 Gen 1x2 or Gen 2x2 link from a Gen 1x1 / Gen 2x1 one, which PORTSC's speed value alone does
 * not (a controller may give them any PSIV it lists). A PSI describes one lane's bit rate, as the
 * USB 3.2 SuperSpeedPlus sublink speed attributes do (Linux copies one into the other). */
#ifndef DRIVERS_USB_XHCI_PROTO_H
#define DRIVERS_USB_XHCI_PROTO_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/usb/xhci.h"

struct xhci_link {
	uint8_t psiv;         /* PORTSC Port Speed: the Protocol Speed ID */
	uint8_t lanes;        /* 1, or 2 for a USB 3.2 x2 link (PORTLI Rx Lane Count + 1) */
	bool ssp;             /* link protocol SuperSpeedPlus (PSI LP = 1) */
	uint64_t lane_bps;    /* one lane's bit rate (PSIM x 1000^PSIE), 0: no PSI for psiv */
	enum usb_speed speed; /* the class: full, low, high, super, super+ */
	const char *name;     /* "full", "low", "high", "gen1x1", "gen2x1", "gen1x2", "gen2x2", "super+" */
};

/* Decodes PSI value psiv of a protocol of major revision `major` (2 or 3) whose capability lists
 * psi[0..count) (count 0: the default IDs of 7.2.2.1.1), on a link of `lanes` lanes. False (and
 * out->name "unknown") when psiv is neither listed nor a default one. Pure: for tests too. */
bool xhci_psi_decode(const uint32_t *psi, unsigned count, unsigned major, unsigned psiv, unsigned lanes,
		     struct xhci_link *out);

/* The link of root port `port` (1-based) as it is now: PORTSC speed, PORTLI lanes (USB 3 ports),
 * the port's protocol's PSI table. 0, or USB_XFER_ERROR (no such port, no protocol covers it,
 * or an unknown speed ID: xhci_error says which). For finding the stick and its record. */
int xhci_port_link(struct xhci *x, unsigned port, struct xhci_link *out);

#endif

/* xHCI root hub ports (xHCI 1.2 4.19, 5.4.8 PORTSC): which protocol a port speaks (7.2 Supported
 * Protocol), powering it, and its reset: a USB 2 port is reset by PR and done when PRC is set
 * (4.19.1.1: then PED is 1); a USB 3 port trains by itself to U0 with PED set (4.19.1.2), and is
 * warm reset (WPR) when its link is stuck. PORTSC is written with the RW1C change bits and PED
 * as 0 unless they are meant, and the RWS bits as read. */
#include "drivers/usb/xhci_internal.h"
#include "drivers/usb/xhci_proto.h"

#define XHCI_PORT_POWER_US 20000 /* 5.4.8: software waits 20 ms after setting PP */
#define XHCI_PORT_POLL_US 1000

static uint32_t portsc(const struct xhci *x, unsigned port)
{
	return xhci_rd(x, x->op + XHCI_OP_PORTSC(port));
}

/* Writes PORTSC keeping the RWS bits as read (v) and setting only `bits` of the rest. */
static void portsc_write(const struct xhci *x, unsigned port, uint32_t v, uint32_t bits)
{
	xhci_wr(x, x->op + XHCI_OP_PORTSC(port), (v & XHCI_PORTSC_KEEP) | bits);
}

/* Polls PORTSC until (v & mask) != 0; returns the last value read. */
static uint32_t portsc_wait_any(const struct xhci *x, unsigned port, uint32_t mask, uint32_t timeout_us)
{
	uint32_t v = portsc(x, port);

	for (uint32_t t = 0; !(v & mask) && t < timeout_us; t += XHCI_PORT_POLL_US) {
		xhci_delay(x, XHCI_PORT_POLL_US);
		v = portsc(x, port);
	}
	return v;
}

/* The device's speed class and its Protocol Speed ID (PORTSC Port Speed): the default IDs 1..5
 * (xHCI 1.2 7.2.2.1.1) of a protocol without a PSI table directly; any other, e.g. the IDs a USB
 * 3.2 controller gives its Gen 1x2 and Gen 2x2 links, through the protocol's PSI table (7.2.1,
 * xhci_port_link) so that such a stick opens. */
static int speed_of(struct xhci *x, unsigned port, uint32_t v, enum usb_speed *speed, uint8_t *psiv)
{
	uint32_t psi = (v >> XHCI_PORTSC_SPEED_SHIFT) & XHCI_PORTSC_SPEED_MASK;
	const struct xhci_proto *p = xhci_port_proto(x, port);
	struct xhci_link link;

	*psiv = (uint8_t)psi;
	if (psi >= XHCI_PSI_FULL && psi <= XHCI_PSI_SUPER_PLUS && (!p || !p->psic)) {
		*speed = (enum usb_speed)(psi - XHCI_PSI_FULL);
		return 0;
	}
	if (xhci_port_link(x, port, &link))
		return xhci_fail_n(x, "unknown speed id on root port", port);
	*speed = link.speed;
	return 0;
}

static bool link_stuck(uint32_t v)
{
	uint32_t pls = (v >> XHCI_PORTSC_PLS_SHIFT) & XHCI_PORTSC_PLS_MASK;

	return pls == XHCI_PLS_INACTIVE || pls == XHCI_PLS_COMPLIANCE || (v & XHCI_PORTSC_CCS);
}

/* 4.19.1.2: wait for the link to reach U0 (PED); warm reset a stuck one (4.19.5.1). */
static uint32_t usb3_enable(struct xhci *x, unsigned port)
{
	uint32_t v = portsc_wait_any(x, port, XHCI_PORTSC_PED, XHCI_PORT_U0_US);

	if ((v & XHCI_PORTSC_PED) || !link_stuck(v))
		return v;
	portsc_write(x, port, v, XHCI_PORTSC_WPR);
	v = portsc_wait_any(x, port, XHCI_PORTSC_WRC | XHCI_PORTSC_PRC, XHCI_PORT_RESET_US);
	if (!(v & XHCI_PORTSC_PED))
		v = portsc_wait_any(x, port, XHCI_PORTSC_PED, XHCI_PORT_U0_US);
	return v;
}

/* 4.19.1.1: PR, then PRC (the reset is over), then PED tells whether the port is enabled. */
static int usb2_reset(struct xhci *x, unsigned port, uint32_t *out)
{
	uint32_t v = portsc_wait_any(x, port, XHCI_PORTSC_CCS, XHCI_PORT_CONNECT_US);

	if (!(v & XHCI_PORTSC_CCS))
		return xhci_fail_n(x, "nothing connected at root port", port);
	if (v & XHCI_PORTSC_CSC) {
		/* A new connection: stable for TATTDB before the reset (USB 2.0 7.1.7.3, as Linux
		 * hub_port_debounce); one that went away meanwhile is not reset. */
		xhci_delay(x, XHCI_PORT_DEBOUNCE_US);
		v = portsc(x, port);
		if (!(v & XHCI_PORTSC_CCS))
			return xhci_fail_n(x, "connection did not last the 100 ms debounce at root port", port);
	}
	portsc_write(x, port, v, XHCI_PORTSC_PR);
	v = portsc_wait_any(x, port, XHCI_PORTSC_PRC, XHCI_PORT_RESET_US);
	if (!(v & XHCI_PORTSC_PRC))
		return xhci_fail_n(x, "port reset did not complete (no PRC) at root port", port);
	*out = v;
	return 0;
}

int xhci_root_port_reset(struct xhci *x, unsigned port, enum usb_speed *speed, uint8_t *psiv)
{
	const struct xhci_proto *p = xhci_port_proto(x, port);
	bool usb3 = p && p->major >= 3;
	uint32_t v;
	int rc;

	if (port < 1 || port > x->max_ports)
		return xhci_fail_n(x, "no such root port:", port);
	v = portsc(x, port);
	if (!(v & XHCI_PORTSC_PP)) {
		portsc_write(x, port, v, XHCI_PORTSC_PP); /* HCCPARAMS1.PPC: ports start unpowered */
		xhci_delay(x, XHCI_PORT_POWER_US);
	}
	if (usb3) {
		v = usb3_enable(x, port);
		if (!(v & XHCI_PORTSC_CCS))
			return xhci_fail_n(x, "nothing connected at root port", port);
	} else {
		rc = usb2_reset(x, port, &v);
		if (rc)
			return rc;
	}
	/* Acknowledge what changed (write 1 to clear), PED written 0 so the port stays enabled. */
	portsc_write(x, port, v, v & XHCI_PORTSC_CHANGES);
	if (!(v & XHCI_PORTSC_PED))
		return xhci_fail_n(x, usb3 ? "USB 3 link did not reach U0 (PED clear) at root port" :
					     "port not enabled after reset at root port", port);
	if (!usb3)
		xhci_delay(x, XHCI_RESET_RECOVERY_US);
	return speed_of(x, port, v, speed, psiv);
}

int xhci_port_connected(struct xhci *x, unsigned port, enum usb_speed *speed, bool *usb3)
{
	const struct xhci_proto *p = xhci_port_proto(x, port);
	uint32_t v, psi;

	if (!x->running || port < 1 || port > x->max_ports)
		return -1;
	v = portsc(x, port);
	psi = (v >> XHCI_PORTSC_SPEED_SHIFT) & XHCI_PORTSC_SPEED_MASK;
	if (speed)
		*speed = psi >= XHCI_PSI_FULL && psi <= XHCI_PSI_SUPER_PLUS ? (enum usb_speed)(psi - XHCI_PSI_FULL) :
									       USB_SPEED_FULL;
	if (usb3)
		*usb3 = p && p->major >= 3;
	return (v & XHCI_PORTSC_CCS) ? 1 : 0;
}

bool xhci_port_changed(struct xhci *x, unsigned port)
{
	return port >= 1 && port <= x->max_ports && (portsc(x, port) & XHCI_PORTSC_CSC);
}

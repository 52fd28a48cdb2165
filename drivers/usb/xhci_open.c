/* xHCI: opening the mass-storage device at the end of a USB port path (xhci_open_msc): the root
 * port reset, then through each hub tier the path names (set up on the way), then the device's
 * address, descriptors and bulk-only interface (xhci_enum.c, xhci_hub.c, xhci_port.c). The step
 * both this and the walk of xhci_find.c take: a device reset at a port and given its slot fields. */
#include <string.h>

#include "drivers/usb/usb_std.h"
#include "drivers/usb/xhci_internal.h"

#define XHCI_ROUTE_PORT_MAX 15 /* a route string nibble (8.9): higher hub ports are unreachable */
#define XHCI_ROUTE_BITS 4

int xhci_dev_at_port(struct xhci *x, struct xhci_dev *hub, unsigned port, struct xhci_dev *d)
{
	enum usb_speed speed;
	uint8_t psiv;
	int rc;

	memset(d, 0, sizeof(*d));
	if (!hub) {
		rc = xhci_root_port_reset(x, port, &speed, &psiv);
		if (rc)
			return rc;
		d->psiv = psiv;
		d->root_port = (uint8_t)port;
		d->tier = 1;
		d->speed = speed;
		return 0;
	}
	if (port > XHCI_ROUTE_PORT_MAX)
		return xhci_fail_n(x, "hub port beyond what a route string reaches:", port);
	if (hub->tier >= 1 + XHCI_HUB_TIERS)
		return xhci_fail(x, "hub deeper than the five tiers a route string reaches");
	rc = xhci_hub_port_reset(x, hub, port, &speed);
	if (rc)
		return rc;
	d->root_port = hub->root_port;
	d->tier = (uint8_t)(hub->tier + 1);
	d->speed = speed;
	d->route = hub->route | (uint32_t)port << (XHCI_ROUTE_BITS * (hub->tier - 1u)); /* 8.9 */
	if (hub->speed == USB_SPEED_HIGH && (speed == USB_SPEED_FULL || speed == USB_SPEED_LOW)) {
		d->tt_slot = hub->slot; /* 4.3.3: split transactions through this hub's TT */
		d->tt_port = (uint8_t)port;
	} else if (speed == USB_SPEED_FULL || speed == USB_SPEED_LOW) {
		d->tt_slot = hub->tt_slot; /* behind a full-speed hub: the high-speed hub's TT above it */
		d->tt_port = hub->tt_port;
	}
	return 0;
}

unsigned xhci_slot_type(const struct xhci *x, unsigned root_port)
{
	const struct xhci_proto *p = xhci_port_proto(x, root_port);

	return p ? p->slot_type : 0;
}

/* d (reset at its port) addressed and its descriptors read; a hub set up as hub[tier - 1]. */
int xhci_dev_bring_up(struct xhci *x, struct xhci_dev *d, uint16_t *cfg_len)
{
	int rc = xhci_dev_address(x, d, xhci_slot_type(x, d->root_port));

	if (!rc)
		rc = xhci_dev_descriptors(x, d, cfg_len);
	return rc;
}

int xhci_open_msc(struct xhci *x, const struct usb_port_path *path, struct xhci_dev *dev)
{
	struct xhci_dev *hub = 0;
	uint16_t cfg_len;
	int rc;

	memset(dev, 0, sizeof(*dev));
	x->last_cc = 0;
	if (!x->running || x->dead)
		return xhci_fail(x, "xHCI controller not running");
	if (!path || path->depth < 1 || path->depth > USB_PATH_MAX)
		return xhci_fail(x, "bad USB port path");
	for (unsigned i = 0; i < path->depth; i++)
		if (!path->port[i])
			return xhci_fail(x, "bad USB port path");
	for (unsigned i = 0; i + 1 < path->depth; i++) {
		struct xhci_dev *h = &x->hub[i];

		rc = xhci_dev_at_port(x, hub, path->port[i], h);
		if (!rc)
			rc = xhci_dev_bring_up(x, h, &cfg_len);
		if (!rc && h->dev_class != USB_CLASS_HUB)
			rc = xhci_fail_n(x, "the device on the path is not a hub, class", h->dev_class);
		if (!rc)
			rc = xhci_hub_setup(x, h, cfg_len);
		if (rc)
			return rc;
		hub = h;
	}
	rc = xhci_dev_at_port(x, hub, path->port[path->depth - 1], dev);
	if (!rc)
		rc = xhci_dev_bring_up(x, dev, &cfg_len);
	if (!rc)
		rc = xhci_dev_configure_msc(x, dev, cfg_len);
	return rc;
}

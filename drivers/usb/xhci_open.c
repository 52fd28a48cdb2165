/* xHCI: opening the mass-storage device at the end of a USB port path (xhci_open_msc): the root
 * port reset, through one level of hub when the path has two ports, then the device's address,
 * descriptors and bulk-only interface (xhci_enum.c, xhci_hub.c, xhci_port.c). */
#include <string.h>

#include "drivers/usb/usb_std.h"
#include "drivers/usb/xhci_internal.h"

#define XHCI_ROUTE_PORT_MAX 15    /* a route string nibble (8.9) */

/* The device at the end of a depth-2 path: its hub at the root port, set up and its port reset. */
static int through_hub(struct xhci *x, const struct usb_port_path *path, enum usb_speed root_speed,
		       unsigned slot_type, struct xhci_dev *dev)
{
	struct xhci_dev *hub = &x->hub;
	unsigned port = path->port[1];
	uint16_t cfg_len;
	enum usb_speed speed;
	int rc;

	memset(hub, 0, sizeof(*hub));
	hub->root_port = path->port[0];
	hub->speed = root_speed;
	rc = xhci_dev_address(x, hub, slot_type);
	if (!rc)
		rc = xhci_dev_descriptors(x, hub, &cfg_len);
	if (!rc && hub->dev_class != USB_CLASS_HUB)
		rc = xhci_fail_n(x, "the device at the root port is not a hub, class", hub->dev_class);
	if (!rc)
		rc = xhci_hub_setup(x, hub, cfg_len);
	if (!rc)
		rc = xhci_hub_port_reset(x, hub, port, &speed);
	if (rc)
		return rc;
	dev->root_port = path->port[0];
	dev->speed = speed;
	dev->route = port > XHCI_ROUTE_PORT_MAX ? XHCI_ROUTE_PORT_MAX : port; /* tier 1: bits 3:0 */
	if (hub->speed == USB_SPEED_HIGH && (speed == USB_SPEED_FULL || speed == USB_SPEED_LOW)) {
		dev->tt_slot = hub->slot; /* 4.3.3: split transactions through the hub's TT */
		dev->tt_port = (uint8_t)port;
	}
	return 0;
}

int xhci_open_msc(struct xhci *x, const struct usb_port_path *path, struct xhci_dev *dev)
{
	const struct xhci_proto *p;
	enum usb_speed speed;
	uint16_t cfg_len;
	int rc;

	memset(dev, 0, sizeof(*dev));
	x->last_cc = 0;
	if (!x->running || x->dead)
		return xhci_fail(x, "xHCI controller not running");
	if (!path || path->depth < 1 || path->depth > USB_PATH_MAX || !path->port[0] ||
	    (path->depth == 2 && !path->port[1]))
		return xhci_fail(x, "bad USB port path");
	p = xhci_port_proto(x, path->port[0]);
	rc = xhci_root_port_reset(x, path->port[0], &speed);
	if (rc)
		return rc;
	if (path->depth == 2) {
		rc = through_hub(x, path, speed, p ? p->slot_type : 0, dev);
	} else {
		dev->root_port = path->port[0];
		dev->speed = speed;
	}
	if (!rc)
		rc = xhci_dev_address(x, dev, p ? p->slot_type : 0);
	if (!rc)
		rc = xhci_dev_descriptors(x, dev, &cfg_len);
	if (!rc)
		rc = xhci_dev_configure_msc(x, dev, cfg_len);
	return rc;
}

/* Finding the boot stick on an xHCI controller by what it holds, not by where the firmware said it
 * was (xhci_find_msc): the port numbers of a UEFI device path are only a hint (AMI Aptio writes
 * them 1-based, EDK II 0-based), a USB 3 stick whose link fails SuperSpeed training comes back on
 * the paired USB 2 port and a USB 2 port reset can move a stick to its USB 3 port, and docks put
 * the stick two or more hubs deep. So every root port with a device, and every port of every hub
 * tier below (XHCI_HUB_TIERS, the route string's reach), is set up in turn and each bulk-only
 * mass-storage device offered to the caller, who reads it and keeps the one that carries its run's
 * nonce. A refused device's slot is disabled and its memory given back, so the walk's cost in slots
 * and DMA memory is one chain of hubs and one device. */
#include <string.h>

#include "drivers/usb/usb_std.h"
#include "drivers/usb/xhci_internal.h"

#define WALK_CONNECT_US 1000000 /* after the controller reset: the first connection shows up */
#define WALK_MOVE_US 500000     /* before the second pass: a device falling to its other port */
#define WALK_POLL_US 1000
#define WALK_PASSES 2
#define HUB_PORTS_MAX 15        /* a route string nibble */

struct walk {
	const struct usb_port_path *hint;
	xhci_accept_fn accept;
	void *ctx;
	struct xhci_dev *dev;
	struct xhci_walk_stats *st;
	uint8_t visited[256 / 8]; /* root ports set up in the first pass */
};

static bool bit(const uint8_t *set, unsigned n)
{
	return set[n / 8] & (1u << (n % 8));
}

/* The i-th port to visit of `count` at hint tier `tier`: the hinted one first, then the others. */
static unsigned nth_port(const struct walk *w, unsigned tier, unsigned count, unsigned i)
{
	unsigned h = w->hint && tier < w->hint->depth ? w->hint->port[tier] : 0;

	if (!h || h > count)
		return i + 1;
	if (i == 0)
		return h;
	return i < h ? i : i + 1;
}

static int walk_hub(struct xhci *x, struct walk *w, struct xhci_dev *hub);

/* The device at `port` of `hub` (NULL: root port): 1 accepted, 0 not (released), -1 the
 * controller is gone. */
static int visit(struct xhci *x, struct walk *w, struct xhci_dev *hub, unsigned port)
{
	struct xhci_dev *d = w->dev;
	size_t mark = x->dma->used;
	uint16_t cfg_len;
	int rc;

	x->last_cc = 0;
	if (xhci_dev_at_port(x, hub, port, d) || xhci_dev_bring_up(x, d, &cfg_len)) {
		xhci_dev_release(x, d, mark);
		return x->dead ? -1 : 0;
	}
	w->st->devices++;
	if (d->dev_class == USB_CLASS_HUB) {
		struct xhci_dev *h;

		if (d->tier > XHCI_HUB_TIERS) {
			w->st->hubs_too_deep++;
			xhci_fail(x, "a hub below the fifth tier: what is behind it is unreachable");
			xhci_dev_release(x, d, mark);
			return 0;
		}
		h = &x->hub[d->tier - 1];
		*h = *d;
		memset(d, 0, sizeof(*d));
		rc = xhci_hub_setup(x, h, cfg_len) ? 0 : walk_hub(x, w, h);
		if (rc != 1)
			xhci_dev_release(x, h, mark);
		return rc;
	}
	if (xhci_dev_configure_msc(x, d, cfg_len)) {
		xhci_dev_release(x, d, mark);
		return x->dead ? -1 : 0;
	}
	w->st->offered++;
	if (w->accept(w->ctx, d))
		return 1;
	xhci_dev_release(x, d, mark);
	return x->dead ? -1 : 0;
}

static int walk_hub(struct xhci *x, struct walk *w, struct xhci_dev *hub)
{
	unsigned n = hub->hub_ports < HUB_PORTS_MAX ? hub->hub_ports : HUB_PORTS_MAX;

	xhci_hub_settle(x);
	for (unsigned i = 0; i < n; i++) {
		unsigned port = nth_port(w, hub->tier, n, i);
		int c = xhci_hub_port_connected(x, hub, port), rc;

		if (c < 0)
			return x->dead ? -1 : 0; /* the hub stopped answering: its subtree is lost */
		if (!c)
			continue;
		w->st->connected++;
		rc = visit(x, w, hub, port);
		if (rc)
			return rc;
	}
	return 0;
}

/* Waits (bounded) for a first root port to show a device, then the debounce for the others. */
static void wait_connections(struct xhci *x)
{
	for (uint32_t t = 0; t < WALK_CONNECT_US; t += WALK_POLL_US) {
		for (unsigned p = 1; p <= x->max_ports; p++)
			if (xhci_port_connected(x, p, 0, 0) == 1) {
				xhci_delay(x, XHCI_PORT_DEBOUNCE_US);
				return;
			}
		xhci_delay(x, WALK_POLL_US);
	}
}

/* One pass over the root ports; the second visits only ports not set up in the first or whose
 * connection changed since (xhci_port_changed). */
static int walk_root(struct xhci *x, struct walk *w, unsigned pass)
{
	for (unsigned i = 0; i < x->max_ports; i++) {
		unsigned port = nth_port(w, 0, x->max_ports, i);
		int rc;

		if (xhci_port_connected(x, port, 0, 0) != 1)
			continue;
		if (pass && bit(w->visited, port) && !xhci_port_changed(x, port))
			continue;
		if (!pass)
			w->visited[port / 8] |= (uint8_t)(1u << (port % 8));
		w->st->connected++;
		rc = visit(x, w, 0, port);
		if (rc)
			return rc;
	}
	return 0;
}

int xhci_find_msc(struct xhci *x, const struct usb_port_path *hint, xhci_accept_fn accept, void *ctx,
		  struct xhci_dev *dev, struct xhci_walk_stats *st)
{
	struct walk w = { .hint = hint, .accept = accept, .ctx = ctx, .dev = dev, .st = st };
	int rc = 0;

	memset(st, 0, sizeof(*st));
	memset(dev, 0, sizeof(*dev));
	if (!x->running || x->dead)
		return xhci_fail(x, "xHCI controller not running");
	xhci_fail(x, "no device connected to any port of the controller");
	wait_connections(x);
	for (unsigned pass = 0; pass < WALK_PASSES && !rc; pass++) {
		if (pass)
			xhci_delay(x, WALK_MOVE_US);
		rc = walk_root(x, &w, pass);
	}
	if (rc == 1) {
		x->err[0] = 0;
		return 0;
	}
	if (rc < 0)
		return USB_XFER_ERROR; /* x->err says what killed the controller */
	if (!st->offered && st->devices)
		return xhci_fail_n(x, "no bulk-only mass-storage device among the USB devices found:", st->devices);
	if (st->offered)
		return xhci_fail_n(x, "the caller took none of the mass-storage devices offered:", st->offered);
	return USB_XFER_ERROR; /* x->err: the last port or device that failed */
}

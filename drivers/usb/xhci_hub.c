/* External hubs for the xHCI driver, at any tier: after the hub is addressed (xhci_enum.c) its hub
 * descriptor (USB 2.0 11.23.2.1 type 0x29, USB 3.2 10.15.2.1 type 0x2A) gives the port count and
 * TT think time for the slot context (xHCI 1.2 6.2.2: Hub, Number of Ports, TTT), then
 * SET_CONFIGURATION, SET_HUB_DEPTH for a SuperSpeed hub (USB 3.2 10.16.2.9: its tier less one, so
 * it routes by its own nibble of the route string), and power to its ports. A downstream port is reset by hub class requests
 * (USB 2.0 11.24.2): SET_FEATURE(PORT_RESET), GET_STATUS until C_PORT_RESET, CLEAR_FEATURE. */
#include "drivers/usb/usb_std.h"
#include "drivers/usb/xhci_internal.h"
#include "lib/le.h"

#define HUB_DESC_REQ_LEN 12      /* covers a SuperSpeed hub descriptor and a USB 2 one of 8+ ports */
#define HUB_STATUS_LEN 4         /* wPortStatus, wPortChange */
#define HUB_POLL_US 5000
#define HUB_POWER_MIN_US 20000   /* at least 20 ms for power to settle whatever the hub says */
#define HUB_PWR_GOOD_UNIT_US 2000 /* bPwrOn2PwrGood counts 2 ms */

#define HUB_PORT_REQ (USB_TYPE_CLASS | USB_RECIP_OTHER)

static int port_feature(struct xhci *x, struct xhci_dev *hub, uint8_t req, uint16_t feature, unsigned port)
{
	return xhci_ctrl(x, hub, USB_DIR_OUT | HUB_PORT_REQ, req, feature, (uint16_t)port, 0, 0);
}

static int port_status(struct xhci *x, struct xhci_dev *hub, unsigned port, uint16_t *status, uint16_t *change)
{
	int rc = xhci_ctrl(x, hub, USB_DIR_IN | HUB_PORT_REQ, USB_REQ_GET_STATUS, 0, (uint16_t)port, x->desc,
			   HUB_STATUS_LEN);

	if (rc || hub->last_len < HUB_STATUS_LEN)
		return xhci_fail_n(x, "hub GET_STATUS failed for port", port);
	*status = rd16(x->desc);
	*change = rd16(x->desc + 2);
	return 0;
}

int xhci_hub_setup(struct xhci *x, struct xhci_dev *hub, uint16_t cfg_len)
{
	uint8_t dt, ttt, pwr_good;
	uint32_t settle;
	int rc;

	(void)cfg_len; /* the hub's interrupt endpoint is not used: ports are polled with GET_STATUS */
	hub->hub_ss = hub->speed >= USB_SPEED_SUPER;
	dt = hub->hub_ss ? USB_DT_SS_HUB : USB_DT_HUB;
	rc = xhci_ctrl(x, hub, USB_DIR_IN | USB_TYPE_CLASS | USB_RECIP_DEVICE, USB_REQ_GET_DESCRIPTOR,
		       (uint16_t)(dt << 8), 0, x->desc, HUB_DESC_REQ_LEN);
	if (rc || hub->last_len < USB_HUB_PWR_ON_2_GOOD + 1 || x->desc[USB_DESC_TYPE] != dt)
		return xhci_fail(x, "hub GET_DESCRIPTOR(hub) failed");
	hub->hub_ports = x->desc[USB_HUB_NPORTS];
	ttt = (uint8_t)((rd16(x->desc + USB_HUB_CHARACTERISTICS) >> USB_HUB_TTT_SHIFT) & USB_HUB_TTT_MASK);
	pwr_good = x->desc[USB_HUB_PWR_ON_2_GOOD];
	if (!hub->hub_ports)
		return xhci_fail(x, "hub descriptor says the hub has no ports");
	if (xhci_hub_mark(x, hub, ttt))
		return USB_XFER_ERROR;
	if (xhci_ctrl(x, hub, USB_DIR_OUT | USB_TYPE_STANDARD | USB_RECIP_DEVICE, USB_REQ_SET_CONFIGURATION,
		      hub->config, 0, 0, 0))
		return xhci_fail(x, "hub SET_CONFIGURATION failed");
	if (hub->hub_ss && xhci_ctrl(x, hub, USB_DIR_OUT | USB_TYPE_CLASS | USB_RECIP_DEVICE,
				     USB_HUB_REQ_SET_HUB_DEPTH, (uint16_t)(hub->tier - 1u), 0, 0, 0))
		return xhci_fail(x, "hub SET_HUB_DEPTH failed");
	for (unsigned p = 1; p <= hub->hub_ports; p++)
		if (port_feature(x, hub, USB_REQ_SET_FEATURE, USB_PORT_FEAT_POWER, p))
			return xhci_fail_n(x, "hub SET_FEATURE(PORT_POWER) failed for port", p);
	settle = (uint32_t)pwr_good * HUB_PWR_GOOD_UNIT_US;
	xhci_delay(x, settle > HUB_POWER_MIN_US ? settle : HUB_POWER_MIN_US);
	return 0;
}

/* Polls the port's status until (status or change, as `in_change` says) has `bit`. */
static int port_wait(struct xhci *x, struct xhci_dev *hub, unsigned port, uint16_t bit, bool in_change,
		     uint32_t timeout_us, uint16_t *status)
{
	uint16_t change = 0;

	for (uint32_t t = 0;; t += HUB_POLL_US) {
		if (port_status(x, hub, port, status, &change))
			return USB_XFER_ERROR;
		if ((in_change ? change : *status) & bit)
			return 0;
		if (t >= timeout_us)
			return 1;
		xhci_delay(x, HUB_POLL_US);
	}
}

int xhci_hub_port_reset(struct xhci *x, struct xhci_dev *hub, unsigned port, enum usb_speed *speed)
{
	uint16_t status;
	int rc;

	if (port < 1 || port > hub->hub_ports)
		return xhci_fail_n(x, "no such hub port:", port);
	rc = port_wait(x, hub, port, USB_PORT_STAT_CONNECTION, false, XHCI_PORT_CONNECT_US, &status);
	if (rc)
		return rc < 0 ? rc : xhci_fail_n(x, "nothing connected at hub port", port);
	if (port_feature(x, hub, USB_REQ_CLEAR_FEATURE, USB_PORT_FEAT_C_CONNECTION, port) ||
	    port_feature(x, hub, USB_REQ_SET_FEATURE, USB_PORT_FEAT_RESET, port))
		return xhci_fail_n(x, "hub port feature request failed for port", port);
	rc = port_wait(x, hub, port, USB_PORT_STAT_C_RESET, true, XHCI_PORT_RESET_US, &status);
	if (rc)
		return rc < 0 ? rc : xhci_fail_n(x, "hub port reset did not complete (no C_PORT_RESET) at port", port);
	if (port_feature(x, hub, USB_REQ_CLEAR_FEATURE, USB_PORT_FEAT_C_RESET, port))
		return xhci_fail_n(x, "hub CLEAR_FEATURE(C_PORT_RESET) failed for port", port);
	if (!(status & USB_PORT_STAT_ENABLE))
		return xhci_fail_n(x, "hub port not enabled after reset: port", port);
	if (hub->hub_ss)
		*speed = USB_SPEED_SUPER;
	else if (status & USB_PORT_STAT_LOW_SPEED)
		*speed = USB_SPEED_LOW;
	else if (status & USB_PORT_STAT_HIGH_SPEED)
		*speed = USB_SPEED_HIGH;
	else
		*speed = USB_SPEED_FULL;
	xhci_delay(x, XHCI_RESET_RECOVERY_US);
	return 0;
}

int xhci_hub_port_connected(struct xhci *x, struct xhci_dev *hub, unsigned port)
{
	uint16_t status, change;

	if (port_status(x, hub, port, &status, &change))
		return -1;
	return (status & USB_PORT_STAT_CONNECTION) ? 1 : 0;
}

void xhci_hub_settle(struct xhci *x)
{
	xhci_delay(x, XHCI_PORT_DEBOUNCE_US);
}

/* 4.3.4 (hubs, 4.5.2 and 6.2.2): Configure Endpoint with only the slot context marks the hub. */
int xhci_hub_mark(struct xhci *x, struct xhci_dev *hub, uint8_t ttt)
{
	uint32_t *s = xhci_ctx(x, hub->in_ctx, 1);

	xhci_fill_slot(x, hub, XHCI_DCI_EP0);
	s[0] |= XHCI_SLOT_HUB;
	s[1] |= (uint32_t)hub->hub_ports << XHCI_SLOT_NPORTS_SHIFT;
	if (hub->speed == USB_SPEED_HIGH)
		s[2] |= (uint32_t)ttt << XHCI_SLOT_TTT_SHIFT;
	return xhci_input_command(x, hub, XHCI_ADD_SLOT, XHCI_TRB_CONFIGURE_EP, "Configure Endpoint (hub) failed");
}

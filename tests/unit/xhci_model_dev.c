/* The USB devices behind the xHCI controller model: a bulk-only mass-storage device (USB Mass
 * Storage Class Bulk-Only Transport 1.0; its configuration opens with a decoy interface so the
 * driver must look for class 8/6/0x50) and a hub (USB 2.0 11.24, USB 3.2 10.16), answering the
 * standard and hub-class requests from the descriptors of USB 2.0 chapter 9 / USB 3.2 chapter 9. */
#include <string.h>

#include "xhci_model.h"

#define SS_BURST 3
#define HUB_PWR_GOOD 50 /* x 2 ms */
#define HUB_TTT 1       /* 16 FS bit times, wHubCharacteristics 6:5 */
#define PS_CONNECTION 0x0001
#define PS_ENABLE 0x0002
#define PS_RESET 0x0010
#define PS_POWER 0x0100
#define PS_LOW 0x0200
#define PS_HIGH 0x0400
#define RESET_POLLS 2 /* GET_STATUS polls a hub port reset takes */

void xm_msc(struct xm_dev *d, int speed)
{
	memset(d, 0, sizeof(*d));
	d->speed = speed;
	d->mps0 = speed == XM_SS ? 9 : speed == XM_LS ? 8 : 64; /* a full-speed 64: EP0 needs the fix-up */
}

void xm_hub(struct xm_dev *d, int speed, unsigned nports)
{
	memset(d, 0, sizeof(*d));
	d->hub = true;
	d->speed = speed;
	d->mps0 = speed == XM_SS ? 9 : speed == XM_HS ? 64 : 8;
	d->nports = nports;
}

static void put(uint8_t **p, const uint8_t *b, size_t n)
{
	memcpy(*p, b, n);
	*p += n;
}

static void endpoint(uint8_t **p, const struct xm_dev *d, uint8_t addr, uint8_t attr, uint16_t mps)
{
	uint8_t e[7] = { 7, 5, addr, attr, (uint8_t)mps, (uint8_t)(mps >> 8), attr == 3 ? 12 : 0 };
	uint8_t comp[6] = { 6, 0x30, attr == 2 ? SS_BURST : 0, 0, 0, 0 };

	put(p, e, sizeof(e));
	if (d->speed == XM_SS)
		put(p, comp, sizeof(comp));
}

static uint16_t config_desc(const struct xm_dev *d, uint8_t *buf)
{
	uint8_t *p = buf + 9;
	uint16_t bulk = d->speed == XM_SS ? 1024 : d->speed == XM_HS ? 512 : 64, total;

	if (d->hub) {
		const uint8_t ifc[9] = { 9, 4, 0, 0, 1, 9, 0, 0, 0 };

		put(&p, ifc, 9);
		endpoint(&p, d, 0x81, 3, 2);
	} else {
		const uint8_t decoy[9] = { 9, 4, 0, 0, 1, 3, 1, 1, 0 }; /* HID boot keyboard */
		const uint8_t msc[9] = { 9, 4, 1, 0, 2, 8, 6, 0x50, 0 };

		put(&p, decoy, 9);
		endpoint(&p, d, 0x83, 3, 8);
		put(&p, msc, 9);
		endpoint(&p, d, 0x81, 2, bulk);
		endpoint(&p, d, 0x02, 2, bulk);
	}
	total = (uint16_t)(p - buf);
	const uint8_t cfg[9] = { 9, 2, (uint8_t)total, (uint8_t)(total >> 8), d->hub ? 1 : 2, 1, 0, 0x80, 50 };
	memcpy(buf, cfg, 9);
	return total;
}

static uint16_t device_desc(const struct xm_dev *d, uint8_t *b)
{
	const uint8_t dd[18] = { 18, 1, 0, d->speed == XM_SS ? 3 : 2, d->hub ? 9 : 0, 0, d->hub && d->speed == XM_HS ? 1 : 0,
				 d->mps0, 0x34, 0x12, d->hub ? 0x01 : 0x02, 0x56, 0, 1, 0, 0, 0, 1 };

	memcpy(b, dd, sizeof(dd));
	return sizeof(dd);
}

static uint16_t hub_desc(const struct xm_dev *d, uint8_t *b)
{
	if (d->speed == XM_SS) {
		const uint8_t h[12] = { 12, 0x2a, (uint8_t)d->nports, 0x09, 0, HUB_PWR_GOOD / 5, 0, 0, 0, 0, 0, 0 };

		memcpy(b, h, sizeof(h));
		return sizeof(h);
	}
	const uint8_t h[9] = { 9, 0x29, (uint8_t)d->nports, 0x09 | HUB_TTT << 5, 0, HUB_PWR_GOOD, 0, 0, 0xff };
	memcpy(b, h, sizeof(h));
	return sizeof(h);
}

/* Hub class requests to a port (recipient other). */
static int hub_port_request(struct xhci_model *m, struct xm_dev *d, uint8_t req, uint16_t value, uint16_t port,
			    uint8_t *data, uint32_t *len)
{
	struct xm_dev *c;

	if (port < 1 || port > d->nports)
		return -1;
	if (!d->config)
		xm_violation(m, "hub port request before SET_CONFIGURATION");
	c = d->child[port];
	if (req == 3 && value == 8) { /* SET_FEATURE(PORT_POWER) */
		d->status[port] |= PS_POWER;
		if (c && !(d->status[port] & PS_CONNECTION)) {
			d->status[port] |= PS_CONNECTION;
			d->change[port] |= PS_CONNECTION;
		}
	} else if (req == 3 && value == 4) { /* SET_FEATURE(PORT_RESET) */
		if (!(d->status[port] & PS_POWER))
			xm_violation(m, "reset of an unpowered hub port");
		if (d->status[port] & PS_CONNECTION) {
			d->status[port] |= PS_RESET;
			d->reset_polls[port] = RESET_POLLS;
			d->port_resets++;
		}
	} else if (req == 1 && (value == 16 || value == 20)) { /* CLEAR_FEATURE(C_CONNECTION / C_RESET) */
		d->change[port] &= (uint16_t)~(value == 16 ? PS_CONNECTION : PS_RESET);
	} else if (req == 0 && *len >= 4) { /* GET_STATUS */
		if (d->reset_polls[port] && !--d->reset_polls[port]) {
			d->status[port] = (uint16_t)((d->status[port] & ~PS_RESET) | PS_ENABLE |
						     (c->speed == XM_LS ? PS_LOW : c->speed == XM_HS ? PS_HIGH : 0));
			d->change[port] |= PS_RESET;
		}
		data[0] = (uint8_t)d->status[port];
		data[1] = (uint8_t)(d->status[port] >> 8);
		data[2] = (uint8_t)d->change[port];
		data[3] = (uint8_t)(d->change[port] >> 8);
		*len = 4;
		return 0;
	} else {
		return -1;
	}
	*len = 0;
	return 0;
}

static int standard_request(struct xhci_model *m, struct xm_dev *d, uint8_t bm, uint8_t req, uint16_t value,
			    uint16_t index, uint8_t *data, uint32_t *len)
{
	uint8_t desc[256];
	uint16_t n;

	if (bm == 0x80 && req == 6 && (value >> 8) <= 2) { /* GET_DESCRIPTOR device / configuration */
		n = (value >> 8) == 1 ? device_desc(d, desc) : (value >> 8) == 2 ? config_desc(d, desc) : 0;
		if (!n)
			return -1;
		*len = *len < n ? *len : n;
		memcpy(data, desc, *len);
		return 0;
	}
	*len = 0;
	if (bm == 0x00 && req == 9) { /* SET_CONFIGURATION: 4.3.5, endpoints configured first */
		if (!d->hub && m->slot[d->address].ep[3].state == 0)
			xm_violation(m, "SET_CONFIGURATION before Configure Endpoint (4.3.5)");
		d->config = (uint8_t)value;
		d->set_config_calls++;
		return 0;
	}
	if (bm == 0x02 && req == 1 && value == 0) { /* CLEAR_FEATURE(ENDPOINT_HALT) */
		if (index == 0x81)
			d->halted_in = false;
		else if (index == 0x02)
			d->halted_out = false;
		else
			return -1;
		d->clear_halts++;
		d->clear_halt_ep = index;
		return 0;
	}
	return -1;
}

int xm_dev_control(struct xhci_model *m, struct xm_dev *d, const uint8_t setup[8], uint8_t *data, uint32_t *len)
{
	uint8_t bm = setup[0], req = setup[1];
	uint16_t value = (uint16_t)(setup[2] | setup[3] << 8), index = (uint16_t)(setup[4] | setup[5] << 8);

	if (!d->hub || (bm & 0x60) == 0)
		return standard_request(m, d, bm, req, value, index, data, len);
	if (bm == 0xa0 && req == 6) { /* GET_DESCRIPTOR(hub) of the right type */
		uint8_t desc[16];
		uint16_t n = hub_desc(d, desc);

		if ((value >> 8) != desc[1])
			return -1;
		*len = *len < n ? *len : n;
		memcpy(data, desc, *len);
		return 0;
	}
	if (bm == 0x20 && req == 12) { /* SET_HUB_DEPTH: SuperSpeed hubs only, the hub's tier less one */
		if (d->speed != XM_SS || value != xm_route_tiers(m->slot[d->address].route))
			return -1;
		d->depth_set_calls++;
		*len = 0;
		return 0;
	}
	if ((bm & 0x1f) == 3)
		return hub_port_request(m, d, req, value, index, data, len);
	return -1;
}

/* The xHCI controller model's command ring (xHCI 1.2 4.6): fetched on a doorbell 0 write by cycle
 * bit, following Link TRBs, each command answered with a Command Completion Event. Contexts are
 * read from the input context and written to the output context the DCBAA names (6.2). */
#include <string.h>

#include "xhci_model.h"

#define CC_SUCCESS 1
#define CC_TRANSACTION 4
#define CC_TRB 5
#define CC_NO_SLOTS 9
#define CC_SLOT_NOT_ENABLED 11
#define CC_PARAMETER 17
#define CC_CONTEXT_STATE 19
#define EP_DISABLED 0
#define EP_RUNNING 1
#define EP_HALTED 2
#define EP_STOPPED 3
#define CMDS_PER_DOORBELL 64

static unsigned csz(const struct xhci_model *m)
{
	return m->csz64 ? 64 : 32;
}

static uint32_t *ictx(struct xhci_model *m, uint64_t in, unsigned index)
{
	return xm_mem(m, in + (uint64_t)index * csz(m), 32);
}

static uint32_t *octx(struct xhci_model *m, unsigned slot, unsigned index)
{
	uint64_t dcbaa = (uint64_t)m->dcbaap_hi << 32 | m->dcbaap_lo, out;

	memcpy(&out, xm_mem(m, dcbaa + 8ull * slot, 8), 8);
	if (!out)
		xm_violation(m, "DCBAA entry of slot %u is 0", slot);
	return xm_mem(m, out + (uint64_t)index * csz(m), 32);
}

/* The device a slot context names: root port, then one hub port per nibble of the route string
 * (8.9, 4.3.3: at most five tiers, no port after a 0 nibble); NULL when the path is not enabled.
 * *last_port: the hub port the device is at (0: a root port). */
static struct xm_dev *route_dev(struct xhci_model *m, const uint32_t *sc, unsigned *parent_slot,
				unsigned *last_port)
{
	unsigned root = (sc[1] >> 16) & 0xff, route = sc[0] & 0xfffff, tiers = xm_route_tiers(route);
	struct xm_port *p = root >= 1 && root <= m->n2 + m->n3 ? &m->port[root] : 0;
	struct xm_dev *d;

	*parent_slot = 0;
	*last_port = 0;
	if (!p || !p->dev || !(p->portsc & 1u << 1)) {
		xm_violation(m, "Address Device through root port %u that is not enabled", root);
		return 0;
	}
	d = p->dev;
	if (route >> (4 * tiers))
		xm_violation(m, "route string 0x%x with a port after a 0 nibble (8.9)", route);
	for (unsigned t = 0; t < tiers; t++) {
		unsigned hp = (route >> (4 * t)) & 0xf;

		if (!d->hub || !d->address || hp > d->nports || !d->child[hp] || !(d->status[hp] & 2)) {
			xm_violation(m, "route string 0x%x to a hub port that is not enabled (tier %u)", route, t + 1);
			return 0;
		}
		if (!m->slot[d->address].hub || m->slot[d->address].nports != d->nports)
			xm_violation(m, "device behind a hub whose slot is not marked Hub with its port count (6.2.2)");
		if (d->speed == 4 && !d->depth_set_calls)
			xm_violation(m, "route through a SuperSpeed hub never told its depth (USB 3.2 10.16.2.9)");
		*parent_slot = d->address;
		*last_port = hp;
		d = d->child[hp];
	}
	return d;
}

/* 4.3.3: a full/low-speed device names the TT of the nearest high-speed hub above it: its parent
 * (hub port = the device's port), or, behind a full-speed hub, the parent's own TT. */
static void check_slot_ctx(struct xhci_model *m, const uint32_t *sc, const struct xm_dev *d, unsigned parent,
			   unsigned port)
{
	unsigned speed = (sc[0] >> 20) & 0xf, tt_slot = sc[2] & 0xff, tt_port = (sc[2] >> 8) & 0xff;
	const struct xm_dev *hub = parent ? m->slot[parent].dev : 0;
	bool slow = d->speed == 1 || d->speed == 2;
	unsigned want_slot = 0, want_port = 0;

	if (hub && slow && hub->speed == 3) {
		want_slot = parent;
		want_port = port;
	} else if (hub && slow) {
		want_slot = m->slot[parent].tt_slot;
		want_port = m->slot[parent].tt_port;
	}
	/* 6.2.2 (xHCI 1.1): the PORTSC Port Speed the device's root port reports (a USB 3.2 x2 link's
	 * own PSIV where the model overrides it), else the device's speed */
	unsigned root = (sc[1] >> 16) & 0xff;
	unsigned want = !parent && root <= XM_PORTS && m->speed_override[root] ? m->speed_override[root]
									: (unsigned)d->speed;

	if (speed != want)
		xm_violation(m, "slot context speed %u for a device whose port reports speed %u", speed, want);
	if (tt_slot != want_slot || tt_port != want_port)
		xm_violation(m, "TT hub slot %u port %u, expected %u/%u (4.3.3)", tt_slot, tt_port, want_slot, want_port);
}

static void ep_from_ctx(struct xhci_model *m, struct xm_ep *ep, const uint32_t *e)
{
	ep->type = (e[1] >> 3) & 7;
	ep->mps = e[1] >> 16;
	ep->burst = (e[1] >> 8) & 0xff;
	ep->deq = ((uint64_t)e[3] << 32 | e[2]) & ~0xfull;
	ep->ccs = e[2] & 1;
	ep->state = EP_RUNNING;
	if (!ep->deq)
		xm_violation(m, "endpoint context with no TR dequeue pointer");
}

static uint32_t address_device(struct xhci_model *m, unsigned slot, uint64_t in)
{
	struct xm_slot *s = &m->slot[slot];
	uint32_t *icc = ictx(m, in, 0), *sc = ictx(m, in, 1), *e0 = ictx(m, in, 2), *out;
	unsigned parent, port;
	struct xm_dev *d;

	if (icc[0] != 0 || icc[1] != 3) { /* 4.6.5: A0 and A1 only */
		xm_violation(m, "Address Device input control context drop %x add %x", icc[0], icc[1]);
		return CC_TRB;
	}
	d = route_dev(m, sc, &parent, &port);
	if (!d)
		return CC_TRANSACTION;
	check_slot_ctx(m, sc, d, parent, port);
	if (((e0[1] >> 3) & 7) != 4)
		xm_violation(m, "EP0 context type %u, not control", (e0[1] >> 3) & 7);
	s->dev = d;
	s->route = sc[0] & 0xfffff;
	s->root_port = (sc[1] >> 16) & 0xff;
	s->speed = (sc[0] >> 20) & 0xf;
	s->tt_slot = sc[2] & 0xff;
	s->tt_port = (sc[2] >> 8) & 0xff;
	s->addressed = true;
	ep_from_ctx(m, &s->ep[1], e0);
	d->address = (uint8_t)slot;
	out = octx(m, slot, 0);
	memcpy(out, sc, 16);
	out[3] = slot | 2u << 27; /* addressed */
	memcpy(octx(m, slot, 1), e0, 20);
	xm_ep_write_state(m, slot, 1);
	return CC_SUCCESS;
}

static void configure_slot_ctx(struct xhci_model *m, unsigned slot, const uint32_t *sc)
{
	struct xm_slot *s = &m->slot[slot];
	uint32_t *out = octx(m, slot, 0);

	s->entries = sc[0] >> 27;
	s->hub = sc[0] & 1u << 26;
	s->nports = sc[1] >> 24;
	if ((sc[0] & 0xfffff) != s->route || ((sc[1] >> 16) & 0xff) != s->root_port)
		xm_violation(m, "Configure Endpoint changes the slot's route or root port");
	out[0] = sc[0];
	out[1] = sc[1];
	out[2] = sc[2];
}

static uint32_t configure_ep(struct xhci_model *m, unsigned slot, uint64_t in)
{
	struct xm_slot *s = &m->slot[slot];
	uint32_t *icc = ictx(m, in, 0);

	if (!s->addressed)
		return CC_CONTEXT_STATE;
	if ((icc[0] & 3) || (icc[1] & 2) || !(icc[1] & 1)) {
		xm_violation(m, "Configure Endpoint input control drop %x add %x (A0 set, A1/D0/D1 not)", icc[0], icc[1]);
		return CC_TRB;
	}
	configure_slot_ctx(m, slot, ictx(m, in, 1));
	for (unsigned dci = 2; dci < 32; dci++) {
		if (icc[0] & 1u << dci)
			s->ep[dci].state = EP_DISABLED;
		if (!(icc[1] & 1u << dci))
			continue;
		if (dci > s->entries)
			xm_violation(m, "endpoint %u added beyond Context Entries %u", dci, s->entries);
		ep_from_ctx(m, &s->ep[dci], ictx(m, in, dci + 1));
		if ((s->ep[dci].type == 6) != (dci & 1))
			xm_violation(m, "endpoint context type %d at DCI %u (IN is odd, 4.5.1)", s->ep[dci].type, dci);
		memcpy(octx(m, slot, dci), ictx(m, in, dci + 1), 20);
		xm_ep_write_state(m, slot, dci);
	}
	return CC_SUCCESS;
}

static uint32_t evaluate(struct xhci_model *m, unsigned slot, uint64_t in)
{
	uint32_t *icc = ictx(m, in, 0);

	if (icc[0] || (icc[1] & ~3u)) {
		xm_violation(m, "Evaluate Context flags drop %x add %x", icc[0], icc[1]);
		return CC_TRB;
	}
	if (icc[1] & 2) {
		m->slot[slot].ep[1].mps = ictx(m, in, 2)[1] >> 16;
		octx(m, slot, 1)[1] = ictx(m, in, 2)[1];
	}
	return CC_SUCCESS;
}

/* Reset Endpoint (4.6.8) halted → stopped; Stop Endpoint (4.6.9) running → stopped; Set TR
 * Dequeue Pointer (4.6.10) only when stopped. */
static uint32_t ep_command(struct xhci_model *m, unsigned type, unsigned slot, unsigned dci, uint64_t param)
{
	struct xm_ep *ep = &m->slot[slot].ep[dci];

	if (dci < 1 || dci > 31 || ep->state == EP_DISABLED)
		return 12; /* endpoint not enabled */
	if (type == 14) {
		if (ep->state != EP_HALTED)
			return CC_CONTEXT_STATE;
		ep->state = EP_STOPPED;
	} else if (type == 15) {
		if (ep->state != EP_RUNNING)
			return CC_CONTEXT_STATE;
		ep->state = EP_STOPPED;
		if (ep->pending) /* 4.6.9: the TD in progress ends with a Stopped event */
			xm_event(m, ep->pending, 26u << 24, 32u << 10 | dci << 16 | slot << 24);
		ep->pending = 0;
	} else {
		if (ep->state != EP_STOPPED)
			return CC_CONTEXT_STATE;
		ep->deq = param & ~0xfull;
		ep->ccs = param & 1;
	}
	xm_ep_write_state(m, slot, dci);
	return CC_SUCCESS;
}

static uint32_t do_command(struct xhci_model *m, const uint32_t *t, uint32_t *slot_out)
{
	unsigned type = (t[3] >> 10) & 0x3f, slot = t[3] >> 24, dci = (t[3] >> 16) & 0x1f;
	uint64_t param = (uint64_t)t[1] << 32 | t[0];

	*slot_out = slot;
	if (type == 9) {
		for (unsigned s = 1; s <= m->config; s++)
			if (!m->slot[s].enabled) {
				memset(&m->slot[s], 0, sizeof(m->slot[s]));
				m->slot[s].enabled = true;
				*slot_out = s;
				return CC_SUCCESS;
			}
		return CC_NO_SLOTS;
	}
	if (slot < 1 || slot > m->config || !m->slot[slot].enabled)
		return CC_SLOT_NOT_ENABLED;
	if (type == 10) { /* 4.6.4 Disable Slot: the slot's endpoints stop, its device is forgotten */
		if (m->slot[slot].dev && m->slot[slot].dev->address == slot)
			m->slot[slot].dev->address = 0;
		memset(&m->slot[slot], 0, sizeof(m->slot[slot]));
		return CC_SUCCESS;
	}
	switch (type) {
	case 11: return address_device(m, slot, param);
	case 12: return configure_ep(m, slot, param);
	case 13: return evaluate(m, slot, param);
	case 14: case 15: case 16: return ep_command(m, type, slot, dci, param);
	default: return CC_TRB;
	}
}

void xm_commands(struct xhci_model *m)
{
	for (unsigned n = 0, links = 0; n < CMDS_PER_DOORBELL && links < 4;) {
		uint32_t t[4], cc, slot;

		memcpy(t, xm_mem(m, m->cmd_deq, 16), 16);
		if ((int)(t[3] & 1) != m->cmd_ccs)
			return;
		if (((t[3] >> 10) & 0x3f) == 6) { /* Link */
			if (m->version == 0x95 && !(t[3] & (1u << 4)))
				xm_violation(m, "0.95 host: command ring Link TRB without the chain bit");
			m->cmd_deq = ((uint64_t)t[1] << 32 | t[0]) & ~0xfull;
			if (t[3] & 2)
				m->cmd_ccs ^= 1;
			m->ring_wraps++;
			links++;
			continue;
		}
		cc = do_command(m, t, &slot);
		if (m->ncmd < XM_CMDS)
			m->cmd[m->ncmd++] = (struct xm_cmd){ .type = (t[3] >> 10) & 0x3f, .slot = slot,
							    .ep = (t[3] >> 16) & 0x1f, .cc = cc,
							    .param = (uint64_t)t[1] << 32 | t[0] };
		xm_event(m, m->cmd_deq, cc << 24, 33u << 10 | slot << 24); /* Command Completion */
		m->cmd_deq += 16;
		n++;
	}
}

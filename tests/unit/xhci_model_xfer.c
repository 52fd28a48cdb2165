/* The xHCI controller model's transfer rings (xHCI 1.2 4.11): on a doorbell the endpoint's TDs
 * are fetched by cycle bit through Link TRBs (a Link TRB inside a TD must carry the chain bit,
 * 4.11.5.1; no TRB buffer may cross a 64 KiB boundary, 6.4.1) and executed against the device:
 * control TDs (Setup, Data, Status stages, 4.11.2.2) and bulk TDs (Normal TRBs), with Transfer
 * Events for IOC, for short packets on ISP (4.10.1.1) and for stalls, which halt the endpoint
 * (4.10.2.1) with its dequeue pointer left on the failed TD. */
#include <string.h>

#include "xhci_model.h"

#define T_NORMAL 1
#define T_SETUP 2
#define T_DATA 3
#define T_STATUS 4
#define T_LINK 6
#define F_ISP (1u << 2)
#define F_CH (1u << 4)
#define F_IOC (1u << 5)
#define F_IDT (1u << 6)
#define F_DIR_IN (1u << 16)
#define CC_SUCCESS 1
#define CC_BABBLE 3
#define CC_STALL 6
#define CC_SHORT 13
#define EP_RUNNING 1
#define EP_HALTED 2
#define TD_MAX 16
#define CTRL_BUF 4096

struct trb {
	uint64_t addr;
	uint32_t d[4];
	int ccs;
};

struct td {
	struct trb t[TD_MAX];
	unsigned n;
	uint64_t next;
	int next_ccs;
};

static unsigned type_of(const struct trb *t) { return (t->d[3] >> 10) & 0x3f; }
static uint32_t len_of(const struct trb *t) { return t->d[2] & 0x1ffff; }
static uint64_t buf_of(const struct trb *t) { return (uint64_t)t->d[1] << 32 | t->d[0]; }

static bool fetch_td(struct xhci_model *m, struct xm_ep *ep, bool control, struct td *td)
{
	uint64_t deq = ep->deq;
	int ccs = ep->ccs;
	bool chained = false;

	td->n = 0;
	for (unsigned links = 0;;) {
		struct trb t = { .addr = deq, .ccs = ccs };

		memcpy(t.d, xm_mem(m, deq, 16), 16);
		if ((int)(t.d[3] & 1) != ccs) {
			if (td->n)
				xm_violation(m, "doorbell rung with a TD handed over only in part");
			return false;
		}
		if (type_of(&t) == T_LINK) {
			if (chained && !(t.d[3] & F_CH))
				xm_violation(m, "Link TRB inside a TD without the chain bit (4.11.5.1)");
			if (m->version == 0x95 && !(t.d[3] & F_CH))
				xm_violation(m, "0.95 host: Link TRB without the chain bit (Linux XHCI_LINK_TRB_QUIRK)");
			deq = buf_of(&t) & ~0xfull;
			if (t.d[3] & 2)
				ccs ^= 1;
			m->ring_wraps++;
			if (++links > 2) {
				xm_violation(m, "Link TRBs in a loop");
				return false;
			}
			continue;
		}
		if (td->n == TD_MAX) {
			xm_violation(m, "TD of more than %d TRBs", TD_MAX);
			return false;
		}
		if ((type_of(&t) == T_NORMAL || type_of(&t) == T_DATA) && len_of(&t) &&
		    (buf_of(&t) >> 16) != ((buf_of(&t) + len_of(&t) - 1) >> 16))
			xm_violation(m, "TRB buffer 0x%llx+%u crosses a 64 KiB boundary (6.4.1)",
				     (unsigned long long)buf_of(&t), len_of(&t));
		td->t[td->n++] = t;
		deq += 16;
		chained = t.d[3] & F_CH;
		if (control ? type_of(&t) == T_STATUS : !chained)
			break;
	}
	td->next = deq;
	td->next_ccs = ccs;
	return true;
}

static void xfer_event(struct xhci_model *m, unsigned slot, unsigned dci, uint64_t trb, uint32_t cc, uint32_t residual)
{
	xm_event(m, trb, cc << 24 | residual, 32u << 10 | dci << 16 | slot << 24);
}

static void halt(struct xhci_model *m, unsigned slot, unsigned dci, const struct td *td, const struct trb *at, uint32_t cc)
{
	struct xm_ep *ep = &m->slot[slot].ep[dci];

	xfer_event(m, slot, dci, at->addr, cc, len_of(at));
	ep->state = EP_HALTED;
	ep->deq = td->t[0].addr; /* 4.10.2.1: the dequeue pointer stays on the TD */
	ep->ccs = td->t[0].ccs;
	xm_ep_write_state(m, slot, dci);
}

/* Moves `n` bytes of `data` into (in) or out of the TD's data TRBs [first, last]; returns the index
 * of the TRB where an IN transfer came up short (or last + 1) and its residual. */
static unsigned scatter(struct xhci_model *m, const struct td *td, unsigned first, unsigned last, uint8_t *data,
			uint32_t n, bool in, uint32_t *residual)
{
	uint32_t done = 0;

	for (unsigned i = first; i <= last; i++) {
		uint32_t l = len_of(&td->t[i]), k = n - done < l ? n - done : l;
		uint8_t *p = xm_mem(m, buf_of(&td->t[i]), l);

		if (in)
			memcpy(p, data + done, k);
		else
			memcpy(data + done, p, k);
		done += k;
		if (k < l) {
			*residual = l - k;
			return i;
		}
	}
	*residual = 0;
	return last + 1;
}

/* Events of a completed TD whose data TRBs are [first, last] (a control TD's Status TRB follows),
 * the IN data ending short at TRB `short_at` with `residual` bytes left in it (4.10.1.1): an event
 * there if it has ISP (and, with short_two_events, a second one for the last data TRB with IOC,
 * 4.10.1.1.2); the rest of the data TRBs skipped; success events for IOC otherwise. */
static void complete(struct xhci_model *m, unsigned slot, unsigned dci, const struct td *td, unsigned first,
		     unsigned last, unsigned short_at, uint32_t residual)
{
	bool reported = false;

	for (unsigned i = first; i < td->n; i++) {
		const struct trb *t = &td->t[i];
		bool ioc = t->d[3] & F_IOC;

		if (i > last || i < short_at) {
			if (ioc)
				xfer_event(m, slot, dci, t->addr, CC_SUCCESS, 0);
		} else if (i == short_at && ((t->d[3] & F_ISP) || ioc)) {
			xfer_event(m, slot, dci, t->addr, CC_SHORT, residual);
			reported = true;
		} else if (i > short_at && ioc && (!reported || m->short_two_events)) {
			xfer_event(m, slot, dci, t->addr, CC_SHORT, len_of(t));
		}
	}
}

static bool bulk_td(struct xhci_model *m, unsigned slot, unsigned dci, struct td *td)
{
	struct xm_ep *ep = &m->slot[slot].ep[dci];
	struct xm_dev *d = m->slot[slot].dev;
	bool in = dci & 1;
	uint32_t total = 0, residual, n;
	unsigned short_at, last = td->n - 1;

	for (unsigned i = 0; i < td->n; i++) {
		total += len_of(&td->t[i]);
		if (type_of(&td->t[i]) != T_NORMAL)
			xm_violation(m, "TRB type %u on a bulk ring", type_of(&td->t[i]));
	}
	if (total > 65536)
		xm_violation(m, "bulk TD of %u bytes (more than 64 KiB)", total);
	if (!(td->t[last].d[3] & F_IOC))
		xm_violation(m, "last TRB of a bulk TD without IOC");
	if (!d->config)
		xm_violation(m, "bulk transfer before SET_CONFIGURATION");
	if (in && d->nak_in) {
		ep->pending = td->t[0].addr;
		return false; /* NAKed for ever: the TD stays */
	}
	if (m->ntd < XM_TDS)
		m->td[m->ntd++] = (struct xm_td){ slot, dci, total, td->n };
	if (in ? (d->halted_in || d->stall_next_in) : d->halted_out) {
		d->stall_next_in = false;
		if (in)
			d->halted_in = true;
		halt(m, slot, dci, td, &td->t[0], CC_STALL);
		return false;
	}
	if (in) {
		n = total < m->loop_len ? total : m->loop_len;
		short_at = scatter(m, td, 0, last, m->loop, n, true, &residual);
		memmove(m->loop, m->loop + n, m->loop_len - n);
		m->loop_len -= n;
	} else {
		if (m->loop_len + total > XM_LOOP_MAX) {
			xm_violation(m, "loopback buffer overflow");
			total = 0;
		}
		scatter(m, td, 0, last, m->loop + m->loop_len, total, false, &residual);
		m->loop_len += total;
		short_at = last + 1;
	}
	complete(m, slot, dci, td, 0, last, short_at, residual);
	ep->deq = td->next;
	ep->ccs = td->next_ccs;
	return true;
}

static void check_control_td(struct xhci_model *m, const struct td *td, const uint8_t *setup, uint16_t wlen)
{
	const struct trb *s = &td->t[0], *st = &td->t[td->n - 1];
	bool in = setup[0] & 0x80;
	unsigned trt = (s->d[3] >> 16) & 3, want = !wlen ? 0 : in ? 3 : 2;
	uint32_t data = 0;

	if (type_of(s) != T_SETUP || !(s->d[3] & F_IDT) || len_of(s) != 8)
		xm_violation(m, "control TD not opened by a Setup TRB with IDT and length 8 (6.4.1.2.1)");
	if (trt != want)
		xm_violation(m, "Setup TRB TRT %u, expected %u", trt, want);
	for (unsigned i = 1; i + 1 < td->n; i++) {
		data += len_of(&td->t[i]);
		if (i == 1 && (type_of(&td->t[i]) != T_DATA || !(td->t[i].d[3] & F_DIR_IN) != !in))
			xm_violation(m, "Data Stage TRB missing or of the wrong direction");
	}
	if (data != wlen)
		xm_violation(m, "control data TRBs of %u bytes for wLength %u", data, wlen);
	if (type_of(st) != T_STATUS || !(st->d[3] & F_IOC) || !(st->d[3] & F_DIR_IN) != (in && wlen))
		xm_violation(m, "Status Stage TRB missing, without IOC or of the wrong direction");
}

static bool control_td(struct xhci_model *m, unsigned slot, struct td *td)
{
	struct xm_ep *ep = &m->slot[slot].ep[1];
	struct xm_dev *d = m->slot[slot].dev;
	uint8_t setup[8], buf[CTRL_BUF] = { 0 };
	uint64_t p = buf_of(&td->t[0]);
	uint16_t wlen;
	uint32_t len, residual;
	unsigned mps0 = d->speed == 4 ? 1u << d->mps0 : d->mps0, short_at, last = td->n - 2;

	for (int i = 0; i < 8; i++)
		setup[i] = (uint8_t)(p >> (8 * i));
	wlen = (uint16_t)(setup[6] | setup[7] << 8);
	len = wlen;
	check_control_td(m, td, setup, wlen);
	if ((setup[0] & 0x80) && wlen > ep->mps && mps0 > ep->mps) { /* bigger packets than allowed */
		halt(m, slot, 1, td, &td->t[1], CC_BABBLE);
		return false;
	}
	if (!(setup[0] & 0x80) && wlen)
		scatter(m, td, 1, last, buf, wlen, false, &residual);
	if (wlen > CTRL_BUF || xm_dev_control(m, d, setup, buf, &len)) {
		halt(m, slot, 1, td, &td->t[td->n > 2 ? 1 : td->n - 1], CC_STALL);
		return false;
	}
	short_at = td->n - 1;
	residual = 0;
	if ((setup[0] & 0x80) && wlen)
		short_at = scatter(m, td, 1, last, buf, len, true, &residual);
	complete(m, slot, 1, td, 1, last, short_at, residual);
	ep->deq = td->next;
	ep->ccs = td->next_ccs;
	return true;
}

void xm_kick(struct xhci_model *m, unsigned slot, unsigned dci)
{
	struct xm_slot *s = &m->slot[slot];
	struct xm_ep *ep = &s->ep[dci & 31];
	struct td td;

	if (slot > XM_SLOTS || !s->enabled || dci < 1 || dci > 31 || ep->state == 0) {
		xm_violation(m, "doorbell %u target %u: no such endpoint", slot, dci);
		return;
	}
	if (ep->state == EP_HALTED)
		return; /* 4.8.3: a halted endpoint ignores its doorbell */
	ep->state = EP_RUNNING;
	ep->pending = 0;
	for (int n = 0; n < 64 && fetch_td(m, ep, dci == 1, &td); n++)
		if (!(dci == 1 ? control_td(m, slot, &td) : bulk_td(m, slot, dci, &td)))
			break;
	xm_ep_write_state(m, slot, dci);
}

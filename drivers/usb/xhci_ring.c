/* xHCI rings (xHCI 1.2 4.9): transfer and command rings of one segment closed by a Link TRB with
 * Toggle Cycle, written a TD at a time with the first TRB's cycle bit flipped last (4.11.5 "the
 * xHC may start on a TRB as soon as its cycle bit matches"); the event ring consumed by cycle bit
 * with ERDP moved on and EHB cleared (4.9.4); commands and their completion events (4.6). */
#include "drivers/usb/xhci_internal.h"

#define XHCI_LINK_INDEX (XHCI_RING_TRBS - 1)
#define XHCI_RING_BYTES (XHCI_RING_TRBS * sizeof(struct xhci_trb))
#define XHCI_RING_ALIGN 64 /* table 6-1: rings 64-byte aligned, never across 64 KiB */

/* The Link TRB's chain bit: that of the TRB before it (4.11.5.1: set inside a TD), except on a
 * 0.95 controller, whose Link TRBs always carry it (Linux XHCI_LINK_TRB_QUIRK: such controllers
 * do not follow a Link TRB without it). */
static uint32_t link_chain(const struct xhci *x, uint32_t prev_control)
{
	if (x->version == XHCI_HCIVERSION_0_95)
		return XHCI_TRB_CH;
	return prev_control & XHCI_TRB_CH;
}

bool xhci_ring_alloc(struct xhci *x, struct xhci_ring *r)
{
	struct xhci_trb *link;

	r->trb = usb_dma_alloc(x->dma, XHCI_RING_BYTES, XHCI_RING_ALIGN, XHCI_TRB_MAX_BYTES);
	if (!r->trb)
		return false;
	r->bus = usb_dma_bus(x->dma, r->trb);
	r->enq = 0;
	r->cycle = 1; /* 4.9.2: the producer cycle state starts at 1, the zeroed TRBs are not yet valid */
	link = &r->trb[XHCI_LINK_INDEX];
	link->param = r->bus;
	link->control = XHCI_TRB_TYPE(XHCI_TRB_LINK) | XHCI_TRB_TC | link_chain(x, 0);
	xhci_to_dev(x, r->trb, XHCI_RING_BYTES);
	return true;
}

uint64_t xhci_ring_enq_bus(const struct xhci_ring *r)
{
	return (r->bus + r->enq * sizeof(struct xhci_trb)) | r->cycle;
}

void xhci_td_begin(struct xhci_td *td, struct xhci_ring *r)
{
	td->ring = r;
	td->n = 0;
	td->first = r->enq;
	td->first_cycle = r->cycle;
}

void xhci_td_put(struct xhci *x, struct xhci_td *td, uint64_t param, uint32_t status, uint32_t control,
		 uint32_t data_len)
{
	struct xhci_ring *r = td->ring;
	struct xhci_trb *t = &r->trb[r->enq];
	/* The TD's first TRB keeps the controller's cycle value until xhci_td_commit. */
	uint32_t cycle = td->n == 0 ? r->cycle ^ 1u : r->cycle;

	t->param = param;
	t->status = status;
	t->control = (control & ~XHCI_TRB_CYCLE) | cycle;
	if (td->n < XHCI_TD_TRBS) {
		td->bus[td->n] = r->bus + r->enq * sizeof(struct xhci_trb);
		td->len[td->n] = data_len;
		td->n++;
	}
	if (++r->enq == XHCI_LINK_INDEX) {
		/* 4.11.5.1: a Link TRB inside a TD carries the chain bit; handed over, then the cycle toggles. */
		r->trb[XHCI_LINK_INDEX].control = XHCI_TRB_TYPE(XHCI_TRB_LINK) | XHCI_TRB_TC |
						  link_chain(x, control) | r->cycle;
		r->cycle ^= 1u;
		r->enq = 0;
	}
}

void xhci_td_commit(struct xhci *x, struct xhci_td *td)
{
	struct xhci_ring *r = td->ring;
	volatile uint32_t *first = &r->trb[td->first].control;

	xhci_fence(); /* every other TRB of the TD is in memory before the first becomes valid */
	*first = (*first & ~XHCI_TRB_CYCLE) | td->first_cycle;
	xhci_to_dev(x, r->trb, XHCI_RING_BYTES);
	xhci_fence();
}

void xhci_doorbell(struct xhci *x, unsigned slot, unsigned target)
{
	xhci_fence(); /* 4.7: the TRBs are visible before the doorbell rings */
	xhci_wr(x, x->db + 4u * slot, target);
}

bool xhci_event_next(struct xhci *x, struct xhci_event *ev)
{
	struct xhci_trb *t = &x->evt[x->evt_deq];
	volatile struct xhci_trb *vt = t;
	uint32_t control, status;

	xhci_from_dev(x, t, sizeof(*t));
	control = vt->control;
	if ((control & XHCI_TRB_CYCLE) != x->evt_cycle)
		return false;
	xhci_fence(); /* the rest of the TRB is read after its cycle bit */
	status = vt->status;
	*ev = (struct xhci_event){
		.type = XHCI_TRB_GET_TYPE(control),
		.cc = status >> XHCI_EVT_CC_SHIFT,
		.residual = status & XHCI_EVT_LEN_MASK,
		.slot = control >> XHCI_TRB_SLOT_SHIFT,
		.dci = (control >> XHCI_TRB_EP_SHIFT) & 0x1fu,
		.trb = vt->param,
	};
	if (++x->evt_deq == XHCI_EVENT_TRBS) {
		x->evt_deq = 0;
		x->evt_cycle ^= 1u;
	}
	/* 4.9.4: tell the controller how far we are; EHB is write-1-to-clear. */
	xhci_wr64(x, x->rt + XHCI_RT_IR0 + XHCI_IR_ERDP_LO,
		  (x->evt_bus + x->evt_deq * sizeof(struct xhci_trb)) | XHCI_ERDP_EHB);
	return true;
}

/* A command that never completes: abort the command ring (4.6.1.2) and give the controller up. */
static int command_timeout(struct xhci *x, uint32_t control)
{
	uint32_t sts = xhci_rd(x, x->op + XHCI_OP_USBSTS);

	xhci_wr64(x, x->op + XHCI_OP_CRCR_LO, XHCI_CRCR_CA);
	xhci_wait32(x, x->op + XHCI_OP_CRCR_LO, XHCI_CRCR_CRR, 0, XHCI_HALT_US);
	x->dead = true;
	if (sts & (XHCI_STS_HSE | XHCI_STS_HCE))
		xhci_fail_n(x, "xHCI host controller error (USBSTS) during command", XHCI_TRB_GET_TYPE(control));
	else
		xhci_fail_n(x, "xHCI command timed out: TRB type", XHCI_TRB_GET_TYPE(control));
	return -1;
}

int xhci_command(struct xhci *x, uint64_t param, uint32_t status, uint32_t control, uint8_t *slot)
{
	struct xhci_td td;
	struct xhci_event ev;

	if (x->dead)
		return -1;
	xhci_td_begin(&td, &x->cmd);
	xhci_td_put(x, &td, param, status, control, 0);
	xhci_td_commit(x, &td);
	xhci_doorbell(x, 0, 0);
	for (uint32_t t = 0, step;; t += step) {
		/* At most a ring's worth per round: even a confused cycle state cannot keep us here. */
		for (unsigned n = 0; n < XHCI_EVENT_TRBS && xhci_event_next(x, &ev); n++) {
			/* Other events (port changes, a late transfer event of an abandoned TD) are not ours. */
			if (ev.type == XHCI_TRB_EV_CMD_DONE && ev.trb == td.bus[0]) {
				if (slot)
					*slot = (uint8_t)ev.slot;
				return (int)ev.cc;
			}
		}
		if (t >= XHCI_CMD_US)
			return command_timeout(x, control);
		step = xhci_poll_step(t);
		xhci_delay(x, step);
	}
}

int xhci_command_ok(struct xhci *x, const char *what, uint64_t param, uint32_t control)
{
	int cc = xhci_command(x, param, 0, control, 0);

	if (cc < 0)
		return USB_XFER_ERROR;
	if (cc != XHCI_CC_SUCCESS)
		return xhci_fail_cc(x, what, (uint32_t)cc);
	return 0;
}

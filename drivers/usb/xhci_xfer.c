/* xHCI transfers (xHCI 1.2 4.11): control requests on the default endpoint (Setup, Data, Status
 * stage TRBs), bulk transfers as Normal TRBs chained within a TD, none crossing a 64 KiB boundary
 * (6.4.1), TDs of at most 64 KiB; completion by Transfer Event (4.11.3, short packets 4.10.1.1),
 * and the recovery of a halted, failed or hung endpoint (4.6.8 Reset Endpoint, 4.6.9 Stop
 * Endpoint, 4.6.10 Set TR Dequeue Pointer, 4.6.6 Configure Endpoint). */
#include "drivers/usb/usb_std.h"
#include "drivers/usb/xhci_internal.h"

#define XHCI_TD_MAX_BYTES 0x10000u /* one TD moves at most 64 KiB */
#define XHCI_TD_TIMEOUT (-100)     /* td_wait: no completion in time */
#define XHCI_EP_STATE_RUNNING 1
#define XHCI_EP_STATE_HALTED 2

/* 4.11.2.4 TD Size: packets left after this TRB (1.0 and later), or bytes left >> 10 (0.96). */
static uint32_t td_size(const struct xhci *x, uint32_t total, uint32_t done, uint32_t piece, uint16_t mps, bool last)
{
	uint32_t v;

	if (x->version < XHCI_HCIVERSION_1_0)
		v = (total - done) >> 10;
	else if (last || !mps)
		v = 0;
	else
		v = (total + mps - 1) / mps - (done + piece) / mps;
	return (v > XHCI_TRB_TD_SIZE_MAX ? XHCI_TRB_TD_SIZE_MAX : v) << XHCI_TRB_TD_SIZE_SHIFT;
}

/* The data TRBs of [bus, bus + len): the first of `type` (Normal, or Data Stage with its
 * direction), further pieces Normal TRBs at each 64 KiB boundary, chained; ISP on each so a short
 * packet reports where it happened; `last_flags` on the last (IOC or chain to the Status stage). */
static void put_data(struct xhci *x, struct xhci_td *td, uint32_t type, uint32_t dir, uint64_t bus,
		     uint32_t len, uint16_t mps, uint32_t last_flags)
{
	uint32_t done = 0;

	do {
		uint64_t a = bus + done;
		uint32_t room = XHCI_TRB_MAX_BYTES - (uint32_t)(a & (XHCI_TRB_MAX_BYTES - 1));
		uint32_t piece = len - done < room ? len - done : room;
		bool last = done + piece == len;
		uint32_t ctl = XHCI_TRB_TYPE(type) | dir | XHCI_TRB_ISP | (last ? last_flags : XHCI_TRB_CH);

		xhci_td_put(x, td, a, piece | td_size(x, len, done, piece, mps, last), ctl, piece);
		done += piece;
		type = XHCI_TRB_NORMAL;
		dir = 0;
	} while (done < len);
}

static int td_index(const struct xhci_td *td, uint64_t trb)
{
	for (unsigned i = 0; i < td->n; i++)
		if (td->bus[i] == trb)
			return (int)i;
	return -1;
}

/* Waits for the TD's completion: returns its completion code (success for a short IN transfer
 * too: *actual says how much), or XHCI_TD_TIMEOUT. A short packet before the last TRB ends a bulk
 * TD at once (QEMU posts only that event; a controller following 4.10.1.1.2 posts a second one
 * for the last TRB, which a later wait drops as not its own); a control TD goes on to its Status
 * stage event. */
static int td_wait(struct xhci *x, unsigned slot, unsigned dci, const struct xhci_td *td, bool control,
		   uint32_t *actual)
{
	struct xhci_event ev;
	bool short_seen = false;
	uint32_t limit = control ? XHCI_CTRL_US : x->bulk_timeout_us ? x->bulk_timeout_us : XHCI_XFER_US;

	*actual = 0;
	for (uint32_t t = 0, step;; t += step) {
		for (unsigned n = 0; n < XHCI_EVENT_TRBS && xhci_event_next(x, &ev); n++) {
			int i = ev.type == XHCI_TRB_EV_TRANSFER && ev.slot == slot && ev.dci == dci ?
					td_index(td, ev.trb) : -1;
			uint32_t before = 0, here;

			if (i < 0)
				continue; /* a port change, or a late event of an earlier TD */
			for (int k = 0; k < i; k++)
				before += td->len[k];
			here = td->len[i] > ev.residual ? td->len[i] - ev.residual : 0;
			if (ev.cc != XHCI_CC_SUCCESS && ev.cc != XHCI_CC_SHORT_PACKET) {
				*actual = before + here;
				return (int)ev.cc;
			}
			if (!short_seen)
				*actual = before + here;
			if (ev.cc == XHCI_CC_SHORT_PACKET)
				short_seen = true;
			if (i == (int)td->n - 1 || (short_seen && !control))
				return XHCI_CC_SUCCESS;
		}
		if (t >= limit)
			return XHCI_TD_TIMEOUT;
		step = xhci_poll_step(t);
		xhci_delay(x, step);
	}
}

static uint32_t ep_state(struct xhci *x, struct xhci_dev *d, unsigned dci)
{
	uint32_t *ctx = xhci_ctx(x, d->out_ctx, dci);

	xhci_from_dev(x, ctx, x->ctx_size);
	return ((volatile uint32_t *)ctx)[0] & XHCI_EP_STATE_MASK;
}

/* Puts the controller's side of an endpoint back in service past the failed or abandoned TD, by
 * the state the controller left in the output context (6.2.3): halted → Reset Endpoint, running
 * (a hung TD) → Stop Endpoint; then Set TR Dequeue Pointer to the ring's enqueue position. */
static int ring_recover(struct xhci *x, struct xhci_dev *d, unsigned dci, struct xhci_ring *r)
{
	uint32_t sel = (uint32_t)d->slot << XHCI_TRB_SLOT_SHIFT | dci << XHCI_TRB_EP_SHIFT;
	uint32_t state = ep_state(x, d, dci);
	int rc = 0;

	if (state == XHCI_EP_STATE_HALTED)
		rc = xhci_command_ok(x, "Reset Endpoint failed", 0, XHCI_TRB_TYPE(XHCI_TRB_RESET_EP) | sel);
	else if (state == XHCI_EP_STATE_RUNNING)
		rc = xhci_command_ok(x, "Stop Endpoint failed", 0, XHCI_TRB_TYPE(XHCI_TRB_STOP_EP) | sel);
	if (rc)
		return rc;
	return xhci_command_ok(x, "Set TR Dequeue Pointer failed", xhci_ring_enq_bus(r),
			       XHCI_TRB_TYPE(XHCI_TRB_SET_TR_DEQ) | sel);
}

/* The TD's outcome as a result code: 0, USB_XFER_STALL or USB_XFER_ERROR. A stalled bulk
 * endpoint stays halted for xhci_clear_halt (the device's side needs CLEAR_FEATURE too); any
 * other failure is recovered on the controller's side here (4.10.2: stall, babble and transaction
 * errors halt an endpoint; EP0's stall is cleared on the device by the next SETUP). */
static int td_result(struct xhci *x, struct xhci_dev *d, unsigned dci, struct xhci_ring *r, int cc,
		     const char *what)
{
	if (cc == XHCI_CC_SUCCESS)
		return 0;
	if (cc == XHCI_TD_TIMEOUT && dci == XHCI_DCI_EP0)
		xhci_fail_n(x, "control request timed out: no completion event in ms", XHCI_CTRL_US / 1000);
	else if (cc == XHCI_TD_TIMEOUT)
		xhci_fail_n(x, "bulk transfer timed out: no completion event in ms",
			    (x->bulk_timeout_us ? x->bulk_timeout_us : XHCI_XFER_US) / 1000);
	else
		xhci_fail_cc(x, what, (uint32_t)cc);
	if (cc == XHCI_CC_STALL && dci != XHCI_DCI_EP0)
		return USB_XFER_STALL;
	if (ring_recover(x, d, dci, r))
		return USB_XFER_ERROR;
	return cc == XHCI_CC_STALL ? USB_XFER_STALL : USB_XFER_ERROR;
}

int xhci_ctrl(struct xhci *x, struct xhci_dev *d, uint8_t type, uint8_t req, uint16_t value,
	      uint16_t index, void *buf, uint16_t len)
{
	bool in = type & USB_DIR_IN;
	uint64_t setup = type | (uint32_t)req << 8 | (uint32_t)value << 16 | (uint64_t)index << 32 |
			 (uint64_t)len << 48;
	uint32_t trt = !len ? XHCI_TRT_NO_DATA : in ? XHCI_TRT_IN : XHCI_TRT_OUT;
	struct xhci_td td;
	uint32_t got;
	int cc;

	if (len && !buf)
		return xhci_fail(x, "control request with data but no buffer");
	if (len)
		xhci_to_dev(x, buf, len);
	xhci_td_begin(&td, &d->ep0);
	/* 6.4.1.2: Setup Stage with the 8 request bytes as immediate data, TRT the data direction. */
	xhci_td_put(x, &td, setup, XHCI_SETUP_LEN,
		    XHCI_TRB_TYPE(XHCI_TRB_SETUP) | XHCI_TRB_IDT | trt << XHCI_TRB_TRT_SHIFT, 0);
	if (len)
		put_data(x, &td, XHCI_TRB_DATA, in ? XHCI_TRB_DIR_IN : 0, usb_dma_bus(x->dma, buf), len,
			 d->ep0_mps, 0);
	/* Status Stage: the direction opposite the data stage, IN when there is none (USB 2.0 8.5.3). */
	xhci_td_put(x, &td, 0, 0,
		    XHCI_TRB_TYPE(XHCI_TRB_STATUS) | XHCI_TRB_IOC | (in && len ? 0 : XHCI_TRB_DIR_IN), 0);
	xhci_td_commit(x, &td);
	xhci_doorbell(x, d->slot, XHCI_DCI_EP0);
	cc = td_wait(x, d->slot, XHCI_DCI_EP0, &td, true, &got);
	if (in && len)
		xhci_from_dev(x, buf, len);
	d->last_len = (uint16_t)got;
	return td_result(x, d, XHCI_DCI_EP0, &d->ep0, cc, "control request failed");
}

int xhci_control(struct xhci *x, struct xhci_dev *d, uint8_t type, uint8_t req, uint16_t value,
		 uint16_t index, void *buf, uint16_t len)
{
	if (!x->running || x->dead || !d->slot)
		return xhci_fail(x, "control request: controller or device not ready");
	return xhci_ctrl(x, d, type, req, value, index, buf, len);
}

/* One TD of at most 64 KiB on a bulk endpoint. */
static int bulk_td(struct xhci *x, struct xhci_dev *d, struct xhci_ep *ep, uint64_t bus, uint32_t len,
		   uint32_t *got)
{
	struct xhci_td td;
	int cc;

	xhci_td_begin(&td, &ep->ring);
	put_data(x, &td, XHCI_TRB_NORMAL, 0, bus, len, ep->mps, XHCI_TRB_IOC);
	xhci_td_commit(x, &td);
	xhci_doorbell(x, d->slot, ep->dci);
	cc = td_wait(x, d->slot, ep->dci, &td, false, got);
	return td_result(x, d, ep->dci, &ep->ring, cc,
			 (ep->addr & USB_EP_ADDR_IN) ? "bulk IN transfer failed" : "bulk OUT transfer failed");
}

void xhci_set_bulk_timeout(struct xhci *x, uint32_t us)
{
	x->bulk_timeout_us = us;
}

int xhci_bulk(struct xhci *x, struct xhci_dev *d, bool in, void *buf, uint32_t len, uint32_t *actual)
{
	struct xhci_ep *ep = in ? &d->bulk_in : &d->bulk_out;
	uint64_t bus;
	uint32_t done = 0, got = 0;
	int rc = 0;

	if (actual)
		*actual = 0;
	if (!x->running || x->dead || !d->slot || !ep->dci)
		return xhci_fail(x, "bulk transfer: controller or endpoint not ready");
	if (len && !buf)
		return xhci_fail(x, "bulk transfer with no buffer");
	bus = len ? usb_dma_bus(x->dma, buf) : 0;
	/* Clean before either direction: no dirty line may be written back over the device's data. */
	xhci_to_dev(x, buf, len);
	do {
		uint32_t chunk = len - done < XHCI_TD_MAX_BYTES ? len - done : XHCI_TD_MAX_BYTES;

		rc = bulk_td(x, d, ep, bus + done, chunk, &got);
		done += got;
		if (rc || got < chunk)
			break; /* an IN transfer ends with its short packet */
	} while (done < len);
	if (in)
		xhci_from_dev(x, buf, len);
	if (actual)
		*actual = done;
	return rc;
}

/* 4.6.6: an endpoint that is not halted gets its host-side data toggle / sequence reset by
 * dropping and adding it again (what CLEAR_FEATURE does on the device's side). */
static int ep_reinit(struct xhci *x, struct xhci_dev *d, struct xhci_ep *ep)
{
	uint32_t *icc = xhci_ctx(x, d->in_ctx, 0);
	uint32_t *in_ep = xhci_ctx(x, d->in_ctx, ep->dci + 1u);
	uint64_t deq = xhci_ring_enq_bus(&ep->ring);

	if (ep_state(x, d, ep->dci) == XHCI_EP_STATE_RUNNING &&
	    xhci_command_ok(x, "Stop Endpoint failed", 0, XHCI_TRB_TYPE(XHCI_TRB_STOP_EP) |
			    (uint32_t)d->slot << XHCI_TRB_SLOT_SHIFT | (uint32_t)ep->dci << XHCI_TRB_EP_SHIFT))
		return USB_XFER_ERROR;
	icc[XHCI_ICC_DROP] = XHCI_ADD_EP(ep->dci);
	icc[XHCI_ICC_ADD] = XHCI_ADD_SLOT | XHCI_ADD_EP(ep->dci);
	/* The input slot and endpoint contexts are still those of xhci_open_msc's Configure Endpoint. */
	in_ep[2] = (uint32_t)deq;
	in_ep[3] = (uint32_t)(deq >> 32);
	xhci_to_dev(x, d->in_ctx, (XHCI_DCI(15, 1) + 2u) * x->ctx_size);
	return xhci_command_ok(x, "Configure Endpoint (endpoint reset) failed", usb_dma_bus(x->dma, d->in_ctx),
			       XHCI_TRB_TYPE(XHCI_TRB_CONFIGURE_EP) | (uint32_t)d->slot << XHCI_TRB_SLOT_SHIFT);
}

int xhci_clear_halt(struct xhci *x, struct xhci_dev *d, bool in)
{
	struct xhci_ep *ep = in ? &d->bulk_in : &d->bulk_out;
	int rc;

	if (!x->running || x->dead || !d->slot || !ep->dci)
		return xhci_fail(x, "clear halt: controller or endpoint not ready");
	if (ep_state(x, d, ep->dci) == XHCI_EP_STATE_HALTED)
		rc = ring_recover(x, d, ep->dci, &ep->ring);
	else
		rc = ep_reinit(x, d, ep);
	if (rc)
		return rc;
	rc = xhci_ctrl(x, d, USB_DIR_OUT | USB_TYPE_STANDARD | USB_RECIP_ENDPOINT, USB_REQ_CLEAR_FEATURE,
		       USB_FEATURE_ENDPOINT_HALT, ep->addr, 0, 0);
	return rc ? USB_XFER_ERROR : 0;
}

/* xHCI device set-up (xHCI 1.2 4.3 "USB Device Initialization"): Enable Slot, the input context
 * (slot context with route string, speed, root port and transaction translator; EP0 context) and
 * Address Device; the device and configuration descriptors (EP0's max packet fixed up by Evaluate
 * Context, 4.6.7); the bulk-only mass-storage interface and its endpoints, Configure Endpoint
 * (4.3.5) then SET_CONFIGURATION. xhci_open.c strings these together along a port path. */
#include <string.h>

#include "drivers/usb/usb_std.h"
#include "drivers/usb/xhci_internal.h"
#include "lib/le.h"

#define XHCI_CTX_ALIGN 64
#define XHCI_CTXS 32              /* slot + 31 endpoint contexts (input: + the control context) */
#define XHCI_SET_ADDRESS_US 2000  /* USB 2.0 9.2.6.3: 2 ms after SET_ADDRESS */
#define USB_MPS0_DEFAULT_LS_FS 8
#define USB_MPS0_HS 64
#define USB_MPS0_SS 512

static size_t in_ctx_bytes(const struct xhci *x)
{
	return (XHCI_CTXS + 1u) * x->ctx_size;
}

/* 6.2.2: the slot context of d with `entries` context entries (the highest DCI in use). */
void xhci_fill_slot(struct xhci *x, struct xhci_dev *d, unsigned entries)
{
	uint32_t *s = xhci_ctx(x, d->in_ctx, 1);
	uint32_t speed = d->psiv ? d->psiv : (uint32_t)d->speed + XHCI_PSI_FULL;

	memset(s, 0, x->ctx_size);
	s[0] = (d->route & XHCI_SLOT_ROUTE_MASK) | speed << XHCI_SLOT_SPEED_SHIFT |
	       (uint32_t)entries << XHCI_SLOT_ENTRIES_SHIFT;
	s[1] = (uint32_t)d->root_port << XHCI_SLOT_ROOT_PORT_SHIFT;
	s[2] = d->tt_slot | (uint32_t)d->tt_port << XHCI_SLOT_TT_PORT_SHIFT;
}

/* 6.2.3: an endpoint context in the input context, its ring's dequeue pointer and cycle. */
static void fill_ep(struct xhci *x, struct xhci_dev *d, unsigned dci, uint32_t type, uint16_t mps,
		    uint8_t burst, uint16_t avg, const struct xhci_ring *r)
{
	uint32_t *e = xhci_ctx(x, d->in_ctx, dci + 1u);
	uint64_t deq = r->bus | XHCI_EP_DCS;

	memset(e, 0, x->ctx_size);
	e[1] = XHCI_EP_CERR_MAX << XHCI_EP_CERR_SHIFT | type << XHCI_EP_TYPE_SHIFT |
	       (uint32_t)burst << XHCI_EP_BURST_SHIFT | (uint32_t)mps << XHCI_EP_MPS_SHIFT;
	e[2] = (uint32_t)deq;
	e[3] = (uint32_t)(deq >> 32);
	e[4] = avg;
}

int xhci_input_command(struct xhci *x, struct xhci_dev *d, uint32_t add, uint32_t type, const char *what)
{
	uint32_t *icc = xhci_ctx(x, d->in_ctx, 0);

	icc[XHCI_ICC_DROP] = 0;
	icc[XHCI_ICC_ADD] = add;
	xhci_to_dev(x, d->in_ctx, in_ctx_bytes(x));
	return xhci_command_ok(x, what, usb_dma_bus(x->dma, d->in_ctx),
			       XHCI_TRB_TYPE(type) | (uint32_t)d->slot << XHCI_TRB_SLOT_SHIFT);
}

/* 4.3.2, 4.3.3: a slot for d, its contexts and EP0 ring, and Address Device (BSR = 0, so the
 * controller sends SET_ADDRESS). d's speed, root port, route and TT fields are set by the caller. */
int xhci_dev_address(struct xhci *x, struct xhci_dev *d, unsigned slot_type)
{
	int cc;

	cc = xhci_command(x, 0, 0, XHCI_TRB_TYPE(XHCI_TRB_ENABLE_SLOT) | slot_type << XHCI_TRB_SLOT_TYPE_SHIFT,
			  &d->slot);
	if (cc < 0)
		return USB_XFER_ERROR;
	if (cc != XHCI_CC_SUCCESS)
		return xhci_fail_cc(x, "Enable Slot failed", (uint32_t)cc);
	if (d->slot < 1 || d->slot > x->slots)
		return xhci_fail_n(x, "Enable Slot returned a slot id out of range:", d->slot);
	d->out_ctx = usb_dma_alloc(x->dma, XHCI_CTXS * x->ctx_size, XHCI_CTX_ALIGN, x->page_size);
	d->in_ctx = usb_dma_alloc(x->dma, in_ctx_bytes(x), XHCI_CTX_ALIGN, x->page_size);
	if (!d->out_ctx || !d->in_ctx || !xhci_ring_alloc(x, &d->ep0))
		return xhci_fail(x, "DMA region too small for a device's contexts");
	xhci_to_dev(x, d->out_ctx, XHCI_CTXS * x->ctx_size);
	x->dcbaa[d->slot] = usb_dma_bus(x->dma, d->out_ctx);
	xhci_to_dev(x, &x->dcbaa[d->slot], sizeof(uint64_t));
	/* 4.3.3: EP0's max packet from the speed; full speed is fixed up from the descriptor. */
	d->ep0_mps = d->speed >= USB_SPEED_SUPER ? USB_MPS0_SS : d->speed == USB_SPEED_HIGH ? USB_MPS0_HS :
										 USB_MPS0_DEFAULT_LS_FS;
	xhci_fill_slot(x, d, XHCI_DCI_EP0);
	fill_ep(x, d, XHCI_DCI_EP0, XHCI_EP_TYPE_CONTROL, d->ep0_mps, 0, XHCI_AVG_TRB_CONTROL, &d->ep0);
	if (xhci_input_command(x, d, XHCI_ADD_SLOT | XHCI_ADD_EP(XHCI_DCI_EP0), XHCI_TRB_ADDRESS_DEVICE,
			  "Address Device failed"))
		return USB_XFER_ERROR;
	xhci_delay(x, XHCI_SET_ADDRESS_US);
	return 0;
}

void xhci_dev_release(struct xhci *x, struct xhci_dev *d, size_t mark)
{
	if (d->slot && !x->dead) {
		char why[XHCI_ERR_LEN];

		/* Failing, it leaves the slot taken (MaxSlotsEn bounds the cost) and the reason before it. */
		memcpy(why, x->err, sizeof(why));
		if (xhci_command_ok(x, "Disable Slot failed", 0,
				      XHCI_TRB_TYPE(XHCI_TRB_DISABLE_SLOT) | (uint32_t)d->slot << XHCI_TRB_SLOT_SHIFT))
			memcpy(x->err, why, sizeof(why));
		x->dcbaa[d->slot] = 0;
		xhci_to_dev(x, &x->dcbaa[d->slot], sizeof(uint64_t));
	}
	memset(d, 0, sizeof(*d));
	if (mark <= x->dma->used)
		x->dma->used = mark;
}

static int get_desc(struct xhci *x, struct xhci_dev *d, uint8_t dt, uint16_t len)
{
	return xhci_ctrl(x, d, USB_DIR_IN | USB_TYPE_STANDARD | USB_RECIP_DEVICE, USB_REQ_GET_DESCRIPTOR,
			 (uint16_t)(dt << 8), 0, x->desc, len);
}

/* Device descriptor (EP0's max packet first, 8 bytes being safe at every size), then the first
 * configuration descriptor, left in x->desc with its length in *cfg_len. */
int xhci_dev_descriptors(struct xhci *x, struct xhci_dev *d, uint16_t *cfg_len)
{
	uint16_t total;

	if (get_desc(x, d, USB_DT_DEVICE, USB_DEV_MPS0 + 1))
		return xhci_fail(x, "GET_DESCRIPTOR(device) failed");
	if (d->speed == USB_SPEED_FULL && x->desc[USB_DEV_MPS0] != d->ep0_mps) {
		uint8_t mps = x->desc[USB_DEV_MPS0];

		if (mps != 8 && mps != 16 && mps != 32 && mps != 64)
			return xhci_fail_n(x, "device descriptor has an invalid bMaxPacketSize0:", mps);
		d->ep0_mps = mps;
		fill_ep(x, d, XHCI_DCI_EP0, XHCI_EP_TYPE_CONTROL, d->ep0_mps, 0, XHCI_AVG_TRB_CONTROL, &d->ep0);
		if (xhci_input_command(x, d, XHCI_ADD_EP(XHCI_DCI_EP0), XHCI_TRB_EVALUATE_CTX, "Evaluate Context failed"))
			return USB_XFER_ERROR;
	}
	if (get_desc(x, d, USB_DT_DEVICE, USB_DEV_DESC_SIZE) || d->last_len < USB_DEV_DESC_SIZE)
		return xhci_fail(x, "GET_DESCRIPTOR(device) failed or short");
	d->dev_class = x->desc[USB_DEV_CLASS];
	if (get_desc(x, d, USB_DT_CONFIG, USB_CFG_DESC_SIZE) || d->last_len < USB_CFG_DESC_SIZE)
		return xhci_fail(x, "GET_DESCRIPTOR(configuration) failed or short");
	total = rd16(x->desc + USB_CFG_TOTAL_LEN);
	if (total < USB_CFG_DESC_SIZE)
		return xhci_fail(x, "configuration descriptor with a bad wTotalLength");
	if (total > XHCI_DESC_BUF)
		total = XHCI_DESC_BUF; /* the interfaces we look for come first in any stick seen */
	if (get_desc(x, d, USB_DT_CONFIG, total))
		return xhci_fail(x, "GET_DESCRIPTOR(configuration) failed");
	*cfg_len = d->last_len;
	d->config = x->desc[USB_CFG_VALUE];
	return 0;
}

static void take_endpoint(struct xhci_dev *d, const uint8_t *e, struct xhci_ep **last)
{
	bool in = e[USB_EP_ADDR] & USB_EP_ADDR_IN;
	struct xhci_ep *ep = in ? &d->bulk_in : &d->bulk_out;

	*last = 0;
	if ((e[USB_EP_ATTR] & USB_EP_XFER_MASK) != USB_EP_XFER_BULK || ep->dci)
		return;
	ep->addr = e[USB_EP_ADDR];
	ep->dci = XHCI_DCI(e[USB_EP_ADDR] & USB_EP_NUM_MASK, in);
	ep->mps = rd16(e + USB_EP_MPS) & USB_EP_MPS_MASK;
	*last = ep;
}

/* The first bulk-only mass-storage interface (alternate setting 0) and its bulk endpoints, with
 * the SuperSpeed companion's bMaxBurst; 0 when found. */
static int find_msc(struct xhci *x, struct xhci_dev *d, uint16_t len)
{
	const uint8_t *p = x->desc;
	struct xhci_ep *last = 0;
	bool inside = false;

	for (uint16_t off = 0; off + 2u <= len && p[off] >= 2 && off + p[off] <= len; off += p[off]) {
		const uint8_t *e = p + off;

		if (e[USB_DESC_TYPE] == USB_DT_INTERFACE && e[USB_DESC_LEN] >= 9) {
			if (inside)
				break;
			inside = e[USB_IF_ALT] == 0 && e[USB_IF_CLASS] == USB_CLASS_MASS_STORAGE &&
				 e[USB_IF_SUBCLASS] == USB_MSC_SUBCLASS_SCSI && e[USB_IF_PROTOCOL] == USB_MSC_PROTO_BULK_ONLY;
			d->iface = e[USB_IF_NUMBER];
		} else if (inside && e[USB_DESC_TYPE] == USB_DT_ENDPOINT && e[USB_DESC_LEN] >= 7) {
			take_endpoint(d, e, &last);
		} else if (inside && e[USB_DESC_TYPE] == USB_DT_SS_EP_COMPANION && last && e[USB_DESC_LEN] >= 6) {
			last->burst = e[USB_SSC_MAX_BURST];
		}
	}
	if (!d->bulk_in.dci || !d->bulk_out.dci || !d->bulk_in.mps || !d->bulk_out.mps)
		return xhci_fail(x, "no bulk-only mass-storage interface with bulk IN and OUT endpoints");
	return 0;
}

/* 4.3.5: Configure Endpoint with the two bulk endpoints, then SET_CONFIGURATION. */
int xhci_dev_configure_msc(struct xhci *x, struct xhci_dev *d, uint16_t cfg_len)
{
	struct xhci_ep *in = &d->bulk_in, *out = &d->bulk_out;
	unsigned entries;

	if (find_msc(x, d, cfg_len))
		return USB_XFER_ERROR;
	entries = in->dci > out->dci ? in->dci : out->dci;
	if (!xhci_ring_alloc(x, &in->ring) || !xhci_ring_alloc(x, &out->ring))
		return xhci_fail(x, "DMA region too small for the bulk rings");
	xhci_fill_slot(x, d, entries);
	fill_ep(x, d, in->dci, XHCI_EP_TYPE_BULK_IN, in->mps, in->burst, XHCI_AVG_TRB_BULK, &in->ring);
	fill_ep(x, d, out->dci, XHCI_EP_TYPE_BULK_OUT, out->mps, out->burst, XHCI_AVG_TRB_BULK, &out->ring);
	if (xhci_input_command(x, d, XHCI_ADD_SLOT | XHCI_ADD_EP(in->dci) | XHCI_ADD_EP(out->dci),
			  XHCI_TRB_CONFIGURE_EP, "Configure Endpoint failed"))
		return USB_XFER_ERROR;
	if (xhci_ctrl(x, d, USB_DIR_OUT | USB_TYPE_STANDARD | USB_RECIP_DEVICE, USB_REQ_SET_CONFIGURATION,
		      d->config, 0, 0, 0))
		return xhci_fail(x, "SET_CONFIGURATION failed");
	return 0;
}

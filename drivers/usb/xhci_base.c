/* xHCI driver base: register and DMA-sync access through the usb_io table, bounded register
 * waits, the failure text, and context addressing; every other xhci_*.c unit builds on it (and it on
 * none of them). */
#include "drivers/usb/xhci_internal.h"
#include "lib/fmt.h"

uint32_t xhci_rd(const struct xhci *x, uint64_t addr)
{
	return x->io->read32(x->io->ctx, addr);
}

void xhci_wr(const struct xhci *x, uint64_t addr, uint32_t v)
{
	x->io->write32(x->io->ctx, addr, v);
}

void xhci_wr64(const struct xhci *x, uint64_t addr, uint64_t v)
{
	xhci_wr(x, addr, (uint32_t)v);
	xhci_wr(x, addr + 4, (uint32_t)(v >> 32));
}

void xhci_delay(const struct xhci *x, uint32_t us)
{
	x->io->delay_us(x->io->ctx, us);
}

uint32_t xhci_poll_step(uint32_t waited_us)
{
	return waited_us < XHCI_POLL_FAST_US ? XHCI_POLL_US : XHCI_POLL_SLOW_US;
}

bool xhci_wait32(const struct xhci *x, uint64_t addr, uint32_t mask, uint32_t want, uint32_t timeout_us)
{
	for (uint32_t t = 0;;) {
		uint32_t step = xhci_poll_step(t);

		if ((xhci_rd(x, addr) & mask) == want)
			return true;
		if (t >= timeout_us)
			return false;
		xhci_delay(x, step);
		t += step;
	}
}

void xhci_to_dev(const struct xhci *x, const void *p, size_t n)
{
	if (x->io->dma_to_device && n)
		x->io->dma_to_device(x->io->ctx, p, n);
}

void xhci_from_dev(const struct xhci *x, void *p, size_t n)
{
	if (x->io->dma_from_device && n)
		x->io->dma_from_device(x->io->ctx, p, n);
}

/* ---- the error text ---- */

static const char *const cc_names[] = {
	[1] = "success", [2] = "data buffer error", [3] = "babble detected",
	[4] = "USB transaction error", [5] = "TRB error", [6] = "stall",
	[7] = "resource error", [8] = "bandwidth error", [9] = "no slots available",
	[10] = "invalid stream type", [11] = "slot not enabled", [12] = "endpoint not enabled",
	[13] = "short packet", [14] = "ring underrun", [15] = "ring overrun",
	[16] = "VF event ring full", [17] = "parameter error", [18] = "bandwidth overrun",
	[19] = "context state error", [20] = "no ping response", [21] = "event ring full",
	[22] = "incompatible device", [23] = "missed service", [24] = "command ring stopped",
	[25] = "command aborted", [26] = "stopped", [27] = "stopped, length invalid",
	[28] = "stopped, short packet", [29] = "max exit latency too large",
	[31] = "isoch buffer overrun", [32] = "event lost", [33] = "undefined error",
	[34] = "invalid stream id", [35] = "secondary bandwidth error", [36] = "split transaction error",
};

int xhci_fail(struct xhci *x, const char *what)
{
	str_copy(x->err, what, sizeof(x->err));
	return USB_XFER_ERROR;
}

int xhci_fail_n(struct xhci *x, const char *what, uint64_t n)
{
	struct sbuf sb;

	sb_init(&sb, x->err, sizeof(x->err));
	sb_puts(&sb, what);
	sb_putc(&sb, ' ');
	sb_u64(&sb, n);
	return USB_XFER_ERROR;
}

int xhci_fail_cc(struct xhci *x, const char *what, uint32_t cc)
{
	struct sbuf sb;
	const char *name = cc < sizeof(cc_names) / sizeof(cc_names[0]) ? cc_names[cc] : 0;

	x->last_cc = cc;
	sb_init(&sb, x->err, sizeof(x->err));
	sb_puts(&sb, what);
	sb_puts(&sb, ": ");
	sb_puts(&sb, name ? name : "completion code");
	sb_puts(&sb, " (");
	sb_u64(&sb, cc);
	sb_putc(&sb, ')');
	return USB_XFER_ERROR;
}

const char *xhci_error(const struct xhci *x)
{
	return x->err[0] ? x->err : "no error";
}

const char *usb_speed_name(enum usb_speed s)
{
	static const char *const names[] = {
		[USB_SPEED_FULL] = "full", [USB_SPEED_LOW] = "low", [USB_SPEED_HIGH] = "high",
		[USB_SPEED_SUPER] = "super", [USB_SPEED_SUPER_PLUS] = "super+",
	};

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "unknown";
}

/* ---- 7.1 USB Legacy Support: take the controller from the BIOS ---- */

void *xhci_ctx(const struct xhci *x, void *base, unsigned index)
{
	return (uint8_t *)base + (size_t)index * x->ctx_size;
}

/* xHCI driver: bringing the controller up (xHCI 1.2 4.2
 * "Host Controller Initialization"): capabilities, the extended capabilities (7.1 USB Legacy
 * Support hand-off, 7.2 Supported Protocol), halt and reset, the data structures the controller
 * reads (DCBAA, scratchpad buffers, command ring, event ring segment table) and run. */
#include <string.h>

#include "drivers/usb/xhci_internal.h"

#define XHCI_XCAPS_MAX 64         /* extended capabilities walked before giving up on a loop */
#define XHCI_XCAP_SPACE 0x10000u  /* they live within the first 64 KiB of the MMIO space */
#define XHCI_ALL_ONES 0xffffffffu /* what a missing or powered-off device reads as */
#define XHCI_PAGE_SHIFT 12
#define XHCI_CTX_ALIGN 64
#define XHCI_ERST_ENTRY 16

static int legacy_handoff(struct xhci *x, uint64_t cap)
{
	uint32_t ctl;

	/* 7.1.1: ask for ownership, wait for the BIOS to give it up. A BIOS that never does (seen on
	 * real boards; Linux's USB hand-off quirk waits 1 s too) loses it anyway: BIOS Owned is
	 * writable by software, and the controller is ours from here. */
	xhci_wr(x, cap, xhci_rd(x, cap) | XHCI_LEGSUP_OS_OWNED);
	if (!xhci_wait32(x, cap, XHCI_LEGSUP_BIOS_OWNED, 0, XHCI_HANDOFF_US)) {
		xhci_wr(x, cap, (xhci_rd(x, cap) & ~XHCI_LEGSUP_BIOS_OWNED) | XHCI_LEGSUP_OS_OWNED);
		x->bios_forced = true;
	}
	/* 7.1.2: no more SMIs, whichever way the hand-off went: enables off, pending SMI status bits
	 * written 1 to clear. */
	ctl = xhci_rd(x, cap + XHCI_LEGCTLSTS);
	xhci_wr(x, cap + XHCI_LEGCTLSTS, (ctl & ~XHCI_LEGCTL_SMI_ENABLES) | XHCI_LEGCTL_SMI_STATUS_RW1C);
	return 0;
}

/* Walks the extended capabilities (7): hand-off first wherever it sits, ports' protocols. */
static int ext_caps(struct xhci *x)
{
	uint32_t off = XHCI_HCC1_XECP(x->hcc1) * 4u;

	for (unsigned i = 0; off && off < XHCI_XCAP_SPACE && i < XHCI_XCAPS_MAX; i++) {
		uint64_t cap = x->base + off;
		uint32_t v = xhci_rd(x, cap);

		if (v == XHCI_ALL_ONES)
			break;
		if (XHCI_XCAP_ID(v) == XHCI_XCAP_LEGACY) {
			int rc = legacy_handoff(x, cap);

			if (rc)
				return rc;
		} else if (XHCI_XCAP_ID(v) == XHCI_XCAP_PROTOCOL) {
			xhci_proto_add(x, cap);
		}
		off = XHCI_XCAP_NEXT(v) ? off + XHCI_XCAP_NEXT(v) * 4u : 0;
	}
	return 0;
}

/* ---- 4.2: halt, reset ---- */

/* Run/Stop cleared, then the halt waited for (5.4.2). */
static bool halt(struct xhci *x)
{
	uint64_t cmd = x->op + XHCI_OP_USBCMD, sts = x->op + XHCI_OP_USBSTS;

	if (xhci_rd(x, sts) & XHCI_STS_HCH)
		return true;
	xhci_wr(x, cmd, xhci_rd(x, cmd) & ~(XHCI_CMD_RS | XHCI_CMD_INTE));
	return xhci_wait32(x, sts, XHCI_STS_HCH, XHCI_STS_HCH, XHCI_HALT_US);
}

/* HCRST, then its end and Controller Not Ready clearing, each within timeout_us. */
static int reset(struct xhci *x, uint32_t timeout_us)
{
	uint64_t cmd = x->op + XHCI_OP_USBCMD, sts = x->op + XHCI_OP_USBSTS;

	xhci_wr(x, cmd, XHCI_CMD_HCRST);
	xhci_delay(x, XHCI_INTEL_RESET_GAP_US);
	if (!xhci_wait32(x, cmd, XHCI_CMD_HCRST, 0, timeout_us))
		return xhci_fail(x, "xHCI reset did not finish (USBCMD.HCRST stays set)");
	if (!xhci_wait32(x, sts, XHCI_STS_CNR, 0, timeout_us))
		return xhci_fail(x, "xHCI controller not ready after reset (USBSTS.CNR stays set)");
	return 0;
}

static int halt_and_reset(struct xhci *x)
{
	/* Linux waits up to 10 s for CNR before touching an xHC (XHCI_RESET_LONG_USEC). */
	if (!xhci_wait32(x, x->op + XHCI_OP_USBSTS, XHCI_STS_CNR, 0, XHCI_CNR_US))
		return xhci_fail(x, "xHCI controller not ready (USBSTS.CNR stays set)");
	/* 4.2: the controller must be halted before HCRST (a firmware driver may have left it running). */
	if (!halt(x))
		return xhci_fail(x, "xHCI controller did not halt (USBSTS.HCH stays clear)");
	return reset(x, XHCI_RESET_US);
}

int xhci_shutdown(struct xhci *x)
{
	if (!x->op)
		return xhci_fail(x, "xHCI shutdown: the controller was never set up");
	x->running = false;
	if (!halt(x))
		return xhci_fail(x, "xHCI controller did not halt at the end of the run (USBSTS.HCH stays clear)");
	return reset(x, XHCI_SHUTDOWN_RESET_US);
}

/* ---- 4.2: the data structures, then run ---- */

/* Zeroed DMA memory, cleaned so no dirty line of the CPU's zeroing lands on the device's data. */
static void *dma_zalloc(struct xhci *x, size_t n, size_t align, size_t boundary)
{
	void *p = usb_dma_alloc(x->dma, n, align, boundary);

	if (p)
		xhci_to_dev(x, p, n);
	return p;
}

/* 4.20 / 6.6: the scratchpad buffer array (DCBAA entry 0) and its page-sized buffers. */
static int scratchpads(struct xhci *x)
{
	size_t n = x->scratchpads, arr_len = n * sizeof(uint64_t);
	uint64_t *arr;

	if (!n)
		return 0;
	arr = dma_zalloc(x, arr_len, XHCI_CTX_ALIGN, arr_len <= x->page_size ? x->page_size : 0);
	if (!arr)
		return xhci_fail_n(x, "DMA region too small for the xHCI scratchpad buffers:", n);
	for (size_t i = 0; i < n; i++) {
		void *page = dma_zalloc(x, x->page_size, x->page_size, 0);

		if (!page)
			return xhci_fail_n(x, "DMA region too small for the xHCI scratchpad buffers:", n);
		arr[i] = usb_dma_bus(x->dma, page);
	}
	xhci_to_dev(x, arr, arr_len);
	x->dcbaa[0] = usb_dma_bus(x->dma, arr);
	return 0;
}

/* 4.9.4: one event ring segment; ERSTSZ, ERDP, then ERSTBA (which enables the ring). */
static int event_ring(struct xhci *x)
{
	uint64_t ir = x->rt + XHCI_RT_IR0;
	uint32_t *erst;

	x->evt = dma_zalloc(x, XHCI_EVENT_TRBS * sizeof(struct xhci_trb), XHCI_CTX_ALIGN, XHCI_TRB_MAX_BYTES);
	erst = dma_zalloc(x, XHCI_ERST_ENTRY, XHCI_CTX_ALIGN, 0);
	if (!x->evt || !erst)
		return xhci_fail(x, "DMA region too small for the xHCI event ring");
	x->evt_bus = usb_dma_bus(x->dma, x->evt);
	x->evt_deq = 0;
	x->evt_cycle = 1; /* 4.9.4: the consumer cycle state starts at 1 */
	erst[0] = (uint32_t)x->evt_bus;
	erst[1] = (uint32_t)(x->evt_bus >> 32);
	erst[2] = XHCI_EVENT_TRBS;
	xhci_to_dev(x, erst, XHCI_ERST_ENTRY);
	xhci_wr(x, ir + XHCI_IR_ERSTSZ, 1);
	xhci_wr64(x, ir + XHCI_IR_ERDP_LO, x->evt_bus);
	xhci_wr64(x, ir + XHCI_IR_ERSTBA_LO, usb_dma_bus(x->dma, erst));
	xhci_wr(x, ir + XHCI_IR_IMAN, XHCI_IMAN_IP); /* polled: IE stays 0, a pending IP cleared */
	return 0;
}

static int structures(struct xhci *x)
{
	uint32_t ps = xhci_rd(x, x->op + XHCI_OP_PAGESIZE) & XHCI_PAGESIZE_MASK;
	uint32_t cfg;
	int rc;

	if (!ps)
		return xhci_fail(x, "xHCI PAGESIZE register reads 0");
	x->page_size = 1u << (__builtin_ctz(ps) + XHCI_PAGE_SHIFT);
	cfg = xhci_rd(x, x->op + XHCI_OP_CONFIG);
	xhci_wr(x, x->op + XHCI_OP_CONFIG, (cfg & ~XHCI_CONFIG_SLOTS_MASK) | x->slots);
	x->dcbaa = dma_zalloc(x, (x->slots + 1u) * sizeof(uint64_t), XHCI_CTX_ALIGN, x->page_size);
	x->desc = dma_zalloc(x, XHCI_DESC_BUF, XHCI_CTX_ALIGN, x->page_size);
	if (!x->dcbaa || !x->desc || !xhci_ring_alloc(x, &x->cmd))
		return xhci_fail(x, "DMA region too small for the xHCI data structures");
	rc = scratchpads(x);
	if (rc)
		return rc;
	xhci_to_dev(x, x->dcbaa, (x->slots + 1u) * sizeof(uint64_t));
	xhci_wr64(x, x->op + XHCI_OP_DCBAAP_LO, usb_dma_bus(x->dma, x->dcbaa));
	xhci_wr64(x, x->op + XHCI_OP_CRCR_LO, x->cmd.bus | XHCI_CRCR_RCS);
	return event_ring(x);
}

static int read_caps(struct xhci *x)
{
	uint32_t cap = xhci_rd(x, x->base + XHCI_CAP_CAPLENGTH);
	uint32_t hcs1, dboff, rtsoff;

	if (cap == XHCI_ALL_ONES || (cap & XHCI_CAPLENGTH_MASK) == 0)
		return xhci_fail(x, "no xHCI controller at the MMIO base (CAPLENGTH reads 0 or all ones)");
	x->version = (uint16_t)(cap >> XHCI_HCIVERSION_SHIFT);
	hcs1 = xhci_rd(x, x->base + XHCI_CAP_HCSPARAMS1);
	x->scratchpads = (uint16_t)XHCI_HCS2_SCRATCH(xhci_rd(x, x->base + XHCI_CAP_HCSPARAMS2));
	x->hcc1 = xhci_rd(x, x->base + XHCI_CAP_HCCPARAMS1);
	dboff = xhci_rd(x, x->base + XHCI_CAP_DBOFF) & XHCI_DBOFF_MASK;
	rtsoff = xhci_rd(x, x->base + XHCI_CAP_RTSOFF) & XHCI_RTSOFF_MASK;
	x->op = x->base + (cap & XHCI_CAPLENGTH_MASK);
	x->db = x->base + dboff;
	x->rt = x->base + rtsoff;
	x->max_ports = (uint8_t)XHCI_HCS1_MAX_PORTS(hcs1);
	x->slots = (uint8_t)XHCI_HCS1_MAX_SLOTS(hcs1);
	if (x->slots > XHCI_SLOTS_MAX)
		x->slots = XHCI_SLOTS_MAX;
	x->ctx_size = (x->hcc1 & XHCI_HCC1_CSZ) ? 64 : 32;
	if (!x->slots || !x->max_ports)
		return xhci_fail(x, "xHCI controller reports no device slots or no ports");
	return 0;
}

int xhci_init(struct xhci *x, uint64_t mmio_base, const struct usb_io *io, struct usb_dma *dma)
{
	int rc;

	memset(x, 0, sizeof(*x));
	x->io = io;
	x->dma = dma;
	x->base = mmio_base;
	rc = read_caps(x);
	if (!rc)
		rc = ext_caps(x);
	if (!rc)
		rc = halt_and_reset(x);
	if (!rc)
		rc = structures(x);
	if (rc)
		return rc;
	xhci_wr(x, x->op + XHCI_OP_USBCMD, (xhci_rd(x, x->op + XHCI_OP_USBCMD) & ~XHCI_CMD_INTE) | XHCI_CMD_RS);
	if (!xhci_wait32(x, x->op + XHCI_OP_USBSTS, XHCI_STS_HCH, 0, XHCI_HALT_US))
		return xhci_fail(x, "xHCI controller did not start (USBSTS.HCH stays set)");
	x->running = true;
	return 0;
}

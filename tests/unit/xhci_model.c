/* The xHCI controller model's registers, root ports, events and command ring (see xhci_model.h).
 * Register layout: xHCI 1.2 5.3 (capability), 5.4 (operational, PORTSC 5.4.8), 5.5 (runtime),
 * 5.6 (doorbells), 7.1 (USB Legacy Support), 7.2 (Supported Protocol). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xhci_model.h"

/* PORTSC bits (5.4.8) */
#define P_CCS (1u << 0)
#define P_PED (1u << 1)
#define P_PR (1u << 4)
#define P_PLS(v) ((uint32_t)(v) << 5)
#define P_PLS_MASK (0xfu << 5)
#define P_PP (1u << 9)
#define P_SPEED(v) ((uint32_t)(v) << 10)
#define P_CSC (1u << 17)
#define P_PEC (1u << 18)
#define P_WRC (1u << 19)
#define P_PRC (1u << 21)
#define P_PLC (1u << 22)
#define P_WPR (1u << 31)
#define P_RW1C (P_CSC | P_PEC | P_WRC | (1u << 20) | P_PRC | P_PLC | (1u << 23))
#define PLS_U0 0
#define PLS_RXDETECT 5
#define PLS_INACTIVE 6
#define PLS_POLLING 7

#define CMD_RS 1u
#define CMD_HCRST 2u
#define STS_HCH 1u
#define STS_CNR (1u << 11)

#define OP(o) (XM_CAPLENGTH + (o))
#define IR0(o) (XM_RTSOFF + 0x20 + (o))
#define CC_SUCCESS 1
#define CC_TRANSACTION 4
#define CC_TRB 5
#define CC_NO_SLOTS 9
#define CC_SLOT_NOT_ENABLED 11
#define CC_CONTEXT_STATE 19
#define CNR_AFTER_RESET_US 2000
#define HANG_GUARD_US (600ull * 1000000) /* ten minutes of model time: the driver hung */

void xm_violation(struct xhci_model *m, const char *fmt, ...)
{
	va_list ap;

	if (!m->violations++) {
		va_start(ap, fmt);
		vsnprintf(m->violation, sizeof(m->violation), fmt, ap);
		va_end(ap);
	}
}

void *xm_mem(struct xhci_model *m, uint64_t bus, uint32_t len)
{
	static uint8_t junk[1 << 17];

	if (bus < XM_DMA_BUS || bus + len > XM_DMA_BUS + XM_DMA_SIZE || len > sizeof(junk)) {
		xm_violation(m, "DMA outside the region: bus 0x%llx len %u", (unsigned long long)bus, len);
		return junk;
	}
	return m->dma + (bus - XM_DMA_BUS);
}

static uint32_t rd32m(struct xhci_model *m, uint64_t bus)
{
	uint32_t v;

	memcpy(&v, xm_mem(m, bus, 4), 4);
	return v;
}

static uint64_t rd64m(struct xhci_model *m, uint64_t bus)
{
	uint64_t v;

	memcpy(&v, xm_mem(m, bus, 8), 8);
	return v;
}

/* ---- events (4.9.4): the producer side of the event ring ---- */

void xm_event(struct xhci_model *m, uint64_t param, uint32_t status, uint32_t control)
{
	uint64_t erdp = ((uint64_t)m->erdp_hi << 32 | m->erdp_lo) & ~0xfull;
	uint32_t *t;

	if (!m->er_size) {
		xm_violation(m, "event with no event ring");
		return;
	}
	if (erdp < m->er_base || erdp >= m->er_base + 16ull * m->er_size)
		xm_violation(m, "ERDP outside the event ring segment");
	if ((m->er_enq + 1) % m->er_size == (erdp - m->er_base) / 16) {
		xm_violation(m, "event ring full: the driver does not move ERDP on");
		return;
	}
	t = xm_mem(m, m->er_base + 16ull * m->er_enq, 16);
	t[0] = (uint32_t)param;
	t[1] = (uint32_t)(param >> 32);
	t[2] = status;
	t[3] = (control & ~1u) | (uint32_t)m->er_pcs;
	m->events++;
	if (++m->er_enq == m->er_size) {
		m->er_enq = 0;
		m->er_pcs ^= 1;
		m->er_wraps++;
	}
	m->erdp_lo |= 1u << 3; /* EHB */
	m->iman |= 1u;         /* IP */
}

/* ---- root ports ---- */

uint32_t xm_portsc_off(unsigned n)
{
	return OP(0x400 + 0x10 * (n - 1));
}

#define XM_DEBOUNCE_US 100000

static void port_connect(struct xhci_model *m, unsigned n)
{
	struct xm_port *p = &m->port[n];

	p->portsc = P_PP | (p->usb3 ? P_PLS(PLS_RXDETECT) : 0);
	p->reset_end = 0;
	if (!p->dev)
		return;
	if (!p->usb3) {
		p->portsc |= P_CCS | P_CSC | P_SPEED(p->dev->speed) | P_PLS(PLS_POLLING);
		p->connected_at = m->now;
	} else if (p->needs_warm) {
		p->portsc = P_PP | P_CCS | P_CSC | P_PLS(PLS_INACTIVE); /* stuck link: only a warm reset helps */
	} else {
		p->train_at = m->now + m->train_us; /* 4.19.1.2: trains to U0 by itself */
	}
}

/* Time-driven state: a reset ending, a USB 3 link reaching U0. */
void xm_port_update(struct xhci_model *m, unsigned n)
{
	struct xm_port *p = &m->port[n];

	if (p->reset_end && m->now >= p->reset_end && p->moves_to && p->dev) {
		struct xm_dev *d = p->dev;
		unsigned to = p->moves_to;

		/* The reset ends with the device gone (CSC; PRC/WRC as a reset ends) and on `to`. */
		p->reset_end = 0;
		p->dev = 0;
		p->moves_to = 0;
		p->portsc = P_PP | P_CSC | P_PRC | (p->usb3 ? P_WRC | P_PLS(PLS_RXDETECT) : 0);
		xm_attach(m, to, d);
		return;
	}
	if (p->reset_end && m->now >= p->reset_end) {
		p->reset_end = 0;
		p->portsc &= ~(P_PR | P_PLS_MASK);
		if (p->dev) /* 4.19.1.1: reset done: PED = 1, PRC = 1, link in U0 */
			p->portsc |= P_PED | P_PRC | P_CCS | P_SPEED(p->dev->speed) | P_PLS(PLS_U0);
		if (p->usb3 && (p->portsc & P_WRC) == 0 && p->needs_warm) {
			p->portsc |= P_WRC;
			p->needs_warm = false;
		}
	}
	if (p->train_at && m->now >= p->train_at && p->dev && p->usb3 && !p->needs_warm) {
		p->train_at = 0;
		p->portsc = (p->portsc & ~P_PLS_MASK) | P_CCS | P_CSC | P_PED | P_SPEED(p->dev->speed) | P_PLS(PLS_U0);
	}
}

static void port_write(struct xhci_model *m, unsigned n, uint32_t v)
{
	struct xm_port *p = &m->port[n];

	xm_port_update(m, n);
	if (v & P_PED) { /* RW1C: a 1 disables the port (5.4.8) */
		p->ped_writes++;
		p->portsc &= ~P_PED;
	}
	p->portsc &= ~(v & P_RW1C);
	if (!(v & P_PP)) {
		xm_violation(m, "PORTSC %u written with PP = 0 (port powered off)", n);
		p->portsc &= ~(P_PP | P_PED | P_CCS);
	}
	if (v & (P_PR | P_WPR)) {
		if (v & P_PR)
			p->pr_writes++;
		/* USB 2.0 7.1.7.3: a connection is debounced (TATTDB, 100 ms) before the port is reset */
		if ((v & P_PR) && !p->usb3 && p->dev && m->now - p->connected_at < XM_DEBOUNCE_US)
			xm_violation(m, "USB 2 port %u reset %llu us after its connection (TATTDB 100 ms, USB 2.0 7.1.7.3)",
				     n, (unsigned long long)(m->now - p->connected_at));
		if (v & P_WPR) {
			p->wpr_writes++;
			if (!p->usb3)
				xm_violation(m, "WPR written to USB 2 port %u", n);
		}
		p->portsc = (p->portsc & ~P_PED) | P_PR;
		p->reset_end = m->now + m->port_reset_us;
		if (v & P_WPR)
			p->portsc &= ~P_WRC;
	}
}

/* ---- capability and extended capability registers ---- */

static uint32_t ext_cap_read(struct xhci_model *m, uint32_t off)
{
	uint32_t usb2_first = m->usb3_first ? m->n3 + 1 : 1, usb3_first = m->usb3_first ? 1 : m->n2 + 1;

	switch (off - XM_XECP) {
	case 0x00: /* USBLEGSUP: id 1, next 4 dwords */
		if (m->bios_release_at && m->now >= m->bios_release_at)
			m->legsup &= ~(1u << 16);
		return m->legsup | 1u | 4u << 8;
	case 0x04:
		return m->legctl;
	case 0x10: return 2u | 4u << 8 | 0x0200u << 16;   /* Supported Protocol USB 2.0, next 4 */
	case 0x14: return 0x20425355;                     /* "USB " */
	case 0x18: return usb2_first | m->n2 << 8;
	case 0x20: return 2u | (m->npsi ? 0x0320u : 0x0300u) << 16; /* USB 3.0 (3.2 with PSIs), last */
	case 0x24: return 0x20425355;
	case 0x28: return usb3_first | m->n3 << 8 | (uint32_t)m->npsi << 28; /* PSIC 31:28 */
	default:
		/* 7.2.1: the PSI dwords from offset 10h of the capability */
		if (off - XM_XECP >= 0x30 && off - XM_XECP < 0x30 + 4 * m->npsi)
			return m->psi[(off - XM_XECP - 0x30) / 4];
		return 0;
	}
}

static uint32_t cap_read(struct xhci_model *m, uint32_t off)
{
	switch (off) {
	case 0x00: return XM_CAPLENGTH | (uint32_t)m->version << 16;
	case 0x04: return XM_SLOTS | 1u << 8 | (m->n2 + m->n3) << 24;
	/* HCSPARAMS2, xHCI 1.2 5.3.4 Table 5-13: Max Scratchpad Bufs Hi in bits 25:21 (the count's
	 * bits 9:5), Max Scratchpad Bufs Lo in bits 31:27 (its bits 4:0). */
	case 0x08: return (m->scratchpads >> 5 & 0x1f) << 21 | (m->scratchpads & 0x1f) << 27;
	case 0x10: return 1u | (m->csz64 ? 4u : 0) | (uint32_t)(m->legacy ? XM_XECP : XM_XECP + 0x10) / 4 << 16;
	case 0x14: return XM_DBOFF;
	case 0x18: return XM_RTSOFF;
	default: return 0;
	}
}

/* ---- operational registers ---- */

static void hc_reset(struct xhci_model *m)
{
	memset(m->slot, 0, sizeof(m->slot));
	m->usbsts = STS_HCH | STS_CNR;
	m->config = m->crcr_lo = m->dcbaap_lo = m->dcbaap_hi = 0;
	m->iman = m->erstsz = m->erstba_lo = m->erdp_lo = m->erdp_hi = 0;
	m->er_size = 0;
	for (unsigned n = 1; n <= m->n2 + m->n3; n++)
		port_connect(m, n);
	m->reset_end = m->never_reset ? 0 : m->now + 3000;
	m->usbcmd = CMD_HCRST;
}

static void check_scratchpads(struct xhci_model *m)
{
	uint64_t dcbaa = (uint64_t)m->dcbaap_hi << 32 | m->dcbaap_lo, arr;

	if (!dcbaa) {
		xm_violation(m, "run with DCBAAP 0");
		return;
	}
	if (!m->scratchpads)
		return;
	arr = rd64m(m, dcbaa);
	for (unsigned i = 0; i < m->scratchpads; i++) {
		uint64_t page = arr ? rd64m(m, arr + 8 * i) : 0;

		if (!page || (page & 0xfff))
			xm_violation(m, "scratchpad buffer %u missing or not page aligned", i);
	}
}

static void usbcmd_write(struct xhci_model *m, uint32_t v)
{
	if (v & CMD_HCRST) {
		if (!(m->usbsts & STS_HCH))
			xm_violation(m, "HCRST written while the controller runs (5.4.1)");
		if (m->legacy && (m->legsup & (1u << 16)))
			xm_violation(m, "HCRST while the BIOS owns the controller");
		hc_reset(m);
		return;
	}
	if ((v & CMD_RS) && (m->usbsts & STS_HCH)) {
		check_scratchpads(m);
		if (!m->er_size)
			xm_violation(m, "run without an event ring");
		m->usbsts &= ~STS_HCH;
	} else if (!(v & CMD_RS)) {
		m->usbsts |= STS_HCH;
	}
	m->usbcmd = v & ~CMD_HCRST;
}

static void reset_progress(struct xhci_model *m)
{
	/* HCRST clears first, CNR a little later (as on Intel parts): 4.2 has software wait for both. */
	if ((m->usbcmd & CMD_HCRST) && m->reset_end && m->now >= m->reset_end)
		m->usbcmd &= ~CMD_HCRST;
	if ((m->usbsts & STS_CNR) && m->reset_end && m->now >= m->reset_end + CNR_AFTER_RESET_US)
		m->usbsts &= ~STS_CNR;
}

static void er_setup(struct xhci_model *m, uint32_t hi)
{
	uint64_t erst = (uint64_t)hi << 32 | (m->erstba_lo & ~0x3fu);

	if (m->erstsz != 1)
		xm_violation(m, "ERSTSZ %u, the driver was to use one segment", m->erstsz);
	m->er_base = rd64m(m, erst) & ~0x3full;
	m->er_size = rd32m(m, erst + 8) & 0xffff;
	if (m->er_size < 16 || m->er_size > 4096)
		xm_violation(m, "event ring segment of %u TRBs (6.5: 16..4096)", m->er_size);
	m->er_enq = 0;
	m->er_pcs = 1;
}

static void op_write(struct xhci_model *m, uint32_t off, uint32_t v)
{
	if ((m->usbsts & STS_CNR) && off != 0 && off != 4)
		xm_violation(m, "operational register 0x%x written while CNR = 1 (5.4.2)", off);
	switch (off) {
	case 0x00: usbcmd_write(m, v); break;
	case 0x04: break;
	case 0x18: m->crcr_lo = v; break;
	case 0x1c:
		if (!(v == 0 && (m->crcr_lo & 4))) { /* CA: abort, else the ring's new dequeue pointer */
			m->cmd_deq = (uint64_t)v << 32 | (m->crcr_lo & ~0x3fu);
			m->cmd_ccs = m->crcr_lo & 1;
		}
		break;
	case 0x30: m->dcbaap_lo = v; break;
	case 0x34: m->dcbaap_hi = v; break;
	case 0x38: m->config = v & 0xff; break;
	default:
		if (off >= 0x400 && off < 0x400 + 0x10 * (m->n2 + m->n3) && (off & 0xf) == 0)
			port_write(m, (off - 0x400) / 0x10 + 1, v);
	}
}

static uint32_t op_read(struct xhci_model *m, uint32_t off)
{
	reset_progress(m);
	switch (off) {
	case 0x00: return m->usbcmd;
	case 0x04: return m->usbsts;
	case 0x08: return 1; /* 4 KiB pages */
	case 0x18: return m->crcr_lo & 0x8;
	case 0x38: return m->config;
	default:
		if (off >= 0x400 && off < 0x400 + 0x10 * (m->n2 + m->n3) && (off & 0xf) == 0) {
			unsigned n = (off - 0x400) / 0x10 + 1;

			xm_port_update(m, n);
			if (m->port[n].portsc & P_PRC)
				m->port[n].prc_seen = true;
			if (m->speed_override[n])
				return (m->port[n].portsc & ~(0xfu << 10)) | (uint32_t)m->speed_override[n] << 10;
			return m->port[n].portsc;
		}
		/* 5.4.10.2 PORTLI of a USB 3 port: Rx Lane Count 19:16, Tx Lane Count 23:20 */
		if (off >= 0x400 && off < 0x400 + 0x10 * (m->n2 + m->n3) && (off & 0xf) == 8) {
			unsigned n = (off - 0x400) / 0x10 + 1;

			return m->port[n].usb3 ? (uint32_t)m->lanes_minus_one[n] * (1u << 16 | 1u << 20) : 0;
		}
		return 0;
	}
}

static void rt_write(struct xhci_model *m, uint32_t off, uint32_t v)
{
	switch (off) {
	case IR0(0x00): m->iman &= ~(v & 1u); break;
	case IR0(0x08): m->erstsz = v & 0xffff; break;
	case IR0(0x10): m->erstba_lo = v; break;
	case IR0(0x14): er_setup(m, v); break;
	case IR0(0x18): m->erdp_lo = (v & ~8u) | (m->erdp_lo & 8u & ~(v & 8u)); break;
	case IR0(0x1c): m->erdp_hi = v; break;
	}
}

void xm_ep_write_state(struct xhci_model *m, unsigned slot, unsigned dci)
{
	struct xm_slot *s = &m->slot[slot];
	uint64_t out = rd64m(m, ((uint64_t)m->dcbaap_hi << 32 | m->dcbaap_lo) + 8ull * slot);
	uint32_t *ctx = xm_mem(m, out + (uint64_t)dci * (m->csz64 ? 64 : 32), 20);

	ctx[0] = (ctx[0] & ~7u) | (uint32_t)s->ep[dci].state;
	ctx[2] = (uint32_t)s->ep[dci].deq | (uint32_t)s->ep[dci].ccs;
	ctx[3] = (uint32_t)(s->ep[dci].deq >> 32);
}

/* ---- the usb_io ops ---- */

static uint32_t io_read32(void *ctx, uint64_t addr)
{
	struct xhci_model *m = ctx;
	uint32_t off = (uint32_t)(addr - XM_MMIO);

	if (addr < XM_MMIO || (addr & 3))
		xm_violation(m, "read of 0x%llx", (unsigned long long)addr);
	if (off < XM_CAPLENGTH)
		return cap_read(m, off);
	if (off < XM_RTSOFF)
		return op_read(m, off - XM_CAPLENGTH);
	if (off < XM_DBOFF)
		return off == IR0(0x18) ? m->erdp_lo : off == IR0(0x00) ? m->iman : 0;
	if (off >= XM_XECP)
		return ext_cap_read(m, off);
	return 0;
}

static void legacy_write(struct xhci_model *m, uint32_t off, uint32_t v)
{
	if (off == XM_XECP) {
		m->legsup = (m->legsup & ~(1u << 24)) | (v & (1u << 24));
		/* 7.1.1: HC BIOS Owned is RW to software too; an OS clearing it took the controller. */
		if ((m->legsup & (1u << 16)) && !(v & (1u << 16))) {
			m->legsup &= ~(1u << 16);
			m->bios_taken = true;
		}
		if ((v & (1u << 24)) && m->bios_releases && !m->bios_release_at)
			m->bios_release_at = m->now + m->bios_release_us;
	} else if (off == XM_XECP + 4) {
		const uint32_t enables = 1u | 1u << 4 | 1u << 13 | 1u << 14 | 1u << 15, rw1c = 7u << 29;

		m->legctl = (m->legctl & ~enables) | (v & enables);
		m->legctl &= ~(v & rw1c);
	}
}

static void io_write32(void *ctx, uint64_t addr, uint32_t v)
{
	struct xhci_model *m = ctx;
	uint32_t off = (uint32_t)(addr - XM_MMIO);

	if (addr < XM_MMIO || (addr & 3))
		xm_violation(m, "write of 0x%llx", (unsigned long long)addr);
	if (m->nlog < XM_LOG)
		m->log[m->nlog++] = (struct xm_write){ off, v };
	if (off < XM_CAPLENGTH)
		xm_violation(m, "write to capability register 0x%x", off);
	else if (off < XM_RTSOFF)
		op_write(m, off - XM_CAPLENGTH, v);
	else if (off < XM_DBOFF)
		rt_write(m, off, v);
	else if (off < XM_DBOFF + 4 * (XM_SLOTS + 1)) {
		unsigned db = (off - XM_DBOFF) / 4;

		if (m->usbsts & STS_HCH)
			xm_violation(m, "doorbell %u rung while halted", db);
		else if (db == 0)
			xm_commands(m);
		else
			xm_kick(m, db, v & 0xff);
	} else if (off >= XM_XECP)
		legacy_write(m, off, v);
}

static void io_delay(void *ctx, uint32_t us)
{
	struct xhci_model *m = ctx;

	m->now += us;
	m->delay_calls++;
	if (m->now > HANG_GUARD_US) {
		fprintf(stderr, "xhci model: ten minutes of delays, the driver hangs\n");
		abort();
	}
}

static void io_to_dev(void *ctx, const void *p, size_t n)
{
	struct xhci_model *m = ctx;

	if ((const uint8_t *)p < m->dma || (const uint8_t *)p + n > m->dma + XM_DMA_SIZE)
		xm_violation(m, "dma_to_device outside the DMA region");
	m->to_dev++;
}

static void io_from_dev(void *ctx, void *p, size_t n)
{
	struct xhci_model *m = ctx;

	if ((uint8_t *)p < m->dma || (uint8_t *)p + n > m->dma + XM_DMA_SIZE)
		xm_violation(m, "dma_from_device outside the DMA region");
	m->from_dev++;
}

void xm_io(struct xhci_model *m, struct usb_io *io, struct usb_dma *dma)
{
	*io = (struct usb_io){
		.ctx = m, .read32 = io_read32, .write32 = io_write32, .delay_us = io_delay,
		.dma_to_device = io_to_dev, .dma_from_device = io_from_dev,
	};
	*dma = (struct usb_dma){ .base = m->dma, .bus_base = XM_DMA_BUS, .size = XM_DMA_SIZE };
}

void xm_init(struct xhci_model *m, uint8_t *dma)
{
	memset(m, 0, sizeof(*m));
	m->dma = dma;
	m->n2 = 4;
	m->n3 = 4;
	m->usb3_first = true;
	m->legacy = true;
	m->bios_releases = true;
	m->bios_release_us = 5000;
	m->legsup = 1u << 16;                                            /* BIOS owned */
	m->legctl = 1u | 1u << 4 | 1u << 13 | 1u << 14 | 1u << 15 | 1u << 29; /* SMIs on, one pending */
	m->initially_running = true;
	m->version = 0x110;
	m->port_reset_us = 20000;
	m->train_us = 30000;
	m->usbcmd = CMD_RS; /* as a firmware driver might leave it */
	m->usbsts = 0;
}

void xm_attach(struct xhci_model *m, unsigned port, struct xm_dev *d)
{
	struct xm_port *p = &m->port[port];
	unsigned usb3_lo = m->usb3_first ? 1 : m->n2 + 1;

	p->usb3 = port >= usb3_lo && port < usb3_lo + m->n3;
	p->dev = d;
	port_connect(m, port);
}

int xm_find(const struct xhci_model *m, uint32_t off, unsigned from)
{
	for (unsigned i = from; i < m->nlog; i++)
		if (m->log[i].off == off)
			return (int)i;
	return -1;
}

unsigned xm_route_tiers(uint32_t route)
{
	unsigned n = 0;

	for (; route & 0xf; route >>= 4)
		n++;
	return n;
}

unsigned xm_slots_enabled(const struct xhci_model *m)
{
	unsigned n = 0;

	for (unsigned s = 1; s <= XM_SLOTS; s++)
		n += m->slot[s].enabled;
	return n;
}

int xm_find_cmd(const struct xhci_model *m, uint32_t type, unsigned from)
{
	for (unsigned i = from; i < m->ncmd; i++)
		if (m->cmd[i].type == type)
			return (int)i;
	return -1;
}

/* xHCI port speeds from the Supported Protocol capability's PSI dwords (see xhci_proto.h). Field
 * layouts: xHCI 1.2 7.2.1 (dword 2 PSIC in 31:28, PSI dwords from offset 10h; a PSI dword: PSIV
 * 3:0, PSIE 5:4, PLT 7:6, PFD 8, LP 15:14, PSIM 31:16) and 5.4.10.2 (PORTLI of a USB 3 port: Rx
 * Lane Count 19:16, Tx Lane Count 23:20, each the lanes minus one). */
#include "drivers/usb/xhci_proto.h"

#include "drivers/usb/xhci_internal.h"

#define PSI_DWORDS_OFF 0x10
#define PSIC_SHIFT 28
#define PSIC_MASK 0xfu
#define PSI_PSIV(v) ((v) & 0xfu)
#define PSI_PSIE(v) (((v) >> 4) & 0x3u)
#define PSI_LP(v) (((v) >> 14) & 0x3u)
#define PSI_PSIM(v) (((v) >> 16) & 0xffffu)
#define PSI_LP_SSP 1
#define PSIE_STEP 1000u                    /* b/s, Kb/s, Mb/s, Gb/s */
#define PORTLI_OFF 8                       /* PORTLI follows PORTSC and PORTPMSC (5.4.10) */
#define PORTLI_RLC(v) (((v) >> 16) & 0xfu)
#define PORTSC_SPEED(v) (((v) >> XHCI_PORTSC_SPEED_SHIFT) & XHCI_PORTSC_SPEED_MASK)
#define MAJOR_USB3 3
#define GBPS 1000000000ull
#define GEN1_BPS (5 * GBPS)  /* USB 3.2 Gen 1 lane: 5 Gb/s */
#define GEN2_BPS (10 * GBPS) /* USB 3.2 Gen 2 lane: 10 Gb/s */

/* 7.2.2.1.1 Table 7-13: the IDs a protocol without PSI dwords uses (PSIE 2 Mb/s, 3 Gb/s as PSIs;
 * low speed as 1500 Kb/s). */
static const uint32_t default_psi[] = {
	1u | 2u << 4 | 12u << 16,              /* 1: full speed, 12 Mb/s */
	2u | 1u << 4 | 1500u << 16,            /* 2: low speed, 1.5 Mb/s */
	3u | 2u << 4 | 480u << 16,             /* 3: high speed, 480 Mb/s */
	4u | 3u << 4 | 5u << 16,               /* 4: SuperSpeed Gen 1, 5 Gb/s */
	5u | 3u << 4 | PSI_LP_SSP << 14 | 10u << 16, /* 5: SuperSpeedPlus Gen 2, 10 Gb/s */
};

static uint64_t psi_bps(uint32_t v)
{
	uint64_t bps = PSI_PSIM(v);

	for (unsigned e = 0; e < PSI_PSIE(v); e++)
		bps *= PSIE_STEP;
	return bps;
}

static const char *usb3_name(uint64_t lane_bps, unsigned lanes, bool ssp)
{
	bool gen2 = lane_bps >= GEN2_BPS && lane_bps < 2 * GEN2_BPS;
	bool gen1 = lane_bps >= GEN1_BPS && lane_bps < GEN2_BPS;

	if (lanes == 2 && gen2)
		return "gen2x2";
	if (lanes == 2 && gen1)
		return "gen1x2";
	if (lanes == 1 && gen2)
		return "gen2x1";
	if (lanes == 1 && gen1 && !ssp)
		return "gen1x1";
	return "super+";
}

bool xhci_psi_decode(const uint32_t *psi, unsigned count, unsigned major, unsigned psiv, unsigned lanes,
		     struct xhci_link *out)
{
	const uint32_t *table = count ? psi : default_psi;
	unsigned n = count ? count : sizeof(default_psi) / sizeof(default_psi[0]);

	*out = (struct xhci_link){ .psiv = (uint8_t)psiv, .lanes = (uint8_t)(lanes ? lanes : 1), .name = "unknown" };
	for (unsigned i = 0; i < n; i++) {
		uint32_t v = table[i];

		if (PSI_PSIV(v) != psiv)
			continue; /* an asymmetric link lists an Rx and a Tx PSI with one PSIV: the first is taken */
		out->lane_bps = psi_bps(v);
		out->ssp = PSI_LP(v) == PSI_LP_SSP;
		if (major >= MAJOR_USB3) {
			out->name = usb3_name(out->lane_bps, out->lanes, out->ssp);
			out->speed = out->ssp || out->lanes > 1 || out->lane_bps >= GEN2_BPS ? USB_SPEED_SUPER_PLUS
											   : USB_SPEED_SUPER;
		} else {
			out->lanes = 1;
			out->speed = out->lane_bps >= 480000000ull ? USB_SPEED_HIGH :
				     out->lane_bps >= 12000000ull ? USB_SPEED_FULL : USB_SPEED_LOW;
			out->name = usb_speed_name(out->speed);
		}
		return true;
	}
	return false;
}

/* The Supported Protocol capability covering root port `port` (7.2), or NULL. */
const struct xhci_proto *xhci_port_proto(const struct xhci *x, unsigned port)
{
	for (unsigned i = 0; i < x->nprotos; i++) {
		const struct xhci_proto *p = &x->proto[i];

		if (port >= p->first && port < (unsigned)p->first + p->count)
			return p;
	}
	return 0;
}

int xhci_port_link(struct xhci *x, unsigned port, struct xhci_link *out)
{
	const struct xhci_proto *p;
	uint32_t sc, lanes = 1;

	if (port < 1 || port > x->max_ports)
		return xhci_fail_n(x, "no such root port:", port);
	p = xhci_port_proto(x, port);
	if (!p)
		return xhci_fail_n(x, "no Supported Protocol capability covers root port", port);
	sc = xhci_rd(x, x->op + XHCI_OP_PORTSC(port));
	if (p->major >= MAJOR_USB3)
		lanes = PORTLI_RLC(xhci_rd(x, x->op + XHCI_OP_PORTSC(port) + PORTLI_OFF)) + 1u;
	if (!xhci_psi_decode(p->psi, p->psic, p->major, PORTSC_SPEED(sc), lanes, out))
		return xhci_fail_n(x, "root port speed ID not in its protocol's PSI table:", PORTSC_SPEED(sc));
	return 0;
}

void xhci_proto_add(struct xhci *x, uint64_t cap)
{
	uint32_t d0 = xhci_rd(x, cap), d2 = xhci_rd(x, cap + 8), d3 = xhci_rd(x, cap + 12);
	unsigned psic = (d2 >> PSIC_SHIFT) & PSIC_MASK;
	struct xhci_proto *p;

	if (x->nprotos >= XHCI_PROTOS_MAX)
		return;
	p = &x->proto[x->nprotos++];
	*p = (struct xhci_proto){
		.major = (uint8_t)XHCI_PROTO_MAJOR(d0),
		.first = (uint8_t)XHCI_PROTO_PORT_OFF(d2),
		.count = (uint8_t)XHCI_PROTO_PORT_CNT(d2),
		.slot_type = (uint8_t)XHCI_PROTO_SLOT_TYPE(d3),
		.psic = (uint8_t)psic,
	};
	for (unsigned i = 0; i < psic && i < XHCI_PSI_MAX; i++)
		p->psi[i] = xhci_rd(x, cap + PSI_DWORDS_OFF + 4u * i);
}

/* A behaviour model of an xHCI controller (xHCI 1.2) for the driver's unit tests, reached through
 * the usb_io ops: capability, operational, runtime and doorbell registers; extended capabilities
 * (USB Legacy Support with a BIOS that releases or never does, Supported Protocol); PORTSC with
 * its RW1C/RW1S rules (a USB 2 port enabled by a reset that ends with PRC, a USB 3 port that
 * trains by itself or needs a warm reset); the command ring (Enable Slot, Address Device,
 * Configure Endpoint, Evaluate Context, Reset Endpoint, Stop Endpoint, Set TR Dequeue Pointer)
 * and transfer rings processed on doorbell writes, answered by modelled USB devices (a bulk-only
 * mass-storage device looping its bulk OUT data back on bulk IN, hubs five tiers deep), Disable
 * Slot, a device moving to its other-speed port when reset; events posted with the
 * producer cycle bit. It is written from the spec, not from the driver: every rule the driver
 * breaks is counted in `violations` with the first one's text. Time is the sum of delay_us. */
#ifndef TESTS_UNIT_XHCI_MODEL_H
#define TESTS_UNIT_XHCI_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/usb/usb_io.h"

#define XM_MMIO 0xfe000000ull
#define XM_CAPLENGTH 0x80    /* not QEMU's 0x40: the driver must read it */
#define XM_RTSOFF 0x2000
#define XM_DBOFF 0x3000
#define XM_XECP 0x8000
#define XM_PORTS 8
#define XM_SLOTS 32
#define XM_DMA_BUS 0x10000000ull /* the DMA region's bus address: not the host pointer */
#define XM_DMA_SIZE (1u << 20)
#define XM_LOOP_MAX (256u * 1024)
#define XM_LOG 4096
#define XM_CMDS 512
#define XM_TDS 2048
#define XM_HUB_PORTS 8

/* Speeds as PSI values (xHCI 7.2.2.1.1). */
enum { XM_FS = 1, XM_LS = 2, XM_HS = 3, XM_SS = 4 };

struct xm_dev {
	bool hub;
	int speed;
	uint8_t mps0;     /* bMaxPacketSize0 (SuperSpeed: the exponent 9) */
	uint8_t address;  /* set by Address Device */
	uint8_t config;   /* SET_CONFIGURATION */
	unsigned set_config_calls;
	/* mass storage: endpoint 0x81 bulk IN, 0x02 bulk OUT (interface 1; interface 0 is a decoy) */
	bool halted_in, halted_out;
	bool stall_next_in, nak_in;
	unsigned clear_halts;
	uint16_t clear_halt_ep;
	/* hub */
	unsigned nports, depth_set_calls;
	uint16_t status[XM_HUB_PORTS + 1], change[XM_HUB_PORTS + 1];
	unsigned reset_polls[XM_HUB_PORTS + 1];
	struct xm_dev *child[XM_HUB_PORTS + 1];
	unsigned port_resets;
};

struct xm_ep {
	int state; /* 6.2.3 EP State: 0 disabled, 1 running, 2 halted, 3 stopped */
	uint64_t deq;
	int ccs, type;
	unsigned mps, burst;
	uint64_t pending; /* a TD the device NAKs: its first TRB */
};

struct xm_slot {
	bool enabled, addressed;
	struct xm_dev *dev;
	uint32_t route;
	unsigned root_port, speed, tt_slot, tt_port, entries, nports;
	bool hub;
	struct xm_ep ep[32];
};

struct xm_port {
	bool usb3, needs_warm;
	unsigned moves_to;  /* a reset of this port (PR or WPR) moves the device to that port: a USB 3
			     * link failing training comes back on its USB 2 twin, and back (0: stays) */
	uint32_t portsc;
	struct xm_dev *dev;
	uint64_t reset_end; /* model time a running reset ends, 0: none */
	uint64_t train_at;  /* USB 3: when the link reaches U0 */
	uint64_t connected_at; /* USB 2: model time the device connected (CCS, CSC) */
	bool prc_seen;      /* a read returned PRC = 1 */
	unsigned pr_writes, wpr_writes, ped_writes;
};

struct xm_write { uint32_t off, val; };
struct xm_cmd { uint32_t type, slot, ep, cc; uint64_t param; };
struct xm_td { uint32_t slot, ep, bytes, trbs; };

struct xhci_model {
	/* configuration (xm_init sets defaults; change before xm_start) */
	unsigned n2, n3;          /* USB 2 and USB 3 ports */
	bool usb3_first;          /* QEMU's qemu-xhci: USB 3 ports 1..n3, USB 2 after */
	bool legacy, bios_releases;
	uint32_t bios_release_us;
	bool never_reset, initially_running;
	uint16_t version;
	bool csz64;
	unsigned scratchpads;
	bool short_two_events;    /* 4.10.1.1.2: also an event for the last TRB after a short one */
	uint32_t port_reset_us, train_us;
	/* USB 3 protocol's PSI dwords (xHCI 1.2 7.2.1; 0: the default IDs) and each port's
	 * PORTLI Rx/Tx lane counts (5.4.10.2: lanes - 1); PORTSC speed of a port, when not 0,
	 * instead of its device's (a USB 3.2 x2 link) */
	unsigned npsi;
	uint32_t psi[15];
	uint8_t lanes_minus_one[XM_PORTS + 1];
	uint8_t speed_override[XM_PORTS + 1];
	/* time */
	uint64_t now, delay_calls, reset_end;
	/* registers */
	uint32_t usbcmd, usbsts, config, crcr_lo, dcbaap_lo, dcbaap_hi;
	uint32_t legsup, legctl;
	uint64_t bios_release_at;
	bool bios_taken;          /* software cleared HC BIOS Owned itself (7.1.1) */
	uint64_t cmd_deq;
	int cmd_ccs;
	uint32_t iman, erstsz, erstba_lo, erdp_lo, erdp_hi;
	uint64_t er_base;
	unsigned er_size, er_enq, er_wraps;
	int er_pcs;
	struct xm_port port[XM_PORTS + 1];
	struct xm_slot slot[XM_SLOTS + 1];
	/* DMA region */
	uint8_t *dma;
	/* mass-storage loopback */
	uint8_t loop[XM_LOOP_MAX];
	uint32_t loop_len;
	/* logs */
	struct xm_write log[XM_LOG];
	unsigned nlog;
	struct xm_cmd cmd[XM_CMDS];
	unsigned ncmd;
	struct xm_td td[XM_TDS];
	unsigned ntd;
	unsigned events, ring_wraps, to_dev, from_dev;
	unsigned violations;
	char violation[200];
};

void xm_init(struct xhci_model *m, uint8_t *dma); /* dma: XM_DMA_SIZE bytes */
void xm_io(struct xhci_model *m, struct usb_io *io, struct usb_dma *dma);
void xm_attach(struct xhci_model *m, unsigned port, struct xm_dev *d);
void xm_msc(struct xm_dev *d, int speed);
void xm_hub(struct xm_dev *d, int speed, unsigned nports);
/* Index of the first logged write to `off` (from the MMIO base) at or after `from`, or -1. */
int xm_find(const struct xhci_model *m, uint32_t off, unsigned from);
/* Port register offset of root port n (1-based). */
uint32_t xm_portsc_off(unsigned n);
/* The first command of `type` for (slot, ep) at or after `from`, or -1. */
int xm_find_cmd(const struct xhci_model *m, uint32_t type, unsigned from);
/* Hub tiers a route string crosses (its non-zero nibbles, xHCI 1.2 8.9). */
unsigned xm_route_tiers(uint32_t route);
/* Slots enabled now. */
unsigned xm_slots_enabled(const struct xhci_model *m);

/* For the model's units only. */
void xm_violation(struct xhci_model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void *xm_mem(struct xhci_model *m, uint64_t bus, uint32_t len);
void xm_event(struct xhci_model *m, uint64_t param, uint32_t status, uint32_t control);
void xm_commands(struct xhci_model *m);
void xm_kick(struct xhci_model *m, unsigned slot, unsigned dci);
void xm_ep_write_state(struct xhci_model *m, unsigned slot, unsigned dci);
int xm_dev_control(struct xhci_model *m, struct xm_dev *d, const uint8_t setup[8], uint8_t *data, uint32_t *len);
void xm_port_update(struct xhci_model *m, unsigned n);

#endif

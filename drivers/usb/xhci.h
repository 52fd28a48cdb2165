/* xHCI host controller driver (eXtensible Host Controller Interface 1.2), polled, CPU-neutral: takes
 * the controller from the firmware (USB Legacy Support hand-off), resets and starts it, brings up
 * the mass-storage device at a given port path (a root hub port, then up to five tiers of external
 * hubs) or finds one by walking every port (xhci_find_msc) and moves data on its bulk endpoints. No interrupts, no allocation but the DMA
 * region of drivers/usb/usb_io.h, every wait bounded by delay_us.
 *
 * DMA memory it takes (with 4 KiB pages): about 20 KiB, plus one page per scratchpad buffer the
 * controller asks for (HCSPARAMS2; QEMU none, Intel parts up to a few dozen).
 *
 * Every call returns 0 on success; on failure xhci_error() says why in one line. */
#ifndef DRIVERS_USB_XHCI_H
#define DRIVERS_USB_XHCI_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/usb/usb_io.h"

#define XHCI_HUB_TIERS 5 /* external hubs in a chain (USB 3.2 10.1.1: a route string has 5 tiers) */
#define USB_PATH_MAX (1 + XHCI_HUB_TIERS) /* the root hub port + a port of each hub tier */
struct usb_port_path {
	uint8_t depth;               /* 1 .. USB_PATH_MAX */
	uint8_t port[USB_PATH_MAX]; /* 1-based; port[0] is the root hub port */
};

/* In the order of the xHCI default Protocol Speed IDs minus one (xHCI 1.2 7.2.2.1.1). */
enum usb_speed { USB_SPEED_FULL, USB_SPEED_LOW, USB_SPEED_HIGH, USB_SPEED_SUPER, USB_SPEED_SUPER_PLUS };

#define XHCI_RING_TRBS 64   /* per transfer/command ring segment, the last one the Link TRB */
#define XHCI_EVENT_TRBS 64  /* the event ring's one segment */
#define XHCI_SLOTS_MAX 8    /* device slots enabled (MaxSlotsEn): five hubs and a stick need six */
#define XHCI_PROTOS_MAX 8   /* Supported Protocol capabilities remembered */
#define XHCI_ERR_LEN 120
#define XHCI_DESC_BUF 512   /* descriptors read at most this long */

struct xhci_trb {
	uint64_t param;
	uint32_t status, control;
};

struct xhci_ring {
	struct xhci_trb *trb; /* XHCI_RING_TRBS in DMA memory */
	uint64_t bus;
	uint32_t enq;         /* next TRB to write */
	uint32_t cycle;       /* producer cycle state */
};

struct xhci_ep {
	uint8_t dci;  /* device context index, 0: none */
	uint8_t addr; /* endpoint address (bit 7: IN) */
	uint16_t mps;
	uint8_t burst; /* SuperSpeed companion bMaxBurst */
	struct xhci_ring ring;
};

struct xhci_dev {
	uint8_t slot; /* xHC slot id, 0: none */
	enum usb_speed speed;
	uint8_t psiv;        /* at a root port: its Protocol Speed ID (PORTSC), the Slot Context's Speed
			      * (xHCI 1.1 6.2.2); 0 behind a hub: the default ID of `speed` */
	uint8_t root_port;   /* 1-based root hub port */
	uint8_t tier;        /* 1: at a root port, 2: behind one hub, ... */
	uint32_t route;      /* route string (xHCI 1.2 8.9) */
	uint8_t tt_slot, tt_port; /* transaction translator of a full/low-speed device behind a high-speed hub */
	uint16_t ep0_mps;
	uint8_t config;      /* bConfigurationValue set */
	uint8_t iface;       /* bInterfaceNumber of the mass-storage interface */
	uint8_t dev_class;   /* bDeviceClass */
	uint8_t hub_ports;   /* a hub: its number of downstream ports */
	bool hub_ss;         /* a hub: SuperSpeed (hub descriptor 0x2A) */
	uint16_t last_len;   /* bytes moved by the last control data stage */
	struct xhci_ep bulk_in, bulk_out;
	struct xhci_ring ep0;
	void *out_ctx, *in_ctx; /* device (output) context, input context */
};

#define XHCI_PSI_MAX 15 /* PSIC is 4 bits (xHCI 1.2 7.2.1) */
struct xhci_proto {
	uint8_t major, first, count, slot_type;
	uint8_t psic;                /* PSI dwords listed; 0: the default speed IDs (7.2.2.1.1) */
	uint32_t psi[XHCI_PSI_MAX];  /* decoded by drivers/usb/xhci_proto.h */
};

struct xhci {
	const struct usb_io *io;
	struct usb_dma *dma;
	uint64_t base, op, rt, db; /* MMIO: capability, operational, runtime, doorbell registers */
	uint16_t version;          /* HCIVERSION */
	uint8_t max_ports, slots, ctx_size;
	uint32_t hcc1, page_size;
	uint16_t scratchpads;
	unsigned nprotos;
	struct xhci_proto proto[XHCI_PROTOS_MAX];
	uint64_t *dcbaa;
	struct xhci_ring cmd;
	struct xhci_trb *evt;
	uint64_t evt_bus;
	uint32_t evt_deq, evt_cycle;
	uint8_t *desc; /* XHCI_DESC_BUF bytes of DMA memory for descriptors and hub status */
	struct xhci_dev hub[XHCI_HUB_TIERS]; /* the hubs on the way to the device, hub[0] at the root port */
	bool running;
	bool bios_forced; /* the BIOS never released the controller (7.1.1): taken after 1 s anyway */
	bool dead;     /* a command timed out or the controller reported an error: stop here */
	uint32_t last_cc; /* completion code of the last failed command or transfer, 0: none */
	uint32_t bulk_timeout_us; /* one bulk TD's bound (xhci_set_bulk_timeout); 0: Linux SD_TIMEOUT, 30 s */
	char err[XHCI_ERR_LEN];
};

/* Takes over and starts the controller at mmio_base: Legacy Support hand-off, halt, reset,
 * data structures (DCBAA, scratchpads, command ring, event ring), run. A BIOS that keeps the
 * controller past 1 s loses it (x->bios_forced); its SMIs are turned off either way. Failure: a
 * reset or halt never finished, the DMA region is too small, or the controller is
 * not one this driver can drive (no 32-bit-addressable memory problems: the region is below 4 GiB). */
int xhci_init(struct xhci *x, uint64_t mmio_base, const struct usb_io *io, struct usb_dma *dma);

/* Resets the port at `path` (depth > 1: through the hubs, each set up on the way), addresses the device,
 * reads its descriptors, selects its configuration and the first bulk-only mass-storage interface
 * (class 8, subclass 6, protocol 0x50) and configures its bulk endpoints. Failure: nothing
 * connected, the port never enabled, a command or request failed, or no such interface. */
int xhci_open_msc(struct xhci *x, const struct usb_port_path *path, struct xhci_dev *dev);

/* The device xhci_find_msc offers: true keeps it (the walk stops, *dev stays configured), false
 * moves on (its slot is disabled and its DMA memory given back). It may use the device freely. */
typedef bool (*xhci_accept_fn)(void *ctx, struct xhci_dev *dev);

/* What a walk saw: devices offered to accept, devices set up (hubs included), ports with a device. */
struct xhci_walk_stats {
	unsigned offered, devices, connected, hubs_too_deep;
};

/* Finds the mass-storage device `accept` takes: every root port and every hub tier below it
 * (XHCI_HUB_TIERS), the ports of `hint` first at each tier (a hint only: firmware numbers them
 * 0- or 1-based; may be NULL). A device that falls to the other speed's port while being reset
 * (a USB 3 link that fails training shows up on its USB 2 twin; a USB 2 reset can move it to its
 * USB 3 port) is found by a second pass over the ports that changed. Bounded: each port's waits,
 * two passes. 0 with *dev configured; else an error (xhci_error) and *st says what was seen. */
int xhci_find_msc(struct xhci *x, const struct usb_port_path *hint, xhci_accept_fn accept, void *ctx,
		  struct xhci_dev *dev, struct xhci_walk_stats *st);

/* One bulk transfer of len bytes (split into transfers of at most 64 KiB; an IN transfer ends at
 * the first short one). *actual: bytes moved (may be NULL). Returns 0, USB_XFER_STALL (the
 * endpoint halted: xhci_clear_halt, then go on) or USB_XFER_ERROR. buf is DMA memory. */
int xhci_bulk(struct xhci *x, struct xhci_dev *d, bool in, void *buf, uint32_t len, uint32_t *actual);

/* A control request on the default endpoint; the data stage's direction is bmRequestType's bit 7.
 * buf is DMA memory or NULL (len 0). A stall returns USB_XFER_STALL (the endpoint is recovered). */
int xhci_control(struct xhci *x, struct xhci_dev *d, uint8_t type, uint8_t req, uint16_t value,
		 uint16_t index, void *buf, uint16_t len);

/* The bound of each later bulk transfer's completion, in microseconds (the class driver's: a
 * cache flush may take longer than a read); 0: the default, 30 s (Linux SD_TIMEOUT). */
void xhci_set_bulk_timeout(struct xhci *x, uint32_t us);

/* Ends the run's use of the controller (Linux xhci_shutdown): Run/Stop cleared and the halt
 * waited for, then HCRST and its end waited for (bounded: 250 ms, Linux XHCI_RESET_SHORT_USEC),
 * so the controller does no more DMA into memory the next owner (firmware reset, OS) reuses.
 * 0, or USB_XFER_ERROR when it did not halt or reset in time (xhci_error says which). */
int xhci_shutdown(struct xhci *x);

/* Clears a halted bulk endpoint: Reset Endpoint and Set TR Dequeue Pointer commands (past the
 * failed transfer), then CLEAR_FEATURE(ENDPOINT_HALT) to the device. */
int xhci_clear_halt(struct xhci *x, struct xhci_dev *d, bool in);

/* The root hub port's state: 1 a device is connected, 0 none, -1 no such port. *speed and *usb3
 * (may be NULL) tell the current speed and whether the port is a USB 3 one. For finding the stick. */
int xhci_port_connected(struct xhci *x, unsigned port, enum usb_speed *speed, bool *usb3);

const char *xhci_error(const struct xhci *x); /* why the last call failed, one line */
const char *usb_speed_name(enum usb_speed s); /* "full", "low", "high", "super", "super+" */

#endif

/* What the xHCI driver's units share and nothing outside them uses: register access, bounded
 * waits, the error text, rings and commands (xhci_ring.c), transfers (xhci_xfer.c), protocols and
 * their speeds (xhci_proto.c), root ports (xhci_port.c), device set-up (xhci_enum.c), port paths
 * (xhci_open.c), external hubs (xhci_hub.c) and the walk that finds the stick (xhci_find.c). */
#ifndef DRIVERS_USB_XHCI_INTERNAL_H
#define DRIVERS_USB_XHCI_INTERNAL_H

#include "drivers/usb/xhci.h"
#include "drivers/usb/xhci_regs.h"

/* Bounds of the waits, in microseconds of delay_us: those of mature drivers, so a slow real
 * controller or stick is waited for as long as Linux waits for it (drivers/usb/host/xhci.h,
 * drivers/scsi/sd.h, drivers/usb/core/hub.c), and never forever. */
#define XHCI_POLL_US 10
#define XHCI_POLL_FAST_US 10000     /* polled every XHCI_POLL_US for this long, then ... */
#define XHCI_POLL_SLOW_US 100       /* ... this far apart: a 30 s wait is not 3 million reads */
#define XHCI_HALT_US 100000         /* 5.4.2: the HC halts within 16 ms of RS = 0 */
#define XHCI_CNR_US 10000000        /* HCRST and CNR clearing: Linux XHCI_RESET_LONG_USEC, 10 s */
#define XHCI_RESET_US XHCI_CNR_US
#define XHCI_SHUTDOWN_RESET_US 250000 /* the end-of-run reset: Linux XHCI_RESET_SHORT_USEC */
#define XHCI_HANDOFF_US 1000000     /* BIOS releasing the controller (Linux allows 1 s too) */
#define XHCI_CMD_US 5000000         /* a command's completion: Linux XHCI_CMD_DEFAULT_TIMEOUT, 5 s */
#define XHCI_CTRL_US 5000000        /* a control request: Linux USB_CTRL_GET_TIMEOUT, 5 s */
#define XHCI_XFER_US 30000000       /* a bulk transfer by default: Linux SD_TIMEOUT, 30 s */
#define XHCI_PORT_CONNECT_US 2000000 /* a device showing up after a reset: Linux HUB_DEBOUNCE_TIMEOUT, 2 s */
#define XHCI_PORT_DEBOUNCE_US 100000 /* USB 2.0 7.1.7.3: connect debounce TATTDB, 100 ms */
#define XHCI_PORT_RESET_US 500000   /* USB 2 port reset (PRC), warm reset (WRC) */
#define XHCI_PORT_U0_US 1000000     /* a USB 3 link training to U0 */
#define XHCI_RESET_RECOVERY_US 10000 /* USB 2.0 7.1.7.5 TRSTRCY after a port reset */
#define XHCI_INTEL_RESET_GAP_US 1000 /* no register access right after HCRST (Linux's Intel quirk) */
#define XHCI_HCIVERSION_0_95 0x95   /* Linux XHCI_LINK_TRB_QUIRK: every Link TRB carries the chain bit */

#define XHCI_TD_TRBS 4 /* Setup, two Data pieces (one 64 KiB boundary), Status */

/* A transfer descriptor being written: its TRBs' bus addresses and data lengths, the first TRB
 * handed to the controller last (its cycle bit flipped in xhci_td_commit). */
struct xhci_td {
	struct xhci_ring *ring;
	unsigned n;
	uint32_t first, first_cycle;
	uint64_t bus[XHCI_TD_TRBS];
	uint32_t len[XHCI_TD_TRBS]; /* bytes of a data TRB, 0 for Setup/Status/commands */
};

/* A completion: event type, completion code, slot, endpoint, TRB pointer, residual length. */
struct xhci_event {
	uint32_t type, cc, slot, dci, residual;
	uint64_t trb;
};

uint32_t xhci_rd(const struct xhci *x, uint64_t addr);
void xhci_wr(const struct xhci *x, uint64_t addr, uint32_t v);
void xhci_wr64(const struct xhci *x, uint64_t addr, uint64_t v); /* low dword first (5.1) */
void xhci_delay(const struct xhci *x, uint32_t us);
/* The delay before the next poll of a wait that has lasted waited_us. */
uint32_t xhci_poll_step(uint32_t waited_us);
/* Polls until (read32(addr) & mask) == want; false after timeout_us of delays. */
bool xhci_wait32(const struct xhci *x, uint64_t addr, uint32_t mask, uint32_t want, uint32_t timeout_us);
void xhci_to_dev(const struct xhci *x, const void *p, size_t n);
void xhci_from_dev(const struct xhci *x, void *p, size_t n);
/* Orders the CPU's DMA-memory writes before what follows (doorbell) and its reads after a seen
 * event: a full fence (the compiler builtin; no inline assembly outside arch/). */
static inline void xhci_fence(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* The error text: "<what>", "<what> <n>" or "<what> <n>: <completion code name>"; all return
 * USB_XFER_ERROR so a caller can `return xhci_fail(...)`. */
int xhci_fail(struct xhci *x, const char *what);
int xhci_fail_n(struct xhci *x, const char *what, uint64_t n);
int xhci_fail_cc(struct xhci *x, const char *what, uint32_t cc);

/* Rings (xhci_ring.c). A ring of XHCI_RING_TRBS in DMA memory; false: out of DMA memory. */
bool xhci_ring_alloc(struct xhci *x, struct xhci_ring *r);
uint64_t xhci_ring_enq_bus(const struct xhci_ring *r); /* enqueue pointer | cycle: Set TR Dequeue */
void xhci_td_begin(struct xhci_td *td, struct xhci_ring *r);
void xhci_td_put(struct xhci *x, struct xhci_td *td, uint64_t param, uint32_t status, uint32_t control,
		 uint32_t data_len);
void xhci_td_commit(struct xhci *x, struct xhci_td *td);
void xhci_doorbell(struct xhci *x, unsigned slot, unsigned target);
/* Takes the next event if there is one (and moves ERDP on); false: none yet. */
bool xhci_event_next(struct xhci *x, struct xhci_event *ev);
/* Issues a command and waits for its completion: returns its completion code (XHCI_CC_SUCCESS...)
 * with *slot its slot id, or -1 after a timeout (the controller is then given up). */
int xhci_command(struct xhci *x, uint64_t param, uint32_t status, uint32_t control, uint8_t *slot);
int xhci_command_ok(struct xhci *x, const char *what, uint64_t param, uint32_t control); /* 0 or error */

/* Transfers (xhci_xfer.c): a control request for enumeration, 0 or USB_XFER_*. */
int xhci_ctrl(struct xhci *x, struct xhci_dev *d, uint8_t type, uint8_t req, uint16_t value,
	      uint16_t index, void *buf, uint16_t len);
int xhci_ep_recover(struct xhci *x, struct xhci_dev *d, struct xhci_ep *ep, bool halted);

/* Supported Protocol capabilities (xhci_proto.c): remembers the one at MMIO address cap (its
 * ports, slot type, PSI dwords). */
void xhci_proto_add(struct xhci *x, uint64_t cap);

/* Root hub ports (xhci_port.c). */
const struct xhci_proto *xhci_port_proto(const struct xhci *x, unsigned port);
int xhci_root_port_reset(struct xhci *x, unsigned port, enum usb_speed *speed, uint8_t *psiv);
bool xhci_port_changed(struct xhci *x, unsigned port); /* CSC: the connection changed since its reset */

/* Context addressing (xhci_base.c). */
void *xhci_ctx(const struct xhci *x, void *base, unsigned index); /* context `index` of a context array */

/* Devices (xhci_enum.c). */
void xhci_fill_slot(struct xhci *x, struct xhci_dev *d, unsigned entries); /* d's input slot context */
int xhci_input_command(struct xhci *x, struct xhci_dev *d, uint32_t add, uint32_t type, const char *what);
int xhci_dev_address(struct xhci *x, struct xhci_dev *d, unsigned slot_type);
int xhci_dev_descriptors(struct xhci *x, struct xhci_dev *d, uint16_t *cfg_len);
int xhci_dev_configure_msc(struct xhci *x, struct xhci_dev *d, uint16_t cfg_len); /* interface, endpoints */

/* Gives d's slot back (Disable Slot, 4.6.4) and the DMA memory allocated since `mark` (all of it
 * d's and its children's, themselves released). */
void xhci_dev_release(struct xhci *x, struct xhci_dev *d, size_t mark);

/* Port paths (xhci_open.c): d reset at `port` of `hub` (NULL: the root hub) with its root port,
 * tier, route string, speed and TT; then addressed with its descriptors read. */
int xhci_dev_at_port(struct xhci *x, struct xhci_dev *hub, unsigned port, struct xhci_dev *d);
int xhci_dev_bring_up(struct xhci *x, struct xhci_dev *d, uint16_t *cfg_len);
unsigned xhci_slot_type(const struct xhci *x, unsigned root_port);

/* Hubs (xhci_hub.c). */
int xhci_hub_mark(struct xhci *x, struct xhci_dev *hub, uint8_t ttt); /* slot context: Hub, ports, TTT */
int xhci_hub_setup(struct xhci *x, struct xhci_dev *hub, uint16_t cfg_len);
int xhci_hub_port_reset(struct xhci *x, struct xhci_dev *hub, unsigned port, enum usb_speed *speed);
int xhci_hub_port_connected(struct xhci *x, struct xhci_dev *hub, unsigned port); /* 1, 0, -1: failed */
void xhci_hub_settle(struct xhci *x); /* after the hub's ports are powered: connections debounced */

#endif

/* The USB transport a class driver needs from the host controller driver, as an ops table: bulk
 * transfers on one IN and one OUT endpoint of a device, control requests on its default pipe,
 * the halt recovery of a bulk endpoint and a delay. The mass-storage driver (drivers/usb/msc.h)
 * runs on it; the firmware adapts the xHCI driver to it, the unit tests a model device
 * (tests/unit/msc_model.h). Every op must return in bounded time: the ops' timeouts are the
 * controller driver's. */
#ifndef DRIVERS_USB_USB_BULK_H
#define DRIVERS_USB_USB_BULK_H

#include <stdbool.h>
#include <stdint.h>

/* Transfer results (drivers/usb/usb_io.h may define the same values). */
#ifndef USB_XFER_OK
#define USB_XFER_OK 0
#endif
#ifndef USB_XFER_STALL
#define USB_XFER_STALL (-1) /* the endpoint answered STALL */
#endif
#ifndef USB_XFER_ERROR
#define USB_XFER_ERROR (-2) /* any other transfer failure (timeout, transaction error, babble) */
#endif

struct usb_bulk_dev {
	void *ctx;
	uint16_t interface; /* bInterfaceNumber of the class interface (class requests go to it) */
	/* One bulk transfer of len bytes to (in = false) or from (in = true) buf, which is DMA
	 * memory. *actual: the bytes moved, also when the transfer ends in a STALL or an error.
	 * A short IN transfer (short packet) is USB_XFER_OK with *actual < len. */
	int (*bulk)(void *ctx, bool in, void *buf, uint32_t len, uint32_t *actual);
	/* A control request on the default pipe (USB 2.0 9.3: bmRequestType, bRequest, wValue,
	 * wIndex, wLength); buf: len bytes of DMA memory, its direction that of type's bit 7. */
	int (*control)(void *ctx, uint8_t type, uint8_t req, uint16_t value, uint16_t index, void *buf,
		       uint16_t len);
	/* CLEAR_FEATURE(ENDPOINT_HALT) to the bulk IN or OUT endpoint, plus the host side's
	 * endpoint reset (data toggle / sequence back to 0). USB_XFER_OK or an error. */
	int (*clear_halt)(void *ctx, bool in);
	void (*delay_us)(void *ctx, uint32_t us);
	/* Optional (NULL: the controller driver's default bound): the bound, in microseconds, of
	 * each later bulk transfer's completion; the class driver sets it per command (a cache
	 * flush may take longer than a read). */
	void (*set_timeout)(void *ctx, uint32_t us);
};

#endif

/* What the xHCI unit tests (test_xhci.c, test_xhci_find.c, test_xhci_robust.c) share around the
 * controller model (xhci_model.h): the model set up over its own DMA memory, and a bulk loopback
 * through an opened device. Each test keeps its own rig struct with what it attaches. */
#ifndef TESTS_UNIT_XHCI_RIG_H
#define TESTS_UNIT_XHCI_RIG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "drivers/usb/xhci.h"
#include "tests/unit/xhci_model.h"

/* The model reset (xm_init) over fresh DMA memory, io and dma pointing at it; returns that memory
 * (XHCI_RIG_FREE frees it with the rig). */
uint8_t *xhci_rig_model(struct xhci_model *m, struct usb_io *io, struct usb_dma *dma);

/* A rig allocated with calloc whose `mem` is xhci_rig_model's memory. */
#define XHCI_RIG_FREE(r) (free((r)->mem), free(r))

/* OUT n bytes of the pattern seed + i * step, IN them back, compare. */
bool xhci_rig_loopback(struct xhci *x, struct xhci_dev *d, uint8_t *out, uint8_t *in, uint32_t n, uint8_t seed,
		       unsigned step);

#endif

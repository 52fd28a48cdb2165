/* The xHCI unit tests' shared set-up and loopback (xhci_rig.h). */
#include "tests/unit/xhci_rig.h"

#include <string.h>

uint8_t *xhci_rig_model(struct xhci_model *m, struct usb_io *io, struct usb_dma *dma)
{
	uint8_t *mem = aligned_alloc(4096, XM_DMA_SIZE);

	xm_init(m, mem);
	xm_io(m, io, dma);
	return mem;
}

bool xhci_rig_loopback(struct xhci *x, struct xhci_dev *d, uint8_t *out, uint8_t *in, uint32_t n, uint8_t seed,
		       unsigned step)
{
	uint32_t got = 0;

	for (uint32_t i = 0; i < n; i++)
		out[i] = (uint8_t)(seed + i * step);
	memset(in, 0, n);
	if (xhci_bulk(x, d, false, out, n, &got) || got != n)
		return false;
	if (xhci_bulk(x, d, true, in, n, &got) || got != n)
		return false;
	return memcmp(out, in, n) == 0;
}

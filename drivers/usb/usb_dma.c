/* The DMA region's bump allocator (drivers/usb/usb_io.h): alignment and boundaries are those of the
 * bus address, which is what the xHCI data structure rules (xHCI 1.2 section 6, table 6-1) are
 * about; the CPU pointer differs from it only by a constant offset, and the bus address must stay
 * at or below the region's DMA limit. */
#include <string.h>

#include "drivers/usb/usb_io.h"

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

void *usb_dma_alloc(struct usb_dma *d, size_t n, size_t align, size_t boundary)
{
	uint64_t bus, end;
	size_t off;

	if (!d->base || n == 0 || (boundary && n > boundary))
		return NULL;
	if (align < 1)
		align = 1;
	/* No two buffers share a cache-writeback granule: cleaning one must not write stale CPU
	 * bytes over what the device put in its neighbour (usb_io.h). */
	if (align < d->granule)
		align = d->granule;
	bus = align_up(d->bus_base + d->used, align);
	/* Would it straddle a boundary? Start at the next one instead (n <= boundary, so it fits). */
	if (boundary && (bus / boundary) != ((bus + n - 1) / boundary))
		bus = align_up(bus, boundary);
	end = bus + n;
	if (end < bus || end - d->bus_base > d->size || (d->bus_limit && end - 1 > d->bus_limit))
		return NULL;
	off = (size_t)(bus - d->bus_base);
	d->used = off + n;
	if (d->granule > 1 && d->used < d->size)
		d->used = (size_t)align_up(d->used, d->granule);
	memset(d->base + off, 0, n);
	return d->base + off;
}

uint64_t usb_dma_bus(const struct usb_dma *d, const void *p)
{
	return d->bus_base + (uint64_t)((const uint8_t *)p - d->base);
}

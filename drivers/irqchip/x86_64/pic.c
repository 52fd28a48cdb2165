/* 8259A masking (see pic.h). */
/* OPT_FAST: -O2 (Makefile): interrupt path (delivery, handlers, EOI) timed by the irq probes and the profiler. */
#include "drivers/irqchip/x86_64/pic.h"

#include "arch/x86_64/io.h"

static uint8_t rd(const struct pic_io *io, uint16_t port)
{
	return io ? io->inb(io->ctx, port) : inb(port);
}

static void wr(const struct pic_io *io, uint16_t port, uint8_t v)
{
	if (io)
		io->outb(io->ctx, port, v);
	else
		outb(port, v);
}

void pic_mask_all(const struct pic_io *io, struct pic_state *st)
{
	st->found1 = rd(io, PIC1_DATA);
	st->found2 = rd(io, PIC2_DATA);
	wr(io, PIC1_DATA, PIC_MASK_ALL);
	wr(io, PIC2_DATA, PIC_MASK_ALL);
}

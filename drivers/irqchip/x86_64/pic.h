/* The legacy 8259A pair: kept fully masked (OCW1 = 0xFF on both data ports) so nothing the
 * firmware routed through it reaches the CPU (LINT0 is ExtINT under OVMF). Port access goes
 * through struct pic_io so host tests can check the writes. */
#ifndef DRIVERS_PIC_H
#define DRIVERS_PIC_H

#include <stdint.h>

#define PIC1_DATA 0x21
#define PIC2_DATA 0xA1
#define PIC_MASK_ALL 0xFFu

struct pic_io {
	uint8_t (*inb)(void *ctx, uint16_t port);
	void (*outb)(void *ctx, uint16_t port, uint8_t v);
	void *ctx;
};

struct pic_state {
	uint8_t found1, found2; /* interrupt masks as the firmware left them */
};

/* io NULL: the hardware ports. */
void pic_mask_all(const struct pic_io *io, struct pic_state *st);

#endif

/* The hardware's register access for drivers/irqchip/aarch64/gicv3.h (AArch64 build only; see gicv3_hw.c). */
#ifndef DRIVERS_GICV3_HW_H
#define DRIVERS_GICV3_HW_H

#include "drivers/irqchip/aarch64/gicv3.h"

extern const struct gicv3_io gicv3_hw_io;

#endif

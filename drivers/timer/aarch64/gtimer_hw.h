/* The hardware's register access for drivers/timer/aarch64/gtimer.h (AArch64 build only; see gtimer_hw.c). */
#ifndef DRIVERS_GTIMER_HW_H
#define DRIVERS_GTIMER_HW_H

#include "drivers/timer/aarch64/gtimer.h"

extern const struct gtimer_io gtimer_hw_io;

#endif

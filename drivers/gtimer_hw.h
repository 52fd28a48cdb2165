/* The hardware's register access for drivers/gtimer.h (AArch64 build only; see gtimer_hw.c). */
#ifndef DRIVERS_GTIMER_HW_H
#define DRIVERS_GTIMER_HW_H

#include "drivers/gtimer.h"

extern const struct gtimer_io gtimer_hw_io;

#endif

/* The saving plan's one instance (efi/save_state.h): filled by efi/save_prepare.c and its helpers
 * (save_pci.c, save_iommu.c) before ExitBootServices, used by efi/save_stick.c after it. In a unit
 * of its own so that those units all depend on it and not on each other's callers. */
#include "efi/save_state.h"

struct save_plan save_plan;

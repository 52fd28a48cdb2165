/* Either GIC driver behind one set of calls: efi/aarch64/irq_platform.c and the profiler's other
 * cores program SGIs/PPIs, send self-SGIs and EOI without knowing which GIC the machine has. The
 * platform chooses at init (drivers/fw/aarch64/platform_id.h a64_gic_bases_from: a GICv3/v4 by
 * its redistributors, a GICv2 by its GICC CPU interface address) and brings that one up; each
 * call then goes to drivers/irqchip/aarch64/gicv3.h or gicv2.h. */
#ifndef DRIVERS_GIC_H
#define DRIVERS_GIC_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/irqchip/aarch64/gicv2.h"
#include "drivers/irqchip/aarch64/gicv3.h"

#define GIC_V2 2
#define GIC_V3 3 /* the GICv3 driver, which also drives a GICv4 */

struct gic {
	unsigned version; /* GIC_V2 or GIC_V3; 0: none chosen */
	struct gicv3 v3;
	struct gicv2 v2;
};

bool gic_ready(const struct gic *g);
const char *gic_reason(const struct gic *g);
/* As gicv3_private_* / gicv2_private_* (intid < 32, this CPU's). */
void gic_private_config(struct gic *g, unsigned intid, uint8_t priority);
void gic_private_enable(struct gic *g, unsigned intid, bool on);
void gic_private_level(struct gic *g, unsigned intid);
void gic_private_clear(struct gic *g, unsigned intid);
uint32_t gic_private_pending(const struct gic *g);
uint32_t gic_private_active(const struct gic *g);
void gic_send_sgi_self(struct gic *g, unsigned intid);
/* End of interrupt with the acknowledge's raw value (GICv2 wants an SGI's source CPU back). */
void gic_eoi(struct gic *g, uint32_t iar);
/* End an interrupt found active with no acknowledge value at hand (the cleanup of one left in
 * service): a GICv2 SGI's is taken as sent by this CPU (our self-SGIs are). */
void gic_eoi_stale(struct gic *g, unsigned intid);

#endif

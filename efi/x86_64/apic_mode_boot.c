/* Option apic_mode on the BSP (see apic_mode_boot.h). */
#include "efi/x86_64/apic_mode_boot.h"

#include "drivers/irqchip/x86_64/lapic_mode.h"
#include "lib/emit.h"
#include "lib/fmt.h"

#define MSG_MAX 200

void apic_mode_boot(enum apic_mode mode, bool cpu_x2apic)
{
	static const enum lapic_mode_request req[] = {
		[APIC_MODE_AUTO] = LAPIC_MODE_AUTO,
		[APIC_MODE_XAPIC] = LAPIC_MODE_XAPIC,
		[APIC_MODE_X2APIC] = LAPIC_MODE_X2APIC,
	};
	const struct lapic_mode_result *r;
	char buf[MSG_MAX];
	struct sbuf s;

	(void)lapic_mode_bsp_apply(req[mode], cpu_x2apic);
	r = lapic_mode_bsp();
	sb_init(&s, buf, sizeof(buf));
	sb_puts(&s, "apic_mode=");
	sb_puts(&s, lapic_mode_request_name(r->request));
	if (r->reason) {
		sb_puts(&s, ": ");
		sb_puts(&s, r->reason);
		emit_msg(MSG_WARN, buf);
	} else if (r->switched) {
		sb_puts(&s, ": local APIC switched from xAPIC to x2APIC mode (the APs switch themselves)");
		emit_msg(MSG_INFO, buf);
	}
}

/* The AArch64 plat kind=pmu record (see bench/facts/aarch64/pmu.h; fields in docs/protocol.md, AArch64).
 * The x86 record's names are kept where the fact is the same (present, reason, pmu,
 * vendor_version, gp, gp_width, fixed, fixed_width, family_events: the harness's PMU line reads
 * them); the AArch64 facts have names of their own. */
#include "bench/facts/aarch64/pmu.h"

#include "bench/core/summary.h"
#include "bench/core/options.h"
#include "lib/emit.h"
#include "lib/fmt.h"

#define EVENTS_BUF 256

/* The counter-set names this PMU can count, comma-separated. */
static void offered(const struct pmu_info *pi, char *buf, unsigned size)
{
	struct sbuf sb;
	bool first = true;

	sb_init(&sb, buf, size);
	for (unsigned i = 0; config_pmu_event_names[i]; i++) {
		if (!pmu_has_event(pi, config_pmu_event_names[i]))
			continue;
		if (!first)
			sb_putc(&sb, ',');
		sb_puts(&sb, config_pmu_event_names[i]);
		first = false;
	}
}

/* The Arm name branch_misses counts here (BR_MIS_PRED_RETIRED, else BR_MIS_PRED), or "none". */
static const char *branch_misses_event(const struct pmu_info *pi)
{
	const char *arm = 0, *why = 0;

	return pi->present && a64_pmu_event_for(pi, "branch_misses", &arm, &why) >= 0 ? arm : "none";
}

void platform_a64pmu_emit(struct pmu_info *pi)
{
	char events[EVENTS_BUF], line[96];
	struct record *r;
	struct sbuf sb;

	pmu_discover(pi);
	offered(pi, events, sizeof(events));
	r = emit_start("plat");
	rec_str(r, "kind", "pmu");
	rec_bool(r, "present", pi->present);
	rec_str(r, "reason", pi->reason ? pi->reason : "unknown");
	rec_str(r, "pmu", pi->pmuver ? "pmuv3" : "none");
	rec_u64(r, "vendor_version", pi->pmuver);
	rec_str(r, "pmuv3", a64_pmu_version_name(pi->pmuver));
	rec_u64(r, "gp", pi->num_counters);
	rec_u64(r, "gp_width", pi->counter_width);
	rec_u64(r, "fixed", pi->cycle_counter ? 1 : 0);
	rec_u64(r, "fixed_width", pi->cycle_width);
	rec_str(r, "family_events", "armv8_common");
	rec_hex(r, "pmcr", pi->pmcr_found);
	rec_hex(r, "pmcr_set", pi->pmcr);
	rec_hex(r, "pmceid0", pi->pmceid0);
	rec_hex(r, "pmceid1", pi->pmceid1);
	rec_u64(r, "common_events", a64_pmu_events_implemented(pi->pmceid0, pi->pmceid1));
	rec_str(r, "events", events[0] ? events : "none");
	rec_str(r, "branch_misses_event", branch_misses_event(pi));
	rec_str(r, "branch_ratio", a64_pmu_branch_ratio(pi));
	rec_hex(r, "filter", pi->filter);
	rec_str(r, "count_el", "el1");
	rec_bool(r, "el3", pi->el3);
	if (pi->fault_vector)
		rec_hex(r, "fault_ec", pi->fault_vector - 1);
	emit_finish();

	sb_init(&sb, line, sizeof(line));
	if (pi->present) {
		sb_puts(&sb, "PMU: PMUv3 ");
		sb_puts(&sb, a64_pmu_version_name(pi->pmuver));
		sb_puts(&sb, ", ");
		sb_u64(&sb, pi->num_counters);
		sb_puts(&sb, " event counters + cycle counter");
	} else {
		sb_puts(&sb, "PMU: absent (see the pmu record)");
	}
	summary_line(line);
}

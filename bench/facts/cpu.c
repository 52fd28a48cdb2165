/* plat kind=cpu, its common part (see bench/facts/cpu.h). */
#include "bench/facts/cpu.h"

struct record *platform_cpu_record_start(const struct cpu_info *ci)
{
	struct record *r = emit_start("plat");

	rec_str(r, "kind", "cpu");
	rec_str(r, "vendor", ci->vendor);
	rec_u64(r, "family", ci->family);
	rec_u64(r, "model", ci->model);
	rec_u64(r, "stepping", ci->stepping);
	rec_str(r, "brand", ci->brand[0] ? ci->brand : "unknown");
	return r;
}

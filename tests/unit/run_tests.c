/* Host unit-test runner: runs every suite, prints each failing check, and ends with the line
 * "N passed, N failed" (counting test cases) that CI reads. Exit status 1 when anything failed. */
#include <stdio.h>

#include "tests/unit/test.h"

int test_failed_checks;

/* The suites; another binary of the same runner may give its own list (-D'SUITES(X)=...'). */
#ifndef SUITES
#define SUITES(X) X(crc32) X(fmt) X(record) X(emit) X(config) X(sort) X(calibrate) X(tsc_cal) X(acpi) X(smbios) X(memory) X(madt) X(pmu) X(pmu_vendor) X(counters) X(irq_drivers) X(gap_detect) X(irq_platform) X(fp_stats) X(fp_pmu) X(icache_pair) X(lapic_mode) X(displace_stats) X(prof_table) X(pmu_pmi) X(a64_decode) X(a64_walk) X(madt_gicc) X(a64_cache) X(a64_pmu) X(gicv3) X(gtimer) X(a64_sysreg) X(a64_irq2) X(a64_pmi) X(a64_platform_id)
#endif

#define DECLARE(name) extern const struct test_case name##_tests[];
SUITES(DECLARE)

struct suite {
	const char *name;
	const struct test_case *cases;
};

#define ENTRY(name) { #name, name##_tests },
static const struct suite suites[] = { SUITES(ENTRY) };

int main(void)
{
	unsigned passed = 0, failed = 0;

	for (size_t s = 0; s < sizeof(suites) / sizeof(suites[0]); s++) {
		for (const struct test_case *t = suites[s].cases; t->name; t++) {
			int before = test_failed_checks;

			t->fn();
			if (test_failed_checks == before) {
				passed++;
			} else {
				failed++;
				printf("FAIL %s.%s\n", suites[s].name, t->name);
			}
		}
	}
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}

/* The verdict of pmu_check (see bench/stats/pmu_check.h). */
#include "bench/stats/pmu_check.h"

#include "lib/sort.h"

static uint64_t absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* Sorted copy's k-th smallest (k < n <= PMU_CHECK_MAX_REPS). */
static uint64_t order_stat(const uint64_t *v, unsigned n, unsigned k)
{
	uint64_t s[PMU_CHECK_MAX_REPS];

	for (unsigned i = 0; i < n; i++)
		s[i] = v[i];
	sort_u64(s, n);
	return s[k];
}

void pmu_check_judge(const uint64_t *d0, const uint64_t *ds, const uint64_t *dl, unsigned reps,
		     uint64_t expected_short, uint64_t expected_long, struct pmu_check_verdict *v)
{
	uint64_t lo0, los, lol, q3;

	*v = (struct pmu_check_verdict){ 0 };
	if (!reps)
		return;
	if (reps > PMU_CHECK_MAX_REPS)
		reps = PMU_CHECK_MAX_REPS;
	lo0 = order_stat(d0, reps, 0);
	los = order_stat(ds, reps, 0);
	lol = order_stat(dl, reps, 0);
	q3 = order_stat(d0, reps, (3 * (reps - 1)) / 4);
	v->overhead = lo0;
	v->tolerance = q3 - lo0;
	v->measured_short = los >= lo0 ? los - lo0 : 0;
	v->measured_long = lol >= lo0 ? lol - lo0 : 0;
	v->tolerance_ok = v->tolerance <= PMU_CHECK_MAX_TOLERANCE;
	v->pass = v->tolerance_ok && absdiff(v->measured_short, expected_short) <= v->tolerance &&
		  absdiff(v->measured_long, expected_long) <= v->tolerance;
}

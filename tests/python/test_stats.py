"""Statistics: known values, degenerate inputs, confidence intervals, mode detection."""

import math
import os
import random
import re

import pytest

from bmharness import stats as S


def test_known_small_dataset():
    xs = [2, 4, 4, 4, 5, 5, 7, 9, 100, 1]
    d = S.describe(xs)
    assert d["n"] == 10 and d["min"] == 1 and d["max"] == 100
    assert d["median"] == 4   # sorted 1 2 4 4 [4] 5 5 7 9 100: rank ceil(10/2) = 5
    assert d["mean"] == pytest.approx(14.1)
    # 10% of 10 -> one value dropped each side: mean of 2,4,4,4,5,5,7,9
    assert d["trimmed_mean"] == pytest.approx(5.0)
    sd = math.sqrt(sum((x - 14.1) ** 2 for x in xs) / 9)
    assert d["stddev"] == pytest.approx(sd)
    half = 2.262 * sd / math.sqrt(10)
    assert d["ci95"] == pytest.approx([14.1 - half, 14.1 + half])
    assert d["ci95_half"] == pytest.approx(half)
    assert d["ci_within_5pct"] is False
    # N = 10 cannot support a 1% tail: no p1/p99 rather than an interpolation towards min/max
    assert d["p1"] is None and d["p99"] is None


def test_tail_percentiles_only_where_n_supports_them():
    xs = list(range(1, 101))
    d = S.describe(xs)
    assert d["p1"] == 1 and d["p99"] == 99   # ranks ceil(N q): 1 and 99
    d = S.describe(xs[:99])
    assert d["p1"] is None and d["p99"] is None


def test_percentile_interpolates():
    s = [10, 20, 30, 40]
    assert S.percentile(s, 0) == 10 and S.percentile(s, 100) == 40
    assert S.percentile(s, 50) == 25
    assert S.percentile(s, 25) == pytest.approx(17.5)


def test_t_quantiles():
    assert S.t_quantile_975(1) == 12.706
    assert S.t_quantile_975(9) == 2.262
    assert 2.042 > S.t_quantile_975(35) > 2.021
    assert S.t_quantile_975(10 ** 6) == pytest.approx(S.Z975, abs=1e-3)
    with pytest.raises(ValueError):
        S.t_quantile_975(0)


def test_ci_within_5pct():
    d = S.describe([1000 + (i % 5) for i in range(50)])
    assert d["ci_within_5pct"] is True and d["ci95_rel"] < 0.05


def test_empty():
    d = S.describe([])
    assert d == {"n": 0, "note": "no samples: no statistics"}
    st = S.set_stats([], 10, 2)
    assert st["per_op"]["n"] == 0 and st["raw"]["n"] == 0


def test_single_value():
    d = S.describe([42])
    assert d["n"] == 1 and d["median"] == 42 and d["trimmed_mean"] == 42
    assert d["stddev"] is None and d["ci95"] is None and d["bimodal"] is False


def test_all_equal():
    d = S.describe([7] * 100)
    assert d["stddev"] == 0 and d["ci95"] == [7, 7] and d["ci_within_5pct"] is True
    assert d["bimodal"] is False and "equal" in d["bimodal_explanation"]
    assert d["sarle_bc"] is None


def test_per_op_values():
    st = S.set_stats([1044, 1046, 1048], overhead=44, iters=100)
    assert st["per_op"]["median"] == pytest.approx(10.02)
    assert st["raw"]["median"] == 1046
    assert st["negative"] == 0
    assert S.set_stats([40], overhead=44)["negative"] == 1


def _clusters(seed, n, frac, a=100, b=200, sd=3):
    r = random.Random(seed)
    return [round(r.gauss(a, sd)) if r.random() < frac else round(r.gauss(b, sd)) for _ in range(n)]


@pytest.mark.parametrize("frac", [0.5, 0.8])
def test_bimodal_detected(frac):
    d = S.describe(_clusters(3, 1000, frac), quantum=1.0)
    assert d["bimodal"] is True, d["bimodal_explanation"]
    assert "2 modes" in d["bimodal_explanation"]
    assert d["sarle_bc"] > S.SARLE_THRESHOLD


def test_bimodal_close_clusters_80_20():
    d = S.describe(_clusters(5, 500, 0.8, 100, 130), quantum=1.0)
    assert d["bimodal"] is True, d["bimodal_explanation"]


@pytest.mark.parametrize("seed", range(5))
def test_heavy_tail_not_bimodal(seed):
    r = random.Random(seed)
    xs = [round(r.gauss(100, 2)) if r.random() < 0.85 else round(100 + r.expovariate(1 / 50))
          for _ in range(1000)]
    d = S.describe(xs, quantum=1.0)
    assert d["bimodal"] is False, d["bimodal_explanation"]
    # Sarle's coefficient is fooled by the skew; that is why it does not decide the flag.
    assert d["sarle_bc"] > S.SARLE_THRESHOLD


def test_timer_like_and_lognormal_not_bimodal():
    r = random.Random(1)
    timer = [r.choice((44, 44, 45, 46)) + (r.randint(100, 3000) if r.random() < 0.03 else 0)
             for _ in range(1024)]
    assert S.describe(timer, 1.0)["bimodal"] is False
    logn = [100 * r.lognormvariate(0, 0.5) for _ in range(1000)]
    assert S.describe(logn)["bimodal"] is False
    assert S.describe([r.gauss(0, 1) for _ in range(1000)])["bimodal"] is False


def test_small_n_not_tested():
    d = S.describe(_clusters(1, S.SMALL_MIN_N - 1, 0.5))
    assert d["bimodal"] is False and "not tested" in d["bimodal_explanation"]


def test_small_n_gap_test_finds_separated_clusters():
    d = S.describe(_clusters(1, 10, 0.5), quantum=1.0)
    assert d["bimodal"] is True and "small-N gap test" in d["bimodal_explanation"]
    assert [round(m["at"], -1) for m in d["modes"]] == [100, 200]
    # two adjacent integer values are not two modes
    assert S.describe([44] * 8 + [45] * 8, quantum=1.0)["bimodal"] is False


def _default_samples():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(root, "bench", "core", "options.def")) as fh:
        return int(re.search(r'^OPTION\(samples, U64, samples, [^"]*"(\d+)"', fh.read(), re.M).group(1))


def _rate(gen, n, trials, seed, quantum=None):
    r = random.Random(seed)
    hits = sum(S.detect_modes(sorted(gen(r, n)), quantum)["bimodal"] for _ in range(trials))
    return hits / trials


def _mix(r, n, apart=4.0):
    return [r.gauss(0, 1) if r.random() < 0.5 else r.gauss(apart, 1) for _ in range(n)]


def test_default_run_tests_bimodality():
    n = _default_samples()
    d = S.describe(_clusters(4, n, 0.5), quantum=1.0)
    assert "not tested" not in d["bimodal_explanation"] and d["bimodal"] is True
    # well separated modes are found at the default N, unimodal data stay quiet
    assert _rate(lambda r, k: _mix(r, k, 8.0), n, 200, 1) >= 0.5
    for gen in (lambda r, k: [r.gauss(0, 1) for _ in range(k)],
                lambda r, k: [r.lognormvariate(0, 0.5) for _ in range(k)],
                lambda r, k: [r.expovariate(1) for _ in range(k)]):
        assert _rate(gen, n, 400, 2) <= 0.05


def test_mixture_4_sigma_apart_found_at_200():
    assert _rate(_mix, 200, 200, 11) >= 0.90  # was 0.41


def test_unimodal_false_positive_rate():
    for gen in (lambda r, k: [r.gauss(0, 1) for _ in range(k)],
                lambda r, k: [r.lognormvariate(0, 0.5) for _ in range(k)],
                lambda r, k: [r.expovariate(1) for _ in range(k)]):
        for n in (20, 50, 200):
            assert _rate(gen, n, 200, 12) <= 0.05, n


def test_close_modes_behind_heavy_outliers():
    # Two modes 8 cycles apart plus 3% outliers out to 3000 cycles: the outliers must not widen
    # the bins until the modes merge (the histogram is sparse, its bin count not capped).
    r = random.Random(2)
    xs = [(44 if r.random() < 0.6 else 52) + r.choice((0, 0, 1))
          + (r.randint(100, 3000) if r.random() < 0.03 else 0) for _ in range(2048)]
    d = S.describe(xs, 1.0)
    assert d["bimodal"] is True, d["bimodal_explanation"]
    assert [round(m["at"]) for m in d["modes"] if m["fraction"] >= 0.1] == [44, 52]


# ---- order-statistic (distribution-free) quantile CIs -------------------------------------------

def _cdf_exact(n, q, k):
    """P(Binomial(n, q) <= k) with exact rationals (math.comb), for the cross-checks."""
    from fractions import Fraction
    qf = Fraction(q).limit_denominator(10 ** 6)
    return float(sum(math.comb(n, j) * qf ** j * (1 - qf) ** (n - j) for j in range(k + 1)))


def test_binom_cdf_known_values():
    c = S.binom_cdf(10, 0.5)
    assert c[1] == pytest.approx(11 / 1024)       # 1 + 10
    assert c[2] == pytest.approx(56 / 1024)       # + 45
    assert c[8] == pytest.approx(1013 / 1024)
    assert c[10] == pytest.approx(1.0)
    big = S.binom_cdf(100000, 0.5)                # (1/2)^100000 underflows: log space must not
    assert big[50000] == pytest.approx(0.5 + math.comb(100000, 50000) / 2 ** 100001, rel=1e-6)
    with pytest.raises(ValueError):
        S.binom_cdf(10, 1.0)


def test_median_ci_ranks_by_hand():
    # n = 10: P(B <= 1) = 11/1024 <= 0.025 < P(B <= 2) = 56/1024 -> l = 2; P(B <= 8) = 1013/1024
    # >= 0.975 > P(B <= 7) = 968/1024 -> u = 9; coverage (1013 - 11)/1024 = 0.9785
    assert S.quantile_ci_ranks(10, 0.5) == (2, 9, pytest.approx(1002 / 1024))
    # the textbook n = 100 interval: x_(40), x_(61), coverage 0.9648
    lo, hi, cov = S.quantile_ci_ranks(100, 0.5)
    assert (lo, hi) == (40, 61) and cov == pytest.approx(0.9648, abs=1e-4)
    # n = 5: even [min, max] covers only 1 - 2/32 = 0.9375: no rank reaches either side at 95%
    assert S.quantile_ci_ranks(5, 0.5)[:2] == (None, None)


def test_p99_ci_ranks_against_exact_binomial():
    for n in (400, 1000):
        lo, hi, cov = S.quantile_ci_ranks(n, 0.99)
        assert _cdf_exact(n, 0.99, lo - 1) <= 0.025 < _cdf_exact(n, 0.99, lo)
        assert _cdf_exact(n, 0.99, hi - 1) >= 0.975 > _cdf_exact(n, 0.99, hi - 2)
        assert cov >= 0.95
    # the upper side of the p99 needs P(B <= n-1) = 1 - 0.99^n >= 0.975: n >= ln 0.025 / ln 0.99
    # = 367.04, so 368 (0.99^367 = 0.02503)
    assert S.quantile_ci_ranks(367, 0.99)[1] is None
    assert S.quantile_ci_ranks(368, 0.99)[1] == 368


def test_quantile_ci_values_and_coverage_by_simulation():
    xs = sorted(range(1, 1001))
    ci = S.quantile_ci(xs, 0.5)
    assert (ci["lo"], ci["hi"], ci["lo_rank"], ci["hi_rank"]) == (469, 532, 469, 532)
    assert S.quantile_ci([], 0.5) is None
    assert S.quantile_ci(sorted(range(200)), 0.99)["hi"] is None
    # coverage of the true median of an exponential (ln 2) over repeated samples of 101
    rng = random.Random(7)
    hits, trials = 0, 400
    for _ in range(trials):
        s = sorted(rng.expovariate(1.0) for _ in range(101))
        c = S.quantile_ci(s, 0.5)
        hits += c["lo"] <= math.log(2) <= c["hi"]
    assert hits / trials >= 0.92   # nominal >= 0.95; 400 trials: sd ~0.011


def test_tail_quantile_rule():
    assert S.tail_quantile_ok(10000, 0.999) and not S.tail_quantile_ok(9999, 0.999)
    assert S.tail_quantile_ok(1000, 0.99) and not S.tail_quantile_ok(999, 0.99)

"""The statistics on values a firmware bug or a damaged log can produce: describe() on NaN and
infinities, on floats near the limits of the float range and on integer cycle counts near 2^64;
the knee finder on curves whose values span 1e-300..1e300. None of them may raise, and every
result must serialise as strict JSON (no NaN or Infinity in summary.json)."""

import json
import math
import random
import statistics

import pytest

from bmharness.analysis import knees
from bmharness import stats

NAN, INF = float("nan"), float("inf")


def strict_json(obj):
    return json.dumps(obj, allow_nan=False)


def test_nan_and_inf_are_left_out_and_counted():
    d = stats.describe([1.0, NAN, 3.0, INF, -INF])
    assert d["n"] == 2 and d["nonfinite"] == 3
    assert d["median"] == 1.0 and d["mean"] == 2.0 and d["min"] == 1.0 and d["max"] == 3.0
    assert "3 NaN or infinite" in d["note"]
    strict_json(d)


@pytest.mark.parametrize("xs", [[NAN], [INF, -INF] * 5, [NAN] * 30])
def test_only_nonfinite_values_give_no_statistics(xs):
    d = stats.describe(xs)
    assert d["n"] == 0 and d["nonfinite"] == len(xs) and "no finite samples" in d["note"]
    strict_json(d)


def test_finite_data_have_no_nonfinite_key():
    assert "nonfinite" not in stats.describe([1, 2, 3])


def test_stddev_of_distinct_integers_near_2_64():
    xs = [2 ** 64 - 1 - 3 * i for i in range(20)]
    d = stats.describe(xs)
    assert d["stddev"] == pytest.approx(statistics.stdev(xs), rel=1e-12)
    assert d["stddev"] > 17  # 3 x the stddev of 0..19 (5.92): not collapsed to 0
    assert d["ci95_half"] > 0 and d["sarle_bc"] == pytest.approx(
        stats.describe([3 * i for i in range(20)])["sarle_bc"])
    two = stats.describe([2 ** 64 - 1, 2 ** 64 - 3])
    assert two["stddev"] == pytest.approx(math.sqrt(2))


def test_huge_and_tiny_floats():
    big = stats.describe([1e308, 1e308, -1e308] * 8)
    assert big["stddev"] == pytest.approx(statistics.stdev([1e300, 1e300, -1e300] * 8) * 1e8)
    assert big["ci95"][0] < big["mean"] < big["ci95"][1]
    tiny = stats.describe([1e-300 * i for i in range(30)])
    assert tiny["stddev"] == pytest.approx(statistics.stdev(range(30)) * 1e-300)
    beyond = stats.describe([1.7e308, -1.7e308] * 3)  # the true stddev exceeds the float range
    assert beyond["stddev"] is None and beyond["ci95"] is None and "float range" in beyond["note"]
    for d in (big, tiny, beyond):
        strict_json(d)


def test_percentile_across_the_float_range():
    assert stats.percentile([-1.7e308, 1.7e308], 50) == 0.0
    assert stats.percentile([1, 2 ** 64 - 1], 100) == 2 ** 64 - 1


def test_mean_sd_integers_are_exact():
    mean, sd = stats.mean_sd([2 ** 63 + 1, 2 ** 63 + 3])
    assert sd == pytest.approx(math.sqrt(2)) and mean == float(2 ** 63 + 2)
    assert stats.mean_sd([7]) == (7.0, None)


def test_describe_never_raises_on_mixed_extremes():
    pool = [0.0, -0.0, 1e308, -1e308, 1.7e308, 5e-324, 1e-300, NAN, INF, -INF, 1.0, 2 ** 64 - 1,
            2 ** 63, -5, 3]
    rng = random.Random(3)
    for _ in range(1500):
        xs = [rng.choice(pool) for _ in range(rng.randint(0, 60))]
        if rng.random() < 0.5:
            xs = [x for x in xs if isinstance(x, int)]
        d = stats.describe(xs)
        strict_json(d)
        assert d["n"] == sum(1 for x in xs if isinstance(x, int) or math.isfinite(x))


def test_set_stats_raw_integers_near_2_63():
    raw = [2 ** 63 - 100 + i for i in range(16)]
    st = stats.set_stats(raw, overhead=0, iters=1)
    assert st["raw"]["stddev"] == pytest.approx(statistics.stdev(raw))


@pytest.mark.parametrize("rising", [True, False])
def test_knees_on_values_1e300_and_1e_300(rising):
    for values in ([1e-300] * 5 + [1e300] * 5, [1e300] * 5 + [1e-300] * 5,
                   [1e-300, 1e300] * 5):
        pts = [(4096 << i, v) for i, v in enumerate(values)]
        res = knees.detect(pts, rising=rising)
        assert res["points"] == 10
        for k in res["knees"]:
            assert k["change"] >= 0 and k["step"] >= 0
    # the one direction that is a step: the knee is found, its ratio beyond floats is inf
    up = knees.detect([(4096 << i, v) for i, v in enumerate([1e-300] * 5 + [1e300] * 5)])
    assert [k["size"] for k in up["knees"]] == [4096 << 4] and up["knees"][0]["change"] == INF


def test_knees_skip_unusable_values_and_gapped_sweeps():
    pool = [1e300, 1e-300, 1.0, 5e-324, 1.7e308, INF, NAN, 0.0, -1.0, 2.0, 3.0]
    rng = random.Random(1)
    for _ in range(3000):
        pts = [(4096 * 2 ** k * rng.choice([1, 1, 1.5, 16]), rng.choice(pool), rng.random() < 0.2)
               for k in range(rng.randint(0, 20))]
        for rising in (True, False):
            res = knees.detect(pts, rising=rising)
            assert res["points"] <= len(pts)
    pts = [(4096 << i, v) for i, v in enumerate([1.0, INF, NAN, 1.0, 1.0, 1.0])]
    assert knees.detect(pts)["points"] == 4

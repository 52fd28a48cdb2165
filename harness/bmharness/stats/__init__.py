"""The harness's statistics, one home for every view of a set (standard library only).

- order.py: the median and quantile convention (x_(ceil(N q)), the firmware's), the
  distribution-free order-statistic CI of a quantile and of the median, Wilson's interval of a
  proportion, and the interpolated percentile used only to draw;
- describe.py: a set's description (summary.json's `stats`): N, median, trimmed mean, the mean's
  t interval, p1/p99, Sarle's coefficient;
- modes.py: the mode detector (`bimodal`);
- samples.py: the one reader of the raw sample files (raw/*.txt) and the wrap rule.

docs/methods/statistics.md states the conventions and why. The package imports nothing else of
bmharness: it is the bottom layer (tests/python/test_import_graph.py).
"""

from .describe import (CI_REL_LIMIT, TRIM, describe, mean_sd, per_op, sarle_coefficient,  # noqa: F401
                       set_stats, t_quantile_975, trimmed_mean)
from .modes import BIMODAL_MIN_N, SARLE_THRESHOLD, SMALL_MIN_N, detect_modes  # noqa: F401
from .order import (CI_LEVEL, PCTL_MIN_BEYOND, TAIL_MIN_BEYOND, Z975, binom_cdf,  # noqa: F401
                    median, median_and_ci, median_ci, median_ci_coverage, percentile, quantile,
                    quantile_ci, quantile_ci_ranks, quantile_rank, tail_quantile_ok, wilson_ci)
from .samples import WRAP_LIMIT, raw_per_op, read_raw, set_samples, usable  # noqa: F401

"""On this machine's real CPU (hosted build): the random pointer-chase sweep must find the cache
levels that /sys/devices/system/cpu/cpu0/cache reports. Knees are detected by the harness
(bmharness.knees) and compared with sysfs sizes here, within [0.5x, 2x].

A virtual machine's core can be shared with another tenant's thread (SMT): while that thread is
busy it holds part of the core's L1D and L2, and the sweep sees smaller caches (here, on a Zen 3
VM: the L1D knee at 20-28 KiB and the L2's at 128-256 KiB in such sweeps, 32 KiB and 320-384 KiB in
quiet ones). The L1D is the witness: virtually indexed, its knee is its size exactly when nothing
else uses it. SWEEPS sweeps run; those whose L1D knee is within QUIET_BAND of sysfs are quiet, and
the L2 and L3 are judged on the knees of their per-size median (one sweep disturbed while it
crossed the L2 -- after its L1D witness -- is then outvoted). No quiet sweep: the L2 is a skip with
the L1D knees seen. The L1D check itself takes the first sweep. Only the first sweep crosses the
last level (the others stop past the L2): the L3 is judged on it.

A guest's memory is placed by its host: even where the guest maps 2 MiB pages, the host may back
them with 4 KiB pages at random physical addresses, and a physically indexed L2 then has sets that
overflow before it is full -- the random curve ramps up from about half the L2 (on a Zen 3 VM:
quiet sweeps' L2 knees at 256-384 KiB of 512 KiB, and 181 KiB once). An L2 knee under 0.5x in a
guest (CPUID hypervisor bit) is therefore an expected failure that names the measured size, as the
partitioned L3 is; on bare metal it fails."""

import os
import subprocess

import pytest

from conftest import ROOT, xfail_in_guest
from bmharness.analysis import knees, memory
from bmharness.stream import parse

# Timing on this machine (cache knees, which a busy neighbour moves): run last, alone (conftest.py).
pytestmark = pytest.mark.timing

BIN = os.path.join(ROOT, "build", "hosted", "baremetric")
SYSFS = "/sys/devices/system/cpu/cpu0/cache"


def sysfs_caches():
    """{(level, type): bytes} from sysfs, data and unified caches only."""
    out = {}
    if not os.path.isdir(SYSFS):
        return out
    for d in sorted(os.listdir(SYSFS)):
        if not d.startswith("index"):
            continue
        read = lambda name: open(os.path.join(SYSFS, d, name)).read().strip()  # noqa: E731
        try:
            level, ctype, size = int(read("level")), read("type"), read("size")
        except OSError:
            continue
        if ctype == "Instruction":
            continue
        mult = {"K": 1024, "M": 1 << 20, "G": 1 << 30}.get(size[-1], 1)
        out[level] = int(size.rstrip("KMG")) * mult
    return out


SWEEPS = 3
QUIET_BAND = (0.9, 1.1)   # the L1D knee of a sweep no other thread disturbed
# The first sweep crosses every level (to 4x the largest); the others, witnesses of the L1D and
# second tries at the L2, stop at 4x the L2 (at least MIN_SWEEP_MB). A sweep's time is mostly
# building and checking the random chains of its largest buffers: on an Intel Xeon guest with a
# 300 MiB L3, a sweep to 1200 MiB (capped by the arena at 632 MiB) took 20.8 s, one to 128 MiB
# 1.7 s; three whole sweeps were 70 s of make test's timing phase there. With the chain checked
# along its kept order instead of walked (bench/probes/mem/chain.h) the first took 12.1 s.
MIN_SWEEP_MB = 64


def sweep(out, top):
    """One latency sweep to max(MIN_SWEEP_MB, 4 x top bytes): the random curve's (size, cycles,
    bimodal) points."""
    out.mkdir()
    log = out / "hosted.log"
    with open(log, "wb") as fh:
        subprocess.run([BIN, "probes=latency", "samples=20", "mem_min_kb=4",
                        "mem_max_mb=%d" % max(MIN_SWEEP_MB, 4 * top >> 20)], stdout=fh, check=True, timeout=600)
    summary = parse.parse_log(str(log), str(out / "parsed"))
    assert summary["ok"], summary["validation"]
    cvs = memory.curves(summary, str(out / "parsed"))
    (random,) = [c for c in cvs if c["probe"] == "latency" and c["params"].get("pattern") == "random"]
    return [(p["size"], p["cycles"], p["bimodal"]) for p in random["points"]]


def knee_sizes(points):
    """Knees of one curve; several sweeps' points together are taken per size by their median."""
    return [k["size"] for k in knees.detect(points)["knees"]]


def quiet(found, caches):
    k = nearest(found, caches[1]) if 1 in caches else None
    return k is not None and QUIET_BAND[0] <= k / caches[1] <= QUIET_BAND[1]


@pytest.fixture(scope="module")
def detected(tmp_path_factory):
    """(sysfs sizes, knees of every sweep, the knees of the quiet sweeps' median or None). The
    first sweep reaches past the largest cache, the others past the L2: beyond them the median of
    a size is the first sweep's alone."""
    if not os.path.exists(BIN):
        pytest.fail("%s missing: run `make hosted` (make integration does)" % BIN)
    caches = sysfs_caches()
    if not caches:
        pytest.skip("no cache description in sysfs")
    top = max(caches.values())
    base = tmp_path_factory.mktemp("hostedcaches")
    curves = [sweep(base / ("sweep%d" % i), top if i == 0 else caches.get(2, top)) for i in range(SWEEPS)]
    runs = [knee_sizes(c) for c in curves]
    calm = [c for c, r in zip(curves, runs) if quiet(r, caches)]
    return caches, runs, knee_sizes(sum(calm, [])) if calm else None


def nearest(knee_sizes, size):
    return min(knee_sizes, key=lambda k: abs(k / size - 1)) if knee_sizes else None


def test_l1d_matches_sysfs(detected):
    caches, runs, _ = detected
    if 1 not in caches:
        pytest.skip("sysfs has no L1")
    k = nearest(runs[0], caches[1])
    assert k is not None and 0.5 <= k / caches[1] <= 2, (1, caches[1], runs[0])


def test_l2_matches_sysfs(detected):
    caches, runs, found = detected
    if 2 not in caches:
        pytest.skip("sysfs has no L2")
    if found is None:
        pytest.skip("no quiet sweep in %d: L1D knees %s against %s in sysfs (another thread "
                    "shared the core), so the L2 cannot be judged" % (
                        len(runs), [knees.size_text(nearest(r, caches[1]) or 0) for r in runs],
                        knees.size_text(caches[1])))
    k = nearest(found, caches[2])
    assert k is not None and k / caches[2] <= 2, (2, caches[2], found, runs)
    xfail_in_guest(k / caches[2] < 0.5,
                   "L2 knee at %s, sysfs says %s, in a guest: the host's placement of the guest's pages "
                   "fills some L2 sets early (every sweep's knees: %s)" % (
                       knees.size_text(k), knees.size_text(caches[2]), runs))
    assert 0.5 <= k / caches[2], (2, caches[2], found, runs)


def test_last_level_matches_sysfs(detected):
    """The shared L3 of a virtual machine can be partitioned by the host (cache allocation), so its
    effective size may be smaller than sysfs says: then this is an expected failure with the
    measured size in the message, not a pass."""
    caches, runs, found = detected
    if 3 not in caches:
        pytest.skip("sysfs has no L3")
    l2 = caches.get(2, 0)
    # the quiet sweeps' knees reach past the L2 where the first sweep (the only one to) was quiet
    beyond = [k for k in found or [] if k > 2 * l2] or [k for k in runs[0] if k > 2 * l2]
    found = found or runs[0]
    assert beyond, "no knee past L2: %s" % found
    k = nearest(beyond, caches[3])
    if not 0.5 <= k / caches[3] <= 2:
        pytest.xfail("effective L3 is %s, sysfs says %s: the VM's share of the L3 is smaller "
                     "(host cache partitioning)" % (knees.size_text(k), knees.size_text(caches[3])))

"""The sampling profiler's record checks and symbol helpers, shared by the QEMU profile tests of
both CPUs (x86_64/test_profile.py, aarch64/test_profile.py, aarch64/test_irq.py) and the hosted
one (test_hosted_profile.py): the prof/prof_data records of a probe, their invariants
(docs/protocol.md), and samples per function named from the ELF the build keeps."""

import glob
import json
import os
import subprocess
import zlib

from bmharness.analysis import profile
from conftest import ROOT


def records(b):
    """records.jsonl's records with their fields as the record's text (records.jsonl types
    numbers; the checks here read the stream's fields as the firmware wrote them)."""
    with open(os.path.join(b.out_dir, "parsed", "records.jsonl")) as f:
        return [dict(r, fields=profile.fields_as_text(r.get("fields") or {}))
                for r in map(json.loads, f)]


def prof_records(b, probe):
    recs = [r for r in records(b) if r["type"] in ("prof", "prof_data") and r["fields"].get("probe") == probe]
    begin = [r["fields"] for r in recs if r["type"] == "prof" and r["fields"]["kind"] == "begin"]
    ends = [r["fields"] for r in recs if r["type"] == "prof" and r["fields"]["kind"] == "end"]
    cost = [r["fields"] for r in recs if r["type"] == "prof" and r["fields"]["kind"] == "cost"]
    data = [r["fields"] for r in recs if r["type"] == "prof_data"]
    return begin, ends, cost, data


def function_symbols(path):
    """(start, name) of every function symbol of an ELF, sorted."""
    out = subprocess.run(["nm", "-n", "--defined-only", path], capture_output=True, text=True, check=True).stdout
    syms = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tT":
            syms.append((int(parts[0], 16), parts[2]))
    return syms


def elf_symbols(build_id):
    """The function symbols of the firmware build's ELF, kept by build id (build/<arch>/elf/)."""
    paths = glob.glob(os.path.join(ROOT, "build", "*", "elf", build_id + ".elf"))
    assert paths, "the build keeps no ELF for build id %s" % build_id
    return function_symbols(paths[0])


def function_of(syms, addr):
    name = None
    for start, n in syms:
        if start > addr:
            break
        name = n
    return name


def samples_by_function(begin, data, syms=None, cpu=None, image_only=False):
    """Samples per function: ELF address = pc - image_base, named by `syms` (default: the firmware
    ELF of the begin record's build id); only CPU `cpu`'s chunks when given; with image_only, a pc
    outside [image_base, image_base + image_size) counts under None."""
    base = int(begin["image_base"], 16)
    size = int(begin["image_size"]) if image_only else None
    syms = elf_symbols(begin["build_id"]) if syms is None else syms
    by = {}
    for d in data:
        if cpu is not None and int(d["cpu"]) != cpu:
            continue
        for e in d["e"].split(","):
            pc, _event, count = e.split(":")
            addr = int(pc, 16) - base
            fn = function_of(syms, addr) if size is None or 0 <= addr < size else None
            by[fn] = by.get(fn, 0) + int(count)
    return by


def check_stream(begin, ends, cost, data):
    """The record invariants of docs/protocol.md: one begin with the image's build id, per CPU
    counted + lost = samples, entries and crc match the prof_data chunks, a cost record."""
    assert len(begin) == 1
    b = begin[0]
    assert b["build_id"] != "unknown" and len(b["build_id"]) == 40
    assert int(b["period_min"]) <= int(b["period"]) and int(b["period_min"]) <= int(b["period_max"])
    assert ends
    for end in ends:
        chunks = [d for d in data if d["cpu"] == end["cpu"]]
        assert sum(int(d["n"]) for d in chunks) == int(end["entries"])
        assert [int(d["i"]) for d in chunks] == list(range(0, int(end["entries"]), 24))
        assert int(end["counted"]) + int(end["lost"]) == int(end["samples"])
        assert sum(int(e.split(":")[2]) for d in chunks for e in d["e"].split(",")) == int(end["counted"])
        assert "%x" % zlib.crc32(",".join(d["e"] for d in chunks).encode()) == end["crc"][2:]
    assert len(cost) == 1 and "skipped" not in cost[0]


REGION_MIN_SHARE = 0.95  # a probe's profile shows the probe's work, not ours


def check_region(begin, ends, cost, data, is_work, min_share=REGION_MIN_SHARE, syms=None, image_only=False):
    """A probe timed by the runner: its profile holds the samples taken inside the measured
    region only (bench/profile/region.h). The begin says region=marked; cpu 0's end counts the
    others apart (`outside`), and they with its profile's samples are all it took (the cost
    record's run_samples); of the profile, at least min_share falls in the functions `is_work`
    accepts (the probe's own kernel); `syms` and `image_only` as samples_by_function's. Returns
    (samples by function, outside)."""
    b = begin[0]
    assert b["region"] == "marked", b
    end0 = [e for e in ends if e["cpu"] == "0"][0]
    outside = int(end0["outside"])
    assert int(end0["samples"]) + outside == int(cost[0]["run_samples"]), (end0, cost)
    by = samples_by_function(b, data, syms=syms, image_only=image_only)
    total = sum(by.values())
    work = sum(n for fn, n in by.items() if fn and is_work(fn))
    assert total and work >= min_share * total, (work, total, by)
    return by, outside


AP_MIN_SAMPLES = 20
MEMBW_KERNEL_PREFIX = "bw_"


def check_ap_pmi_profile(b):
    """A two-core membw_mc run profiled with the PMU's cycles overflow (profile=membw_mc,
    profile_source=pmi or auto on a PMU that counts): one valid stream, both cores ended, and the
    second core's own samples mostly in the bandwidth kernels it ran."""
    begin, ends, cost, data = prof_records(b, "membw_mc")
    check_stream(begin, ends, cost, data)
    bg = begin[0]
    assert (bg["source"], bg["events"], bg["unit"]) == ("pmi", "cycles", "events")
    assert "fallback" not in bg and int(bg["cpus"]) == 2
    assert [e["cpu"] for e in ends] == ["0", "1"]
    by = samples_by_function(bg, [d for d in data if d["cpu"] == "1"])
    total = sum(by.values())
    kernels = sum(n for fn, n in by.items() if fn and fn.startswith(MEMBW_KERNEL_PREFIX))
    assert total >= AP_MIN_SAMPLES and kernels > total / 2, by

"""The hosted build (build/hosted/baremetric, `make hosted`): the same probes as a Linux program.
Runs it on this machine, parses its stdout with the harness and checks the stream end to end, the
OS facts against what this test reads itself from /sys, and the TSC rate against the kernel's.

Like the QEMU tests these assert structure, counts and sanity ranges, not particular results."""

import os
import re
import subprocess

import pytest

from conftest import HostedRun as Run, check_membw_mc, check_timer_sets

# Timing on this machine (the TSC rate against the kernel's, the spin loop's cycles): run last,
# alone (conftest.py).
pytestmark = pytest.mark.timing

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

BIN = os.path.join(ROOT, "build", "hosted", "baremetric")
CPU_SYSFS = "/sys/devices/system/cpu"
TIMEOUT_S = 300


@pytest.fixture(scope="session")
def hosted_bin():
    # Incremental: cheap when the binary is up to date. Without make, use what is there.
    try:
        r = subprocess.run(["make", "-C", ROOT, "hosted"], capture_output=True, text=True,
                           timeout=TIMEOUT_S)
        if r.returncode != 0:
            pytest.fail("make hosted failed:\n%s%s" % (r.stdout[-3000:], r.stderr[-3000:]))
    except FileNotFoundError:
        pass
    if not os.access(BIN, os.X_OK):
        pytest.fail("%s is missing: run `make hosted`" % BIN)
    return BIN


def run_hosted(binary, tmp_path_factory, name, args, cpu=None):
    return Run.start([binary] + list(args), str(tmp_path_factory.mktemp(name)), TIMEOUT_S, cpu=cpu)


def first_allowed_cpu():
    return min(os.sched_getaffinity(0))


@pytest.fixture(scope="session")
def quick(hosted_bin, tmp_path_factory):
    return run_hosted(hosted_bin, tmp_path_factory, "quick",
                      ["probes=timer,spin", "timer_samples=256"], cpu=first_allowed_cpu())


@pytest.fixture(scope="session")
def faults(hosted_bin, tmp_path_factory):
    # Bad arguments ride along: they must become msg records and the run must go on.
    return run_hosted(hosted_bin, tmp_path_factory, "faults",
                      ["probes=fault_ud2,timer", "timer_samples=64", "bogus", "no_such_key=1",
                       "samples=many", "tsc_cal_windows=1", "tsc_cal_ms=20"])


def assert_complete_ok(run):
    v = run.summary["validation"]
    assert run.summary["ok"], v["problems"]
    assert v["complete"] and not v["truncated"]
    assert not v["corrupt"] and not v["missing"] and not v["duplicates"]
    assert run.summary["end"]["status"] == "ok"
    assert run.summary["end"]["records"] == run.summary["end"]["seq"]
    assert run.rc == 0, run.stderr


def test_hosted_run_completes(quick):
    assert_complete_ok(quick)
    begin = quick.summary["begin"]
    assert begin["env"] == "hosted" and begin["arch"] == "x86_64" and begin["proto"] == 2
    assert begin["build"]
    assert quick.summary["cfg"]["timer_samples"] == 256
    assert quick.summary["cfg"]["probes"] == "timer,spin"


def test_stdout_carries_only_records(quick):
    lines = quick.stdout.split("\n")
    assert lines[-1] == ""  # ends with a newline
    for line in lines[:-1]:
        assert line.startswith("@BM ") and not line.endswith("\r"), line[:80]
    # the summary goes to stderr
    assert "status: ok" in quick.stderr


def test_platform_facts(quick):
    p = quick.summary["platform"]
    for kind in ("cpu", "features", "pmu", "tsc", "alloc", "os"):
        assert kind in p, "missing plat kind=%s" % kind
    cpu = quick.plat("cpu")
    assert cpu["vendor"] in ("GenuineIntel", "AuthenticAMD")
    assert cpu["ucode"] == "unreadable"  # no MSR access in user space
    assert cpu["logical_cpus"] >= 1
    for kind in ("firmware", "memmap", "acpi", "ebs"):
        assert kind not in p, "plat kind=%s is firmware-only" % kind


def test_os_facts(quick):
    o = quick.plat("os")
    assert o["sysname"] == "Linux" and o["release"] == os.uname().release
    assert o["cpu"] == first_allowed_cpu() and o["pinned"] == 1 and o["cpu_source"] == "env"
    assert o["mlocked"] in (0, 1)
    if o["mlocked"] == 0:
        assert any("memory not locked" in m["text"] for m in quick.summary["messages"])
    assert o["thp"] in ("always", "madvise", "never", "unknown")
    assert o["clocksource"]
    assert isinstance(o["tsc_khz"], int)


def test_default_cpu_is_last_allowed(hosted_bin, tmp_path_factory):
    r = run_hosted(hosted_bin, tmp_path_factory, "defcpu",
                   ["probes=timer", "timer_samples=16", "tsc_cal_windows=1", "tsc_cal_ms=20"])
    assert_complete_ok(r)
    o = r.plat("os")
    assert o["cpu"] == max(os.sched_getaffinity(0)) and o["cpu_source"] == "default"
    assert o["pinned"] == 1


def sysfs_caches(cpu):
    """The cache description the kernel gives for `cpu`, read here independently."""
    base = os.path.join(CPU_SYSFS, "cpu%d" % cpu, "cache")
    out = []
    if not os.path.isdir(base):
        return out
    for d in sorted(os.listdir(base)):
        m = re.match(r"index(\d+)\Z", d)
        if not m:
            continue

        def read(name):
            with open(os.path.join(base, d, name)) as fh:
                return fh.read().strip()

        size = read("size")
        mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(size[-1:], 1)
        size = int(size.rstrip("KMG")) * mult
        out.append({"index": int(m.group(1)), "level": int(read("level")),
                    "type": {"Data": "data", "Instruction": "inst", "Unified": "unified"}[read("type")],
                    "size": size, "line": int(read("coherency_line_size")),
                    "ways": int(read("ways_of_associativity")),
                    "shared_cpu_list": read("shared_cpu_list")})
    return out


def test_cache_sysfs_matches_sysfs(quick):
    cpu = quick.plat("os")["cpu"]
    truth = sysfs_caches(cpu)
    if not truth:
        pytest.skip("no /sys/devices/system/cpu/cpu%d/cache on this machine" % cpu)
    got = sorted(quick.plats("cache_sysfs"), key=lambda c: c["index"])
    assert len(got) == len(truth)
    for g, t in zip(got, truth):
        assert g["cpu"] == cpu
        for key in ("index", "level", "type", "size", "line", "ways"):
            assert g[key] == t[key], (key, g, t)
        assert str(g["shared_cpu_list"]) == t["shared_cpu_list"]


def test_cpuid_caches_agree_with_sysfs(quick):
    """CPUID's cache description (arch/x86_64/cpu_info.c) against the kernel's."""
    sysfs = quick.plats("cache_sysfs")
    cpuid = {(c["level"], c["type"]): c for c in quick.plats("cache")}
    if not sysfs or not cpuid:
        pytest.skip("no cache description from sysfs or from CPUID")
    for s in sysfs:
        c = cpuid.get((s["level"], s["type"]))
        assert c is not None, "CPUID lacks the L%d %s cache sysfs has" % (s["level"], s["type"])
        assert c["size"] == s["size"] and c["line"] == s["line"], (c, s)


def test_cache_descriptions_usable(quick):
    """Every plat kind=cache has a size the probes can use, or says why not (geometry=unknown,
    a reason; on x86 the refused size as reported_size: arch/x86_64/cache_judge.c). AMD family
    17h and later: an L3 from the legacy leaf 0x80000006 is the whole package's, never a size."""
    cpu = quick.plat("cpu")
    caches = quick.plats("cache")
    for c in caches:
        if c.get("geometry") == "unknown":
            assert c["reason"] and "size" not in c, c
        else:
            assert c["size"] > 0 and c["size"] % c["line"] == 0, c
            assert c["source"] in ("cpuid4", "cpuid8000001d", "cpuid80000005", "cpuid80000006", "sysfs"), c
        if cpu["vendor"] == "AuthenticAMD" and cpu["family"] >= 0x17 and c["level"] == 3 \
                and c["source"] == "cpuid80000006":
            assert c.get("geometry") == "unknown" and c["reported_size"] > 0, c


def host_tsc_hz():
    """The kernel's TSC rate: sysfs where exported, else the kernel log, else /proc/cpuinfo's
    `cpu MHz` when the TSC is constant (then that is the TSC rate on most kernels)."""
    try:
        with open(os.path.join(CPU_SYSFS, "cpu0", "tsc_freq_khz")) as fh:
            return int(fh.read()) * 1000
    except (OSError, ValueError):
        pass
    try:
        log = subprocess.run(["dmesg"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        log = ""
    for pat in (r"tsc: Refined TSC clocksource calibration: ([0-9.]+) MHz",
                r"tsc: Detected ([0-9.]+) MHz processor"):
        m = re.search(pat, log)
        if m:
            return float(m.group(1)) * 1e6
    try:
        with open("/proc/cpuinfo") as fh:
            info = fh.read()
    except OSError:
        return None
    flags = re.search(r"^flags\s*:(.*)$", info, re.M)
    mhz = re.search(r"^cpu MHz\s*:\s*([0-9.]+)", info, re.M)
    if flags and "constant_tsc" in flags.group(1).split() and mhz:
        return float(mhz.group(1)) * 1e6
    return None


def test_tsc_calibration(quick):
    tsc = quick.plat("tsc")
    assert tsc["source"] == "monotonic_raw" and tsc["hz"] > 0
    assert tsc["hz_monotonic_raw"] == tsc["hz"]
    windows = quick.plats("tsc_cal")
    assert len(windows) == quick.summary["cfg"]["tsc_cal_windows"]
    assert all(w["ok"] == 1 and w["ref_hz"] == 1000000000 and w["hz"] > 0 for w in windows)
    host = host_tsc_hz()
    if host is None:
        pytest.skip("the kernel's TSC rate is not readable here")
    assert abs(tsc["hz"] - host) / host < 0.05, (tsc["hz"], host)


def test_timer_and_spin_sets(quick):
    check_timer_sets(quick)
    (spin,) = quick.sets("spin")
    assert spin["complete"] and spin["n"] == quick.summary["cfg"]["samples"]
    assert spin["overhead"] > 0 and spin["iters"] > 1
    assert spin["probe"]["target"] >= 1000 * spin["overhead"]
    # dec;jnz: about one iteration per cycle on any out-of-order x86 (loose: VMs, SMT neighbours)
    assert 0.2 < spin["stats"]["per_op"]["median"] < 5, spin["stats"]["per_op"]


def test_arena(quick):
    a = quick.plat("alloc")
    cfg_bytes = quick.summary["cfg"]["arena_mb"] << 20
    assert a["page"] in ("2M", "4K-thp", "4K")
    assert 0 < a["arena"] and a["requested"] == cfg_bytes
    assert a["arena"] >= cfg_bytes or any("arena" in m["text"] for m in quick.summary["messages"])
    assert a["page_effective"] in ("2M", "4K", "unknown")
    if a["page"] == "2M":
        assert a["hugetlb"] == "ok" and a["page_effective"] == "2M"
    else:
        assert a["hugetlb"] != "ok"
        if isinstance(a["thp_bytes"], int):
            assert 0 <= a["thp_bytes"] <= a["arena"]
            assert (a["page_effective"] == "2M") == (a["thp_bytes"] == a["arena"])
    assert a["exec_arena"] >= 0


def probe_names(binary):
    p = subprocess.run([binary, "--help"], capture_output=True, text=True, timeout=60)
    m = re.search(r"^Probes:(.*)$", p.stdout, re.M)
    return m.group(1).split() if m else []


def test_memory_probes_run_hosted(hosted_bin, tmp_path_factory):
    """The memory probes go through the same suite: small sweeps, two kernels."""
    names = probe_names(hosted_bin)
    mem = [n for n in ("membw", "latency", "cachefill") if n in names]
    if not mem:
        pytest.skip("this build has no memory probes")
    r = run_hosted(hosted_bin, tmp_path_factory, "memory",
                   ["probes=" + ",".join(mem), "mem_max_mb=1", "mem_kernels=read,copy", "samples=4",
                    "arena_mb=128", "tsc_cal_windows=1", "tsc_cal_ms=20"])
    assert_complete_ok(r)
    page = r.plat("alloc")["page_effective"]
    for name in mem:
        sets = r.sets(name)
        skips = [s for s in r.summary["skips"] if s["probe"] == name]
        assert sets or skips, "%s neither measured nor skipped" % name
        assert all(s["reason"] for s in skips)
        for s in sets:
            assert s["complete"]
            if "page" in s["params"]:
                assert s["params"]["page"] == page, s["params"]
            if name == "cachefill":
                assert s["params"]["evict"] == "walk"  # no wbinvd in user space


def test_fault_probes_skipped_with_reason(faults):
    assert_complete_ok(faults)
    skips = [s for s in faults.summary["skips"] if s["probe"] == "fault_ud2"]
    assert len(skips) == 1 and "fault" in skips[0]["reason"]
    end = faults.summary["end"]
    assert end["faults"] == 0 and end["probes_skipped"] == 1
    assert end["skips"] == len(faults.summary["skips"])  # every skip record in the stream
    assert faults.summary["end"]["probes_run"] == 1
    assert faults.sets("timer")


def test_bad_arguments_become_messages(faults):
    warns = [m["text"] for m in faults.summary["messages"] if m["level"] == "warn"]
    assert any("'bogus'" in t for t in warns), warns
    assert any("no_such_key" in t for t in warns), warns
    assert any("'many'" in t and "samples" in t for t in warns), warns
    assert faults.summary["cfg"]["samples"] == 16  # the default stayed
    assert faults.summary["cfg"]["probes"] == "fault_ud2,timer"


def test_help(hosted_bin):
    p = subprocess.run([hosted_bin, "--help"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0
    assert "probes=" in p.stdout and "BAREMETRIC_CPU" in p.stdout and "@BM" not in p.stdout


def test_multicore_probes_run_hosted(hosted_bin, tmp_path_factory):
    """One pinned worker thread per other allowed CPU stands in for the APs: smp_hello and
    membw_mc run as on bare metal (structure only: this machine's numbers are real silicon's);
    with smp=0 or one allowed CPU both are skips with the reason."""
    args = ["probes=smp_hello,membw_mc", "samples=3", "mem_max_mb=4", "arena_mb=128",
            "tsc_cal_windows=1", "tsc_cal_ms=20"]
    r = run_hosted(hosted_bin, tmp_path_factory, "multicore", args)
    assert_complete_ok(r)
    smp = r.plat("smp")
    allowed = len(os.sched_getaffinity(0))
    assert smp["how"] == "threads" and smp["cpus_madt"] == allowed
    if allowed < 2:
        assert smp["cpus_online"] == 1 and smp["reason"]
        assert {k["probe"] for k in r.summary["skips"]} == {"smp_hello", "membw_mc"}
    else:
        n = min(allowed, 64)
        assert smp["cpus_online"] == n and smp["failed"] == "none"
        # the OS's CPU numbers (hosted/smp.c: CPUID's APIC id is the host core's under some
        # hypervisors), the main thread's CPU first, one per allowed CPU; CPUID's beside them
        ids = [int(i) for i in str(smp["apic_ids"]).split(",")]
        allowed_cpus = sorted(os.sched_getaffinity(0))
        assert smp["id_source"] == "os_cpu" and ids[0] == r.plat("os")["cpu"] == smp["bsp_apic_id"]
        assert len(set(ids)) == n and set(ids) <= set(allowed_cpus)
        assert len(str(smp["isa_ids"]).split(",")) == n
        (hello,) = r.sets("smp_hello")
        assert hello["received"] == n and str(hello["params"]["apic_ids"]) == str(smp["apic_ids"])
        check_membw_mc(r, n)
    off = run_hosted(hosted_bin, tmp_path_factory, "multicore_off", args + ["smp=0"])
    assert_complete_ok(off)
    assert off.plat("smp")["cpus_online"] == 1 and "smp=0" in off.plat("smp")["reason"]
    assert sorted(k["probe"] for k in off.summary["skips"]) == ["membw_mc", "smp_hello"]


def test_cfg_record_is_the_registrys_options(quick):
    """The program's `cfg` record names every option of the harness's registry.json, in its
    order, and an option not given has registry.json's default: the harness's copy of options.def
    is the firmware's (tests/python/test_registry_json.py: the copy is what the sources make)."""
    from bmharness.stream import registry
    cfg = quick.summary["cfg"]
    assert list(cfg) == [o["key"] for o in registry.OPTIONS]
    given = {"probes", "timer_samples"}  # the quick run's arguments
    for o in registry.OPTIONS:
        if o["key"] in given:
            continue
        want, got = registry.default(o["key"]), str(cfg[o["key"]])
        if o["type"] == "U64":  # written in decimal (debug_exit_port's default is 0xf4)
            want = str(int(want, 0))
        assert got == want, (o["key"], got, want)
    assert cfg["probes"] == "timer,spin"

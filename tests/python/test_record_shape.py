"""scripts/record_shape.py on small synthetic logs: the same shape passes, a renamed key, a dropped
record type or layout fails, framing (noise, bad CRC, duplicates, a restarted boot) is handled,
and the hosted rules ignore only the documented host-dependent parts. The lines are built here
with zlib (docs/protocol.md "Line format"), independent of the harness package."""

import json
import os
import subprocess
import sys
import zlib

from script_module import load_script

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "record_shape.py")
rs = load_script("record_shape")


def line(seq, rtype, fields, crc=None, version=1):
    body = "@BM %d %d %s" % (version, seq, rtype) + "".join(" %s=%s" % kv for kv in fields)
    return "%s |%s" % (body, crc or "%08x" % (zlib.crc32(body.encode()) & 0xFFFFFFFF))


def stream(records, env="uefi"):
    recs = [("begin", [("proto", 1), ("arch", "x86_64"), ("env", env)])] + records
    recs.append(("end", [("records", len(recs)), ("status", "ok")]))
    return [line(i, t, f) for i, (t, f) in enumerate(recs)]


BASE = [("msg", [("level", "info"), ("text", "options%20from%20file")]),
        ("cfg", [("probes", "timer,spin"), ("seed", 1)]),
        ("plat", [("kind", "cpu"), ("vendor", "AuthenticAMD"), ("family", 25)]),
        ("plat", [("kind", "tsc"), ("hz", 2000000000), ("source", "hpet")]),
        ("probe", [("name", "timer"), ("set", 0), ("n", 2), ("method", "rdtsc")]),
        ("samples", [("set", 0), ("i", 0), ("n", 2), ("v", "30*2")]),
        ("skip", [("probe", "pmu_check"), ("reason", "no%20PMU")])]


def write(tmp_path, name, lines, ending="\r\n"):
    p = tmp_path / name
    p.write_bytes("".join(x + ending for x in lines).encode())
    return str(p)


def run(*args):
    return subprocess.run([sys.executable, SCRIPT] + list(args), capture_output=True, text=True)


def test_same_shape_passes_despite_values_counts_and_order(tmp_path):
    a = write(tmp_path, "a.log", stream(BASE))
    more = BASE[:4] + [BASE[4], BASE[5], ("samples", [("set", 0), ("i", 2), ("n", 1), ("v", 7)]),
                       ("msg", [("level", "warn"), ("text", "late")]), BASE[6]]
    more[2] = ("plat", [("family", 26), ("vendor", "x"), ("kind", "cpu")])
    b = write(tmp_path, "b.log", ["\x1b[2J BdsDxe: noise"] + stream(more), ending="\n")
    r = run("compare", a, b)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "same" in r.stdout


def test_msg_type_and_probe_set_count(tmp_path):
    a = write(tmp_path, "a.log", stream(BASE))
    no_msg = [r for r in BASE if r[0] != "msg"]
    r = run("compare", write(tmp_path, "b.log", stream(no_msg)), a)
    assert r.returncode == 1 and "+ msg" in r.stdout  # a msg where there was none: a type added
    extra_set = BASE + [("probe", [("name", "timer"), ("set", 1), ("n", 9), ("method", "rdtscp")])]
    r = run("compare", a, write(tmp_path, "c.log", stream(extra_set)))
    assert r.returncode == 1 and "probe name=timer: 1 -> 2 records" in r.stdout
    # hosted runs: counts are not compared
    r = run("compare", write(tmp_path, "d.log", stream(BASE, env="hosted")),
            write(tmp_path, "e.log", stream(extra_set, env="hosted")))
    assert r.returncode == 0, r.stdout


def test_renamed_key_fails(tmp_path):
    renamed = [(t, [("hz_tsc" if k == "hz" else k, v) for k, v in f]) for t, f in BASE]
    a, b = write(tmp_path, "a.log", stream(BASE)), write(tmp_path, "b.log", stream(renamed))
    r = run("compare", a, b)
    assert r.returncode == 1
    assert "plat kind=tsc: - key hz" in r.stdout and "plat kind=tsc: + key hz_tsc" in r.stdout


def test_dropped_record_type_and_layout_fail(tmp_path):
    a = write(tmp_path, "a.log", stream(BASE))
    no_skip = write(tmp_path, "b.log", stream([r for r in BASE if r[0] != "skip"]))
    r = run("compare", a, no_skip)
    assert r.returncode == 1 and "- skip probe=pmu_check" in r.stdout
    no_tsc = write(tmp_path, "c.log", stream([r for r in BASE if ("kind", "tsc") not in r[1]]))
    r = run("compare", no_tsc, a)
    assert r.returncode == 1 and "+ plat kind=tsc" in r.stdout


def test_shape_file_round_trip(tmp_path):
    a = write(tmp_path, "a.log", stream(BASE))
    out = str(tmp_path / "a.json")
    assert run("shape", a, "--out", out).returncode == 0
    shape = json.load(open(out))
    assert shape["layouts"]["probe name=timer"] == ["method", "n", "name", "set"]
    assert shape["source"]["end_seen"] and shape["source"]["dropped"] == 0
    assert run("compare", out, a).returncode == 0
    assert run("compare", a, out).returncode == 0


def test_framing_bad_crc_duplicates_and_restart(tmp_path):
    lines = stream(BASE)
    bad = line(99, "plat", [("kind", "bogus"), ("x", 1)], crc="00000000")  # CRC mismatch: dropped
    old_boot = stream([("plat", [("kind", "old"), ("x", 1)])])  # an earlier boot: not the last
    log = write(tmp_path, "a.log", old_boot + lines[:4] + [lines[3], bad] + lines[4:])
    shape = rs.shape_of_log(log)
    assert "plat kind=bogus" not in shape["layouts"] and "plat kind=old" not in shape["layouts"]
    assert shape["source"]["dropped"] == 1 and shape["counts"]["probe name=timer"] == 1
    assert len(rs.records(open(log, "rb").read())[0]) == len(lines)
    assert rs.compare(shape, rs.shape_of_log(write(tmp_path, "b.log", lines))) == []


def test_hosted_volatile_parts_ignored_but_renames_caught():
    def shape(layouts, env="hosted"):
        return {"env": env, "layouts": layouts}
    a = shape({"plat kind=os": ["cmdline.*", "cpu"], "plat kind=cache": ["level", "shared_by"],
               "plat kind=cache_sysfs": ["index"], "skip probe=pmu_check": ["probe", "reason"]})
    b = shape({"plat kind=os": ["cpu"], "plat kind=cache": ["level"],
               "check name=instructions_retired": ["name"]})
    assert rs.compare(a, b) == []
    # the same difference between two QEMU boots is reported
    assert len(rs.compare(dict(a, env="uefi"), dict(b, env="uefi"))) == 5
    # a hosted rename of a non-volatile key is still caught
    c = shape(dict(b["layouts"], **{"plat kind=cache": ["lvl"]}))
    assert rs.compare(b, c) == ["  plat kind=cache: - key level", "  plat kind=cache: + key lvl"]


def test_normalised_host_keys():
    assert rs.norm("cmdline.isolcpus") == "cmdline.*"
    assert rs.norm("huge_2m_total") == "huge_*_total" and rs.norm("huge_1g_free") == "huge_*_free"
    assert rs.norm("hz_hpet") == "hz_hpet"


def test_record_cut_at_line_limit(tmp_path):
    """The encoder truncates a full line silently (CRC still valid): the record is kept, its
    layout listed in `cut`, and the keys it lost are not reported."""
    for pad in range(40):  # the value length that puts the cut inside a key, as seen on AArch64
        keys = [("name", "displace_vs_direct"), ("probe", "x" * pad)] + \
            [("field_number_%02d" % i, "1" * 20) for i in range(40)]
        full = BASE + [("check", keys)]
        lines = stream(full)
        body = lines[-2].rsplit(" |", 1)[0][:rs.CUT_BODY]
        if "=" not in body.rsplit(" ", 1)[1]:
            break
    lines[-2] = "%s |%08x" % (body, zlib.crc32(body.encode()) & 0xFFFFFFFF)
    cut = rs.shape_of_log(write(tmp_path, "cut.log", lines))
    assert cut["cut"] == ["check name=displace_vs_direct"] and cut["source"]["dropped"] == 0
    whole = rs.shape_of_log(write(tmp_path, "full.log", stream(full)))
    assert len(cut["layouts"]["check name=displace_vs_direct"]) < len(keys)
    assert rs.compare(whole, cut) == [] and rs.compare(cut, whole) == []
    r = run("compare", write(tmp_path, "full2.log", stream(full)), write(tmp_path, "cut2.log", lines))
    assert r.returncode == 0 and "was cut at the line limit" in r.stdout


def test_protocol_versions_1_and_2_read_alike_others_dropped(tmp_path):
    v1 = write(tmp_path, "v1.log", stream(BASE))
    recs = [("begin", [("proto", 2), ("arch", "x86_64"), ("env", "uefi")])] + BASE
    recs.append(("end", [("records", len(recs)), ("status", "ok")]))
    v2 = write(tmp_path, "v2.log", [line(i, t, f, version=2) for i, (t, f) in enumerate(recs)])
    assert rs.compare(rs.shape_of_log(v1), rs.shape_of_log(v2)) == []
    v3 = write(tmp_path, "v3.log", [line(i, t, f, version=3) for i, (t, f) in enumerate(recs)])
    assert rs.shape_of_log(v3)["source"]["dropped"] == len(recs)


def test_hosted_feature_layouts_follow_the_cpu(tmp_path):
    """Hosted: what a CPU feature adds or takes away is not a difference (a machine without rdtscp
    skips that timer method, one with AVX-512 has no flops skip, one whose cache geometry is
    unknown skips cachefill and has no cachefill sets or checks); a skip for another reason, or a
    probe missing without a machine reason, still is."""
    timer = ("probe", [("name", "timer"), ("set", 0), ("n", 2), ("method", "rdtsc")])
    fill = ("probe", [("name", "cachefill"), ("set", 1), ("n", 2), ("level", 1)])
    fill_check = ("check", [("name", "cold_slower_than_warm"), ("probe", "cachefill"), ("status", "pass")])
    flops_skip = ("skip", [("probe", "flops"), ("kernel", "fma"), ("width", "512"),
                           ("reason", "CPU%20lacks%20AVX-512F")])
    ctr_skip = ("skip", [("probe", "cachefill"), ("ctr_set", "fill"), ("events", "cycles"),
                         ("reason", "hosted%20build:%20counters%20need%20ring%200")])
    dev = [timer, fill, fill_check, flops_skip, ctr_skip]
    other = [timer, ("skip", [("probe", "timer"), ("method", "rdtscp"),
                              ("reason", "CPU%20lacks%20rdtscp%20(CPUID%200x80000001%20EDX%20bit%2027)")]),
             ("skip", [("probe", "cachefill"), ("level", 3),
                       ("reason", "cache%20geometry%20unknown:%20L3%20of%20508%20MiB")])]
    a = rs.shape_of_log(write(tmp_path, "a.log", stream(dev, env="hosted")))
    b = rs.shape_of_log(write(tmp_path, "b.log", stream(other, env="hosted")))
    assert a["skips"]["skip probe=flops"] == ["CPU lacks AVX-512F"]
    assert a["probe_of"] == {"check name=cold_slower_than_warm": "cachefill"}
    assert rs.compare(a, b) == [] and rs.compare(b, a) == []
    # the same between two QEMU boots is a difference
    assert rs.compare(dict(a, env="uefi"), dict(b, env="uefi"))
    # a skip for another reason (not the machine's) is a difference, and so is the probe it hides
    odd = [timer, ("skip", [("probe", "cachefill"), ("reason", "no%20room%20for%20the%20eviction%20buffer")])]
    c = rs.shape_of_log(write(tmp_path, "c.log", stream(odd, env="hosted")))
    diff = rs.compare(a, c)
    assert any("probe name=cachefill" in d for d in diff), diff
    assert any("check name=cold_slower_than_warm" in d for d in diff), diff
    # a probe gone without any skip is a difference
    d = rs.shape_of_log(write(tmp_path, "d.log", stream([fill, fill_check, flops_skip, ctr_skip], env="hosted")))
    assert any("probe name=timer" in x for x in rs.compare(a, d))

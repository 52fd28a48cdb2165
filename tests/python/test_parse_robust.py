"""Parsing adversarial logs (issue 10): boot boundaries from the whole evidence, bounded memory
and output on any input, UTF-16 captures, unusable probe fields."""

import json
import os
import random
import subprocess
import sys

import synth
from bmharness.report import report, validation
from bmharness.stream import parse
from bmharness.stream.protocol import encode_record

HERE = os.path.dirname(os.path.abspath(__file__))
HARNESS = os.path.join(os.path.dirname(os.path.dirname(HERE)), "harness")


def summ(data):
    return parse.analyse(data)["summary"]


def kinds(summary):
    return [p["kind"] for p in summary["validation"]["problems"]]


def boot_stream(seed, build="v0.1-3-g3f2a1c0", end=True):
    """One boot of the same build each time; the samples and the TSC figure differ by seed."""
    r = random.Random(seed)
    s = synth.Stream()
    s.add("begin", proto=1, build=build, arch="x86_64", env="uefi", fw_vendor="EDK II",
          fw_rev="0x10000")
    s.add("msg", level="info", text="hello")
    s.add("cfg", probes="timer,spin", samples=16)
    s.add("plat", kind="tsc", hz=synth.TSC_HZ + r.randint(1, 5000), source="hpet")
    s.probe("timer", 1, synth.timer_values(seed, 120), method="rdtsc")
    s.probe("spin", 2, [10000 + r.randint(0, 50) for _ in range(16)], iters=1000, overhead=44)
    return s.end(probes=2, skips=0) if end else s


def lines_of(*streams):
    return [line for s in streams for line in s.lines]


def data_of(lines):
    return ("\r\n".join(lines) + "\r\n").encode("latin-1")


# --- item 2: boot boundaries ------------------------------------------------------------------

def test_identical_begin_mid_log_is_a_duplicate():
    lines = lines_of(boot_stream(1))
    mid = len(lines) // 2
    sm = summ(data_of(lines[:mid] + [lines[0]] + lines[mid:]))
    v = sm["validation"]
    assert len(v["boots"]) == 1 and v["analysed_why"] == "the only boot in the log"
    assert not v["missing"] and v["complete"] and len(sm["sets"]) == 2
    assert [d["seq"] for d in v["duplicates"]] == [0] and kinds(sm) == ["duplicate"]


def test_repeated_stretch_of_lines_is_not_a_reboot():
    lines = lines_of(boot_stream(1))
    sm = summ(data_of(lines[:12] + lines[4:9] + lines[12:]))  # a replayed stretch
    v = sm["validation"]
    assert len(v["boots"]) == 1 and v["complete"] and v["counts"]["duplicates"] == 5
    assert set(kinds(sm)) == {"duplicate"}


def test_reboot_of_the_same_build_is_a_new_boot():
    first, second = boot_stream(1, end=False), boot_stream(2)
    first.lines = first.lines[:9]  # dies in the timer set
    sm = summ(data_of(lines_of(first, second)))
    v = sm["validation"]
    assert len(v["boots"]) == 2 and v["analysed_boot"] == 1
    assert v["boots"][1]["first_line"] == 10 and "last of 2 boots" in v["analysed_why"]
    assert v["complete"] and not v["conflicts"] and not v["duplicates"]
    timer = [s for s in sm["sets"] if s["name"] == "timer"][0]
    assert timer["complete"] and timer["stats"]["raw"]["n"] == 120
    assert timer["stats"]["raw"]["max"] == max(synth.timer_values(2, 120))
    alone = summ(data_of(boot_stream(2).lines))
    assert sm["platform"]["tsc"]["hz"] == alone["platform"]["tsc"]["hz"]


def test_lost_second_begin_does_not_merge_two_boots():
    first, second = boot_stream(1), boot_stream(2)
    sm = summ(data_of(lines_of(first) + second.lines[1:]))  # the second begin is lost
    v = sm["validation"]
    assert len(v["boots"]) == 2 and v["analysed_boot"] == 1
    assert "begin record lost" in v["boots"][1]["started"]
    assert "begin record lost" in v["analysed_why"]
    assert v["boots"][1]["first_line"] == len(first.lines) + 1
    assert not v["conflicts"]  # nothing of the first boot mixed in
    alone = summ(data_of(second.lines))
    for got, want in zip(sm["sets"], alone["sets"]):
        assert got["stats"]["raw"] == want["stats"]["raw"]
    assert sm["platform"]["tsc"] == alone["platform"]["tsc"]
    assert "begin_missing" in kinds(sm) and v["missing"] == [[0, 0]]


def test_begin_of_another_build_starts_a_boot_at_once():
    first, second = boot_stream(1, end=False), boot_stream(1, build="v0.2")
    first.lines = first.lines[:2]
    sm = summ(data_of(lines_of(first, second)))
    v = sm["validation"]
    assert len(v["boots"]) == 2 and "differs" in v["boots"][1]["started"]
    assert sm["begin"]["build"] == "v0.2" and v["complete"]


def test_report_says_which_boot_and_why():
    first, second = boot_stream(1), boot_stream(2)
    sm = summ(data_of(lines_of(first) + second.lines[1:]))
    doc = report.Doc()
    validation.section(doc, validation.analyse(sm))
    text = doc.text()
    assert "analysed: boot 1" in text and "begin record lost" in text


# --- item 3: bounded memory and output --------------------------------------------------------

def _parse_in_child(log, out):
    """Parse in a fresh interpreter; returns (exit code, stdout lines, peak RSS in KiB)."""
    # VmHWM is this process image's own peak (getrusage's ru_maxrss can carry the forking
    # parent's peak across exec).
    code = ("import re, sys; from bmharness import cli; "
            "rc = cli.main(['parse', %r, '--out', %r]); sys.stdout.flush(); "
            "print('MAXRSS', re.search(r'VmHWM:\\s*(\\d+)', open('/proc/self/status').read())"
            ".group(1)); sys.exit(rc)" % (str(log), str(out)))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120, env=dict(os.environ, PYTHONPATH=HARNESS))
    lines = p.stdout.splitlines()
    rss = int(lines[-1].split()[1])
    return p.returncode, lines[:-1], rss


RSS_LIMIT_KIB = 150 * 1024  # an interpreter with the harness loaded takes ~30 MiB


def test_50mb_of_bare_tags_bounded(tmp_path):
    log = tmp_path / "tags.log"
    with open(log, "wb") as fh:
        block = b"@BM \r\n" * 4096 + b"@BM " * 8192 + b"\n"
        while fh.tell() < 50 << 20:
            fh.write(block)
    rc, out, rss = _parse_in_child(log, tmp_path / "p")
    assert rc == 1 and rss < RSS_LIMIT_KIB, rss
    assert len(out) < 40, out[:5]
    summary_json = tmp_path / "p" / "summary.json"
    assert summary_json.stat().st_size < 64 << 10
    sm = json.loads(summary_json.read_text())
    v = sm["validation"]
    n_blocks = os.path.getsize(log) // len(block)
    assert v["counts"]["corrupt"] == n_blocks * (4096 + 8192)
    assert v["problem_counts"]["corrupt"] == v["counts"]["corrupt"]
    assert len(v["corrupt"]) <= 20 and sum(k == "corrupt" for k in kinds(sm)) == 20


def damaged_log(size, seed=5):
    """Two short boots, then one long boot of about `size` bytes, with every kind of damage."""
    r = random.Random(seed)
    out, n = [], 0
    for boot, sets in enumerate((3, 3, None)):
        s = synth.Stream().begin()
        k = 0
        while (k < sets) if sets else (n + sum(map(len, s.lines)) < size):
            s.probe("spin", k, [r.randint(900, 1100) for _ in range(r.randint(500, 3000))],
                    iters=r.choice((1, 0, 10)), overhead=r.choice((0, -3, 44)))
            k += 1
        s.end(probes=k)
        for line in s.lines:
            x = r.random()
            if x < 0.05 and line is not s.lines[0]:
                continue                                        # lost
            if x < 0.15:
                i = r.randrange(len(line))
                line = line[:i] + chr(r.randrange(32, 127)) + line[i + 1:]  # bit error
            elif x < 0.2:
                line = line[:r.randrange(len(line))]            # cut
            elif x < 0.25:
                out.append(line + "\r\n")                       # repeated
            elif x < 0.3:
                line = "@BM " * r.randint(1, 50) + line         # junk tags
            out.append(line + ("\r\n" if r.random() > 0.05 else ""))
        n = sum(map(len, out))
    return "".join(out).encode("latin-1")


def test_many_boots_bounded():
    lines = [encode_record(0, "begin", {"proto": 1, "build": "b%d" % k}) for k in range(5000)]
    sm = summ(data_of(lines))
    v = sm["validation"]
    assert v["counts"]["boots"] == 5000 and v["analysed_boot"] == 4999
    assert len(v["boots"]) == 21 and v["boots"][-1]["index"] == 4999
    assert len(json.dumps(sm)) < 32 << 10


def test_4mb_damaged_log_small_summary_and_output(tmp_path):
    log = tmp_path / "damaged.log"
    log.write_bytes(damaged_log(4 << 20))
    rc, out, rss = _parse_in_child(log, tmp_path / "p")
    assert rc == 1 and rss < RSS_LIMIT_KIB
    assert len(out) < 40
    assert any(line.startswith("problems by kind:") for line in out)
    assert any("more problem(s)" in line for line in out)
    sm = json.loads((tmp_path / "p" / "summary.json").read_text())
    v = sm["validation"]
    assert v["counts"]["problems"] > 1000
    assert len(v["problems"]) <= 20 * len(v["problem_counts"])
    assert len(json.dumps(v)) < 64 << 10  # what is said about the damage
    assert (tmp_path / "p" / "summary.json").stat().st_size < 1 << 20


# --- item 4: UTF-16 captures ------------------------------------------------------------------

def test_utf16_captures_are_decoded():
    text = synth.full_stream().text()
    for codec in ("utf-16", "utf-16-le", "utf-16-be"):  # with a BOM, then by NUL pattern
        sm = summ(text.encode(codec))
        v = sm["validation"]
        assert sm["ok"] and len(sm["sets"]) == 3, (codec, v["problems"])
        assert sm["source"]["encoding"] == ("utf-16-be" if codec.endswith("be") else "utf-16-le")
        assert any(n.startswith("log decoded as UTF-16") for n in v["notes"])


def test_unrecognised_nul_encoding_is_named():
    sm = summ(synth.full_stream().text().encode("utf-32-le"))
    assert "no_records" in kinds(sm)
    msg = [p["message"] for p in sm["validation"]["problems"] if p["kind"] == "no_records"][0]
    assert "NUL" in msg


def test_plain_log_is_not_taken_for_utf16():
    sm = summ(synth.full_stream().data())
    assert sm["source"]["encoding"] == "latin-1" and sm["ok"]


# --- item 8: unusable probe fields -------------------------------------------------------------

def _one_set(**fields):
    s = synth.Stream().begin()
    f = dict(name="spin", set=1, unit="cycles", n=3, iters=10, overhead=4, tsc_hz=synth.TSC_HZ)
    f.update(fields)
    s.add("probe", f)
    s.add("samples", set=1, i=0, n=3, v="100,110,120")
    return summ(s.end(probes=1, skips=0).data())


def test_bad_overhead_message_names_only_what_was_replaced():
    sm = _one_set(overhead=-5)
    msg = [p["message"] for p in sm["validation"]["problems"] if p["kind"] == "bad_field"][0]
    assert "overhead='-5' (using 0)" in msg and "iters" not in msg
    st = sm["sets"][0]
    assert st["iters"] == 10 and st["overhead"] == 0
    assert st["stats"]["per_op"]["median"] == 11.0


def test_bad_iters_keeps_the_overhead():
    sm = _one_set(iters=0)
    msg = [p["message"] for p in sm["validation"]["problems"] if p["kind"] == "bad_field"][0]
    assert "iters='0' (using 1)" in msg and "overhead" not in msg
    assert sm["sets"][0]["overhead"] == 4


def test_negative_tsc_hz_is_not_used():
    sm = _one_set(tsc_hz=-2445000000)
    msg = [p["message"] for p in sm["validation"]["problems"] if p["kind"] == "bad_field"][0]
    assert "tsc_hz" in msg
    assert sm["sets"][0]["tsc_hz"] is None
    sm = _one_set(tsc_hz=0)
    assert sm["sets"][0]["tsc_hz"] is None
    assert _one_set()["sets"][0]["tsc_hz"] == synth.TSC_HZ


def test_negative_platform_tsc_hz_is_not_used():
    s = synth.Stream().begin()
    s.add("plat", kind="tsc", hz=-5, source="hpet")
    sm = summ(s.end(probes=0, skips=0).data())
    assert sm["platform"]["tsc"]["hz"] is None
    assert any("hz" in n for n in sm["validation"]["notes"])

"""A run as OCP Test & Validation output: JSON lines of the OCPTV output specification, version
2.0 (github.com/opencomputeproject/ocp-diag-core, json_spec/README.md and json_spec/output/*.json;
schemaVersion {major 2, minor 0}), the format AutoVal and the OCP diagnostics write and fleet
tooling reads. docs/fleet.md ("OCPTV output") maps record to artifact.

One converter, `Converter`, takes the records of a boot in stream order (records.jsonl's shape:
{"seq", "type", "fields"} with typed fields and decoded sample values) and gives the OCPTV
artifacts as they become known: `export --ocptv` replays a parse directory's records.jsonl
through it, `capture --ocptv` feeds it the records as the serial line brings them. So both write
the same lines; only the timestamps differ (a replay stamps every line with one time, the run's
start when known; a capture stamps each line when it is written).

- testRunStart: at the first record of a probe (the platform facts are all in by then): name
  `baremetric`, version the build, parameters the `cfg` record, dutInfo from the platform facts
  (SMBIOS system and board with their serial hashes, the CPU, each memory device, the firmware);
- a testStep per probe of the probe list as it ran (a repeated run: one per pass, named
  `<probe> pass <k>`); its status SKIP when the probe only skipped, ERROR after an unexpected
  fault, else COMPLETE;
- every sample set: a measurement when its samples are in, its value the per-operation median in
  the set's real unit (export.convert: ns, GB/s, or the set's own unit), its metadata the order-
  statistic CI of the median (stats.median_and_ci), the CI's coverage, N, the set id and its
  identity parameters; with `series` also a measurementSeries of the per-operation values;
- every `check`: a diagnosis (`type` PASS or FAIL, verdict `<check>-pass`/`<check>-fail`);
- `skip`, `msg`, `fault` and a set that never got all its samples: logs (WARNING, the msg's own
  level, ERROR for an unexpected fault); the parser's problems (export) as ERROR logs;
- testRunEnd: status COMPLETE with the `end` record (result PASS for status ok, else FAIL), ERROR
  with result FAIL when the stream ended without one.
"""

import datetime
import hashlib
import json

from . import export
from .. import stats

SPEC_VERSION = {"major": 2, "minor": 0}  # OCPTV output spec 2.0 (ocp-diag-core json_spec)
RUN_NAME = "baremetric"
WRAP = 1 << 63  # samples at or above it are not measurements (stats/samples.py usable())
SEVERITY = {"info": "INFO", "warn": "WARNING", "error": "ERROR"}
PREAMBLE = ("begin", "msg", "cfg", "plat")  # before the probes: the run starts at any other record
RESULT = {"ok": "PASS", "fail": "FAIL", "fatal": "FAIL"}


def now_utc():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _s(x):
    return "" if x is None else str(x)


def _present(fact):
    return isinstance(fact, dict) and str(fact.get("present", 1)) != "0"


def _one(fact):
    return fact[0] if isinstance(fact, list) and fact else fact if isinstance(fact, dict) else None


def dut_info(begin, plat):
    """dutInfo from the platform facts (plat: {kind: fields, or a list of them})."""
    system, board, cpu = _one(plat.get("system")), _one(plat.get("board")), _one(plat.get("cpu"))
    fw = _one(plat.get("firmware")) or {}
    hw, platform = [], []
    for key, fact in (("system", system), ("board", board)):
        if _present(fact):
            hw.append({"hardwareInfoId": key, "name": key, "manufacturer": _s(fact.get("manufacturer")),
                       "partNumber": _s(fact.get("product")), "version": _s(fact.get("version")),
                       "serialNumber": _s(fact.get("serial_hash"))})
            platform.append({"info": "%s: %s %s %s" % (key, _s(fact.get("manufacturer")),
                                                        _s(fact.get("product")), _s(fact.get("version")))})
    if cpu:
        hw.append({"hardwareInfoId": "cpu", "name": _s(cpu.get("brand")) or "cpu",
                   "manufacturer": _s(cpu.get("vendor") or cpu.get("implementer")),
                   "version": "family %s model %s stepping %s" % (
                       cpu.get("family"), cpu.get("model"), cpu.get("stepping")),
                   "revision": _s(cpu.get("ucode"))})
    mem = plat.get("memdev") or []
    for i, d in enumerate(mem if isinstance(mem, list) else [mem]):
        hw.append({"hardwareInfoId": "memdev%d" % i, "name": _s(d.get("locator")) or "memdev%d" % i,
                   "location": _s(d.get("bank")), "manufacturer": _s(d.get("manufacturer")),
                   "partNumber": _s(d.get("part")),
                   "version": "%s %s bytes %s MT/s" % (d.get("type"), d.get("size"), d.get("speed"))})
    sw = [{"softwareInfoId": "firmware", "name": _s(fw.get("vendor") or begin.get("fw_vendor")),
           "version": _s(fw.get("rev") or begin.get("fw_rev")), "softwareType": "FIRMWARE"},
          {"softwareInfoId": "baremetric", "name": RUN_NAME, "version": _s(begin.get("build")),
           "softwareType": "APPLICATION"}]
    ident = json.dumps([system, board, cpu and {k: cpu.get(k) for k in ("vendor", "family", "model",
                                                                          "stepping", "brand")}],
                       sort_keys=True, default=str)
    name = _s((system or {}).get("product")) if _present(system) else _s((cpu or {}).get("brand"))
    return {"dutInfoId": hashlib.sha256(ident.encode()).hexdigest()[:16], "name": name or "unknown",
            "platformInfos": platform, "softwareInfos": sw, "hardwareInfos": hw,
            "metadata": {"arch": _s(begin.get("arch")), "env": _s(begin.get("env"))}}


class _Set:
    def __init__(self, fields):
        self.fields = fields
        self.values = {}

    def add(self, i, vs):
        for k, v in enumerate(vs if isinstance(vs, list) else []):
            self.values[i + k] = v

    def complete(self):
        return len(self.values) >= int(self.fields.get("n") or 0)


class Converter:
    """Records in, OCPTV artifacts out (see the module docstring). `emit(obj)` receives each
    output line as a dict; `clock()` gives each line's timestamp."""

    def __init__(self, emit, clock=now_utc, series=False):
        self.emit_line, self.clock, self.series = emit, clock, series
        self.seq = 0
        self.begin, self.cfg, self.plat = {}, {}, {}
        self.pending = []  # records before testRunStart
        self.started = self.ended = False
        self.step = None  # {"id", "probe", "pass", "sets", "skips", "error"}
        self.steps = 0
        self.sets = {}
        self.notes = []  # (severity, text) logged just before testRunEnd (export: the parser's problems)
        self.emit_line_raw({"schemaVersion": dict(SPEC_VERSION)})

    # output
    def emit_line_raw(self, body):
        obj = dict(body, sequenceNumber=self.seq, timestamp=self.clock())
        self.seq += 1
        self.emit_line(obj)

    def run_artifact(self, art):
        self.emit_line_raw({"testRunArtifact": art})

    def step_artifact(self, art):
        self.emit_line_raw({"testStepArtifact": dict(art, testStepId=self.step["id"])})

    def log(self, severity, message):
        art = {"log": {"severity": severity, "message": message}}
        if self.step:
            self.step_artifact(art)
        else:
            self.run_artifact(art)

    # input
    def feed(self, rec):
        if self.ended:
            return
        t, f = rec.get("type"), rec.get("fields") or {}
        if not self.started:
            if t not in PREAMBLE:
                self.start_run()
            else:
                self.pending.append(rec)
                self.gather(t, f)
                return
        self.handle(t, f)

    def gather(self, t, f):
        if t == "begin":
            self.begin = f
        elif t == "cfg":
            self.cfg = f
        elif t == "plat" and f.get("kind"):
            prev = self.plat.get(f["kind"])
            self.plat[f["kind"]] = f if prev is None else (prev if isinstance(prev, list) else [prev]) + [f]

    def start_run(self):
        self.started = True
        line = " ".join("%s=%s" % kv for kv in sorted(self.cfg.items()))
        meta = {"build": _s(self.begin.get("build")), "proto": self.begin.get("proto")}
        choice = _one(self.plat.get("cfg_choice"))
        if choice:
            meta["cfg_choice"] = {k: _s(v) for k, v in choice.items()}
        self.run_artifact({"testRunStart": {
            "name": RUN_NAME, "version": _s(self.begin.get("build")) or "unknown",
            "commandLine": line, "parameters": dict(self.cfg), "dutInfo": dut_info(self.begin, self.plat),
            "metadata": meta}})
        for rec in self.pending:
            if rec.get("type") == "msg":
                self.on_msg(rec.get("fields") or {})
        self.pending = []

    def handle(self, t, f):
        if t == "probe":
            self.enter(f.get("name"), f.get("pass"))
            self.sets[f.get("set")] = _Set(f)
            self.step["sets"] += 1
            self.try_finish(f.get("set"))
        elif t == "samples":
            s = self.sets.get(f.get("set"))
            if s:
                s.add(int(f.get("i") or 0), f.get("v"))
                self.try_finish(f.get("set"))
        elif t == "check":
            self.enter(f.get("probe"))
            ok = f.get("status") == "pass"
            self.step_artifact({"diagnosis": {
                "verdict": "%s-%s" % (f.get("name"), "pass" if ok else "fail"), "type": "PASS" if ok else "FAIL",
                "message": " ".join("%s=%s" % (k, v) for k, v in f.items() if k not in ("name", "status"))}})
        elif t == "skip":
            self.enter(f.get("probe"))
            self.step["skips"] += 1
            self.log("WARNING", "skip: %s%s" % (f.get("reason"), "" if f.get("set") is None
                                                  else " (set %s)" % f.get("set")))
        elif t == "fault":
            unexpected = str(f.get("expected")) != "1"
            if self.step and unexpected:
                self.step["error"] = True
            self.log("ERROR" if unexpected else "INFO", "fault %s in %s: %s" % (
                f.get("name"), f.get("probe"), "unexpected" if unexpected else "provoked by the probe"))
        elif t == "msg":
            self.on_msg(f)
        elif t == "end":
            self.finish(f)
        else:
            self.gather(t, f)

    def on_msg(self, f):
        self.log(SEVERITY.get(f.get("level"), "INFO"), _s(f.get("text")))

    def plan(self):
        """[(probe, pass)] of the run as configured: the probe list, repeat times (pass None
        when it runs once)."""
        names = [n for n in _s(self.cfg.get("probes")).split(",") if n]
        passes = int(self.cfg.get("repeat") or 1) if str(self.cfg.get("repeat") or 1).isdigit() else 1
        return [(n, k if passes > 1 else None) for k in range(1, passes + 1) for n in names]

    def enter(self, name, npass=None):
        """Make the probe a record names the open step. Steps follow the probe list: a name
        further on in it opens that probe's step (closing the one before); a name the list does
        not have (a set a probe names otherwise: irq_latency's irq_masked) stays in the open one."""
        if self.step and self.step["probe"] == name and npass in (None, self.step["pass"]):
            return
        plan = self.plan_list if hasattr(self, "plan_list") else self.plan()
        self.plan_list = plan
        pos = self.step["pos"] if self.step else -1
        found = next((i for i in range(pos + 1, len(plan)) if plan[i][0] == name
                      and npass in (None, plan[i][1])), None)
        if found is None and self.step:
            return
        self.close_step()
        self.steps += 1
        probe, npass = plan[found] if found is not None else (name, npass)
        self.step = {"id": "step%d" % self.steps, "probe": probe, "pass": npass, "sets": 0,
                     "skips": 0, "error": False, "pos": found if found is not None else pos}
        label = _s(probe) + ("" if npass is None else " pass %s" % npass)
        self.step_artifact({"testStepStart": {"name": label}})

    def close_step(self):
        if not self.step:
            return
        for sid in [k for k, s in self.sets.items() if not s.complete()]:
            self.measure(sid, incomplete=True)
        status = ("ERROR" if self.step["error"] else
                  "SKIP" if self.step["skips"] and not self.step["sets"] else "COMPLETE")
        self.step_artifact({"testStepEnd": {"status": status}})
        self.step = None

    def try_finish(self, sid):
        s = self.sets.get(sid)
        if s and s.complete():
            self.measure(sid)

    def measure(self, sid, incomplete=False):
        s = self.sets.pop(sid)
        f = s.fields
        name = _s(f.get("name"))
        params = export.identity(name, {k: v for k, v in f.items() if k not in (
            "name", "set", "unit", "n", "iters", "overhead", "tsc_hz")})
        ovh, iters = f.get("overhead") or 0, f.get("iters") or 1
        vals = [(v - ovh) / iters for _, v in sorted(s.values.items())
                if isinstance(v, (int, float)) and v < WRAP]
        mc = stats.median_and_ci(vals)
        label = " ".join([name] + ["%s=%s" % kv for kv in params.items()])
        if incomplete:
            self.log("WARNING", "set %s (%s): %d of %s samples arrived" % (sid, label, len(s.values), f.get("n")))
        if mc is None:
            return
        figs = {"median": mc["median"], "ci95_low": mc["lo"], "ci95_high": mc["hi"], "trimmed_mean": None}
        bpo = f.get("bytes_per_op") if name in export.BANDWIDTH_PROBES else None
        metric, unit, real = export.convert(figs, name, f.get("unit"), bpo, f.get("tsc_hz"))
        if real.get("median") is None:
            self.log("WARNING", "set %s (%s): no value in %s (median at or below the overhead)" % (sid, label, unit))
            return
        meta = {"set": sid, "metric": metric, "n": mc["n"], "ci95_low": real.get("ci95_low"),
                "ci95_high": real.get("ci95_high"), "ci_kind": "median, order statistics",
                "ci_coverage": mc["coverage"], "params": params, "complete": not incomplete,
                "median_raw": mc["median"], "raw_unit": _s(f.get("unit")) + " per operation"}
        self.step_artifact({"measurement": {"name": label, "value": real["median"], "unit": unit,
                                            "metadata": meta}})
        if self.series:
            self.emit_series(sid, label, unit, real["median"] / mc["median"] if mc["median"] else None, vals)

    def emit_series(self, sid, label, unit, scale, vals):
        """The per-operation values, in the measurement's unit where it is a scale of cycles
        (a rate such as GB/s is not: its series stays in the set's raw unit)."""
        mid = "series%s" % sid
        linear = unit != "GB/s" and scale is not None
        self.step_artifact({"measurementSeriesStart": {"name": label, "measurementSeriesId": mid,
                                                       "unit": unit if linear else "raw per operation"}})
        for i, v in enumerate(vals):
            self.step_artifact({"measurementSeriesElement": {
                "index": i, "value": v * scale if linear else v, "measurementSeriesId": mid,
                "timestamp": self.clock()}})
        self.step_artifact({"measurementSeriesEnd": {"measurementSeriesId": mid, "totalCount": len(vals)}})

    def finish(self, end=None):
        """Close the run: with the `end` record's fields, or None when the stream ended without."""
        if self.ended:
            return
        if not self.started:
            self.start_run()
        self.close_step()
        for severity, text in self.notes:
            self.run_artifact({"log": {"severity": severity, "message": text}})
        if end is None:
            self.run_artifact({"log": {"severity": "ERROR", "message": "the record stream ended without its end record"}})
            self.run_artifact({"testRunEnd": {"status": "ERROR", "result": "FAIL"}})
        else:
            status = _s(end.get("status"))
            self.run_artifact({"testRunEnd": {"status": "ERROR" if status == "fatal" else "COMPLETE",
                                              "result": RESULT.get(status, "FAIL")}})
        self.ended = True

#!/bin/sh
# The full default suite (no probes= given: every default probe, the harness's QEMU defaults) booted
# once per QEMU CPU model of tests/integration/configs.py MODELS (the models `make test` boots
# briefly in test_cpu_models.py), then a table: model -> QEMU, wall time, the run's end status,
# probes run / skipped, check records failed, the emulator verdict (x86: CPUID's hypervisor
# vendor; AArch64: plat kind=emulator's sign), and per model every skip with its reason and every
# failed check (under TCG a failed timing check is a finding about the emulator, not a broken
# probe: it does not fail the run, but a cache check must skip there). Long: a few minutes per model
# under TCG. Models needing QEMU 10 use scripts/qemu10.sh (skipped with its reason where it cannot
# fetch). The runs are kept under OUT_DIR/<model>/ (serial.log, parsed/).
# Usage: tests/perf/cpu_models.sh [OUT_DIR]
# Environment: MODELS (space-separated -cpu names to run, default all), JOBS (boots at once,
# default 1: the suite times things, so alone is the honest default), TIMEOUT (s per boot, 1800).
# Exit status: 0 when every model ran to `status ok`, 1 otherwise.
set -eu
cd "$(dirname "$0")/../.."
out="${1:-results/perf-cpu-models-$(date -u +%Y%m%d-%H%M%S)}"
mkdir -p "$out"
[ -f build/x86_64/baremetric.img ] || make image
[ -f build/aarch64/baremetric.img ] || make image-aarch64
OUT="$out" MODELS="${MODELS:-}" JOBS="${JOBS:-1}" TIMEOUT="${TIMEOUT:-1800}" \
	PYTHONPATH=harness:tests/integration exec /usr/bin/python3 - <<'EOF'
import concurrent.futures
import os
import subprocess
import sys
import time

import configs
from bmharness.run import qemu
from bmharness.stream import parse

out, jobs, timeout = os.environ["OUT"], int(os.environ["JOBS"]), int(os.environ["TIMEOUT"])
wanted = os.environ["MODELS"].split()
models = [c for c in configs.MODELS if not wanted or c.cpu in wanted]
images = {"x86_64": "build/x86_64/baremetric.img", "aarch64": "build/aarch64/baremetric.img"}

q10 = {}  # arch -> (root, None) or (None, why)
for arch in sorted({c.arch for c in models if c.qemu10}):
    p = subprocess.run(["scripts/qemu10.sh"], capture_output=True, text=True, env=dict(os.environ, QEMU10_ARCH=arch))
    root = p.stdout.strip().splitlines()[-1] if p.returncode == 0 else None
    q10[arch] = (root, None if root else (p.stderr.strip().splitlines() or ["scripts/qemu10.sh failed"])[-1])


def run(cfg):
    label = "%s %s" % (cfg.arch, cfg.cpu)
    kw = {}
    if cfg.qemu10:
        root, why = q10[cfg.arch]
        if not root:
            return label, "10", 0, "skipped", why, []
        kw = {"qemu": root + "/usr/bin/qemu-system-" + cfg.arch, "qemu_datadir": root + "/usr/share/qemu"}
    d = os.path.join(out, cfg.arch + "-" + cfg.cpu)
    t = time.monotonic()
    try:
        r = qemu.run_qemu(d, image=images[cfg.arch], arch=cfg.arch, cpu=cfg.cpu, timeout=timeout, **kw)
        s = parse.parse_log(r["serial_log"], os.path.join(d, "parsed"))
    except Exception as e:
        return label, "10" if cfg.qemu10 else "7.2", time.monotonic() - t, "error", str(e), []
    end = s.get("end") or {}
    status = end.get("status", "killed" if r["timed_out"] else "no end record")
    plat = s.get("platform") or {}
    first = lambda v: (v[0] if isinstance(v, list) and v else v) or {}  # noqa: E731
    if cfg.arch == "aarch64":
        emu = first(plat.get("emulator")).get("sign", "no record")
    else:
        emu = first(plat.get("cpu")).get("hv_sig", "?")
    fails = ["%s %s" % (c.get("name"), " ".join("%s=%s" % (x, c[x]) for x in ("probe", "level", "type", "measured")
                                                if x in c)) for c in s.get("checks", []) if c.get("status") == "fail"]
    what = "probes run %s, skipped %s, checks failed %d, emulator %s" % (
        end.get("probes_run", "?"), end.get("probes_skipped", "?"), len(fails), emu)
    skips = ["%s%s: %s" % (k.get("probe", "?"), " " + " ".join("%s=%s" % (x, k[x]) for x in sorted(k)
                                                               if x not in ("probe", "reason", "seq", "line")),
                           k.get("reason", "(no reason!)")) for k in s.get("skips", [])]
    skips += ["FAILED CHECK " + f for f in fails]
    return label, "10" if cfg.qemu10 else "7.2", time.monotonic() - t, status, what, skips


with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
    rows = list(pool.map(run, models))

print("%-24s %-5s %8s  %-8s %s" % ("model", "qemu", "seconds", "status", "probes"))
for label, qv, secs, status, what, _ in rows:
    print("%-24s %-5s %8.0f  %-8s %s" % (label, qv, secs, status, what))
for a, cpu, why in configs.MODELS_LACKING:
    print("%-24s %-5s %8s  %-8s %s" % ("%s %s" % (a, cpu), "-", "-", "lacking", why))
print()
for label, _, _, _, _, skips in rows:
    print("%s: %d skips and failed checks" % (label, len(skips)))
    for k in skips:
        print("    " + k)
sys.exit(0 if all(r[3] == "ok" for r in rows) else 1)
EOF

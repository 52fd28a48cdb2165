"""The AArch64 system-register survey in the report (`plat kind=sysreg`, `sysregs`, `insn_probe`,
docs/protocol.md "AArch64"): what the level baremetric ran at (EL1 or EL2) may touch on this
machine — one table row per register with its value or the exception class of its fault, and the
registers the ID registers call present that faulted anyway (a hypervisor or EL3 refusing them),
which on real hardware is the part worth reading."""

NAME = "sysregs"


def analyse(summary, out_dir=None):
    """The platform records the section reads (summary["platform"])."""
    return summary.get("platform") or {}


def _as_list(x):
    return x if isinstance(x, list) else ([x] if x else [])


def section(doc, plat, out_dir=None, plots=None):
    """Adds the section when the boot carried the records (AArch64 only); else nothing."""
    regs = _as_list(plat.get("sysreg"))
    if not regs:
        return
    summ = (_as_list(plat.get("sysregs")) or [{}])[0]
    doc.h("System registers (AArch64, guarded access)", 3)
    guarded = summ.get("guarded") == 1
    doc.kv([("level", "EL%s, %s" % (summ.get("el", "?"),
                                    "faults caught by our vectors" if guarded else
                                    "no vectors of ours: decided from the ID registers only")),
            ("outcome", "%s read, %s faulted, %s not read of %s" % tuple(
                summ.get(k, "?") for k in ("ok", "faulted", "not_read", "count"))),
            ("present but refused", summ.get("trapped", "unknown")),
            ("write guard", summ.get("write_guard", "unknown"))])
    rows = []
    for r in regs:
        if r.get("status") == "ok":
            what = r.get("value")
        elif r.get("status") == "fault":
            what = "fault EC %s (%s), ESR %s" % (r.get("ec"), r.get("ec_name"), r.get("esr"))
        else:
            what = "not read: %s" % r.get("reason", "?")
        rows.append([r.get("name"), r.get("gate"), r.get("expect"),
                     r.get("status") + (" UNEXPECTED" if r.get("unexpected") == 1 else ""), what])
    for p in _as_list(plat.get("insn_probe")):
        what = ("fault EC %s (%s)" % (p.get("ec"), p.get("ec_name")) if p.get("status") == "fault"
                else "bytes wrong %s" % p.get("bytes_wrong") if p.get("status") == "ok"
                else p.get("reason", ""))
        rows.append(["%s (%s)" % (p.get("name"), p.get("feature")), p.get("gate"), p.get("expect"),
                     p.get("status"), what])
    doc.table(["register", "exists when", "expect", "status", "value / fault"], rows)

"""Predicted time of an application on machines (hbench-OS ch. 4.1): the dot product of the
application's vector (app_vector.py: how much of each primitive it uses) with each machine's
(vector.py: what each primitive costs there), and the machines ranked by it.

Uncertainty: every machine coefficient carries the CI of the figure it comes from, and the
application's uses are counts (not negative), so the predicted time's interval is the dot product
with the coefficients' lower ends and with their upper ends. It is the measurement's uncertainty
only: how well the vector model fits the program (what cachegrind cannot see, overlap of misses,
the program's own parallelism) is the validation's question (tests/perf/predict_vs_measured.py).

A use the machine vector has no coefficient for is `missing`: that machine gets no prediction,
never one that leaves the term out."""

NS = 1e-9


def predict_one(app, mvec):
    """{seconds, lo_seconds, hi_seconds, terms: [{name, uses, ns, share}], missing: [names]}."""
    coefs = mvec.get("coefficients") or {}
    uses = {k: v for k, v in (app.get("uses") or {}).items() if v}
    missing = sorted(k for k in uses if k not in coefs)
    if missing:
        return {"seconds": None, "lo_seconds": None, "hi_seconds": None, "terms": [],
                "missing": missing}
    terms, total, lo, hi = [], 0.0, 0.0, 0.0
    for name in sorted(uses):
        c = coefs[name]
        t = uses[name] * c["value"]
        total += t
        lo += uses[name] * min(c["lo"], c["value"])
        hi += uses[name] * max(c["hi"], c["value"])
        terms.append({"name": name, "uses": uses[name], "coefficient": c["value"],
                      "unit": c.get("unit"), "ns": t})
    for t in terms:
        t["share"] = t["ns"] / total if total else None
    terms.sort(key=lambda t: -t["ns"])
    return {"seconds": total * NS, "lo_seconds": lo * NS, "hi_seconds": hi * NS, "terms": terms,
            "missing": []}


def predict(app, machines):
    """machines: [(label, machine vector)]. Rows in rank order (fastest first; machines that
    cannot be predicted last), each with rank (None when not predicted) and ratio to the
    fastest."""
    rows = [dict(predict_one(app, m), label=label, emulated=m.get("emulated"))
            for label, m in machines]
    done = sorted((r for r in rows if r["seconds"] is not None), key=lambda r: r["seconds"])
    best = done[0]["seconds"] if done else None
    for i, r in enumerate(done):
        r["rank"] = i + 1
        r["ratio_to_fastest"] = r["seconds"] / best if best else None
    rest = [dict(r, rank=None, ratio_to_fastest=None) for r in rows if r["seconds"] is None]
    return done + rest

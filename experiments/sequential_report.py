"""What a ``--trials auto`` run reports (:mod:`experiments.design`): each settled
claim with its sequential verdict and record, the looks table, the printed look lines, the
final report, and ``--estimate``'s expected and maximum cost."""
from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from ltrrepro.inference import sequential as sq
from ltrrepro.inference.claim import sequential_power
from ltrrepro.inference.sequential import alpha_warning
from ltrrepro.inference.tlaw import futility_only, t_law
from ltrrepro.report import Table

__all__ = ["monitored", "settled_claim", "look_text", "correction_of", "final_report", "estimate_lines", "STANDARD"]

#: the level the three papers' claims are judged at, for ``--estimate`` (the run reads its report's)
#: the claim verdicts of the standard rule that the sequential decision replaces
STANDARD = ("supported", "contradicted", "direction only", "not supported", "inconclusive (underpowered)")


def _design_text(sizes, alpha, correction: str = "holm") -> str:
    fam = ("per claim family, Holm-type recycling within it" if correction != "none" else "per claim, no correction")
    return (f"group-sequential: up to {sizes[-1]} trials, looks at {', '.join(map(str, sizes))}; Lan–DeMets "
            f"O'Brien–Fleming-type efficacy bounds at two-sided α = {alpha:g} {fam}; a non-binding futility bound "
            f"against each claim's effect")


def monitored(claims) -> list:
    """The monitored claims of a report: those resting on a p-value (its own test's) of a
    per-trial statistic (a finite ``sd``: a composite claim, e.g. "significant at every level",
    has none and is reported as the stopping look gives it)."""
    out = []
    for c in claims:
        if not c.tested or not np.isfinite(c.sd):
            continue
        p = c.p_raw if getattr(c, "p_raw", None) is not None else c.p
        out.append({"key": c.text, "p": float(p), "value": c.value, "sign": getattr(c, "sign", 1), "sd": c.sd,
                    "n": c.trials, "effect": getattr(c, "effect", float("nan")), "family": getattr(c, "family", None)})
    return out


def _fmt(x, spec="+.4f") -> str:
    return format(x, spec) if x is not None and np.isfinite(x) else "–"


def settled_claim(c, d: dict, looks: int, alpha: float):
    """The claim as its settling look reported it, with the sequential verdict and record."""
    why = {sq.EFFICACY: f"z {d['z']:+.2f} crossed the efficacy bound {d['bound']:.2f}",
           sq.CONTRADICTED: f"z {d['z']:+.2f} crossed the efficacy bound −{d['bound']:.2f} (against the claim)",
           sq.FUTILITY: f"z {_fmt(d['z'], '+.2f')} fell below the futility bound {d['futility_bound']:+.2f}",
           sq.MAXIMUM: "the maximum reached without crossing"}[d["stop"]]
    ci, rng = d["ci"], d.get("power_range")
    spread = f" ({_fmt(rng[0], '.2f')}–{_fmt(rng[1], '.2f')} over the SD's 95% CI)" if rng else ""
    text = (f"; sequential: settled at look {d['look']} of {looks} ({d['trials']} trials), {why} (level "
            f"{d['alpha']:.3g}, the design's power at the effect {_fmt(d['power'], '.2f')}{spread}, t law); "
            f"stage-wise p "
            f"{_fmt(d['p_stagewise'], '.4g')}, 95% CI {_fmt(ci[0]) if ci else '–'}..{_fmt(ci[1]) if ci else '–'}, "
            f"median-unbiased {_fmt(d['estimate'])}")
    changes = {"detail": c.detail + text, "extra": {**c.extra, "sequential": d}, **sequential_power(c, d)}
    if not (c.standard or c.settled_by is not None):     # an equivalence verdict, or one without a test, stands
        return c.replace(**changes)
    # a bound crossed is the rejection at the level in effect; else the design's power at the effect decides
    return c.at(d["stop"] in (sq.EFFICACY, sq.CONTRADICTED), d["power"], **changes)


def _table(rows, sizes) -> Table:
    df = pd.DataFrame(rows, columns=["claim", "look", "trials", "z", "efficacy_bound", "futility_bound", "alpha",
                                     "decision", "note"])
    return Table("sequential", df, caption="Group-sequential looks",
                 legend=(f"Each look's statistic z (the claim's own two-sided p as a z, oriented to its expected "
                         f"direction), its efficacy bound (Lan–DeMets O'Brien–Fleming-type, two-sided, at the "
                         f"claim's level α after Holm-type recycling in its family), its non-binding futility bound "
                         f"(β-spending against the claim's effect under the t law of the looks' tests; – where "
                         f"none), the decision, and futility-only where a t over the look's trials cannot reach the efficacy bound. Looks at "
                         f"{', '.join(map(str, sizes))} trials."),
                 formats={"z": 3, "efficacy_bound": 3, "futility_bound": 3, "alpha": "g"})


def look_text(k: int, sizes, rows, open_: int) -> str:
    """What a look decided, one line per claim it settled."""
    lines = [f"look {k + 1} of {len(sizes)} ({sizes[k]} trials): {sum(r['decision'] != sq.CONTINUE for r in rows)} "
             f"claim(s) settled, {open_} open"]
    for r in rows:
        if r["decision"] == sq.EFFICACY or r["decision"] == sq.CONTRADICTED:
            lines.append(f"  {r['decision']}: {r['claim']} (|z| {abs(r['z']):.2f} >= bound {r['efficacy_bound']:.2f})")
        elif r["decision"] == sq.FUTILITY:
            lines.append(f"  futility: {r['claim']} (z {r['z']:+.2f} < bound {r['futility_bound']:+.2f})")
        elif r["decision"] == sq.MAXIMUM:
            lines.append(f"  maximum, no bound crossed: {r['claim']} (z {_fmt(r['z'], '+.2f')}, bound "
                         f"{r['efficacy_bound']:.2f})")
    only = sorted({r["note"] for r in rows if r.get("note")})
    if only:
        lines.append(f"  this look is futility-only for {sum(bool(r.get('note')) for r in rows)} claim(s): {only[0]}")
    return "\n".join(lines)


def correction_of(claims, inference) -> str:
    """The monitor's correction: the one the claims were adjusted by, else the report's."""
    named = {getattr(c, "correction", None) for c in claims} - {None}
    method = named.pop() if len(named) == 1 else inference.correction
    return "none" if method == "none" else "holm"


def final_report(info, settled: dict, monitor, sizes, stop: str):
    """The stopping look's report with each settled claim as its settling look gave it."""
    claims = [settled.get(c.text, c) for c in info.claims]
    extra = {**info.claims_extra, "sequential": {"sizes": sizes, "alpha": monitor.alpha, "stop": stop,
                                                   "correction": monitor.correction}}
    warning = alpha_warning(sizes, monitor.alpha)
    line = (f"Sequential: {_design_text(sizes, monitor.alpha, monitor.correction)}; {stop}."
            + (f" Warning: {warning}." if warning else ""))
    return dataclasses.replace(info, claims=claims, tables=[*info.tables, _table(monitor.rows, sizes)],
                               claims_extra=extra, lines=[*info.lines, line, ""])


def estimate_lines(config, store, units, base_lines, alpha: float) -> list:
    """``--estimate`` of an auto run: the calibration's maximum cost (``base_lines``, every unit
    up to the maximum) and the expected cost of a claim under the design at ``alpha`` (the
    report's), from the stored calibration units' times. The expected trials come from the law
    the monitor uses (:class:`~ltrrepro.inference.tlaw.TLaw`: the looks' t-tests, simulated):
    the design effect is the standardized effect the design powers 90% with its futility bound
    acted on, and the claim's futility bound is at that effect, whatever the true one."""
    sizes = sq.look_sizes(config.trials, config.looks)
    t = np.asarray(sizes, float) / sizes[-1]
    c = sq.efficacy_bounds(t, alpha)
    law = t_law(tuple(sizes))
    d = law.effect_for_power(c, 0.9)
    frac = {name: law.expected(x, c, d) / sizes[-1] for name, x in (("no effect", 0.0), ("the design effect", d),
                                                                   ("twice it", 2 * d))}
    times: dict = {}
    for r in store.records():                 # the calibration's units (and any stored before)
        times.setdefault(r.get("model"), []).append(float(r["timings"]["unit_s"]))
    mean_all = float(np.mean([x for v in times.values() for x in v])) if times else float("nan")
    total = sum(float(np.mean(times[u.model])) if u.model in times else mean_all for u in units)
    lines = [*base_lines, f"  {_design_text(sizes, alpha)}",
             f"  maximum: {sizes[-1]} trials, {_hours(total)} of compute (every unit above)"]
    lines += [f"  expected (t law) for a claim powered 90% at the maximum, at {name}: {f * sizes[-1]:.0f} trials "
              f"({f:.0%} of the maximum, about {_hours(total * f)})" for name, f in frac.items()]
    lines.append("  the run stops when its last claim settles: its cost lies between the largest of these and the "
                 "maximum")
    warning = alpha_warning(sizes, alpha)
    if warning:
        lines.append(f"  warning: {warning}")
    only = [k + 1 for k, (n, ck) in enumerate(zip(sizes, c)) if futility_only(n, ck)[0]]
    if only:
        lines.append(f"  futility-only look(s) at α = {alpha:g}: {', '.join(map(str, only))} (a t over so few trials "
                     f"cannot reach the efficacy bound)")
    return lines


def _hours(seconds: float) -> str:
    if not np.isfinite(seconds):
        return "?"
    return f"{seconds / 3600:.1f} h" if seconds >= 7200 else f"{seconds / 60:.1f} min"

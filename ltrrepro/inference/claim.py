"""A paper's claim checked on a run: the :class:`Claim` value object and its verdict rule, in one
place. A claim is judged (:func:`judge`) from what the run shows — an :class:`Evidence` (the
statistic, its p, its trials, its SD, effect sizes; a power where the test is not the paired
one) — against what the paper says — an :class:`Expectation` (the direction, the paper's
number or the smallest effect of interest, a verdict text, the claim's family) — under the
report's :class:`~ltrrepro.inference.choices.Inference` (test, correction, α).

The verdict rule (:func:`rule`, through :func:`verdict` for a test's p): ``supported`` (expected direction, p < α),
``contradicted`` (opposite direction, p < α); when p ≥ α, ``inconclusive (underpowered)`` if
the run's power to detect the paper's effect is below :data:`~ltrrepro.inference.power.POWER_TARGET`,
else ``direction only`` (expected direction) or ``not supported``. A claim resting on a test
that gives no p-value is ``inconclusive (<why>)`` (:func:`no_test_reason`). Power is that of
the paired test over the run's trials at α, given the observed SD of the paired differences
(:func:`~ltrrepro.inference.power.paired_power`). :func:`correct` adjusts p within each claim
family and judges it at the level applied by the same rule.

The rule decides every verdict: :func:`judge` at α, :func:`correct` and a sequential monitor
by handing the claim their level (:meth:`Claim.at`), a conjunction by the same rule; no step
sets a verdict of its own. Over 500 lines on purpose: the value object and its one rule live
together.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Callable, Mapping

import numpy as np

from ..metrics import label, metric_family
from .choices import Inference
from .effects import smallest_effect
from .power import POWER_TARGET, power_block, tost_power, trials_for_tost_power
from .reproduction import reproduction, reproduction_summary
from .tests import adjust, applied_levels, dz_interval, tost

__all__ = ["Claim", "Evidence", "Expectation", "judge", "judge_comparison", "judge_equivalence", "correct", "conjunction", "conjunction_family", "sequential_power", "verdict", "rule",
           "equivalence_verdict",
           "no_test_reason",
           "undefined_reason", "UNDERPOWERED"]

UNDERPOWERED = "inconclusive (underpowered)"
#: the verdict of a claim whose two sides trained the same model (bit-identical test scores in every trial)
IDENTICAL = "identical models"
NAN = float("nan")


def verdict(diff: float, p: float, expected_sign: int, alpha: float, power: float = NAN) -> str:
    """``supported`` (right direction, p < α), ``contradicted`` (wrong direction, p < α);
    when p ≥ α: ``inconclusive (underpowered)`` if the run's ``power`` to detect the paper's
    effect is below 0.8, else ``direction only`` (right direction) or ``not supported``.
    With no power (the paper gives no number to power against) the last two stand. The rule
    itself is :func:`rule`, given whether the test rejected.

    >>> verdict(0.01, 0.001, +1, 0.01), verdict(0.01, 0.2, +1, 0.01, 0.3), verdict(-0.01, 0.2, +1, 0.01, 0.95)
    ('supported', 'inconclusive (underpowered)', 'not supported')
    """
    return rule(diff, expected_sign, bool(np.isfinite(p) and p < alpha), power)


def rule(diff: float, expected_sign: int, sig: bool, power: float = NAN) -> str:
    """The verdict rule, the one place a verdict is decided: ``sig`` — the test rejected at the
    level in effect (a fixed test's p against α, a corrected p against the level its correction
    applied, a sequential bound crossed) — gives ``supported`` / ``contradicted`` by the
    direction of ``diff``; otherwise ``power`` (at that level) below 0.8 gives ``inconclusive
    (underpowered)``, else ``direction only`` / ``not supported``.

    >>> rule(0.01, +1, True), rule(-0.01, +1, True), rule(0.01, +1, False, 0.5), rule(0.01, +1, False, 0.9)
    ('supported', 'contradicted', 'inconclusive (underpowered)', 'direction only')
    """
    if not np.isfinite(diff) or diff == 0:
        return UNDERPOWERED if np.isfinite(power) and power < POWER_TARGET else "not supported"
    right = np.sign(diff) == expected_sign
    if sig:
        return "supported" if right else "contradicted"
    if np.isfinite(power) and power < POWER_TARGET:
        return UNDERPOWERED
    return "direction only" if right else "not supported"


def equivalence_verdict(p_eq: float, p_beyond: float, power: float, alpha: float, margin: float) -> str:
    """The verdict of a claim of no change (TOST, Schuirmann 1987): ``supported (equivalent
    within ±m)`` when TOST's ``p_eq`` < α, ``contradicted (a change beyond ±m)`` when the
    one-sided test of a change beyond the margin gives ``p_beyond`` < α, else ``inconclusive
    (underpowered)`` when TOST's ``power`` at no change is below 0.8, else ``not supported
    (no equivalence shown)``.

    >>> equivalence_verdict(0.001, 0.9, 0.9, 0.01, 0.01), equivalence_verdict(0.2, 0.5, 0.3, 0.01, 0.01)
    ('supported (equivalent within ±0.01)', 'inconclusive (underpowered)')
    """
    if p_eq < alpha:
        return "supported (equivalent within ±%g)" % margin
    if p_beyond < alpha:
        return "contradicted (a change beyond ±%g)" % margin
    return UNDERPOWERED if power < POWER_TARGET else "not supported (no equivalence shown)"


@dataclass(frozen=True)
class Evidence:
    """What a run shows for a claim: the observed statistic ``value`` (its definition in
    ``detail``), its test's two-sided ``p`` over ``n`` trials (or folds, ``on``), the SD ``sd``
    of the per-trial statistic the test is on (NaN: none), ``missing``: why there is no test
    (None: :func:`no_test_reason` decides when p is NaN), ``p_beyond``: for an equivalence
    claim, the p of the test that the change lies beyond the margin
    (:func:`~ltrrepro.inference.tests.tost`), ``effect_sizes``: d_z, ER, ΔRI and
    the size verdict where the caller computed them (:func:`~ltrrepro.inference.reproduction.reproduction`),
    and ``power``: the power fields (``power``, ``trials_80``, ``trials_80_range``) where the
    test is not the paired one (a two-sample test: :func:`~ltrrepro.inference.power.two_sample_power`);
    None: the paired test's at the report's α (:func:`~ltrrepro.inference.power.power_block`);
    ``power_at``: with ``power``, the same fields at another level (a function of the level),
    for :func:`correct` to compute them at the level a family's correction applies;
    ``identical``: why the two sides trained the same model (bit-identical test scores in every
    trial): the claim is then not judged, its verdict :data:`IDENTICAL`."""

    value: float
    p: float
    n: int
    detail: str
    sd: float = NAN
    on: str = "trial"
    missing: str | None = None
    p_beyond: float = NAN
    effect_sizes: Mapping = field(default_factory=dict)
    power: Mapping | None = None
    power_at: object = None
    identical: str | None = None

    @classmethod
    def none(cls, why: str) -> "Evidence":
        """No statistic at all: ``why`` is the detail and the reason there is no test."""
        return cls(NAN, NAN, 0, why, missing=why)


@dataclass(frozen=True)
class Expectation:
    """What the paper says of a claim: its direction ``sign`` (+1: the statistic is expected
    positive), the paper's number ``paper_effect`` (in the units of the statistic, its sign as the
    paper gives it) or, where it gives none, the smallest effect of interest ``effect`` the claim
    is powered against (signed in the expected direction) and ``effect_source`` (where it comes
    from); ``verdict_text``: a verdict a significant or well-powered result gets instead of the
    rule's (a paper's magnitude, a count); ``family``: the claims its p is corrected with
    (:func:`correct`); ``margin``: a claim of no change, judged by equivalence within ±margin
    (:func:`equivalence_verdict`; the evidence's p is TOST's); ``sized(value)``: for a claim the
    paper states with a magnitude, the verdict of a result significant in the expected direction
    (``supported`` within the paper's range, else which way it differs), wherever the rule
    decides (:func:`judge`, and again at a corrected level, :meth:`Claim.at`)."""

    sign: int = +1
    paper_effect: float | None = None
    effect: float | None = None
    effect_source: str | None = None
    verdict_text: str | None = None
    family: str | None = None
    margin: float | None = None
    sized: Callable | None = None


def judge(text: str, evidence: Evidence, expectation: Expectation, inference: Inference, **extra) -> Claim:
    """The claim ``text`` with its verdict — the one place a claim is judged: :func:`verdict` of
    the evidence's value, p and power (against the paper's effect, else the effect of interest)
    at ``inference.alpha``, the power of ``inference.test``. ``verdict_text`` settles a
    significant or well-powered result otherwise; an underpowered non-significant one stays
    inconclusive; a claim resting on a test that gives no p-value is ``inconclusive (<why>)``.
    Where the evidence gives no d_z, d_z = value / sd with its CI
    (:func:`~ltrrepro.inference.tests.dz_interval`); against a paper number and without ER,
    ER and the size verdict from value, sd and n
    (:func:`~ltrrepro.inference.reproduction.reproduction_summary`). ``extra``: the claim's own
    fields (a noise type, a level), written after its text.

    >>> inf = Inference()
    >>> judge("x", Evidence(0.01, 0.001, 20, "d"), Expectation(), inf).verdict
    'supported'
    >>> judge("x", Evidence(0.01, NAN, 1, "d"), Expectation(), inf).verdict
    'inconclusive (one trial: no test)'
    """
    ev, ex, alpha = evidence, expectation, inference.alpha
    value, p, trials, sd, sign = float(ev.value), float(ev.p), int(ev.n), ev.sd, int(ex.sign)
    paper_effect, powered_by = ex.paper_effect, None
    if paper_effect is None and ex.effect is not None and np.isfinite(ex.effect):
        paper_effect = sign * abs(float(ex.effect))
        powered_by = ex.effect_source or "the smallest effect of interest"
    pw = power_block(paper_effect, sd, trials, alpha, inference.test)
    pw["effect"] = pw["paper_effect"]          # the effect powered against, whichever its source
    eff_abs, test = pw["effect"], inference.test

    def power_at(level: float) -> dict:        # the power fields at another level (:func:`correct`)
        b = power_block(eff_abs, sd, trials, level, test)
        return {k: b[k] for k in ("power", "trials_80", "trials_80_range")}
    if powered_by is not None:                 # the paper gave none: the effect of interest, in its own field
        pw = {**pw, "paper_effect": NAN, "effect_source": powered_by}
    missing = ev.missing
    if missing is None and ex.verdict_text is None and not (np.isfinite(p) and np.isfinite(value)):
        missing = no_test_reason(trials if np.isfinite(value) else 0, sd, on=ev.on) or "no p-value"
    if ev.power is not None and not missing:   # a test other than the paired one: its own power
        pw.update(ev.power)
        power_at = ev.power_at
    if ex.margin is not None and not missing:  # a claim of no change: equivalence (TOST)
        v = equivalence_verdict(p, ev.p_beyond, pw["power"], alpha, ex.margin)
    else:
        v = verdict(value, p, sign, alpha, pw["power"])
        v = ex.sized(value) if ex.sized is not None and v == "supported" else v
    if ev.identical:                           # the two sides trained the same model: nothing to judge
        v, missing = IDENTICAL, ev.identical
    elif missing:
        v = f"inconclusive ({missing})"
    elif ex.verdict_text is not None and not v.startswith("inconclusive"):
        v = ex.verdict_text
    known = {f.name for f in dataclasses.fields(Claim)}
    more = dict(ev.effect_sizes)
    sd_ok = sd is not None and np.isfinite(sd) and sd > 0 and trials >= 2 and np.isfinite(value)
    if "dz" not in more and sd_ok and not missing:       # d_z of the per-trial statistic, where not given
        z = value / float(sd)
        more.update(dict(zip(("dz", "dz_low", "dz_high"), (z, *dz_interval(z, trials)))))
    if powered_by is None and "er" not in more and np.isfinite(pw["paper_effect"]) and not missing:
        more.update(reproduction_summary(value, sd, trials, pw["paper_effect"]))   # ER without ΔRI: no means
    more = {k: (None if x is None or (isinstance(x, float) and not np.isfinite(x)) else x)
            for k, x in more.items() if k in known}
    return Claim(text=text, value=value, p=p, trials=trials, detail=ev.detail, verdict=v, extra=extra,
                 family=ex.family, sign=sign, standard=not missing and ex.verdict_text is None and ex.margin is None,
                 power_at=power_at if not missing else None, sized=ex.sized,
                 settled_by=ex.verdict_text if not missing and ex.margin is None else None, **more, **pw)


def judge_equivalence(text: str, diffs, margin: float, detail: Callable, effect_source: str, inference: Inference,
                      *, missing: Callable | None = None, effect_sizes: Mapping | None = None, **extra) -> Claim:
    """The claim that a paired difference lies within ±``margin`` (a claim of no change), from the
    per-trial differences ``diffs``: TOST (:func:`~ltrrepro.inference.tests.tost`) judged by
    :func:`equivalence_verdict`, its power that of TOST at no change
    (:func:`~ltrrepro.inference.power.tost_power`) and the trials for 80%. ``detail(mean, sd)``:
    the claim's detail; ``missing(n, sd)``: why fewer than two trials or no spread give no test
    (default :func:`no_test_reason`); ``effect_sizes``: ER, ΔRI where the caller computed them.

    >>> c = judge_equivalence("same", [0.001, -0.002, 0.0005, 0.001], 0.01, lambda m, s: "d", "margin", Inference())
    >>> c.verdict.startswith("supported (equivalent")
    True
    """
    d = np.asarray(diffs, dtype=float)
    n = d.size
    mean, sd = (float(d.mean()) if n else NAN), (float(d.std(ddof=1)) if n > 1 else NAN)
    words = detail(mean, sd)
    if n < 2 or not sd > 0:
        why = (missing or no_test_reason)(n, sd)
        return judge(text, Evidence(mean, NAN, n, words, missing=why), Expectation(), inference, **extra)
    p_eq, p_beyond = tost(d, margin)
    alpha = inference.alpha
    power = {"power": tost_power(margin, sd, n, alpha), "trials_80": trials_for_tost_power(margin, sd, alpha),
             "trials_80_range": None}
    return judge(text, Evidence(mean, p_eq, n, words, sd=sd, p_beyond=p_beyond, power=power,
                                effect_sizes=dict(effect_sizes or {})),
                 Expectation(effect=margin, effect_source=effect_source, margin=margin), inference, **extra)


def judge_comparison(text: str, c, names: tuple[str, str], metric: str, inference: Inference,
                     expectation: Expectation = Expectation(), paper_means: tuple | None = None, diffs=None, base=None,
                     reasons: Mapping[str, str] | None = None) -> Claim | None:
    """The claim "a beats b on ``metric``" from a paired comparison ``c``
    (:class:`~ltrrepro.inference.tests.Comparison` of a − b; None when there is none, then no
    claim). Without the paper's effect in ``expectation``, the claim is powered against the
    metric's smallest effect of interest (:func:`~ltrrepro.inference.effects.smallest_effect`
    of the baseline's mean, ``reasons``: the paper's words for a default), so that "not
    supported" needs the power to see that effect. d_z with its CI from ``c``; with the paper's
    effect and the per-trial ``diffs`` (a − b) and ``base`` (b), ER, ΔRI (needs ``paper_means``
    = the paper's (a, b)) and the size verdict (:func:`~ltrrepro.inference.reproduction.reproduction`)."""
    if c is None:
        return None
    a, b = names
    missing = no_test_reason(c.n, c.std_diff, metric) if not np.isfinite(c.p) else None
    detail = (f"{a} − {b} on {label(metric)}: no defined pair" if c.n == 0 else
              f"{a} − {b} on {label(metric)}: {c.diff:+.4f} (95% CI {c.ci_low:+.4f}..{c.ci_high:+.4f}), "
              f"W/T/L {c.wins}/{c.ties}/{c.losses}")
    more = {"dz": c.dz, "dz_low": c.dz_low, "dz_high": c.dz_high} if c.n > 1 else {}
    if expectation.paper_effect is None:
        effect, source = smallest_effect(metric, inference, c.mean_b, reasons)
        expectation = dataclasses.replace(expectation, effect=effect, effect_source=source)
    elif diffs is not None:
        pa, pb = paper_means or (None, None)
        more.update(reproduction(diffs, base, pa, pb, expectation.paper_effect))
    if c.identical:
        detail = f"{detail}; identical models: {c.identical} — a knob that changed nothing, or a parameter that never reached the library"
    return judge(text, Evidence(c.diff, c.p, c.n, detail, sd=c.std_diff, missing=missing, effect_sizes=more,
                                identical=c.identical), expectation, inference)


def correct(claims, inference: Inference) -> list:
    """The claims with p adjusted within each ``family`` by ``inference.correction``
    (:func:`~ltrrepro.inference.tests.adjust`): each tested claim of a family gets ``p`` = the
    adjusted p, ``p_raw`` = its own test's, ``alpha_applied`` = the level its own p is compared with
    after the correction (:func:`~ltrrepro.inference.tests.applied_levels`: Holm's step where the
    family stopped, BH's rank threshold), its power and trials for 80% computed at that level,
    and its verdict re-judged on the adjusted p and that power (:func:`verdict` at
    ``inference.alpha``) where the standard rule gave it (a claim whose verdict a text settled
    keeps it). One rule: a non-significant claim reads "not supported" or "direction only" only
    when the run had 80% power at the level it was in effect tested at. A claim without a family
    is a family of one (nothing to adjust; its level is α). Order kept."""
    method, alpha = inference.correction, inference.alpha
    claims = list(claims)
    if method == "none":
        return claims
    groups: dict = {}
    for i, c in enumerate(claims):
        if c.family is not None and c.tested and c.p_raw is None:
            groups.setdefault(c.family, []).append(i)
    for idx in groups.values():
        raw = [claims[i].p for i in idx]
        adj, levels = adjust(raw, method), applied_levels(raw, method, alpha)
        for i, pa, lv in zip(idx, adj, levels):
            c = claims[i]
            changes = {"p": float(pa), "p_raw": float(c.p), "correction": method, "alpha_applied": float(lv)}
            if c.power_at is not None and np.isfinite(c.power) and lv != alpha:
                changes.update(c.power_at(float(lv)))
            claims[i] = c.at(bool(np.isfinite(pa) and pa < alpha), changes.get("power", c.power), **changes)
    return claims


def conjunction(text: str, parts, inference: Inference, detail: str = "", family: str | None = None,
                level: float | None = None, **extra) -> Claim:
    """A claim that every one of ``parts`` (judged claims, each with its own test's p, before
    any correction) holds, tested as an intersection–union test (Berger 1982): the conjunction
    is supported when every part is significant at α in its expected direction — no correction,
    each part at α, since all must reject — so its p is the largest of the parts' own p. The
    value is the smallest of the parts' values oriented to their expected direction (the part
    that binds; > 0 when every part points the claimed way); contradicted when a part is
    significant against its direction. Its power — that every part rejects — is bounded below
    by Bonferroni, 1 − Σ(1 − power_i) (the parts' power at α; correlated parts do better), and
    a non-significant conjunction reads "not supported" / "direction only" only when that bound
    is ≥ 0.8. ``trials``: the fewest of the parts'; ``trials_80``: the most any part needs for
    80% (None: one beyond the search). ``level``: the level every part is held to
    (default α; :func:`conjunction_family` passes the level a family's correction applies).

    >>> inf = Inference()
    >>> a = judge("a", Evidence(0.02, 0.001, 9, "d", sd=0.01), Expectation(effect=0.01), inf)
    >>> b = judge("b", Evidence(0.01, 0.004, 9, "d", sd=0.01), Expectation(effect=0.01), inf)
    >>> conjunction("a and b", [a, b], inf).verdict, conjunction("a and b", [a, b], inf).p
    ('supported', 0.004)
    """
    parts = [c for c in parts if c is not None]
    alpha = inference.alpha if level is None else float(level)
    raw = [(c.p_raw if c.p_raw is not None else c.p) for c in parts]
    if not parts or not all(np.isfinite(p) for p in raw):
        why = "no part" if not parts else "a part has no test"
        return judge(text, Evidence.none(why), Expectation(family=family), inference, **extra)
    oriented = [c.sign * c.value for c in parts]
    p = float(max(raw))
    fields = [c.power_at(alpha) if c.power_at is not None else {"power": c.power, "trials_80": c.trials_80}
              for c in parts]
    powers = [f["power"] for f in fields]
    need = [f.get("trials_80") for f in fields]
    power = (float(max(0.0, 1.0 - sum(1.0 - q for q in powers))) if all(np.isfinite(q) for q in powers)
             else float("nan"))
    against = any(o < 0 and q < alpha for o, q in zip(oriented, raw))
    value = float(min(oriented))
    v = rule(-1.0 if against else value, +1, against or p < alpha, power)    # a part against: contradicted
    n_ok = sum(o > 0 and q < alpha for o, q in zip(oriented, raw))
    text_detail = (f"intersection–union over {len(parts)} parts, each at {alpha:.3g} (p = the largest part p): "
                   f"{n_ok} of {len(parts)} significant in the claimed direction; value: the smallest part value "
                   f"oriented to the claim; power ≥ 1 − Σ(1 − power_i) = {power:.2f}" + (f"; {detail}" if detail else ""))
    return Claim(text=text, value=value, p=p, trials=int(min(c.trials for c in parts)), detail=text_detail,
                 verdict=v, power=power, family=family, extra=extra, standard=False, alpha_applied=alpha,
                 trials_80=None if None in need or not need else int(max(need)))


def conjunction_family(items, inference: Inference, family: str) -> list:
    """Several conjunctions corrected as one ``family``: ``items`` are ``(text, parts, detail,
    extra)``; each conjunction's p (the largest of its parts', a valid p of its
    intersection–union null) is adjusted by ``inference.correction`` and the conjunction judged
    with every part held to the level that correction applies
    (:func:`~ltrrepro.inference.tests.applied_levels`)."""
    items = list(items)
    first = [conjunction(t, parts, inference, d, **x) for t, parts, d, x in items]
    raw = [c.p for c in first]
    if inference.correction == "none" or not any(np.isfinite(p) for p in raw):
        return [c.replace(family=family) for c in first]
    adj = adjust(raw, inference.correction)
    levels = applied_levels(raw, inference.correction, inference.alpha)
    out = []
    for (t, parts, d, x), c, pa, lv in zip(items, first, adj, levels):
        if np.isfinite(c.p):
            c = conjunction(t, parts, inference, d, level=float(lv), **x).replace(
                p=float(pa), p_raw=float(c.p), correction=inference.correction)
        out.append(c.replace(family=family))
    return out


def sequential_power(c: Claim, d: Mapping) -> dict:
    """The power fields of claim ``c`` as its sequential verdict used them, from the monitor's
    settling record ``d`` (:class:`~ltrrepro.inference.sequential.Monitor`): the design's power
    at the level the claim was settled at (``alpha_applied``) — the power column of an auto run
    is the one its verdict used — and a fixed run's trials for 80% at that level.

    >>> c = judge("x", Evidence(0.004, 0.2, 5, "d", sd=0.01), Expectation(effect=0.01), Inference())
    >>> sequential_power(c, {"power": 0.42, "alpha": 0.005})["power"]
    0.42
    """
    if not np.isfinite(d.get("power", NAN)):
        return {}
    out = {"power": float(d["power"]), "alpha_applied": float(d["alpha"])}
    if c.power_at is not None:
        out.update({k: v for k, v in c.power_at(float(d["alpha"])).items() if k != "power"})
    return out


def undefined_reason(metric: str, part: str = "test") -> str:
    """Why ``metric`` (canonical name or label) has no value, in words: the metrics that drop a
    query without a relevant document (``norel=drop``: NDCG, ERR, DCG) have none to average."""
    base = metric_family(metric)
    if "norel=drop" in metric or base in ("ndcg", "err", "dcg"):
        return f"no query with a relevant document in the {part} parts"
    if base == "prec":
        return f"no preference pair in the {part} parts"
    return f"{label(metric)} has no value in any trial"


def no_test_reason(n: int, sd=None, metric: str | None = None, part: str = "test", on: str = "trial") -> str | None:
    """Why a paired test over ``n`` defined pairs (SD of the differences ``sd``) gives no
    p-value, in words; None when it does.

    >>> no_test_reason(1), no_test_reason(4, 0.0), no_test_reason(4, 0.1)
    ('one trial: no test', 'zero variance of the paired differences: no test', None)
    """
    if n == 0:
        return undefined_reason(metric, part) if metric else f"no {on} with both results"
    if n == 1:
        return f"one {on}: no test"
    if sd is None or not np.isfinite(sd) or sd <= 0:
        return "zero variance of the paired differences: no test"
    return None



@dataclass(frozen=True)
class Claim:
    """One paper claim checked on a run: the observed statistic ``value`` (defined in
    ``detail``), its p-value over ``trials`` paired trials (or folds), the power block
    (:func:`~ltrrepro.inference.power.power_block`) and the ``verdict``. Built by :func:`judge`
    from an :class:`Evidence` and an :class:`Expectation` (or :func:`judge_comparison` for a
    paired a − b test); :func:`correct` re-judges it on its family-adjusted p.

    ``effect``: the effect the claim is powered against, in the units of ``value`` — the
    paper's number (``paper_effect``, its sign as the paper gives it) where there is one, else
    the smallest effect of interest (``effect_source`` says which and why) signed in the
    claim's expected direction; NaN where there is none (a count, a ratio, a verdict text).

    What a sequential monitor needs (:meth:`monitor`): ``value``, ``sd`` and ``trials`` are the
    mean, the sample SD (ddof = 1) and the count of the per-trial statistic the claim's test
    is on — the paired differences a − b (per trial, or per fold for Xia) for a comparison,
    the per-trial slopes for Bruch's "degrades faster" — so the t statistic is
    ``value / (sd / √trials)``. ``sd`` is NaN where the claim rests on no such statistic.

    ``extra``: fields a claim carries beside the standard ones (Bruch's noise type and level,
    the statistic's definition), written right after the claim's text. Further statistics (an
    effect size, an adjusted p, ...) are added as optional fields defaulting to None: a None
    field is left out of :meth:`to_dict`, so the files of claims without it do not change."""

    text: str
    value: float
    p: float
    trials: int
    detail: str
    verdict: str
    paper_effect: float = NAN
    sd: float = NAN
    power: float = NAN
    trials_80: int | None = None
    trials_80_range: tuple | None = None          # (low, high) over the SD's 95% CI; None: > 100,000
    effect_source: str | None = None              # where the paper gives no number: the effect powered against
    effect: float = NAN                           # the effect powered against: the paper's, else the one of interest
    family: str | None = None                     # the claims its p is corrected with (:func:`correct`)
    p_raw: float | None = None                    # its own test's p, where p is the family-adjusted one
    correction: str | None = None                 # how p was adjusted within the family
    alpha_applied: float | None = None            # the level its own p was compared with after the correction
    dz: float | None = None                       # d_z of the per-trial statistic, with its 95% CI
    dz_low: float | None = None
    dz_high: float | None = None
    er: float | None = None                       # Effect Ratio (Breuer et al. 2020), with its 95% CI
    er_low: float | None = None
    er_high: float | None = None
    delta_ri: float | None = None                 # ΔRI = RI(paper) − RI(run), with its 95% CI
    delta_ri_low: float | None = None
    delta_ri_high: float | None = None
    size: str | None = None                       # the size verdict (:func:`~ltrrepro.inference.reproduction.size_verdict`)
    sign: int = field(default=1, repr=False)      # the expected direction (not written)
    standard: bool = field(default=True, repr=False)   # the verdict is :func:`verdict`'s (not written)
    power_at: object = field(default=None, repr=False, compare=False)   # level -> power fields (not written)
    sized: object = field(default=None, repr=False, compare=False)      # a significant result's verdict by size
    settled_by: str | None = field(default=None, repr=False, compare=False)   # its verdict text (not written)
    extra: Mapping = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "extra", MappingProxyType(dict(self.extra)))

    #: the standard fields, in the order ``claims.json`` writes them (after ``claim`` and ``extra``)
    _ORDER = ("value", "p", "trials", "paper_effect", "effect", "sd", "power", "trials_80", "detail", "verdict")
    #: fields the verdict rule keeps for :func:`correct`, not written
    _HIDDEN = ("sign", "standard", "power_at", "sized", "settled_by")

    def monitor(self) -> dict:
        """What a sequential monitor of this claim needs: ``mean``, ``sd``, ``n`` of the per-trial
        statistic the test is on (``value``, ``sd``, ``trials``) and the ``effect`` powered
        against (NaN: none); ``ok`` is False where the claim rests on no per-trial statistic
        (no SD: a count, one trial, a composite claim).

        >>> judge("x", Evidence(0.004, 0.2, 5, "d", sd=0.01), Expectation(effect=0.01), Inference()).monitor()
        {'mean': 0.004, 'sd': 0.01, 'n': 5, 'effect': 0.01, 'ok': True}
        """
        ok = bool(np.isfinite(self.value) and np.isfinite(self.sd) and self.sd > 0 and self.trials >= 2)
        return {"mean": self.value, "sd": self.sd, "n": self.trials, "effect": self.effect, "ok": ok}

    @property
    def tested(self) -> bool:
        """The claim rests on a p-value."""
        return bool(np.isfinite(self.p))

    def replace(self, **changes) -> "Claim":
        return dataclasses.replace(self, **changes)

    def at(self, sig: bool, power_at_level: float, **changes) -> "Claim":
        """The claim as a later step sees it — :func:`correct` (its adjusted p against α, its
        power at the level the correction applied) or a sequential monitor (a bound crossed,
        the design's power) — with ``changes`` (its p, level, detail) and, where the standard
        rule gave its verdict, the verdict by that one rule (:func:`rule`) on ``sig`` and
        ``power_at_level``; a claim whose verdict a text settles (``verdict_text``) takes that text
        where the rule's verdict is not inconclusive, as :func:`judge` does; an equivalence
        verdict, or one without a test, is kept. No step sets a verdict of its own."""
        if self.standard or self.settled_by is not None:
            v = rule(self.value, self.sign, bool(sig), power_at_level)
            if self.standard:
                changes["verdict"] = self.sized(self.value) if self.sized is not None and v == "supported" else v
            else:
                changes["verdict"] = v if v.startswith("inconclusive") else self.settled_by
        return self.replace(**changes)

    def to_dict(self) -> dict:
        """The claim as ``claims.json`` stores it: ``claim`` (the text), the ``extra`` fields,
        the standard fields, then any further field that is set (not None)."""
        out = {"claim": self.text, **self.extra, **{k: getattr(self, k) for k in self._ORDER}}
        for f in dataclasses.fields(self):
            if f.name not in out and f.name not in ("text", "extra", *self._HIDDEN) and \
                    getattr(self, f.name) is not None:
                out[f.name] = getattr(self, f.name)
        return out

    @classmethod
    def from_dict(cls, d: Mapping) -> "Claim":
        """A claim read back from ``claims.json`` (keys it does not know go to ``extra``)."""
        names = {f.name for f in dataclasses.fields(cls)} - {"text", "extra", *cls._HIDDEN}
        known = {k: v for k, v in d.items() if k in names}
        extra = {k: v for k, v in d.items() if k not in names and k != "claim"}
        for k in ("value", "p", "paper_effect", "effect", "sd", "power", "alpha_applied", "er", "er_low", "er_high", "delta_ri",
                  "delta_ri_low", "delta_ri_high", "dz", "dz_low", "dz_high", "p_raw"):
            if k in known and known[k] is None and k not in ("value", "p", "paper_effect", "effect", "sd", "power"):
                continue
            if k in known:
                known[k] = NAN if known[k] is None else float(known[k])
        if isinstance(known.get("trials_80_range"), list):
            known["trials_80_range"] = tuple(known["trials_80_range"])
        return cls(text=d["claim"], extra=extra, **known)

"""A paper's claim checked on a run: the :class:`Claim` value object, its verdict rule and its
power, in one place (every paper's report builds its claims here; :class:`ltrrepro.report.Report`
writes them).

The verdict rule (:func:`verdict`): ``supported`` (expected direction, p < α),
``contradicted`` (opposite direction, p < α); when p ≥ α, ``inconclusive (underpowered)`` if
the run's power to detect the paper's effect is below :data:`POWER_TARGET`, else ``direction
only`` (expected direction) or ``not supported``. A claim resting on a test that gives no
p-value is ``inconclusive (<why>)`` (:func:`no_test_reason`). Power is that of the paired
t-test over the run's trials at α, given the observed SD of the paired differences
(:func:`ltrrepro.stats.paired_power`).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

import numpy as np

from scipy import stats as _st

from .stats import (CORRECTION_NAMES, TEST_NAMES, adjust, current, dz_interval, paired_power, trials_for_power,
                    trials_for_power_range)

__all__ = ["Claim", "verdict", "power_block", "no_test_reason", "undefined_reason", "label", "POWER_TARGET",
           "UNDERPOWERED", "CLAIM_COLUMNS", "reproduction", "size_verdict", "correct", "parse_effects",
           "legend_text", "EFFECT_FAMILIES", "table_frame", "claim_note", "reproduction_summary"]

#: the power below which a non-significant result cannot tell "no effect" from "too few trials"
POWER_TARGET = 0.8
UNDERPOWERED = "inconclusive (underpowered)"
NAN = float("nan")


def verdict(diff: float, p: float, expected_sign: int, alpha: float = 0.01, power: float = NAN) -> str:
    """``supported`` (right direction, p < α), ``contradicted`` (wrong direction, p < α);
    when p ≥ α: ``inconclusive (underpowered)`` if the run's ``power`` to detect the paper's
    effect is below 0.8, else ``direction only`` (right direction) or ``not supported``.
    With no power (the paper gives no number to power against) the last two stand.

    >>> verdict(0.01, 0.001, +1), verdict(0.01, 0.2, +1, power=0.3), verdict(-0.01, 0.2, +1, power=0.95)
    ('supported', 'inconclusive (underpowered)', 'not supported')
    """
    sig = bool(np.isfinite(p) and p < alpha)
    if not np.isfinite(diff) or diff == 0:
        return UNDERPOWERED if np.isfinite(power) and power < POWER_TARGET else "not supported"
    right = np.sign(diff) == expected_sign
    if sig:
        return "supported" if right else "contradicted"
    if np.isfinite(power) and power < POWER_TARGET:
        return UNDERPOWERED
    return "direction only" if right else "not supported"


#: the smallest effect of interest per metric family, where the paper gives no number for a
#: claim: an absolute difference of one point for the [0, 1] metrics; for DCG (unbounded) 1% of
#: the baseline's mean, Zheng et al.'s own words ("a 1% DCG gain is significant", footnote 3)
DEFAULT_EFFECTS = {"ndcg": 0.01, "err": 0.01, "ap": 0.01, "map": 0.01, "mrr": 0.01, "prec": 0.01, "p": 0.01,
                   "recall": 0.01}
DCG_RELATIVE_EFFECT = 0.01


def smallest_effect(metric: str, baseline_mean: float = NAN) -> tuple[float, str]:
    """``(effect, where it comes from)``: the smallest effect of interest a claim on ``metric``
    is powered against when the paper gives no number (:data:`DEFAULT_EFFECTS`); NaN for a
    metric family without one.

    >>> smallest_effect("ndcg@5[gain=exp2,norel=drop]")
    (0.01, 'the default effect of interest for NDCG, 0.01')
    >>> smallest_effect("dcg@5[gain=exp2,norel=zero]", 8.0)
    (0.08, "1% of the baseline's DCG@5, 0.08 (Zheng et al.: a 1% DCG gain is significant)")

    An effect set for the metric's family with ``--effect`` (:func:`parse_effects`, in the
    :class:`~ltrrepro.stats.Inference` in force) replaces the default: absolute (``ndcg=0.005``)
    or a share of the baseline's mean (``dcg=2%``).
    """
    family = label(metric).split("@")[0].lower()
    chosen = current().effect_for(family)
    if chosen is not None:                               # --effect FAMILY=VALUE[%]
        value, relative = chosen
        if not relative:
            return value, f"the effect of interest set for {label(metric).split('@')[0]} (--effect), {value:g}"
        if np.isfinite(baseline_mean):
            effect = value * abs(float(baseline_mean))
            return effect, (f"{100 * value:g}% of the baseline's {label(metric)}, {effect:.4g} (the effect of "
                            f"interest set with --effect)")
        return NAN, ""
    if family == "dcg" and np.isfinite(baseline_mean):
        effect = DCG_RELATIVE_EFFECT * abs(float(baseline_mean))
        return effect, (f"1% of the baseline's {label(metric)}, {effect:.4g} (Zheng et al.: a 1% DCG gain is "
                        f"significant)")
    if family in DEFAULT_EFFECTS:
        return (DEFAULT_EFFECTS[family],
                f"the default effect of interest for {label(metric).split('@')[0]}, {DEFAULT_EFFECTS[family]:g}")
    return NAN, ""


#: the metric families an effect of interest may be set for (``--effect FAMILY=VALUE[%]``)
EFFECT_FAMILIES = (*DEFAULT_EFFECTS, "dcg")


def parse_effects(text: str | None) -> tuple:
    """``--effect`` text -> :attr:`ltrrepro.stats.Inference.effects`: comma-separated
    ``FAMILY=VALUE`` (absolute, in the metric's units) or ``FAMILY=VALUE%`` (a share of the
    baseline's mean), FAMILY one of :data:`EFFECT_FAMILIES`. A bad item raises ValueError naming it.

    >>> parse_effects("ndcg=0.005,dcg=2%")
    (('ndcg', 0.005, False), ('dcg', 0.02, True))
    """
    if text is not None and not isinstance(text, str):
        raise ValueError(f"--effect {text!r}: give one text of comma-separated FAMILY=VALUE items (e.g. "
                         f"'ndcg=0.005,dcg=2%'), not a {type(text).__name__}")
    out = {}
    for item in (text or "").split(","):
        item = item.strip()
        if not item:
            continue
        fam, sep, value = item.partition("=")
        fam = fam.strip().lower()
        if fam in out:
            raise ValueError(f"--effect {text!r} gives the family {fam!r} twice: give each family once")
        if not sep or fam not in EFFECT_FAMILIES:
            raise ValueError(f"--effect {item!r}: write FAMILY=VALUE or FAMILY=VALUE% with FAMILY one of "
                             f"{', '.join(EFFECT_FAMILIES)} (e.g. --effect ndcg=0.005,dcg=2%)")
        value = value.strip()
        rel = value.endswith("%")
        try:
            v = float(value[:-1] if rel else value) / (100 if rel else 1)
        except ValueError:
            v = NAN
        if not (np.isfinite(v) and v > 0):
            raise ValueError(f"--effect {item!r}: the effect must be a positive number (or percentage)")
        out[fam] = (fam, v, rel)
    return tuple(out.values())


#: the size verdicts of a claim with a paper number (:func:`size_verdict`)
SIZE_RULE = ("reproduced in size: the paper's effect lies inside the run's 95% CI of the difference (the ER's CI "
             "holds 1) and 0 does not; size undetermined: the CI holds both; smaller / larger: the whole CI lies "
             "on the paper's side of 0 but short of / beyond its effect, or (smaller) straddles 0 short of it; "
             "opposite sign: the whole CI on the other side of 0")


def size_verdict(paper_effect: float, lo: float, hi: float) -> str | None:
    """The size verdict of a run's 95% CI ``[lo, hi]`` of the difference against the paper's
    effect (:data:`SIZE_RULE`); None without a CI or a paper effect.

    >>> size_verdict(0.28, 1.9, 2.9), size_verdict(0.28, 0.1, 0.5), size_verdict(0.28, 0.01, 0.2)
    ('larger', 'reproduced in size', 'smaller')
    >>> size_verdict(0.28, -0.1, 0.5)
    'size undetermined'
    >>> size_verdict(0.28, -0.5, -0.1)
    'opposite sign'
    """
    if not (np.isfinite(paper_effect) and paper_effect != 0 and np.isfinite(lo) and np.isfinite(hi)):
        return None
    s = np.sign(paper_effect)
    lo, hi = sorted((s * lo, s * hi))                     # in the paper's direction
    e = abs(paper_effect)
    if lo <= e <= hi:
        return "size undetermined" if lo <= 0 else "reproduced in size"
    if hi < 0:
        return "opposite sign"
    return "smaller" if hi < e else "larger"


def reproduction(diffs, base, paper_a: float | None, paper_b: float | None, paper_effect: float | None = None,
                 level: float = 0.95) -> dict:
    """Reproduction in size of a paired comparison a − b against the paper's, by Breuer et al.'s
    measures (SIGIR 2020, "How to Measure the Reproducibility of System-oriented IR Experiments",
    §3.2; the ``repro_eval`` package, ``measure.overall_effects``):

    * Effect Ratio ER = mean(Δ') / mean(Δ): the run's mean improvement (``diffs`` = a' − b' per
      trial or fold) over the paper's (``paper_effect``, else ``paper_a − paper_b``); 1 = the
      same size. Its CI: the t CI of mean(Δ') divided by the paper's (a fixed number);
    * ΔRI = RI − RI', RI = (mean(a) − mean(b)) / mean(b): the paper's relative improvement minus
      the run's (0 = the same; > 0: the run's is smaller). The run's RI = D/B with D = mean(Δ'),
      B = mean(b') (``base`` per trial): its CI by the delta method, Var(D/B) ≈ (Var D −
      2(D/B) Cov(D, B) + (D/B)² Var B) / B² with the per-trial (co)variances / n, t quantile at n − 1 df;
      NaN without the paper's two means (ΔRI needs them);
    * the size verdict (:func:`size_verdict`) of the run's CI of mean(Δ') against the paper's effect.

    Returns ``er``, ``er_low``, ``er_high``, ``delta_ri``, ``delta_ri_low``, ``delta_ri_high``,
    ``size`` (None where undefined); empty without a paper effect.
    """
    d = np.asarray(diffs, dtype=float)
    d = d[np.isfinite(d)]
    eff = paper_effect if paper_effect is not None else (
        paper_a - paper_b if paper_a is not None and paper_b is not None else None)
    if eff is None or not np.isfinite(eff) or eff == 0 or d.size == 0:
        return {}
    n, mean = d.size, float(d.mean())
    q = _st.t.ppf(0.5 + level / 2, n - 1) if n > 1 else NAN
    se = float(d.std(ddof=1)) / np.sqrt(n) if n > 1 else NAN
    lo, hi = mean - q * se, mean + q * se
    er_lo, er_hi = sorted((lo / eff, hi / eff)) if n > 1 else (NAN, NAN)
    out = {"er": mean / eff, "er_low": er_lo, "er_high": er_hi, "delta_ri": NAN, "delta_ri_low": NAN,
           "delta_ri_high": NAN, "size": size_verdict(eff, lo, hi)}
    if paper_a is not None and paper_b is not None and paper_b != 0 and base is not None:
        b = np.asarray(base, dtype=float)
        if b.size == np.asarray(diffs).size:
            b = b[np.isfinite(np.asarray(diffs, dtype=float))]
        if b.size == n and np.all(np.isfinite(b)) and b.mean() != 0:
            ri_paper = (paper_a - paper_b) / paper_b
            B = float(b.mean())
            r = mean / B
            out["delta_ri"] = ri_paper - r
            if n > 1:
                cov = np.cov(d, b, ddof=1)
                var = (cov[0, 0] - 2 * r * cov[0, 1] + r * r * cov[1, 1]) / (B * B) / n
                half = q * float(np.sqrt(max(var, 0.0)))
                out["delta_ri_low"], out["delta_ri_high"] = ri_paper - r - half, ri_paper - r + half
    return out


def reproduction_summary(mean: float, sd, n: int, paper_effect: float, level: float = 0.95) -> dict:
    """ER with its CI and the size verdict (:func:`reproduction`) from the mean, SD and count of
    the per-trial statistic alone (no ΔRI: it needs the two means); empty without a mean.

    >>> r = reproduction_summary(2.377, 0.651, 3, 0.277)
    >>> round(r["er"], 2), r["size"]
    (8.58, 'larger')
    """
    if mean is None or not np.isfinite(mean) or not np.isfinite(paper_effect) or paper_effect == 0:
        return {}
    n = int(n)
    ok = sd is not None and np.isfinite(sd) and n > 1
    half = float(_st.t.ppf(0.5 + level / 2, n - 1) * sd / np.sqrt(n)) if ok else NAN
    lo, hi = float(mean) - half, float(mean) + half
    er_lo, er_hi = sorted((lo / paper_effect, hi / paper_effect)) if ok else (NAN, NAN)
    return {"er": float(mean) / paper_effect, "er_low": er_lo, "er_high": er_hi, "size": size_verdict(paper_effect, lo, hi)}


def correct(claims, alpha: float = 0.01, method: str | None = None) -> list:
    """The claims with p adjusted within each ``family`` by ``method`` (default: the
    correction in force, :func:`ltrrepro.stats.current`; :func:`ltrrepro.stats.adjust`): each
    tested claim of a family gets ``p`` = the adjusted p, ``p_raw`` = its own test's, and its
    verdict re-judged on the adjusted p (:func:`verdict`) where the standard rule gave it (a
    claim whose verdict a text settled keeps it). A claim without a family is a family of one
    (nothing to adjust). Order kept."""
    method = method or current().correction
    claims = list(claims)
    groups: dict = {}
    for i, c in enumerate(claims):
        if c.family is not None and c.tested and c.p_raw is None:
            groups.setdefault(c.family, []).append(i)
    if method == "none":
        return claims
    for fam, idx in groups.items():
        raw = [claims[i].p for i in idx]
        adj = adjust(raw, method)
        for i, pa in zip(idx, adj):
            c = claims[i]
            changes = {"p": float(pa), "p_raw": float(c.p), "correction": method}
            if c.standard:
                changes["verdict"] = verdict(c.value, float(pa), c.sign, alpha, c.power)
            claims[i] = c.replace(**changes)
    return claims


def legend_text(alpha: float = 0.01) -> str:
    """What the claims table's legend says of the statistics in force: the test, the
    correction within a family, the effect, and the size verdict's rule."""
    inf = current()
    return (f"p: {TEST_NAMES[inf.test]} (--test {inf.test}), adjusted within the claim's family by "
            f"{CORRECTION_NAMES[inf.correction]} (--correction {inf.correction}; p_raw: the test's own); effect: "
            f"what the power is computed against (the paper's number, else the effect of interest); d_z = mean/SD "
            f"of the paired differences. ER (Effect Ratio) = the run's mean difference / the paper's, ΔRI = the "
            f"paper's relative improvement − the run's (Breuer et al., SIGIR 2020), each with its 95% CI; size: "
            f"{SIZE_RULE}.")


def power_block(paper_effect, sd, trials: int, alpha: float = 0.01) -> dict:
    """A claim's power fields: the paper's effect (in the claim's units), the observed SD of
    the paired differences, the power of a paired t-test over ``trials`` at ``alpha`` to
    detect the paper's effect and the trials that would give 80%
    (:func:`ltrrepro.stats.trials_for_power`), with their range over the SD's 95% confidence
    interval (``trials_80_range``, :func:`ltrrepro.stats.trials_for_power_range`: an SD from a
    few trials settles little; None at an end beyond 100,000). No paper effect (or no SD), no
    power (NaN) and no range.

    >>> power_block(None, 0.01, 5)
    {'paper_effect': nan, 'sd': 0.01, 'power': nan, 'trials_80': None, 'trials_80_range': None}
    >>> power_block(0.0015, 0.010664, 5)["trials_80_range"]          # Bruch Table 1: 594 trials for 80%
    (216, 4878)
    """
    eff = NAN if paper_effect is None else float(paper_effect)
    sd = NAN if sd is None else float(sd)
    ok = np.isfinite(eff) and eff != 0 and np.isfinite(sd) and sd > 0
    test = current().test
    return {"paper_effect": eff, "sd": sd,
            "power": paired_power(abs(eff), sd, int(trials), alpha, test) if ok else NAN,
            "trials_80": trials_for_power(abs(eff), sd, POWER_TARGET, alpha, test=test) if ok else None,
            "trials_80_range": (trials_for_power_range(abs(eff), sd, int(trials), POWER_TARGET, alpha, test=test)
                                if ok and int(trials) >= 2 else None)}


def label(name: str) -> str:
    """The short label of a canonical metric name, as tables and claims show it: ``NDCG@5``,
    ``DCG@5``, ``ERR`` (other names, such as ``prec@10%``, as they are).

    >>> label("ndcg@5[gain=exp2,norel=drop]"), label("prec@10%")
    ('NDCG@5', 'prec@10%')
    """
    return name.split("[")[0].upper() if "[" in name else name


def undefined_reason(metric: str, part: str = "test") -> str:
    """Why ``metric`` (canonical name or label) has no value, in words: the metrics that drop a
    query without a relevant document (``norel=drop``: NDCG, ERR, DCG) have none to average."""
    base = metric.split("[")[0].split("@")[0].lower()
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


#: the columns of ``claims.{md,tex,csv}``, in order (``claims.json`` keeps every field)
CLAIM_COLUMNS = ("claim", "value", "paper_effect", "effect_source", "p", "p_raw", "family", "trials", "power",
                 "trials_80", "trials_80_range", "dz", "er", "delta_ri", "size", "verdict", "detail")


def _ci_text(v, lo, hi, digits: int = 2) -> str:
    if v is None or not np.isfinite(v):
        return "–"
    if lo is None or hi is None or not (np.isfinite(lo) and np.isfinite(hi)):
        return f"{v:+.{digits}f}"
    return f"{v:+.{digits}f} [{lo:+.{digits}f}, {hi:+.{digits}f}]".replace("-", "−")


def table_frame(df):
    """The claims' rows (a frame of :meth:`Claim.to_dict`) with the statistics that carry a CI
    as one text column each — ``d_z``, ``ER``, ``ΔRI`` as "value [low, high]" — for
    ``claims.{md,tex,csv}`` (``claims.json`` keeps the numbers)."""
    df = df.copy()
    for col, name, digits in (("dz", "d_z", 2), ("er", "ER", 2), ("delta_ri", "ΔRI", 4)):
        if col in df:
            lo, hi = df.get(f"{col}_low"), df.get(f"{col}_high")
            df[col] = [_ci_text(v, None if lo is None else lo.iloc[i], None if hi is None else hi.iloc[i], digits)
                       for i, v in enumerate(df[col])]
            df = df.drop(columns=[c for c in (f"{col}_low", f"{col}_high") if c in df])
    for col in ("family", "size"):
        if col in df:
            df[col] = df[col].fillna("–")
    return df


def claim_note(c) -> str:
    """What a printed claims line adds after the power: the family correction, d_z, ER, ΔRI
    and the size verdict, where the claim has them."""
    out = ""
    if c.p_raw is not None:
        out += f" ({c.correction}-adjusted in its family; own p {c.p_raw:.3g})"
    if c.dz is not None:
        out += f"; d_z {_ci_text(c.dz, c.dz_low, c.dz_high)}"
    if c.er is not None:
        out += f"; ER {_ci_text(c.er, c.er_low, c.er_high)}"
        if c.delta_ri is not None:
            out += f", ΔRI {_ci_text(c.delta_ri, c.delta_ri_low, c.delta_ri_high, 4)}"
        out += f": {c.size}" if c.size else ""
    return out


def range_text(bounds) -> str:
    """``(216, 4878)`` -> ``216–4,878`` (an end beyond the search: ``> 100,000``).

    >>> range_text((216, 4878)), range_text((12, None)), range_text(None)
    ('216–4,878', '12–> 100,000', '–')
    """
    if not bounds:
        return "–"
    return "–".join("> 100,000" if b is None else f"{int(b):,}" for b in bounds)


@dataclass(frozen=True)
class Claim:
    """One paper claim checked on a run: the observed statistic ``value`` (defined in
    ``detail``), its p-value over ``trials`` paired trials (or folds), the power block
    (:func:`power_block`) and the ``verdict``. Build one with :meth:`check` (the verdict
    rule) or :meth:`from_comparison` (a paired a − b test).

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
    dz: float | None = None                       # d_z of the per-trial statistic, with its 95% CI
    dz_low: float | None = None
    dz_high: float | None = None
    er: float | None = None                       # Effect Ratio (Breuer et al. 2020), with its 95% CI
    er_low: float | None = None
    er_high: float | None = None
    delta_ri: float | None = None                 # ΔRI = RI(paper) − RI(run), with its 95% CI
    delta_ri_low: float | None = None
    delta_ri_high: float | None = None
    size: str | None = None                       # the size verdict (:func:`size_verdict`)
    sign: int = field(default=1, repr=False)      # the expected direction (not written)
    standard: bool = field(default=True, repr=False)   # the verdict is :func:`verdict`'s (not written)
    extra: Mapping = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "extra", MappingProxyType(dict(self.extra)))

    #: the standard fields, in the order ``claims.json`` writes them (after ``claim`` and ``extra``)
    _ORDER = ("value", "p", "trials", "paper_effect", "effect", "sd", "power", "trials_80", "detail", "verdict")
    #: fields the verdict rule keeps for :func:`correct`, not written
    _HIDDEN = ("sign", "standard")

    @classmethod
    def check(cls, text: str, value: float, p: float, trials: int, detail: str, expected_sign: int = +1,
              alpha: float = 0.01, verdict_text: str | None = None, paper_effect=None, sd=None,
              missing: str | None = None, on: str = "trial", effect=None, effect_source: str | None = None,
              family: str | None = None, more: Mapping | None = None, **extra) -> "Claim":
        """The claim with its verdict: :func:`verdict` of ``value`` (expected sign
        ``expected_sign``), ``p`` and the power against ``paper_effect`` (in the units of
        ``value``, with ``sd`` the SD of the paired differences). ``family``: the claims its p
        is corrected with (:func:`correct`); ``more``: further fields (d_z, ER, ΔRI, size: see
        :func:`reproduction`). Where ``more`` gives none, d_z = value / sd with its CI
        (:func:`ltrrepro.stats.dz_interval`) and, against a paper number, ER and the size
        verdict (:func:`reproduction_summary`) come from ``value``, ``sd`` and ``trials``. ``verdict_text`` settles a
        significant or well-powered result otherwise (a paper's magnitude, a count); an
        underpowered non-significant one stays inconclusive. A claim resting on a test that
        gives no p-value is ``inconclusive (<why>)``: ``missing`` says why, else
        :func:`no_test_reason` of the ``trials`` (named ``on``).

        >>> Claim.check("x", 0.01, 0.001, 20, "d").verdict
        'supported'
        >>> Claim.check("x", 0.01, float("nan"), 1, "d").verdict
        'inconclusive (one trial: no test)'
        """
        powered_by = None
        if paper_effect is None and effect is not None and np.isfinite(effect):
            paper_effect, powered_by = expected_sign * abs(float(effect)), effect_source or "the smallest effect of interest"
        pw = power_block(paper_effect, sd, trials, alpha)
        pw["effect"] = pw["paper_effect"]          # the effect powered against, whichever its source
        if powered_by is not None:          # the paper gave none: the effect of interest, in its own field
            pw = {**pw, "paper_effect": NAN, "effect_source": powered_by}
        if missing is None and verdict_text is None and not (np.isfinite(p) and np.isfinite(value)):
            missing = no_test_reason(int(trials) if np.isfinite(value) else 0, sd, on=on) or "no p-value"
        v = verdict(float(value), float(p), expected_sign, alpha, pw["power"])
        if missing:
            v = f"inconclusive ({missing})"
        elif verdict_text is not None and not v.startswith("inconclusive"):
            v = verdict_text
        known = {f.name for f in dataclasses.fields(cls)}
        more = dict(more or {})
        sd_ok = sd is not None and np.isfinite(sd) and sd > 0 and int(trials) >= 2 and np.isfinite(value)
        if "dz" not in more and sd_ok and not missing:       # d_z of the per-trial statistic, where not given
            z = float(value) / float(sd)
            more.update(dict(zip(("dz", "dz_low", "dz_high"), (z, *dz_interval(z, int(trials))))))
        if powered_by is None and "er" not in more and np.isfinite(pw["paper_effect"]) and not missing:
            more.update(reproduction_summary(value, sd, trials, pw["paper_effect"]))   # ER without ΔRI: no means
        more = {k: (None if v is None or (isinstance(v, float) and not np.isfinite(v)) else v)
                for k, v in more.items() if k in known}
        return cls(text=text, value=float(value), p=float(p), trials=int(trials), detail=detail, verdict=v,
                   extra=extra, family=family, sign=int(expected_sign), standard=not missing and verdict_text is None,
                   **more, **pw)

    @classmethod
    def from_comparison(cls, text: str, c, names: tuple[str, str], metric: str, alpha: float = 0.01,
                        expected_sign: int = +1, paper_effect=None, family: str | None = None,
                        paper_means: tuple | None = None, diffs=None, base=None) -> "Claim | None":
        """The claim "a beats b on ``metric``" from a paired comparison ``c``
        (:class:`ltrrepro.stats.Comparison` of a − b; None when there is none, then no claim);
        ``paper_effect``: the paper's a − b, for the power; without one, the claim is powered
        against the metric's smallest effect of interest (:func:`smallest_effect`), said in its
        ``effect_source``, so that "not supported" needs the power to see that effect. d_z with
        its CI from ``c``; with the paper's effect and the per-trial ``diffs`` (a − b) and ``base``
        (b), ER, ΔRI (needs ``paper_means`` = the paper's (a, b)) and the size verdict
        (:func:`reproduction`)."""
        if c is None:
            return None
        a, b = names
        missing = no_test_reason(c.n, c.std_diff, metric) if not np.isfinite(c.p) else None
        detail = (f"{a} − {b} on {label(metric)}: no defined pair" if c.n == 0 else
                  f"{a} − {b} on {label(metric)}: {c.diff:+.4f} (95% CI {c.ci_low:+.4f}..{c.ci_high:+.4f}), "
                  f"W/T/L {c.wins}/{c.ties}/{c.losses}")
        effect, source = smallest_effect(metric, c.mean_b) if paper_effect is None else (None, None)
        more = {"dz": c.dz, "dz_low": c.dz_low, "dz_high": c.dz_high} if c.n > 1 else {}
        if paper_effect is not None and diffs is not None:
            pa, pb = paper_means or (None, None)
            more.update(reproduction(diffs, base, pa, pb, paper_effect))
        return cls.check(text, c.diff, c.p, c.n, detail, expected_sign, alpha, paper_effect=paper_effect,
                         sd=c.std_diff, missing=missing, effect=effect, effect_source=source, family=family,
                         more=more)

    def monitor(self) -> dict:
        """What a sequential monitor of this claim needs: ``mean``, ``sd``, ``n`` of the per-trial
        statistic the test is on (``value``, ``sd``, ``trials``) and the ``effect`` powered
        against (NaN: none); ``ok`` is False where the claim rests on no per-trial statistic
        (no SD: a count, one trial, a composite claim).

        >>> Claim.check("x", 0.004, 0.2, 5, "d", sd=0.01, effect=0.01).monitor()
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
        for k in ("value", "p", "paper_effect", "effect", "sd", "power", "er", "er_low", "er_high", "delta_ri",
                  "delta_ri_low", "delta_ri_high", "dz", "dz_low", "dz_high", "p_raw"):
            if k in known and known[k] is None and k not in ("value", "p", "paper_effect", "effect", "sd", "power"):
                continue
            if k in known:
                known[k] = NAN if known[k] is None else float(known[k])
        if isinstance(known.get("trials_80_range"), list):
            known["trials_80_range"] = tuple(known["trials_80_range"])
        return cls(text=d["claim"], extra=extra, **known)

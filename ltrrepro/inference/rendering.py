"""Claims as text: the columns and rows of ``claims.{md,tex,csv}``, the legend that states the
report's statistics (from its :class:`~ltrrepro.inference.choices.Inference`, never from the
environment) and the printed claims check. :class:`ltrrepro.report.Report` writes them.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .choices import CORRECTION_NAMES, TEST_NAMES, Inference
from .power import POWER_TARGET
from .reproduction import SIZE_RULE

__all__ = ["CLAIM_COLUMNS", "table_frame", "claim_note", "range_text", "legend_text", "claims_legend", "claims_frame",
           "claims_lines", "CLAIM_RENAME", "CLAIM_FORMATS"]


#: the columns of ``claims.{md,tex,csv}``, in order (``claims.json`` keeps every field)
CLAIM_COLUMNS = ("claim", "value", "paper_effect", "effect_source", "p", "p_raw", "family", "alpha_applied", "trials", "power",
                 "trials_80", "trials_80_range", "dz", "er", "delta_ri", "size", "verdict", "detail")


def _ci_text(v, lo, hi, digits: int = 2) -> str:
    if v is None or not np.isfinite(v):
        return "–"
    if lo is None or hi is None or not (np.isfinite(lo) and np.isfinite(hi)):
        return f"{v:+.{digits}f}"
    return f"{v:+.{digits}f} [{lo:+.{digits}f}, {hi:+.{digits}f}]".replace("-", "−")


def table_frame(df):
    """The claims' rows (a frame of :meth:`~ltrrepro.inference.claim.Claim.to_dict`) with the statistics that carry a CI
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


#: how ``claims.{md,tex}`` name and format the columns
CLAIM_RENAME = {"paper_effect": "paper effect", "trials_80": "trials for 80% power",
                "trials_80_range": "range (SD's 95% CI)", "effect_source": "effect of interest",
                "alpha_applied": "α applied"}
CLAIM_FORMATS = {"p": "p", "p_raw": "p", "alpha_applied": "p", "trials": "int", "power": 2, "trials_80": "int"}


def legend_text(inference: Inference) -> str:
    """What the claims table's legend says of the report's statistics: the test, the
    correction within a family, the effect, and the size verdict's rule."""
    inf = inference
    return (f"p: {TEST_NAMES[inf.test]} (--test {inf.test}), adjusted within the claim's family by "
            f"{CORRECTION_NAMES[inf.correction]} (--correction {inf.correction}; p_raw: the test's own); effect: "
            f"what the power is computed against (the paper's number, else the effect of interest); d_z = mean/SD "
            f"of the paired differences. ER (Effect Ratio) = the run's mean difference / the paper's, ΔRI = the "
            f"paper's relative improvement − the run's (Breuer et al., SIGIR 2020), each with its 95% CI; size: "
            f"{SIZE_RULE}.")


def claims_legend(inference: Inference) -> str:
    """The legend of ``claims.{md,tex}`` (before the run's protocol notes): the columns, the
    verdict rule at ``inference.alpha`` and :func:`legend_text`."""
    a = f"{inference.alpha:g}"
    return (f"value: the observed statistic (its definition in detail); paper effect: the "
            f"paper's number for it (– where the paper gives none); α applied: the level the claim's own p is "
            f"compared with after its family's correction ({LEVEL_RULE[inference.correction]}; α = {a} for a claim "
            f"alone); power: of this run's test at that level (the paired t-test's noncentral t) to detect the "
            f"paper's effect (where the paper gives none, the smallest effect of interest: its column), given the "
            f"observed SD of the paired differences — in a sequential run the design's power at the claim's level "
            f"(t law, simulated); trials for 80% power: the trials that would give 80% at that level, and their "
            f"range over the 95% CI of that SD (χ², n − 1 degrees of freedom). verdict: supported = expected "
            f"direction and p < {a}; contradicted = opposite direction, p < {a}; when p ≥ {a}: inconclusive "
            f"(underpowered) if the power at the level applied is < {POWER_TARGET:g}, else direction only (expected "
            f"direction) or not supported — the power column is the one the verdict used. " + legend_text(inference))


#: how a family's correction sets the level a claim is judged at (:func:`~ltrrepro.inference.tests.applied_levels`)
LEVEL_RULE = {"holm": "Holm: α/(m − i + 1) at the step i that rejected it, else α/(m − r) at the step where the "
                      "family stopped, r rejected of m",
              "bh": "Benjamini–Hochberg: Rα/m for the R rejected, else (R + 1)α/m, the rank it would need",
              "none": "no correction: α"}


def claims_frame(claims) -> pd.DataFrame:
    """The rows of ``claims.{md,tex,csv}``: :data:`CLAIM_COLUMNS` of each claim's
    :meth:`~ltrrepro.inference.claim.Claim.to_dict`, the trials' range and the CIs as text
    (:func:`table_frame`); empty without claims."""
    rows = [c.to_dict() for c in claims]
    if not rows:
        return pd.DataFrame()
    df = pd.DataFrame(rows)
    if "effect_source" in df:
        df["effect_source"] = df.effect_source.fillna("–")
    if "trials_80_range" in df:
        df["trials_80_range"] = [range_text(r) if isinstance(r, (tuple, list)) else "–" for r in df.trials_80_range]
    df = table_frame(df)
    return df[[c for c in CLAIM_COLUMNS if c in df]]


def claims_lines(claims, inference: Inference) -> list[str]:
    """The claims check as printed lines: a heading with α, then one line per claim (its
    verdict, detail, p, power against its effect, :func:`claim_note`)."""
    lines = [f"Claims check (α = {inference.alpha:g}):"]
    for c in claims:
        ptxt = f", p = {c.p:.3g}" if c.p is not None and np.isfinite(c.p) else ""
        if c.power is not None and np.isfinite(c.power):
            need = c.trials_80
            spread = f"; {range_text(c.trials_80_range)} over the SD's 95% CI" if c.trials_80_range else ""
            against = c.effect_source or "the paper's effect"
            at = f" at level {c.alpha_applied:.3g}" if c.alpha_applied is not None else ""
            ptxt += (f", power {c.power:.2f}{at} against {against} ({need if need else '> 100,000'} trials for "
                     f"80%{spread})")
        lines.append(f"  [{c.verdict}] {c.text}: {c.detail}{ptxt}{claim_note(c)}")
    return lines

"""Reproduction in size of a paired comparison against the paper's: the Effect Ratio and ΔRI
of Breuer et al. (SIGIR 2020, "How to Measure the Reproducibility of System-oriented IR
Experiments", §3.2; the ``repro_eval`` package, ``measure.overall_effects``), each with its 95%
CI, and the size verdict of the run's CI of the difference against the paper's effect.
"""
from __future__ import annotations

import numpy as np
from scipy import stats as _st

__all__ = ["SIZE_RULE", "size_verdict", "reproduction", "reproduction_summary"]

NAN = float("nan")


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

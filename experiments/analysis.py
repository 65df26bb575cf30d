"""The analysis every paper's report shares: a frame from the store, pairing by trial (or
fold), claims with verdicts, Holm within a family, per-query wins/ties/losses, labels.

Records key their metrics by canonical names (``ndcg@5[gain=exp2,norel=drop]``, see
:class:`ltrrepro.metrics.Metric`); :func:`label` gives the short name a table shows.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ltrrepro.metrics import parse_metric
from ltrrepro.report import verdict
from ltrrepro.stats import holm, paired_power, paired_test, trials_for_power

__all__ = ["canonical", "label", "frame", "paired", "compare", "claim", "comparison_claim", "power_fields",
           "holm_within", "query_wtl"]


def canonical(name: str) -> str:
    """``"ndcg@5"`` -> ``"ndcg@5[gain=exp2,norel=drop]"``: the name records are keyed by."""
    return str(parse_metric(name))


def label(name: str) -> str:
    """The short label of a canonical metric name: ``NDCG@5``, ``DCG@5``, ``ERR`` (other
    names, such as ``prec@10%``, as they are)."""
    return name.split("[")[0].upper() if "[" in name else name


def frame(store, pair_on: str = "trial") -> pd.DataFrame:
    """One row per stored unit: its trial (named ``pair_on``: folds are trials too), model,
    setting columns, metric means (canonical names) and the fit's scalars."""
    rows = []
    for r in store.records():
        u = r["unit"]
        fit = r.get("fit", {})
        rows.append({pair_on: u["trial"], "model": u["model"], **u["setting"], **r["means"],
                     **{k: v for k, v in fit.items() if np.isscalar(v) or v is None},
                     "train_s": np.nan, **{k: v for k, v in r.get("timings", {}).items() if k != "unit_s"}})
    return pd.DataFrame(rows)


def paired(df: pd.DataFrame, metric: str, a: str, b: str, by=(), on: str = "trial") -> pd.DataFrame:
    """Per-trial values of models ``a`` and ``b`` side by side (only trials having both)."""
    keys = [on, *by]
    wa = df[df.model == a][keys + [metric]].rename(columns={metric: "a"})
    wb = df[df.model == b][keys + [metric]].rename(columns={metric: "b"})
    return wa.merge(wb, on=keys).sort_values(keys)


def compare(df: pd.DataFrame, metric: str, a: str, b: str, by=(), on: str = "trial"):
    """The paired t-test of ``a`` − ``b`` on ``metric`` (None when no trial has both)."""
    pr = paired(df, metric, a, b, by, on)
    return paired_test(pr.a.values, pr.b.values) if len(pr) else None


def power_fields(paper_effect, sd, trials: int, alpha: float = 0.01) -> dict:
    """The power block of a claim: the paper's effect (in the claim's units), the observed SD
    of the paired differences, the power of a paired t-test over ``trials`` at ``alpha`` to
    detect the paper's effect (:func:`ltrrepro.stats.paired_power`) and the trials that would
    give 80% (:func:`ltrrepro.stats.trials_for_power`). No paper effect, no power (NaN)."""
    eff = float("nan") if paper_effect is None else float(paper_effect)
    sd = float("nan") if sd is None else float(sd)
    ok = np.isfinite(eff) and eff != 0 and np.isfinite(sd) and sd > 0
    return {"paper_effect": eff, "sd": sd,
            "power": paired_power(abs(eff), sd, int(trials), alpha) if ok else float("nan"),
            "trials_80": trials_for_power(abs(eff), sd, 0.8, alpha) if ok else None}


def claim(text: str, value: float, p: float, trials: int, detail: str, expected_sign: int = +1,
          alpha: float = 0.01, verdict_text: str | None = None, paper_effect=None, sd=None, **extra) -> dict:
    """One checked claim: its statistic, p, trials, detail, the power block
    (:func:`power_fields`: ``paper_effect`` and ``sd`` are in the units of ``value``) and the
    verdict (:func:`ltrrepro.report.verdict`; ``verdict_text`` settles a significant or
    well-powered result otherwise, an underpowered non-significant one stays inconclusive)."""
    pw = power_fields(paper_effect, sd, trials, alpha)
    v = verdict(float(value), float(p), expected_sign, alpha, pw["power"])
    if verdict_text is not None and not v.startswith("inconclusive"):
        v = verdict_text
    return {"claim": text, **extra, "value": float(value), "p": float(p), "trials": int(trials), **pw,
            "detail": detail, "verdict": v}


def comparison_claim(text: str, c, names: tuple[str, str], metric: str, alpha: float = 0.01,
                     expected_sign: int = +1, paper_effect=None) -> dict | None:
    """A claim "a beats b on metric" from a paired comparison ``c`` (None when there is none);
    ``paper_effect``: the paper's a − b, for the power."""
    if c is None:
        return None
    a, b = names
    return claim(text, c.diff, c.p, c.n, f"{a} − {b} on {label(metric)}: {c.diff:+.4f} (95% CI {c.ci_low:+.4f}.."
                 f"{c.ci_high:+.4f}), W/T/L {c.wins}/{c.ties}/{c.losses}", expected_sign, alpha,
                 paper_effect=paper_effect, sd=c.std_diff)


def holm_within(df: pd.DataFrame, family: str | None) -> np.ndarray:
    """Holm-corrected p-values of ``df.p``, within each value of column ``family`` (all one
    family when None), in ``df``'s row order."""
    out = np.full(len(df), np.nan)
    if family is None:
        return holm(df.p.values) if len(df) else out
    for _, idx in df.groupby(family, sort=True).indices.items():
        out[idx] = holm(df.p.values[idx])
    return out


def query_wtl(store, metric: str, a: str, b: str, setting: dict | None = None, tie: float = 0.0) -> dict:
    """Per-query wins/ties/losses of ``a`` against ``b`` on ``metric``, pooled over the trials
    both finished (same test queries: the split is shared), from the stored per-query arrays
    (``test:<metric>``, queries dropped by the metric left out)."""
    setting = setting or {}
    by = {}
    for r in store.records():
        u = r["unit"]
        if u["model"] in (a, b) and all(u["setting"].get(k) == v for k, v in setting.items()):
            by.setdefault(u["trial"], {})[u["model"]] = r["key"]
    w = t = lo = 0
    for keys in by.values():
        if len(keys) < 2:
            continue
        xa, xb = (store.arrays(keys[m])[f"test:{metric}"] for m in (a, b))
        ok = np.isfinite(xa) & np.isfinite(xb)
        d = xa[ok].astype(np.float64) - xb[ok]
        w, t, lo = w + int((d > tie).sum()), t + int((np.abs(d) <= tie).sum()), lo + int((d < -tie).sum())
    return {"q_wins": w, "q_ties": t, "q_losses": lo}

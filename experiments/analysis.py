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
from ltrrepro.stats import holm, paired_power, paired_test, summarize, trials_for_power

__all__ = ["canonical", "label", "frame", "paired", "compare", "claim", "comparison_claim", "power_fields",
           "holm_within", "query_wtl", "summary", "finite_test", "undefined_reason", "no_test_reason", "missing_notes"]


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


def paired(df: pd.DataFrame, metric: str, a: str, b: str, by=(), on: str = "trial",
           dropna: bool = True) -> pd.DataFrame:
    """Per-trial values of models ``a`` and ``b`` side by side (only trials having both; with
    ``dropna``, only trials where both values are defined: a metric with no query to average
    over, such as NDCG where no test query has a relevant document, is NaN)."""
    keys = [on, *by]
    wa = df[df.model == a][keys + [metric]].rename(columns={metric: "a"})
    wb = df[df.model == b][keys + [metric]].rename(columns={metric: "b"})
    pr = wa.merge(wb, on=keys).sort_values(keys)
    if dropna:
        pr = pr[np.isfinite(pr.a.astype(float)) & np.isfinite(pr.b.astype(float))]
    return pr


def compare(df: pd.DataFrame, metric: str, a: str, b: str, by=(), on: str = "trial"):
    """The paired t-test of ``a`` − ``b`` on ``metric`` over the trials where both are defined
    (None when no trial has both models; ``n = 0`` when it has them but no defined pair)."""
    if not len(paired(df, metric, a, b, by, on, dropna=False)):
        return None
    pr = paired(df, metric, a, b, by, on)
    return paired_test(pr.a.values, pr.b.values)


def summary(values):
    """:func:`ltrrepro.stats.summarize` of the defined (finite) values: a trial where the metric
    has no query to average over is left out; none defined gives a NaN mean and CI."""
    x = np.asarray(values, dtype=float)
    return summarize(x[np.isfinite(x)])


def finite_test(a, b):
    """:func:`ltrrepro.stats.paired_test` over the pairs where both values are defined."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    ok = np.isfinite(a) & np.isfinite(b)
    return paired_test(a[ok], b[ok])


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
    p-value, in words; None when it does."""
    if n == 0:
        return undefined_reason(metric, part) if metric else f"no {on} with both results"
    if n == 1:
        return f"one {on}: no test"
    if sd is None or not np.isfinite(sd) or sd <= 0:
        return "zero variance of the paired differences: no test"
    return None


def missing_notes(df: pd.DataFrame, metrics, part: str = "test") -> list[str]:
    """One sentence per group of ``metrics`` that have no value in some rows (units) of
    ``df``: how many, and why. Empty when every value is defined (normal runs)."""
    groups: dict = {}
    for m in metrics:
        if m in df and len(df):
            bad = int((~np.isfinite(df[m].astype(float))).sum())
            if bad:
                groups.setdefault((bad, undefined_reason(m, part)), []).append(label(m))
    return [f"{', '.join(names)}: no value in {bad} of {len(df)} unit(s) ({why}); shown as –, left out of the "
            f"means and tests" for (bad, why), names in groups.items()]


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
          alpha: float = 0.01, verdict_text: str | None = None, paper_effect=None, sd=None,
          missing: str | None = None, on: str = "trial", **extra) -> dict:
    """One checked claim: its statistic, p, trials, detail, the power block
    (:func:`power_fields`: ``paper_effect`` and ``sd`` are in the units of ``value``) and the
    verdict (:func:`ltrrepro.report.verdict`; ``verdict_text`` settles a significant or
    well-powered result otherwise, an underpowered non-significant one stays inconclusive).
    A claim resting on a test that gives no p-value (no defined value, one trial, zero
    variance) is ``inconclusive (<why>)``: ``missing`` says why, else :func:`no_test_reason`."""
    pw = power_fields(paper_effect, sd, trials, alpha)
    if missing is None and verdict_text is None and not (np.isfinite(p) and np.isfinite(value)):
        missing = no_test_reason(int(trials) if np.isfinite(value) else 0, sd, on=on) or "no p-value"
    v = verdict(float(value), float(p), expected_sign, alpha, pw["power"])
    if missing:
        v = f"inconclusive ({missing})"
    elif verdict_text is not None and not v.startswith("inconclusive"):
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
    missing = no_test_reason(c.n, c.std_diff, metric) if not np.isfinite(c.p) else None
    detail = (f"{a} − {b} on {label(metric)}: no defined pair" if c.n == 0 else
              f"{a} − {b} on {label(metric)}: {c.diff:+.4f} (95% CI {c.ci_low:+.4f}..{c.ci_high:+.4f}), "
              f"W/T/L {c.wins}/{c.ties}/{c.losses}")
    return claim(text, c.diff, c.p, c.n, detail, expected_sign, alpha, paper_effect=paper_effect, sd=c.std_diff,
                 missing=missing)


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

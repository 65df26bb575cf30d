"""The analysis every paper's report shares: the frame of a run's stored units (the one thing a
report reads from the store, with :func:`stored_config`), pairing by trial (or fold), Holm
within a family, per-query wins/ties/losses, missing-value notes.

Records key their metrics by canonical names (``ndcg@5[gain=exp2,norel=drop]``, see
:class:`ltrrepro.metrics.Metric`); :func:`label` gives the short name a table shows. Claims,
their verdicts and power are :class:`ltrrepro.inference.Claim` (``no_test_reason`` and
``undefined_reason`` are :mod:`ltrrepro.inference.claim`'s, ``label``
:mod:`ltrrepro.metrics`', named here for the reports' convenience). Every test takes the
report's choice (``test``, ``method``) as an argument: the report's
:class:`~ltrrepro.inference.Inference`.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from ltrrepro.inference.claim import no_test_reason, undefined_reason
from ltrrepro.inference.reproduction import reproduction
from ltrrepro.inference.tests import adjust, holm, paired_test, summarize
from ltrrepro.metrics import canonical, label, parse_metric  # noqa: F401 - canonical: the studies' name for it
from ltrrepro.report import Report, Table
from ltrrepro.runner import FINGERPRINT

__all__ = ["canonical", "label", "frame", "stored_config", "stored_as_paper", "paired", "compare", "holm_within", "adjust_within",
           "reproduction_of", "query_wtl", "summary", "finite_test", "undefined_reason", "no_test_reason", "missing_notes",
           "with_table", "identical", "identical_of", "identical_pairs", "identical_notes",
           "SETTING"]

#: the frame column of a unit's setting (its key without the model), beside its fingerprint
SETTING = "setting_key"


def frame(store, pair_on: str = "trial", fields=(), arrays=()) -> pd.DataFrame:
    """One row per stored unit, in the store's order: its trial (named ``pair_on``: folds are
    trials too), model, its system's ``family`` and ``variant`` (:func:`identity`), setting columns, metric means (canonical names), the fit's scalars and
    the timings; with ``fields``, those record fields as they are (curves, sizes: a column of
    lists or dicts; None where a record has none), with ``arrays``, those stored per-query
    arrays (``test:<metric>``, a column of numpy arrays). Everything a report reads of a run
    is in this frame, so its tables, figures and claims are functions of (frame, config).
    ``df.attrs["absent"]``: the units of the configuration the store has no record of
    (:meth:`~ltrrepro.store.ResultStore.absent`), which :func:`missing_notes` names."""
    rows = []
    for r in store.records():
        if r.get("kind") == "tuning":         # a --tune search (experiments.tuning), not a trained unit
            continue
        u = r["unit"]
        fit = r.get("fit", {})
        row = {pair_on: u["trial"], "model": u["model"], **identity(r), **u["setting"], **r["means"],
               **{k: v for k, v in fit.items() if np.isscalar(v) or v is None},
               "train_s": np.nan, **{k: v for k, v in r.get("timings", {}).items() if k != "unit_s"}}
        row.update({f: r.get(f) for f in fields})
        if FINGERPRINT in r:                  # the identical-models guard (identical_pairs): a run that stores them
            row.update({FINGERPRINT: r[FINGERPRINT], SETTING: r.get("key", "").rpartition("/")[0]})
        if arrays:
            stored = store.arrays(r["key"])
            row.update({a: stored[a] for a in arrays})
        rows.append(row)
    df = pd.DataFrame(rows)
    df.attrs["absent"] = store.absent() if hasattr(store, "absent") else []
    return df


def identity(record: dict) -> dict:
    """``family`` and ``variant`` of a record's system (:class:`ltrrepro.fit.System`) as the unit
    stored them (``record["system"]``; older records gain it in :mod:`ltrrepro.migrations`); a
    model without one is its own family."""
    stored = record.get("system")
    if isinstance(stored, dict) and "family" in stored:
        return {"family": stored["family"], "variant": stored.get("variant", "")}
    return {"family": record["unit"]["model"], "variant": ""}


def stored_config(store, config_cls):
    """``(config, deviations, choices)`` of the run in ``store``: the typed configuration it was
    made with (``config_cls.from_stored``: no check touches files or imports a plug-in, so a
    run is reported on any machine) and the deviations and choices its manifest recorded."""
    stored = store.read_manifest()["config"]
    return config_cls.from_stored(stored), list(stored.get("deviations", [])), list(stored.get("choices", []))


def stored_as_paper(store, cfg) -> list[str]:
    """The settings a stored run took from the paper (the protocol notes' third column), as
    its manifest recorded them; a manifest written before the column existed: the
    configuration's own (:meth:`~experiments.config.RunConfig.as_paper`)."""
    stored = store.read_manifest()["config"]
    return list(stored["as_paper"]) if "as_paper" in stored else cfg.protocol_notes()["as_paper"]


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


def compare(df: pd.DataFrame, metric: str, a: str, b: str, by=(), on: str = "trial", *, test: str):
    """The paired ``test`` (the report's) of ``a`` − ``b`` on ``metric`` over the trials where
    both are defined (None when no trial has both models; ``n = 0`` when it has them but no
    defined pair)."""
    if not len(paired(df, metric, a, b, by, on, dropna=False)):
        return None
    pr = paired(df, metric, a, b, by, on)
    c = paired_test(pr.a.values, pr.b.values, test=test)
    same = identical(df, a, b, by, on)
    return dataclasses.replace(c, identical=same) if same else c


def identical(df: pd.DataFrame, a: str, b: str, by=(), on: str = "trial") -> str | None:
    """Why models ``a`` and ``b`` trained the same model, or None: their units' test-score
    fingerprints (:func:`ltrrepro.runner.fingerprint`, stored by runs that record them) are
    equal in every trial (and ``by`` group) where both have one, and there is at least one."""
    if FINGERPRINT not in df:
        return None
    keys = [on, *by]
    fa = df[df.model == a][keys + [FINGERPRINT]].rename(columns={FINGERPRINT: "a"})
    fb = df[df.model == b][keys + [FINGERPRINT]].rename(columns={FINGERPRINT: "b"})
    pr = fa.merge(fb, on=keys).dropna(subset=["a", "b"])
    if not len(pr) or not (pr.a == pr.b).all():
        return None
    return f"{a} and {b}: bit-identical test scores in all {len(pr)} paired trial(s)"


def _differs(cfg, a: str, b: str) -> str:
    """What differs between the systems of models ``a`` and ``b`` in ``cfg``: their options'
    fields that differ (``name`` a → b), or their identity where the options agree."""
    try:
        sa, sb = cfg.system(a), cfg.system(b)
    except Exception:                       # noqa: BLE001 - a model the configuration cannot name: say so
        return "not known to the configuration"
    oa, ob = (dataclasses.asdict(s.options) if dataclasses.is_dataclass(s.options) else {} for s in (sa, sb))
    diff = [f"{k} {oa.get(k)!r} → {ob.get(k)!r}" for k in dict.fromkeys([*oa, *ob]) if repr(oa.get(k)) != repr(ob.get(k))]
    if not diff:
        diff = [f"{k} {getattr(sa, k)!r} → {getattr(sb, k)!r}" for k in ("family", "variant")
                if getattr(sa, k) != getattr(sb, k)]
    return "; ".join(diff) or "nothing in their options"


def identical_notes(df: pd.DataFrame, cfg) -> list[str]:
    """One sentence per pair of arms that trained the same model (:func:`identical_pairs`),
    naming both and the parameter that differs between them: what the report says first."""
    on = "fold" if "fold" in df else "trial"
    return [f"identical models: {a} and {b} scored the test part bit for bit alike in all {n} trial(s) — the "
            f"parameter that differs ({_differs(cfg, a, b)}) changed nothing or never reached the library; claims "
            f"between them are not judged" for a, b, n in identical_pairs(df, on)]


def identical_of(row) -> str | None:
    """The ``identical`` reason of a table row built from a :class:`~ltrrepro.inference.tests.Comparison`
    (None where the row has none: the column absent, None or NaN)."""
    v = row.get("identical") if hasattr(row, "get") else None
    return v if isinstance(v, str) else None


def identical_pairs(df: pd.DataFrame, on: str = "trial") -> list[tuple[str, str, int]]:
    """Every pair of models ``(a, b, trials)`` whose units scored the test part bit for bit alike
    (equal fingerprints) in every trial where both ran under the same setting, at least one: a
    knob that changed nothing, or a parameter that never reached the library. Empty for a run
    that stores no fingerprints."""
    if FINGERPRINT not in df or on not in df:
        return []
    d = df.dropna(subset=[FINGERPRINT])
    models = list(dict.fromkeys(d.model))
    out = []
    for i, a in enumerate(models):
        for b in models[i + 1:]:
            fa = d[d.model == a].set_index([on, SETTING])[FINGERPRINT]
            fb = d[d.model == b].set_index([on, SETTING])[FINGERPRINT]
            both = fa.index.intersection(fb.index)
            if len(both) and (fa.loc[both] == fb.loc[both]).all():
                out.append((a, b, len(both)))
    return out


def summary(values):
    """:func:`ltrrepro.inference.tests.summarize` of the defined (finite) values: a trial where the metric
    has no query to average over is left out; none defined gives a NaN mean and CI."""
    x = np.asarray(values, dtype=float)
    return summarize(x[np.isfinite(x)])


def finite_test(a, b, *, test: str):
    """:func:`ltrrepro.inference.tests.paired_test` by ``test`` over the pairs where both values are defined."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    ok = np.isfinite(a) & np.isfinite(b)
    return paired_test(a[ok], b[ok], test=test)


def missing_notes(df: pd.DataFrame, metrics, part: str = "test") -> list[str]:
    """One sentence per group of ``metrics`` that have no value in some rows (units) of
    ``df``: how many, and why; and one naming the units of the configuration that are not
    stored at all (:func:`frame`'s ``absent``). Empty when every value is defined (normal runs)."""
    absent = list(df.attrs.get("absent") or [])
    out = [absent_note(absent)] if absent else []
    groups: dict = {}
    for m in metrics:
        if m in df and len(df):
            bad = int((~np.isfinite(df[m].astype(float))).sum())
            if bad:
                groups.setdefault((bad, undefined_reason(m, part)), []).append(label(m))
    return out + [f"{', '.join(names)}: no value in {bad} of {len(df)} unit(s) ({why}); shown as –, left out of "
                  f"the means and tests" for (bad, why), names in groups.items()]


def absent_note(absent, shown: int = 12) -> str:
    """The sentence naming the units of a configuration that have no stored record."""
    names = ", ".join(absent[:shown]) + (f" and {len(absent) - shown} more" if len(absent) > shown else "")
    return (f"{len(absent)} unit(s) of the configuration are not stored (not run yet, failed, or the run is going "
            f"on): {names}; the tables and claims are over the units stored")


def adjust_within(df: pd.DataFrame, family: str | None, method: str) -> np.ndarray:
    """p-values of ``df.p`` adjusted within each value of column ``family`` (all one family
    when None) by ``method``, the report's correction (:func:`ltrrepro.inference.tests.adjust`: ``--correction``),
    in ``df``'s row order: the one rule tables and claims share."""
    out = np.full(len(df), np.nan)
    if family is None:
        return adjust(df.p.values, method) if len(df) else out
    for _, idx in df.groupby(family, sort=True).indices.items():
        out[idx] = adjust(df.p.values[idx], method)
    return out


def reproduction_of(df: pd.DataFrame, metric: str, a: str, b: str, paper_a=None, paper_b=None, paper_effect=None,
                    on: str = "trial", by=()) -> dict:
    """:func:`ltrrepro.inference.reproduction.reproduction` of the run's paired ``a`` − ``b`` on ``metric``
    (per trial, or fold) against the paper's means (``paper_a``, ``paper_b``) or effect."""
    pr = paired(df, metric, a, b, by, on)
    return reproduction((pr.a - pr.b).values.astype(float), pr.b.values.astype(float), paper_a, paper_b,
                        paper_effect)


def holm_within(df: pd.DataFrame, family: str | None) -> np.ndarray:
    """Holm-corrected p-values of ``df.p``, within each value of column ``family`` (all one
    family when None), in ``df``'s row order."""
    out = np.full(len(df), np.nan)
    if family is None:
        return holm(df.p.values) if len(df) else out
    for _, idx in df.groupby(family, sort=True).indices.items():
        out[idx] = holm(df.p.values[idx])
    return out


def query_wtl(df: pd.DataFrame, metric: str, a: str, b: str, on: str = "trial", tie: float = 0.0) -> dict:
    """Per-query wins/ties/losses of ``a`` against ``b`` on ``metric``, pooled over the trials
    both finished (same test queries: the split is shared), from the per-query arrays of a
    :func:`frame` loaded with ``arrays=("test:<metric>",)`` (queries dropped by the metric
    left out)."""
    col = f"test:{metric}"
    by: dict = {}
    for trial, model, x in zip(df[on], df.model, df[col]):
        if model in (a, b):
            by.setdefault(trial, {})[model] = x
    w = t = lo = 0
    for xs in by.values():
        if len(xs) < 2:
            continue
        xa, xb = xs[a], xs[b]
        ok = np.isfinite(xa) & np.isfinite(xb)
        d = xa[ok].astype(np.float64) - xb[ok]
        w, t, lo = w + int((d > tie).sum()), t + int((np.abs(d) <= tie).sum()), lo + int((d < -tie).sum())
    return {"q_wins": w, "q_ties": t, "q_losses": lo}


def with_table(rep: Report, table: Table | None) -> Report:
    """``rep`` with ``table`` added, and printed after its lines (caption, then the table at four
    significant digits); ``rep`` itself when ``table`` is None."""
    if table is None:
        return rep
    return dataclasses.replace(rep, tables=[*rep.tables, table], lines=[
        *rep.lines, table.caption + ":", table.frame.to_string(index=False, float_format=lambda v: f"{v:.4g}"), ""])

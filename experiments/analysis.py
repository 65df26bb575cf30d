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

__all__ = ["canonical", "label", "frame", "stored_config", "stored_as_paper", "paired", "compare", "holm_within", "adjust_within",
           "reproduction_of", "query_wtl", "summary", "finite_test", "undefined_reason", "no_test_reason", "missing_notes",
           "tuned_rows", "tuned_table", "with_table"]


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
    return paired_test(pr.a.values, pr.b.values, test=test)


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


def tuned_rows(df: pd.DataFrame, name_of, order=(), value: str = "valid value") -> tuple[list[dict], dict]:
    """``--tune``'s values in a run's frame (the ``tuned`` field of each tuned unit, its search's
    record, :mod:`ltrrepro.tuning`): one row per search (model, tuning trial) with the model's
    name ``name_of(model)``, where it was tuned, the budget, configurations pruned and failed,
    the validation value (column ``value``) and the tuned values; and the searched space (name ->
    text). Models in ``order`` first. ``([], {})`` without tuned units."""
    if "tuned" not in df:
        return [], {}
    searched = df[df.tuned.notna()]
    first = {m: i for i, m in enumerate(order)}
    seen: dict = {}
    for model, t in zip(searched.model, searched.tuned):
        seen.setdefault((model, t["trial"]), t)
    rows, space = [], {}
    for (model, trial), t in sorted(seen.items(), key=lambda kv: (first.get(kv[0][0], len(first)), kv[0])):
        space = t["space"]
        rows.append({"model": name_of(model), "tuned on": f"trial {trial}", "budget": t["budget"],
                     "pruned": t["n_pruned"], "failed": t["n_failed"], value: t["value"], **t["params"]})
    return rows, space


def tuned_table(df: pd.DataFrame, cfg, *, name_of, searched: str, value: str = "valid value") -> Table | None:
    """The table ``tuning`` of a tuned run: :func:`tuned_rows` of its frame (models in
    ``cfg.models``' order), captioned with ``--tune``/``--tune-on``; the legend says what each
    search selected on (``searched``: the paper's words, e.g. "Each system's best configuration
    of its search (Optuna TPE, median pruning) on validation NDCG@5") and the space searched.
    None without tuned units."""
    rows, space = tuned_rows(df, name_of, order=cfg.models, value=value)
    if not rows:
        return None
    return Table("tuning", pd.DataFrame(rows), caption=f"Tuned hyperparameters (--tune {cfg.tune}, --tune-on "
                                                       f"{cfg.tune_on})",
                 legend=f"{searched}; budget: configurations tried; pruned: stopped early on the validation curve; "
                        "space: " + "; ".join(f"{k} {v}" for k, v in space.items()) + ".",
                 digits=4, formats={"num_leaves": 0, "min_data_in_leaf": 0, "budget": 0, "pruned": 0, "failed": 0})


def with_table(rep: Report, table: Table | None) -> Report:
    """``rep`` with ``table`` added, and printed after its lines (caption, then the table at four
    significant digits); ``rep`` itself when ``table`` is None."""
    if table is None:
        return rep
    return dataclasses.replace(rep, tables=[*rep.tables, table], lines=[
        *rep.lines, table.caption + ":", table.frame.to_string(index=False, float_format=lambda v: f"{v:.4g}"), ""])

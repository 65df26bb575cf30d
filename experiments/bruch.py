"""The unit of Bruch's experiments (docs/protocols/bruch2021.md) and helpers shared by their reports.

A unit: trial ``t``'s 60/20/20 query split of the pooled dataset; the training data (and,
for clicks, the validation data) transformed as the unit's setting says, with the trial's
transform generator (shared by the models of the trial: a paired design); one model
trained with early stopping on validation NDCG@5; the untouched test set evaluated with
NDCG@1/3/5/10 (gain 2^y − 1, queries without a relevant document dropped).

Settings: ``noise=none``; ``noise=documents,level=P`` (extra negatives, +P% per list);
``noise=labels,level=P`` (P% of each list relabelled with .5/.2/.15/.1/.05);
``noise=clicks,level=C`` (cascade clicks with label-0 click probability C, the others
.3/.5/.7/.95, 10 impressions per list, train and validation; appendix E); with
``click_model=pbm`` in the context, the position-based model instead (an option).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ltrrepro.noise import BRUCH_CLICK_PROBS, add_negatives, cascade_clicks, label_noise, position_based_clicks
from ltrrepro.runner import DataRef
from ltrrepro.splits import trial_split
from ltrrepro.train import MODELS, fit_predict

PAPER_TABLE1 = {  # Bruch 2021 Table 1 (docs/protocols/bruch2021.md §5), ×100, mean over 100 trials
    "web30k": {"listnet": (47.68, 49.76), "lambdamart": (48.08, 49.94), "xendcg": (48.23, 50.27)},
    "yahoo": {"listnet": (71.76, 76.52), "lambdamart": (73.00, 77.49), "xendcg": (73.37, 77.84)},
}


def _click_probs(unit, ctx):
    return (float(unit.settings["level"]), *ctx.get("click_probs", BRUCH_CLICK_PROBS)[1:])


def _clicks(unit, ds, rng, ctx):
    probs = _click_probs(unit, ctx)
    n = int(ctx.get("impressions", 10))
    if ctx.get("click_model", "cascade") == "pbm":
        return position_based_clicks(ds, rng, probs, eta=float(ctx.get("eta", 1.0)), impressions=n)
    return cascade_clicks(ds, rng, probs, impressions=n)


def transform_train(unit, train, ctx, info):
    """The unit's training data (noise drawn from the trial's transform stream)."""
    noise = unit.settings.get("noise", "none")
    rng = np.random.default_rng(unit.transform_seed())
    if noise == "documents":
        train = add_negatives(train, float(unit.settings["level"]), rng)
        info["added_negatives"] = train.meta["added_negatives"]
    elif noise == "labels":
        train = label_noise(train, float(unit.settings["level"]), rng)
        info["relabelled"] = train.meta["relabelled"]
    elif noise == "clicks":
        train = _clicks(unit, train, rng.spawn(2)[0], ctx)
        info.update(click_probs=list(_click_probs(unit, ctx)), train_impressions=train.n_queries)
    elif noise != "none":
        raise ValueError(f"unknown noise {noise!r}")
    return train


def transform_valid(unit, valid, ctx, info):
    """Validation data: untouched, except with clicks (appendix E turns it into clicks too)."""
    if unit.settings.get("noise") == "clicks":
        valid = _clicks(unit, valid, np.random.default_rng(unit.transform_seed()).spawn(2)[1], ctx)
        info["valid_impressions"] = valid.n_queries
    return valid


def unit_fn(unit, ctx):
    ds = DataRef(**ctx["data"]).open()
    split = trial_split(ds.n_queries, unit.seed, unit.trial)
    info: dict = {}
    # parts are built lazily so that a worker holds one part's features at a time
    fit = fit_predict(unit.model, ctx["library"],
                      lambda: transform_train(unit, ds.subset(split.train), ctx, info),
                      lambda: transform_valid(unit, ds.subset(split.valid), ctx, info),
                      lambda: ds.subset(split.test), ctx["params"], unit.model_seed(), threads=ctx["threads"])
    record = {"means": fit.means, "n_dropped": fit.n_dropped, "best_iteration": fit.best_iteration,
              "n_trees": fit.n_trees, "valid_curve": fit.valid_curve, "timings": {"train_s": fit.train_s},
              **{k: v for k, v in fit.data.items() if k != "test_qid"},
              "library": MODELS[unit.model].library or ctx["library"], "params": fit.params, "transform": info,
              "log": f"ndcg@5={fit.means['ndcg@5']:.4f} trees={fit.best_iteration}"}
    arrays = {f"test_{k}": v.astype(np.float32) for k, v in fit.per_query.items()}
    arrays["test_qid"] = fit.data["test_qid"]
    return record, arrays


def frame(store) -> pd.DataFrame:
    """One row per stored unit: trial, model, setting columns, metric means, trees, time."""
    rows = []
    for r in store.records():
        u = r["unit"]
        rows.append({"trial": u["trial"], "model": u["model"], **u["setting"], **r["means"],
                     "best_iteration": r["best_iteration"], "n_trees": r["n_trees"],
                     "train_s": r["timings"].get("train_s", np.nan), "n_dropped": r["n_dropped"]})
    return pd.DataFrame(rows)


def paired(df: pd.DataFrame, metric: str, a: str, b: str, by=()) -> pd.DataFrame:
    """Per-trial values of models ``a`` and ``b`` side by side (only trials having both)."""
    keys = ["trial", *by]
    wa = df[df.model == a][keys + [metric]].rename(columns={metric: "a"})
    wb = df[df.model == b][keys + [metric]].rename(columns={metric: "b"})
    return wa.merge(wb, on=keys).sort_values(keys)


def deviations_text(cfg: dict, trials: int, paper_trials: int) -> list[str]:
    out = list(cfg.get("deviations", []))
    if trials < paper_trials:
        out.append(f"{trials} trial(s), not the paper's {paper_trials}")
    return out

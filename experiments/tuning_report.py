"""What a tuned run (``--tune N``) adds to a study's report, written once for every study that
declares a :class:`~experiments.tuning.Search`: the protocol notes' sentences
(:func:`tuning_notes`, added to the three columns by
:meth:`experiments.config.RunConfig.protocol_notes`), the table of tuned values
(:func:`tuned_table`) and the report of a tuned run (:func:`with_tuning`: the study's own
report of its tuned units, or with ``keep_fixed`` its report at the paper's settings with the
tuned twin beside it — tables ``<name>_tuned``, claims of the study's ``twin``).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable

import pandas as pd

from experiments import analysis as an
from ltrrepro.report import Table

__all__ = ["Words", "tuning_notes", "tuned_rows", "tuned_table", "with_tuning", "tuned_name"]


def _text(v, cfg) -> str:
    return v(cfg) if callable(v) else v


@dataclass(frozen=True)
class Words:
    """The words a study's tuned notes and table are written with (each a text, or a function of
    the configuration giving one). ``who``: what is tuned ("every system"); ``one``: what a
    search is per ("system"); ``parts``: the split's parts searched ("training and validation
    parts"); ``detail``: the rest of the choice's sentence (the objective, the space, what stays
    fixed), after "…on <where>"; ``replaces``: what tuning replaces, after "hyperparameters tuned
    (…)" (its own comma or space first); ``as_paper``: what the search keeps of the paper; ``splits``: the random splits whose
    first-split search has seen later trials' test queries (None: official folds, no such
    leak); ``name_of(model, cfg)``: a model's name in the tuning table; ``systems(frame)``: the
    frame with ``model`` the searched system (where the report's models are runs of a system);
    ``searched``: what each search selected on (its legend); ``value``: the validation value's column;
    ``fixed``: how the study's table captions name the fixed units' settings, after " — " (a
    text or function of the configuration; the tuned twin's captions say "every system tuned" in
    its place)."""

    who: object = "every system"
    one: str = "system"
    parts: object = "training and validation parts"
    detail: object = ""
    replaces: object = ""
    as_paper: object = ""
    splits: object = "random query splits"
    name_of: Callable = lambda model, cfg: model
    systems: Callable | None = None
    searched: str = "Each system's best configuration of its search (Optuna TPE, median pruning)"
    value: str = "valid value"
    fixed: object = ""


def tuning_notes(cfg, words: Words) -> dict:
    """The three protocol-note columns' sentences of a tuned run (empty lists without ``--tune``)."""
    if not getattr(cfg, "tune", 0):
        return {"as_paper": [], "choices": [], "deviations": []}
    parts = _text(words.parts, cfg)
    where = (f"trial 0's {parts} (one search per {words.one}, its best configuration frozen and shared by every trial)"
             if cfg.tune_on == "first-split" else f"each trial's own {parts} (one search per {words.one} and trial)")
    search = getattr(getattr(cfg, "study", None), "tuning", None)
    pruning = "median pruning" if getattr(search, "prune", True) else "no pruning"
    dev = [f"hyperparameters tuned (--tune {cfg.tune}, Optuna TPE, {pruning}){_text(words.replaces, cfg)}"]
    splits = _text(words.splits, cfg)
    if cfg.tune_on == "first-split" and splits:
        dev.append(f"first-split tuning: with {splits} the search on trial 0 has seen queries that later trials test "
                   f"on (--tune-on per-trial avoids it)")
    detail = _text(words.detail, cfg)
    return {"as_paper": [_text(words.as_paper, cfg)] if words.as_paper else [],
            "choices": [f"{_text(words.who, cfg)} tuned with the same budget of {cfg.tune} configurations on "
                        f"{where}{detail}"],
            "deviations": dev}


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


def tuned_table(df: pd.DataFrame, cfg, words: Words) -> Table | None:
    """The table ``tuning`` of a tuned run: :func:`tuned_rows` of its frame (models in
    ``cfg.models``' order, named by ``words.name_of``), captioned with ``--tune``/``--tune-on``;
    the legend says what each search selected on (``words.searched``) and the space searched.
    None without tuned units."""
    systems = words.systems(df) if words.systems is not None and len(df) else df
    rows, space = tuned_rows(systems, lambda m: words.name_of(m, cfg), order=cfg.models, value=words.value)
    if not rows:
        return None
    return Table("tuning", pd.DataFrame(rows), caption=f"Tuned hyperparameters (--tune {cfg.tune}, --tune-on "
                                                       f"{cfg.tune_on})",
                 legend=f"{words.searched}; budget: configurations tried; pruned: stopped early on the validation "
                        "curve; space: " + "; ".join(f"{k} {v}" for k, v in space.items()) + ".",
                 digits=4, formats={"num_leaves": 0, "min_data_in_leaf": 0, "budget": 0, "pruned": 0, "failed": 0})


def tuned_name(name: str) -> str:
    """A table's name in the tuned twin: ``table1`` → ``table1_tuned``, ``table1_tests`` →
    ``table1_tuned_tests``, ``timings`` → ``timings_tuned``."""
    return name.replace("_", "_tuned_", 1) if "_" in name else f"{name}_tuned"


def _split(df: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the units at the paper's settings, the tuned ones) of a frame, without the setting column."""
    tuned = df["hp"].eq("tuned") if "hp" in df else pd.Series(False, index=df.index)
    return df[~tuned].drop(columns=["hp"], errors="ignore"), df[tuned].drop(columns=["hp"], errors="ignore")


def with_tuning(build, search):
    """A study's ``build(frame, cfg, deviations, choices, as_paper, *, inference)`` under
    ``--tune``: without it, ``build`` itself; with it, ``build`` of the tuned units and the
    tuning table, or (``search.keep_fixed``) ``build`` of the units at the paper's settings, the
    tuned twin of its tables (named by :func:`tuned_name`, captioned "every system tuned") and
    claims (``search.twin``), and the tuning table."""
    def wrapped(df, cfg, deviations=(), choices=(), as_paper=(), *, inference):
        if not getattr(cfg, "tune", 0):
            return build(df.drop(columns=["hp", "tuned"], errors="ignore"), cfg, deviations, choices, as_paper,
                         inference=inference)
        fixed, tuned = _split(df)
        if not search.keep_fixed or tuned.empty:
            rep = build((fixed if search.keep_fixed else df.drop(columns=["hp"], errors="ignore"))
                        .drop(columns=["tuned"], errors="ignore"), cfg, deviations, choices, as_paper,
                        inference=inference)
            return an.with_table(rep, tuned_table(df, cfg, search.words))
        rep = build(fixed.drop(columns=["tuned"], errors="ignore"), cfg, deviations, choices, as_paper,
                    inference=inference)
        twin = build(tuned.drop(columns=["tuned"], errors="ignore"), cfg, deviations, choices, as_paper,
                     inference=inference)
        at = f" — {_text(search.words.fixed, cfg)}" if search.words is not None and search.words.fixed else None
        tables = [dataclasses.replace(t, name=tuned_name(t.name), caption=(t.caption.replace(at, "") if at else
                                                                            t.caption) +
                                      f" — every system tuned (--tune {cfg.tune})")
                  for t in twin.tables]
        claims = search.twin(fixed, tuned, cfg, inference) if search.twin is not None else []
        rep = dataclasses.replace(rep, tables=[*rep.tables, *tables], claims=[*rep.claims, *claims],
                                  lines=[*rep.lines, "Tuned (every system, the same budget):", *twin.lines])
        return an.with_table(rep, tuned_table(tuned, cfg, search.words))
    wrapped.__doc__, wrapped.__wrapped__ = build.__doc__, build        # the study's own builder, for readers
    return wrapped

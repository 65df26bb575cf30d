"""Tuning a system with a budget of configurations: Optuna's TPE, seeded, pruned on the validation curve.

:func:`tune` searches a system's space (declared as data on its options,
:meth:`ltrrepro.fit.ranking.RankingOptions.space`, :mod:`ltrrepro.fit.space`) with ``budget``
configurations, each one trained on the given training part and scored on the given
validation part: the objective is the best validation value of the system's own selection
metric (NDCG@5, gain 2^y − 1, queries without a relevant document dropped: the value early
stopping keeps, :data:`ltrrepro.fit.ranking.SELECT_METRIC`). It is handed no test data, so a
tuned configuration cannot depend on it.

* **Sampler**: TPE (Bergstra et al. 2011), ``n_startup_trials = min(10, budget // 2)`` random
  configurations first, seeded from the caller's seed and the number of configurations already
  stored (a resumed search does not draw the first random ones again).
* **Pruner**: the median rule (Optuna's ``MedianPruner``): after ``warmup`` rounds, a
  configuration whose best validation value so far is below the median of the earlier
  configurations' at the same round stops (Golovin et al. 2017's median stopping rule). The
  value reaches Optuna from the trainer's per-round validation hook (``on_valid``), in
  LightGBM, XGBoost and CatBoost alike. A pruned configuration counts against the budget.
* **Every configuration** trains with the same model seed (its generator made afresh), so two
  configurations differ by their parameters only.
* **Resumable**: with ``storage`` (an SQLite file), every finished configuration (complete,
  pruned or failed) is stored as it ends; a search run again finishes the budget without
  repeating them. A configuration that was running when its process died, or was interrupted
  (Ctrl-C, SIGTERM), is stored as failed and not counted: the resumed search trains another in
  its place. The interrupt itself is the caller's to report (Optuna's "Trial N failed"
  traceback for it is dropped: :class:`_QuietInterrupt`). A damaged storage file (not an
  SQLite database, or one that fails SQLite's check) is moved aside to ``<file>.damaged`` and
  the search starts afresh, as a damaged dataset cache is parsed again (:func:`_set_aside_if_damaged`).

Returns a :class:`Tuned`: the best parameters, the value, and every configuration with its state.
"""
from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from .fit.base import System, int_seed
from .fit.boosting import Boosting
from .fit.space import OBJECTIVE_PREFIX, describe

__all__ = ["Tuned", "tune", "apply", "TuningError", "TUNED", "data_setting", "search_key", "storage_file"]

#: the setting a run's unit trained with tuned hyperparameters carries, beside its data setting
TUNED = ("hp", "tuned")
#: the setting names of a search unit (its budget and where it searches), beside its data setting
SEARCH_SETTINGS = ("tune", "on")


def data_setting(setting) -> tuple:
    """A unit's data setting: its setting without the tuning names (:data:`TUNED`, a search's)."""
    return tuple(kv for kv in setting if kv != TUNED and kv[0] not in SEARCH_SETTINGS)


def search_key(model: str, trial: int) -> str:
    """How a run's searches are keyed: ``<model>@<trial>`` (trial 0 stands for every trial of a
    first-split search)."""
    return f"{model}@{trial}"


def storage_file(directory, unit_key: str) -> Path:
    """A search's Optuna storage: ``<directory>/<unit key, file-safe>.sqlite3``."""
    from .store import safe_key
    return Path(directory) / f"{safe_key(unit_key)}.sqlite3"


class TuningError(RuntimeError):
    """A search that cannot give a configuration (every one failed)."""


@dataclass
class Tuned:
    """The outcome of :func:`tune`: ``params`` the best configuration (space names), its
    validation ``value``, the ``budget``, the ``space`` as text, and each configuration
    (``trials``: number, state, value, params, rounds trained)."""

    params: dict
    value: float
    budget: int
    space: dict
    trials: list = field(default_factory=list)
    best_trial: int = 0

    @property
    def n_pruned(self) -> int:
        return sum(t["state"] == "PRUNED" for t in self.trials)

    @property
    def n_failed(self) -> int:
        return sum(t["state"] == "FAIL" for t in self.trials)

    def to_dict(self) -> dict:
        return {**asdict(self), "n_pruned": self.n_pruned, "n_failed": self.n_failed}

    @classmethod
    def from_dict(cls, d: dict) -> "Tuned":
        return cls(**{k: d[k] for k in ("params", "value", "budget", "space", "trials", "best_trial")})


def apply(params: dict, system: System, boosting: Boosting) -> tuple[Boosting, dict]:
    """``(boosting, option overrides)`` of a configuration: the :class:`Boosting` fields
    replaced, and the objective's keyword arguments (``objective.<k>``) merged into the
    system's ``objective_kwargs`` (the others kept, in their order)."""
    fields = {k: v for k, v in params.items() if not k.startswith(OBJECTIVE_PREFIX)}
    own = {k[len(OBJECTIVE_PREFIX):]: v for k, v in params.items() if k.startswith(OBJECTIVE_PREFIX)}
    options = {}
    if own:
        kwargs = dict(getattr(system.options, "objective_kwargs", ()))
        kwargs.update(own)
        options["objective_kwargs"] = tuple(kwargs.items())
    return boosting.replace(**fields), options


def _fresh(seed: np.random.SeedSequence) -> np.random.SeedSequence:
    """The same seed sequence, with none of its children spawned (trainers spawn from it)."""
    return np.random.SeedSequence(seed.entropy, spawn_key=seed.spawn_key)


def _trial_dict(t) -> dict:
    return {"number": t.number, "state": t.state.name, "value": t.value, "params": dict(t.params),
            "rounds": t.user_attrs.get("rounds"), "best_round": t.user_attrs.get("best_round"),
            "error": t.user_attrs.get("error")}


def _counts(t) -> bool:
    """A stored configuration counts against the budget: it completed, was pruned, or failed
    by itself (its error recorded) — not one whose process died while it ran."""
    return t.state.name in ("COMPLETE", "PRUNED") or (t.state.name == "FAIL" and bool(t.user_attrs.get("error")))


class _QuietInterrupt(logging.Filter):
    """Drop Optuna's "Trial N failed ... KeyboardInterrupt" warning and its traceback: an
    interrupt is not a failed configuration (it is not counted on resume) and the harness says
    it in one line; a configuration that fails by itself is still logged."""

    def __init__(self):
        super().__init__()
        self.interrupted: set = set()          # the trial numbers whose failure was an interrupt

    def filter(self, record: logging.LogRecord) -> bool:
        import re

        exc = record.exc_info[0] if record.exc_info else None
        number = re.match(r"Trial (\d+) failed", record.getMessage())
        if exc is not None and issubclass(exc, KeyboardInterrupt):
            if number:
                self.interrupted.add(number.group(1))
            return False
        # its second line, "Trial N failed with value None.", carries no exception
        return not (number and number.group(1) in self.interrupted and "failed with value" in record.getMessage())


def _set_aside_if_damaged(storage, log=None) -> None:
    """A storage file SQLite cannot read (truncated, overwritten, not a database) is renamed
    ``<file>.damaged`` (replacing an older one), so that the search starts afresh instead of
    stopping on SQLAlchemy's message; ``log`` (if given) gets one line naming both files."""
    import sqlite3

    path = Path(storage)
    if not path.is_file() or path.stat().st_size == 0:
        return
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as err:
        why = str(err)
    else:
        try:
            row = db.execute("PRAGMA quick_check").fetchone()
            why = "" if row and row[0] == "ok" else f"SQLite's quick_check: {row[0] if row else '?'}"
        except sqlite3.DatabaseError as err:
            why = str(err)
        finally:
            db.close()
    if why:
        aside = path.with_name(path.name + ".damaged")
        path.replace(aside)
        if log is not None:
            log(f"  {path}: a damaged tuning storage ({why}); moved to {aside.name}, the search starts afresh")


def _open_study(storage, name: str, seed: np.random.SeedSequence, budget: int, warmup: int, prune: bool):
    """The Optuna study ``name`` in ``storage`` (created or loaded), with configurations left
    running by a dead process marked failed, and a sampler seeded from ``seed`` and the number
    of configurations stored."""
    import optuna
    from optuna.trial import TrialState

    url = None if storage is None else f"sqlite:///{Path(storage).resolve()}"
    study = optuna.create_study(storage=url, study_name=name, direction="maximize", load_if_exists=True)
    for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        study.tell(t.number, state=TrialState.FAIL)                 # its process died
    stored = len(study.get_trials(deepcopy=False))
    study.sampler = optuna.samplers.TPESampler(
        seed=int_seed(np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, 1, stored))),
        n_startup_trials=max(1, min(10, budget // 2)))
    study.pruner = (optuna.pruners.MedianPruner(n_startup_trials=max(1, min(5, budget // 4)), n_warmup_steps=warmup)
                    if prune else optuna.pruners.NopPruner())
    return study


def tune(system: System, library: str, boosting: Boosting, train, valid, *, budget: int,
         seed: np.random.SeedSequence, storage=None, name: str = "tuning", threads: int = 1, prune: bool = True,
         warmup: int | None = None, options: dict | None = None, log=None) -> Tuned:
    """Search ``system``'s space in ``library`` with ``budget`` configurations (see the module
    docstring). ``train``/``valid``: :class:`~ltrrepro.data.RankingDataset` parts (never a test
    part); ``boosting``: the settings a configuration starts from (rounds, early stopping, bins
    are kept); ``seed``: the model seed of every configuration and the sampler's root;
    ``storage``: an SQLite file that makes the search resumable (None: in memory);
    ``warmup``: rounds before the pruner may stop a configuration (default: the early-stopping
    patience); ``options``: fixed option overrides of the system (``device``)."""
    import optuna

    if budget < 1:
        raise ValueError(f"a tuning budget is at least 1 configuration, got {budget}")
    space = system.options.space(library)
    warmup = warmup if warmup is not None else (boosting.early_stopping or max(1, boosting.rounds // 10))
    logging.getLogger("optuna").setLevel(logging.WARNING)
    if storage is not None:
        _set_aside_if_damaged(storage, log)
    study = _open_study(storage, name, seed, budget, warmup, prune)
    remaining = budget - len([t for t in study.get_trials(deepcopy=False) if _counts(t)])

    def objective(trial):
        params = {k: d.suggest(trial, k) for k, d in space.items()}
        b, over = apply(params, system, boosting)
        trainer = system.trainer(b, library=library, seed=_fresh(seed), threads=threads, **(options or {}), **over)
        best = [-np.inf]
        stopped = [False]

        def on_valid(step, value):
            best[0] = max(best[0], value)
            trial.report(best[0], step)
            if trial.should_prune():
                stopped[0] = True
                trial.set_user_attr("rounds", step + 1)
                raise optuna.TrialPruned(f"pruned at round {step + 1}")

        trainer.on_valid = on_valid
        try:
            trainer.add_train(train)
            trainer.add_valid(valid)
            fitted = trainer.fit()
        except optuna.TrialPruned:
            raise
        except Exception as err:           # CatBoost wraps what its metric raised
            if stopped[0]:
                raise optuna.TrialPruned("pruned") from None
            trial.set_user_attr("error", f"{type(err).__name__}: {err}"[:500])
            raise
        trial.set_user_attr("rounds", fitted.n_rounds)
        trial.set_user_attr("best_round", fitted.best_iteration)
        return float(fitted.valid_curve[fitted.best_iteration - 1]) if fitted.valid_curve else float(best[0])

    if remaining > 0:
        quiet, optimize_log = _QuietInterrupt(), logging.getLogger("optuna.study._optimize")
        optimize_log.addFilter(quiet)                   # for this search only
        try:
            study.optimize(objective, n_trials=remaining, catch=(Exception,),
                           callbacks=[_logger(log, budget)] if log else ())
        finally:
            optimize_log.removeFilter(quiet)
    trials = [t for t in study.get_trials(deepcopy=False) if _counts(t)]
    complete = [t for t in trials if t.state == optuna.trial.TrialState.COMPLETE]
    if not complete:
        errors = [t.user_attrs.get("error") for t in trials if t.user_attrs.get("error")]
        raise TuningError(f"{system.name}: none of {len(trials)} configuration(s) finished"
                          + (f"; the first failed with {errors[0]}" if errors else " (all pruned)"))
    best = max(complete, key=lambda t: (t.value, -t.number))
    return Tuned(params=dict(best.params), value=float(best.value), budget=int(budget), space=describe(space),
                 trials=[_trial_dict(t) for t in trials], best_trial=best.number)


def _logger(log, budget):
    def callback(study, trial):
        value = "pruned" if trial.value is None else f"{trial.value:.4f}"
        log(f"  configuration {trial.number + 1}/{budget}: {trial.state.name.lower()} {value}")
    return callback

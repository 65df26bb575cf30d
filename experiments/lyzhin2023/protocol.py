"""Lyzhin et al. (2023)'s protocol (docs/protocols/lyzhin2023.md): configuration, the systems of
each library by the metric they are trained for, the ablation settings and the unit.

A unit: its parts (``--split``, :func:`unit_parts`) — the dataset's official train/validation/test
parts, the paper's (§4.1 "Datasets": Fold 1 of MSLR; Istella's validation part drawn from its training
part, :data:`DRAWN_VALID` of the queries, with the run's seed), or trial ``t``'s 60/20/20 query split of
the pooled dataset (synthetic data, your files); one system of :data:`ltrrepro.fit.SYSTEMS` trained
with early stopping on the validation value of the metric it is trained for (:func:`select_metric`); the test part evaluated
with NDCG@10, MRR@10, MAP@10 and ERR@10 and the training part with NDCG@10 (the train–test gap).
A unit's setting is its ablation: ``none`` the system as declared, ``noise-No`` (say) one of YetiRank's
smoothing knobs changed (:data:`ABLATIONS`), ``trees-leafwise`` its trees grown leaf-wise. A fixed
unit trains at ``--hp`` (:data:`HP`): each library's own defaults but the number of trees (§4.2
"Comparison with default hyper-parameters"; the defaults are data in each backend,
:meth:`ltrrepro.fit.backends.Backend.at_defaults`) or the harness's preset in every library; a tuned
one (``--tune``) at its search's values applied to the preset, where its search started.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from experiments import parts as split_parts
from experiments import shared_fields, tuning
from experiments.config import RunConfig
from experiments.options import option
from experiments.values import parse_names
from experiments.errors import UsageError
from experiments.lyzhin2023 import notes
from ltrrepro.fit import BACKENDS, SYSTEMS
from ltrrepro.fit.backends.catboost import PAIRWISE_MODES, SHAPES
from ltrrepro.fit.boosting import PRESETS, preset
from ltrrepro.metrics import canonical, evaluate
from experiments.parts import DRAWN_VALID, unit_parts
from ltrrepro.runner import UnitRecord
from ltrrepro.tuning import TUNED

#: the paper's four quality functions at 10 (§4.1): MRR and MAP on grades binarised at >= 1, ERR's
#: gain (2^g − 1)/2^4 (grades 0..4)
METRICS = {"ndcg": canonical("ndcg@10"), "mrr": canonical("mrr@10[rel>=1]"), "map": canonical("map@10[rel>=1]"),
           "err": canonical("err@10[gmax=4]")}
TRAIN_METRIC = METRICS["ndcg"]
#: the systems by family: the metric each is trained for -> the system ("*": one system for every metric)
FAMILIES = {
    "lgb_lambdarank": {"*": "lgb_lambdarank"},
    "lgb_rank_xendcg": {"*": "lgb_rank_xendcg"},
    "xgb_rank_ndcg": {"*": "xgb_rank_ndcg"},
    "xgb_rank_pairwise": {"*": "xgb_rank_pairwise"},
    "xgb_rank_map": {"map": "xgb_rank_map"},
    "yetirank": {"*": "catboost_yetirank"},
    "yetirank_pairwise": {"*": "catboost_yetirank_pairwise"},
    "yetiloss": {m: f"catboost_yetiloss_{m}" for m in METRICS},
    "lambdamart": {m: f"catboost_lambdamart_{m}" for m in METRICS},
    "stochasticrank": {m: f"catboost_stochasticrank_{m}" for m in METRICS if m != "map"},
    "queryrmse": {"*": "catboost_queryrmse"},
    "querysoftmax": {"*": "catboost_querysoftmax"},
}
#: the default: a few families and two metrics, so that the run takes minutes on 2 cores
DEFAULT_FAMILIES = ("lgb_lambdarank", "xgb_rank_ndcg", "yetirank", "yetiloss", "lambdamart", "stochasticrank")
DEFAULT_TARGETS = ("ndcg", "mrr")
#: the system the ablations change (YetiLoss for NDCG, §4.3), and the ablations: setting -> (knobs, tree shape)
ABLATION_BASE = "catboost_yetiloss_ndcg"
ABLATIONS = {"noise-No": ({"noise": "No"}, None), "noise-Gauss": ({"noise": "Gauss", "noise_power": 1}, None),
             "neighbors-3": ({"num_neighbors": 3}, None), "neighbors-8": ({"num_neighbors": 8}, None),
             "denominator-LogPosition": ({"dcg_denominator": "LogPosition"}, None),
             "gain-Exp": ({"dcg_type": "Exp"}, None), "trees-leafwise": ({}, "leafwise")}
DEFAULT_ABLATIONS = ("noise-No", "neighbors-3", "trees-leafwise")
#: the setting of a unit that trains a system as declared
AS_DECLARED = "none"
#: ``--grow-policy``: CatBoost's word -> the tree shape
GROW = {v: k for k, v in SHAPES.items()}
#: ``--hp``: the fixed units' hyper-parameters — each library's own defaults (the paper's §4.2 comparison)
#: or ``--preset`` in every library; a search (``--tune``) starts from the preset either way
HP = ("defaults", "preset")


#: the metric each system is trained for (None: no metric in particular), and selected on
TARGET_OF = {s: (None if m == "*" else m) for by in FAMILIES.values() for m, s in by.items()}


def select_metric(system: str) -> str:
    """The validation metric ``system`` is early-stopped on: the metric its variant is trained for,
    NDCG@10 for a system trained for none in particular (the paper's first metric)."""
    return METRICS[TARGET_OF.get(system) or "ndcg"]


def system_for(family: str, metric: str) -> str | None:
    """The system of ``family`` trained for ``metric`` (its one system where it has no variants), or None."""
    f = FAMILIES[family]
    return f.get(metric, f.get("*"))


def _names(text, known, flag, what) -> tuple:
    """A comma-separated list of known names (``''``: none)."""
    return tuple(parse_names(text, known, flag, what)) if text else ()


@dataclass(frozen=True)
class TricksConfig(RunConfig):
    """The study's settings: ``families`` (:data:`FAMILIES`) and ``targets`` (the metrics whose
    variants are trained), ``ablations`` (:data:`ABLATIONS`), ``grow_policy`` CatBoost's trees
    (``SymmetricTree``, the paper's; ``Lossguide``), ``preset``/``rounds`` the boosting, ``hp`` the
    fixed units' hyper-parameters (:data:`HP`), ``tune``."""

    library: str = shared_fields.library()
    preset: str = shared_fields.preset()
    rounds: int | None = shared_fields.rounds()
    families: tuple = option(DEFAULT_FAMILIES, flag="--families", help=f"of {', '.join(FAMILIES)}",
                             parse=lambda text: _names(text, FAMILIES, "--families", "family"))
    targets: tuple = option(DEFAULT_TARGETS, flag="--targets", help=f"of {', '.join(METRICS)}",
                            parse=lambda text: _names(text, METRICS, "--targets", "metric"))
    ablations: tuple = option(DEFAULT_ABLATIONS, flag="--ablations", help=f"of {', '.join(ABLATIONS)} ('' for none)",
                              parse=lambda text: _names(text, ABLATIONS, "--ablations", "ablation"))
    grow_policy: str = option("SymmetricTree", flag="--grow-policy", choices=tuple(GROW),
                              help="CatBoost's trees: SymmetricTree (default, the paper's) or Lossguide (leaf-wise)")
    tune: int = shared_fields.tune()
    tune_on: str = shared_fields.tune_on()
    split: str = shared_fields.split()
    hp: str = option("defaults", flag="--hp", choices=HP, added=True,
                     help="the fixed units' hyper-parameters: defaults (each library's own but the number of trees, "
                          "the paper's §4.2 comparison) or preset (--preset in every library); --tune searches from "
                          "the preset and reports both tables")

    def __post_init__(self):
        if not self.preset:
            object.__setattr__(self, "preset", "fast" if self.synthetic else "bruch-web30k")
        super().__post_init__()
        if self.preset not in PRESETS:
            raise UsageError(f"unknown preset {self.preset!r}; known: {', '.join(PRESETS)}")
        for name, given, known in (("--families", self.families, FAMILIES), ("--targets", self.targets, METRICS),
                                   ("--ablations", self.ablations, ABLATIONS), ("--grow-policy", (self.grow_policy,), GROW),
                                   ("--hp", (self.hp,), HP)):
            bad = [v for v in given if v not in known]
            if bad or len(set(given)) != len(given):
                raise UsageError(f"{name}: {', '.join(bad) or 'a repeated value'} — known: {', '.join(known)}")
        if not self.families or not self.targets:
            raise UsageError("--families and --targets name at least one each")
        split_parts.check(self)
        tuning.check(self)

    @property
    def official(self) -> bool:
        """The units train, early-stop and test on the dataset's official parts (``--split official``)."""
        return split_parts.official(self)

    @property
    def drawn_valid(self) -> bool:
        """The official parts lack a validation part (Istella): the units draw one from the training part."""
        return split_parts.drawn_valid(self)

    @property
    def drawn_fraction(self) -> float:
        """The share of the official training queries drawn as the validation part (:data:`DRAWN_VALID`)."""
        return DRAWN_VALID

    def drawn_line(self) -> str | None:
        """What a run on a layout without a validation part says at its start (None: nothing to say)."""
        return split_parts.drawn_line(self)

    @property
    def boosting(self):
        return preset(self.preset, rounds=self.rounds)

    @property
    def models(self) -> tuple:
        """Every system the run trains (each once per trial), CatBoost's left out when it is not installed."""
        out = []
        for f in self.families:
            for m in self.targets:
                s = system_for(f, m)
                if s is not None and s not in out and self.available(s):
                    out.append(s)
        return tuple(out)

    @property
    def trained(self) -> tuple:
        """Every system the run trains: :attr:`models`, and the ablations' system where it runs."""
        base = (ABLATION_BASE,) if self.ablations and self.available(ABLATION_BASE) else ()
        return tuple(dict.fromkeys((*self.models, *base)))

    def system(self, model: str):
        """The registered system of ``model`` (the tuning stage's search trains it)."""
        return SYSTEMS[model]

    def available(self, system: str) -> bool:
        return BACKENDS[self.library_of(system)].missing() is None

    def library_of(self, system: str) -> str:
        return SYSTEMS[system].resolve_library(self.library)

    def skipped(self) -> list[str]:
        """The systems left out because their library is not installed (one line each)."""
        names = {system_for(f, m) for f in self.families for m in self.targets} - {None}
        return [f"{s}: {BACKENDS[self.library_of(s)].missing()}" for s in sorted(names) if not self.available(s)]

    def loss_of(self, system: str) -> str:
        """The library's own loss ``system`` trains (its built-in objective in its library)."""
        return dict(SYSTEMS[system].options.builtin)[self.library_of(system)]

    def fixed_at(self, system: str, hp: str | None = None) -> tuple:
        """``(boosting, library parameters)`` of ``system``'s units at ``hp`` (default ``--hp``): the
        preset and none, or its library's defaults for its loss with the preset's rounds and early
        stopping (:meth:`ltrrepro.fit.backends.Backend.at_defaults`)."""
        if (hp or self.hp) == "preset":
            return self.boosting, {}
        b = self.boosting
        return BACKENDS[self.library_of(system)].at_defaults(self.loss_of(system), b.rounds, b.early_stopping)

    def hp_of(self, unit) -> str:
        """The hyper-parameters a unit trains at: a tuned unit's search started from the preset."""
        return "preset" if TUNED in unit.setting else self.hp

    def options(self, system: str, ablation: str = AS_DECLARED, hp: str | None = None) -> dict:
        """The trainer's option overrides of ``system`` under ``ablation`` at ``hp`` (default ``--hp``):
        the library's loss with the ablation's knobs, its library parameters at the library's defaults
        (``hp`` defaults) and its trees (CatBoost's as ``grow_policy``; the others as the harness or the
        library grows them)."""
        lib = self.library_of(system)
        b = BACKENDS[lib]
        knobs, shape = ABLATIONS.get(ablation, ({}, None))
        shape = shape or GROW[self.grow_policy]
        try:
            extra = b.tree_shape(shape)
        except ValueError:
            extra = b.tree_shape("leafwise")
        loss = self.loss_of(system)
        if loss.startswith(PAIRWISE_MODES):            # CatBoost's pairwise mode: symmetric trees only
            extra = b.tree_shape("oblivious")
        extra = {**self.fixed_at(system, hp)[1], **extra}
        return {"builtin": ((lib, b.smoothing(loss, knobs)),), "library_params": ((lib, tuple(extra.items())),),
                "select": select_metric(system)}

    def as_paper(self) -> list[str]:
        return notes.as_paper(self)

    def choices(self) -> list[str]:
        return notes.choices(self)

    def deviations(self) -> list[str]:
        return notes.deviations(self, super().deviations())


def tuning_parts(unit, ctx):
    """A search's (training, validation) parts: the unit's, never its test part."""
    parts, _ = unit_parts(unit, ctx, ("train", "valid"))
    return parts["train"], parts["valid"]


def train_size(unit, ctx) -> float:
    """The unit's training and validation queries (``--estimate`` scales by it)."""
    parts, _ = unit_parts(unit, ctx, ("train", "valid"))
    return float(parts["train"].n_queries + parts["valid"].n_queries)


def unit_fn(unit, ctx):
    cfg = ctx["cfg"]
    parts, drawn = unit_parts(unit, ctx)
    system = SYSTEMS[unit.model]
    ablation = unit.settings.get("ablation", AS_DECLARED)
    hp = cfg.hp_of(unit)
    boosting, over, tuned = tuning.tuned_boosting(unit, ctx, system, cfg.fixed_at(unit.model, hp)[0])
    trainer = system.trainer(boosting, library=cfg.library, seed=unit.model_seed(), threads=ctx["threads"],
                             **{**cfg.options(unit.model, ablation, hp), **over})
    train, test = parts["train"], parts["test"]
    trainer.add_train(train)
    trainer.add_valid(parts["valid"])
    fitted = trainer.fit()
    scores = fitted.scores(test.X)
    res = evaluate(scores, test.y, test.offsets, tuple(METRICS.values()))
    on_train = evaluate(fitted.scores(train.X), train.y, train.offsets, (TRAIN_METRIC,))[TRAIN_METRIC]
    means = {m: r.mean for m, r in res.items()}
    record = UnitRecord.of(system, {**means, f"train:{TRAIN_METRIC}": on_train.mean}, scores=scores,
                           log=f"ndcg@10={means[TRAIN_METRIC]:.4f} train={on_train.mean:.4f} trees={fitted.best_iteration}",
                           library=cfg.library_of(unit.model),
                           fit={"best_iteration": fitted.best_iteration, "n_trees": fitted.n_rounds},
                           timings={"train_s": fitted.train_s},
                           fields={"params": fitted.params, "sizes": fitted.info, **tuned, **drawn})
    arrays = {f"test:{m}": r.per_query.astype(np.float32) for m, r in res.items()}
    arrays["test:qid"] = test.query_ids
    return record, arrays

"""Bruch (2021)'s protocol (docs/protocols/bruch2021.md): configuration, training-data
transforms and the unit shared by Table 1 and Figures 2–4.

A unit: trial ``t``'s 60/20/20 query split of the pooled dataset; the training data (and,
for clicks, the validation data) transformed as the unit's setting says, with the trial's
transform generator (shared by the models of the trial: a paired design); one system of
:data:`ltrrepro.fit.SYSTEMS` trained with early stopping on validation NDCG@5; the untouched
test set evaluated with NDCG@1/3/5/10 (gain 2^y − 1, queries without a relevant document
dropped). The unit drives the flow: train part → transform → the library bins it (its
features are dropped) → validation part → fit → test part → predict.

Settings: ``noise=none``; ``noise=documents,level=P`` (extra negatives, +P% per list);
``noise=labels,level=P`` (P% of each list relabelled with .5/.2/.15/.1/.05);
``noise=clicks,level=C`` (cascade clicks with label-0 click probability C, the others
.3/.5/.7/.95, 10 impressions per list, train and validation; appendix E); with
``click_model="pbm"``, the position-based model instead (an option).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from experiments.analysis import canonical
from experiments.errors import UsageError
from experiments.bruch2021 import notes, tuned
from experiments.bruch2021.checks import check_settings
from experiments.config import RunConfig
from ltrrepro.fit import SYSTEMS, system_for
from ltrrepro.fit.plugins import is_plugin_spec, plugin_key, split_models
from ltrrepro.fit.ranking import RankingOptions, RankingTrainer
from ltrrepro.metrics import evaluate
from ltrrepro.noise import BRUCH_CLICK_PROBS, BRUCH_NOISE_PROBS, add_negatives, cascade_clicks, label_noise, position_based_clicks
from ltrrepro.fit.boosting import PRESETS, preset
from ltrrepro.runner import DataRef
from ltrrepro.splits import trial_split
from ltrrepro.trec import test_arrays

PAPER_PRESET = {"web30k": "bruch-web30k", "web10k": "bruch-web30k", "yahoo": "bruch-yahoo",
                "istella": "bruch-web30k", "mq2007": "bruch-web30k", "mq2008": "bruch-web30k"}
PAPER_TRIALS = {"quality": 100, "robustness": 100, "clicks": 20, "convergence": 1}
TEST_METRICS = tuple(canonical(m) for m in ("ndcg@1", "ndcg@3", "ndcg@5", "ndcg@10"))
NDCG5, NDCG10 = TEST_METRICS[2], TEST_METRICS[3]


def model_label(model: str, cfg) -> str:
    """A model's name in tables: a registered system's label, or a plug-in's ``Name(k=v)``
    (from the configuration's specs, without importing it)."""
    from ltrrepro.fit.plugins import plugin_label

    if model in SYSTEMS:
        return SYSTEMS[model].label
    spec = dict(cfg.plugins).get(model)
    return model if spec is None else plugin_label(spec)


def ranking_systems() -> list[str]:
    """The systems Bruch's protocol trains: those selected by early stopping on validation NDCG@5."""
    return [n for n, s in SYSTEMS.items() if issubclass(s.trainer_cls, RankingTrainer)]


@dataclass(frozen=True)
class BruchConfig(RunConfig):
    """Bruch's settings. ``preset``: hyperparameters (default: the paper's for the dataset,
    ``fast`` on synthetic data); ``rounds``: the boosting length if not the preset's;
    ``early_stopping=False``: every round trained (full curves, Figure 2)."""

    library: str = "lightgbm"
    preset: str = ""
    rounds: int | None = None
    early_stopping: bool = True
    models: tuple = ()
    noise: tuple = ()
    levels: tuple = ()
    impressions: int = 10
    click_model: str = "cascade"
    eta: float = 1.0
    device: str = RankingOptions.device
    plugins: tuple = ()             # ((unit name, "package.module:Name(k=v)"), ...)
    baseline: str = "lambdamart"
    click_probs: tuple = tuple(BRUCH_CLICK_PROBS)
    noise_probs: tuple = tuple(BRUCH_NOISE_PROBS)
    tune: int = 0                   # --tune N: every system tuned with N configurations (experiments.tuning)
    tune_on: str = "first-split"    # or per-trial

    #: left out of the stored hash at their defaults: untuned runs keep theirs
    added_fields = ("tune", "tune_on")

    def __post_init__(self):
        if not self.preset:
            object.__setattr__(self, "preset", self.default_preset())
        super().__post_init__()
        if self.library not in ("lightgbm", "xgboost", "catboost"):
            raise UsageError(f"library must be lightgbm, xgboost or catboost, got {self.library!r}")
        if self.preset not in PRESETS:
            raise UsageError(f"unknown preset {self.preset!r}; known: {', '.join(PRESETS)}")
        self.check_plugins()                        # imported and checked: a broken one is one line now
        known = [*ranking_systems(), *dict(self.plugins)]
        unknown = [m for m in self.models if m not in known]
        if unknown:
            raise UsageError(f"--models: {', '.join(unknown)} not a ranking system trained with early stopping on "
                             f"validation NDCG@5 (Bruch's protocol); known: {', '.join(known)}")
        if self.plugins and self.baseline not in self.models:
            raise UsageError(f"--baseline {self.baseline}: plug-ins are compared with it, so it must be one of "
                             f"--models ({', '.join(self.models)})")
        for m in self.models:
            try:
                self.system(m).resolve_library(self.library)
            except ValueError as err:
                raise UsageError(f"--library catboost: {m} is a custom objective and CatBoost takes none from Python; "
                                 f"run it with --library lightgbm or xgboost (CatBoost's own losses: catboost_yetirank, "
                                 f"catboost_lambdamart, ...)" if self.library == "catboost" else str(err)) from None
        if self.device not in ("cpu", "cuda"):
            raise UsageError(f"--device: cpu or cuda, got {self.device!r}")
        if self.click_model not in ("cascade", "pbm") or not self.eta > 0 or self.impressions < 1:
            raise UsageError("click model cascade or pbm, --eta > 0, --impressions >= 1")
        check_settings(self)
        if self.tune < 0 or self.tune_on not in tuned.TUNE_ON:
            raise UsageError(f"--tune N >= 1 configurations and --tune-on {' or '.join(tuned.TUNE_ON)}, got "
                             f"{self.tune} and {self.tune_on!r}")

    @property
    def tune_unit_fn(self):
        """One system's search under ``--tune`` (:func:`experiments.bruch2021.tuned.tune_unit_fn`)."""
        return tuned.tune_unit_fn

    def system(self, model: str):
        return system_for(model, self.plugins)

    def check_device(self) -> None:
        """The library of every model is installed (CatBoost is optional) and can use the device
        (a GPU probe); before any work."""
        from ltrrepro.device import check_device
        from ltrrepro.fit import BACKENDS
        for m in self.models:
            if why := BACKENDS[lib := self.system(m).resolve_library(self.library)].missing():
                raise UsageError(f"--models {m}: {why}")
            check_device(self.device, lib)

    def default_preset(self) -> str:
        return "fast" if self.synthetic else PAPER_PRESET.get(self.dataset, "bruch-web30k")

    @property
    def paper_trials(self) -> int:
        return PAPER_TRIALS.get(self.experiment, 100)

    @property
    def boosting(self):
        b = preset(self.preset, rounds=self.rounds)
        return b if self.early_stopping else b.replace(early_stopping=None)

    def as_paper(self) -> list[str]:
        return [*notes.as_paper(self, PAPER_PRESET.get(self.dataset.replace("synthetic-", ""))),
                *tuned.notes(self)["as_paper"]]

    def choices(self) -> list[str]:
        return [*notes.choices(self), *tuned.notes(self)["choices"]]

    def deviations(self) -> list[str]:
        return [*notes.deviations(self, super().deviations(), PAPER_PRESET.get(self.dataset.replace("synthetic-", ""))),
                *tuned.notes(self)["deviations"]]


def _click_probs(level, cfg):
    return (float(level), *cfg.click_probs[1:])


def _clicks(ds, level, rng, cfg):
    probs = _click_probs(level, cfg)
    if cfg.click_model == "pbm":
        return position_based_clicks(ds, rng, probs, eta=cfg.eta, impressions=cfg.impressions)
    return cascade_clicks(ds, rng, probs, impressions=cfg.impressions)


def transform_train(unit, train, cfg):
    """``(training data, info)``: the noise of the unit's setting, drawn from the trial's stream."""
    noise = unit.settings.get("noise", "none")
    rng = np.random.default_rng(unit.transform_seed())
    if noise == "documents":
        train = add_negatives(train, float(unit.settings["level"]), rng)
        return train, {"added_negatives": train.meta["added_negatives"]}
    if noise == "labels":
        train = label_noise(train, float(unit.settings["level"]), rng, probs=cfg.noise_probs)
        return train, {"relabelled": train.meta["relabelled"]}
    if noise == "clicks":
        train = _clicks(train, unit.settings["level"], rng.spawn(2)[0], cfg)
        return train, {"click_probs": list(_click_probs(unit.settings["level"], cfg)),
                       "train_impressions": train.n_queries}
    if noise != "none":
        raise ValueError(f"unknown noise {noise!r}")
    return train, {}


def transform_valid(unit, valid, cfg):
    """Validation data: untouched, except with clicks (appendix E turns it into clicks too)."""
    if unit.settings.get("noise") == "clicks":
        rng = np.random.default_rng(unit.transform_seed()).spawn(2)[1]
        valid = _clicks(valid, unit.settings["level"], rng, cfg)
        return valid, {"valid_impressions": valid.n_queries}
    return valid, {}


_SIZES: dict = {}


def train_size(unit, ctx) -> float:
    """Documents the unit trains and validates on after its transform (extra negatives grow
    the lists, clicks turn each list into impressions): what its cost scales with. Measured on
    trial 0 of the unit's setting, once per process."""
    key = (ctx["data"]["path"], unit.setting_text)
    if key not in _SIZES:
        cfg = ctx["cfg"]
        ds = DataRef(**ctx["data"]).open()
        probe = type(unit)(unit.experiment, unit.dataset, 0, unit.model, unit.setting, unit.seed)
        split = trial_split(ds.n_queries, unit.seed, 0)
        train, _ = transform_train(probe, ds.subset(split.train), cfg)
        valid, _ = transform_valid(probe, ds.subset(split.valid), cfg)
        _SIZES[key] = float(train.n_docs + valid.n_docs)
    return _SIZES[key]


def unit_fn(unit, ctx):
    cfg = ctx["cfg"]
    ds = DataRef(**ctx["data"]).open()
    split = trial_split(ds.n_queries, unit.seed, unit.trial)
    system = cfg.system(unit.model)
    boosting, over, tuned_rec = tuned.tuned_trainer_args(unit, ctx, cfg, system)     # --tune: the search's values
    trainer = system.trainer(boosting, library=cfg.library, seed=unit.model_seed(), threads=ctx["threads"],
                             device=cfg.device, **over)
    train, info = transform_train(unit, ds.subset(split.train), cfg)
    trainer.add_train(train)
    del train                                   # the binned copy is all the library needs
    valid, vinfo = transform_valid(unit, ds.subset(split.valid), cfg)
    trainer.add_valid(valid)
    del valid
    fitted = trainer.fit()
    test = ds.subset(split.test)
    scores = fitted.scores(test.X)
    res = evaluate(scores, test.y, test.offsets, TEST_METRICS)
    record = {"means": {m: r.mean for m, r in res.items()}, "n_dropped": max(r.n_dropped for r in res.values()),
              "fit": {"best_iteration": fitted.best_iteration, "n_trees": fitted.n_rounds},
              "valid_curve": fitted.valid_curve, "timings": {"train_s": fitted.train_s}, "sizes": fitted.info,
              "system": {"family": system.family, "variant": system.variant},
              "library": system.resolve_library(cfg.library), "params": fitted.params, "transform": {**info, **vinfo},
              "log": f"ndcg@5={res[NDCG5].mean:.4f} trees={fitted.best_iteration}"}
    if tuned_rec is not None:
        record["tuned"] = tuned_rec
    arrays = {f"test:{m}": r.per_query.astype(np.float32) for m, r in res.items()}
    arrays["test:qid"] = test.query_ids
    arrays.update(test_arrays(scores, test))                # the TREC run (ltrrepro.trec)
    return record, arrays


def config_from_args(args, experiment: str, *, synthetic_trials: int, synthetic_queries: int,
                     default_models=(), real_trials: int | None = None, **fields) -> BruchConfig:
    """The :class:`BruchConfig` of a command line (defaults settled here, checked by the config)."""
    from experiments.values import parse_names

    synthetic = args.dataset.startswith("synthetic")
    trials = args.trials or (synthetic_trials if synthetic else real_trials or PAPER_TRIALS.get(experiment, 100))
    given = getattr(args, "models", None)
    if given is not None and not split_models(given):
        raise UsageError(f"--models is empty ({given!r}): name at least one model")
    names = split_models(given or "") or list(default_models)
    plugins = tuple((plugin_key(n), n) for n in names if is_plugin_spec(n))
    builtin = [n for n in names if not is_plugin_spec(n)]
    if builtin:
        parse_names(",".join(builtin), ranking_systems(), "--models")
    models = tuple(plugin_key(n) if is_plugin_spec(n) else n for n in names)
    if len(set(models)) != len(models):
        raise UsageError(f"--models repeats a model: {getattr(args, 'models', '')!r}")
    return BruchConfig(experiment=experiment, dataset=args.dataset, data_dir=args.data_dir,
                       queries=(args.queries or synthetic_queries) if synthetic else args.queries,
                       trials=trials, seed=args.seed, library=getattr(args, "library", "lightgbm"),
                       preset=args.preset or "", rounds=args.rounds, models=models, plugins=plugins,
                       baseline=plugin_key(b) if is_plugin_spec(b := getattr(args, "baseline", "lambdamart")) else b,
                       device=getattr(args, "device", "cpu"), tune=getattr(args, "tune", None) or 0,
                       tune_on=getattr(args, "tune_on", None) or "first-split", **fields)

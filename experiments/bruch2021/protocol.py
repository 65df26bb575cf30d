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

from experiments.errors import UsageError
from experiments.bruch2021 import notes
from experiments.bruch2021.protocol_settings import check_settings
from experiments.bruch2021.paper import PAPER_TABLE1
from experiments import shared_fields, tuning
from experiments.config import RunConfig
from experiments.options import option
from ltrrepro.datasets import base_dataset
from ltrrepro.device import DEVICES
from ltrrepro.fit import BACKENDS, SYSTEMS, system_for
from ltrrepro.fit.backends import check_device, custom_objective_libraries
from ltrrepro.fit.plugins import is_plugin_spec, plugin_key
from ltrrepro.fit.ranking import RankingOptions, RankingTrainer
from ltrrepro.metrics import canonical, evaluate
from ltrrepro.noise import BRUCH_CLICK_PROBS, BRUCH_NOISE_PROBS, add_negatives, cascade_clicks, label_noise, position_based_clicks
from ltrrepro.fit.boosting import PRESETS, preset
from ltrrepro.runner import DataRef, UnitRecord
from ltrrepro.splits import trial_split
from ltrrepro.trec import test_arrays

PAPER_PRESET = {"web30k": "bruch-web30k", "web10k": "bruch-web30k", "yahoo": "bruch-yahoo",
                "istella": "bruch-web30k", "istella-s": "bruch-web30k", "mq2007": "bruch-web30k", "mq2008": "bruch-web30k"}
TEST_METRICS = tuple(canonical(m) for m in ("ndcg@1", "ndcg@3", "ndcg@5", "ndcg@10"))
NDCG5, NDCG10 = TEST_METRICS[2], TEST_METRICS[3]


def paper_reference(dataset: str) -> str | None:
    """The Table 1 column a run is compared and powered against: Web30K or Yahoo, also for the
    synthetic data calibrated to it; none for other data.

    >>> paper_reference("synthetic-yahoo"), paper_reference("web30k"), paper_reference("mq2008")
    ('yahoo', 'web30k', None)
    """
    key = base_dataset(dataset)
    return key if key in PAPER_TABLE1 else None


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
class BruchStudy:
    """What a Bruch study takes (its :class:`~experiments.registry.Experiment`'s ``spec``):
    ``noises`` the ``--noise`` types (each at most once; none: a noise-free study), ``levels``
    what ``--levels`` are (``"percent"``: documents added or labels perturbed, >= 0, labels
    <= 100; ``"probability"``: click probabilities in [0, 1]), ``full_curves`` every round
    trained to draw the whole validation curve (Figure 2: no early stopping)."""

    noises: tuple = ()
    levels: str = ""
    full_curves: bool = False


def _noises(text: str) -> tuple:
    """``--noise``: comma-separated noise types (checked by the configuration)."""
    return tuple(n.strip() for n in text.split(",") if n.strip())


def _eta(text: str) -> float:
    """``--eta``: a positive number."""
    try:
        eta = float(text)
    except ValueError:
        raise UsageError(f"--eta must be a number > 0, got {text!r}") from None
    if not eta > 0:
        raise UsageError(f"--eta must be > 0, got {eta}")
    return eta


def _baseline(text: str) -> str:
    """``--baseline``: a model's name, a plug-in spec by its unit name."""
    return plugin_key(text) if is_plugin_spec(text) else text


@dataclass(frozen=True)
class BruchConfig(RunConfig):
    """Bruch's settings. ``preset``: hyperparameters (default: the paper's for the dataset,
    ``fast`` on synthetic data); ``rounds``: the boosting length if not the preset's;
    ``early_stopping=False``: every round trained (full curves, Figure 2)."""

    library: str = shared_fields.library()
    preset: str = shared_fields.preset()
    rounds: int | None = shared_fields.rounds()
    early_stopping: bool = True
    models: tuple = shared_fields.models((), ranking_systems)
    noise: tuple = option((), flag="--noise", parse=_noises, help="documents, labels or both (default both)")
    levels: tuple = shared_fields.levels()
    impressions: int = option(10, flag="--impressions", bounds=(1, 10_000), help="impressions per list")
    click_model: str = option("cascade", flag="--click-model", choices=("cascade", "pbm"),
                              help="cascade (the paper) or the position-based model (option)")
    eta: float = option(1.0, flag="--eta", parse=_eta, help="pbm only: examination probability (1/rank)^eta")
    device: str = shared_fields.device(RankingOptions.device)
    plugins: tuple = ()             # ((unit name, "package.module:Name(k=v)"), ...): set by --models
    baseline: str = option("lambdamart", flag="--baseline", metavar="MODEL", parse=_baseline,
                           help="what plug-in objectives are compared with in the claims (default lambdamart, the "
                                "library's LambdaMART)")
    click_probs: tuple = tuple(BRUCH_CLICK_PROBS)
    noise_probs: tuple = tuple(BRUCH_NOISE_PROBS)
    tune: int = shared_fields.tune()            # every system tuned with N configurations (experiments.tuning)
    tune_on: str = shared_fields.tune_on()

    def __post_init__(self):
        if not self.preset:
            object.__setattr__(self, "preset", self.default_preset())
        super().__post_init__()
        if self.click_model != "pbm" and self.eta != 1.0:
            raise UsageError("--eta is the position-based model's parameter: use it with --click-model pbm")
        if self.library not in BACKENDS:
            raise UsageError(f"library must be one of {', '.join(BACKENDS)}, got {self.library!r}")
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
        lib = BACKENDS[self.library]
        for m in self.models:
            try:
                self.system(m).resolve_library(self.library)
            except ValueError as err:
                raise UsageError(f"--library {self.library}: {m} is a custom objective and {lib.label} takes none from "
                                 f"Python; run it with --library {' or '.join(custom_objective_libraries())} "
                                 f"({lib.label}'s own losses: {', '.join(list(lib.baselines)[:2])}, ...)"
                                 if not lib.custom_objectives else str(err)) from None
        if self.device not in DEVICES:
            raise UsageError(f"--device: {' or '.join(DEVICES)}, got {self.device!r}")
        if self.click_model not in ("cascade", "pbm") or not self.eta > 0 or self.impressions < 1:
            raise UsageError("click model cascade or pbm, --eta > 0, --impressions >= 1")
        check_settings(self)
        tuning.check(self)

    def system(self, model: str):
        return system_for(model, self.plugins)

    def check_device(self) -> None:
        """The library of every model is installed (CatBoost is optional) and can use the device
        (a GPU probe); before any work."""
        for m in self.models:
            if why := BACKENDS[lib := self.system(m).resolve_library(self.library)].missing():
                raise UsageError(f"--models {m}: {why}")
            check_device(self.device, lib)

    def default_preset(self) -> str:
        return "fast" if self.synthetic else PAPER_PRESET.get(self.dataset, "bruch-web30k")

    @property
    def spec(self) -> BruchStudy:
        """The study's :class:`BruchStudy` (a configuration of no registered study: noise-free)."""
        exp = self.study
        return exp.spec if exp is not None and isinstance(exp.spec, BruchStudy) else BruchStudy()

    @property
    def boosting(self):
        b = preset(self.preset, rounds=self.rounds)
        return b if self.early_stopping else b.replace(early_stopping=None)

    def as_paper(self) -> list[str]:
        return notes.as_paper(self, PAPER_PRESET.get(base_dataset(self.dataset)))

    def choices(self) -> list[str]:
        return notes.choices(self)

    def deviations(self) -> list[str]:
        return notes.deviations(self, super().deviations(), PAPER_PRESET.get(base_dataset(self.dataset)))


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
    key = (ctx.data["path"], unit.setting_text)
    if key not in _SIZES:
        cfg = ctx.cfg
        ds = DataRef(**ctx.data).open()
        probe = type(unit)(unit.experiment, unit.dataset, 0, unit.model, unit.setting, unit.seed)
        split = trial_split(ds.n_queries, unit.seed, 0)
        train, _ = transform_train(probe, ds.subset(split.train), cfg)
        valid, _ = transform_valid(probe, ds.subset(split.valid), cfg)
        _SIZES[key] = float(train.n_docs + valid.n_docs)
    return _SIZES[key]


def unit_fn(unit, ctx):
    cfg = ctx.cfg
    ds = DataRef(**ctx.data).open()
    split = trial_split(ds.n_queries, unit.seed, unit.trial)
    system = cfg.system(unit.model)
    boosting, over, tuned = tuning.tuned_boosting(unit, ctx, system, cfg.boosting)     # --tune: its search's values
    trainer = system.trainer(boosting, library=cfg.library, seed=unit.model_seed(), threads=ctx.threads,
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
    record = UnitRecord.of(system, {m: r.mean for m, r in res.items()}, scores=scores,
                           log=f"ndcg@5={res[NDCG5].mean:.4f} trees={fitted.best_iteration}",
                           library=system.resolve_library(cfg.library),
                           fit={"best_iteration": fitted.best_iteration, "n_trees": fitted.n_rounds},
                           timings={"train_s": fitted.train_s},
                           fields={"n_dropped": max(r.n_dropped for r in res.values()),
                                   "valid_curve": fitted.valid_curve, "sizes": fitted.info, "params": fitted.params,
                                   "transform": {**info, **vinfo}, **tuned})
    arrays = {f"test:{m}": r.per_query.astype(np.float32) for m, r in res.items()}
    arrays["test:qid"] = test.query_ids
    arrays.update(test_arrays(scores, test))                # the TREC run (ltrrepro.trec)
    return record, arrays

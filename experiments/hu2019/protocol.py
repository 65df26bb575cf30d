"""Hu et al. (2019)'s simulated-click protocol (docs/protocols/debiasing.md): the typed
configuration with every default, the arms, the units and the unit function.

A unit (trial t, setting, arm): trial t's 60/20/20 query split; the trial's and share's logging
ranker and click log (:mod:`.protocol_clicks`; the setting's stream, shared by the arms: a paired
design); the arm's system trains on the sessions (the skyline on the training lists' expert
labels) for the preset's rounds; the test lists' expert labels give NDCG@1/3/5/10. The record
keeps the click-log statistics, the logger's test NDCG, the true examination curve and the
position biases the arm learned.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from experiments import shared_fields
from experiments.config import RunConfig
from experiments.hu2019 import protocol_arms as fv
from experiments.hu2019.protocol_arms import ARMS, SWEEP_ARMS, Arm, ulm_arm  # noqa: F401 - the study's arms, read here
from experiments.options import option
from experiments.values import MAX_SESSIONS
from experiments.hu2019 import notes, paper
from experiments.errors import UsageError
from experiments.hu2019.protocol_clicks import (CURVE_POSITIONS, LOGGERS, STREAM_LOGGER, click_log, logging_ranker,
                                                true_curve)
from ltrrepro.clicks import CLICK_MODELS, NO_CLICK
from ltrrepro.fit import SYSTEMS, system_for
from ltrrepro.fit.backends import custom_objective_libraries
from ltrrepro.fit.plugins import plugin_label
from ltrrepro.fit.ranking import on_clicks
from ltrrepro.fit.boosting import PRESETS, preset
from ltrrepro.metrics import canonical, evaluate
from ltrrepro.objectives.debiasing import VARIANTS
from ltrrepro.runner import STREAM_MODEL, DataRef, Unit, UnitRecord, unit_seed
from ltrrepro.splits import trial_split

EXPERIMENT = "debiasing"
TEST_METRICS = tuple(canonical(m) for m in ("ndcg@1", "ndcg@3", "ndcg@5", "ndcg@10"))
NDCG10 = TEST_METRICS[3]
#: the synthetic default's logger share (a logger of the paper's quality relative to the skyline) and
#: its logger-quality sweep, from near random to the skyline's quality: docs/protocols/debiasing.md §4
SYNTHETIC_SHARE = 0.3
SYNTHETIC_SWEEP_SHARE = (0.02, 0.1, 1.0)


#: the setting's fields, in unit-key order
SETTING = ("sessions", "eta", "share", "click")


@dataclass(frozen=True)
class DebiasingConfig(RunConfig):
    """The study's settings (docs/protocols/debiasing.md), by default the authors' generator's
    (docs/protocols/debiasing.md §2): the whole list shown (``k`` 0; or its top ``k``), examination from the
    eye-tracking table (``curve``), a session without a click re-drawn (``no_click``), a Ranking
    SVM logger (``logger``). The default point: ``sessions`` per query, examination exponent
    ``eta``, the logging ranker's labelled ``share`` of the training queries, ``click_model``;
    each sweep varies one of them over ``sweep_*`` (the default value always joins its curve)
    for the ``sweep_models``. ``ulm``: the harness's Unbiased LambdaMART's settings (:data:`ltrrepro.
    objectives.debiasing.VARIANTS`); ``bias_p``: its bias regularization p, None for the variant's."""

    library: str = shared_fields.library()
    preset: str = shared_fields.preset()
    rounds: int | None = shared_fields.rounds()
    models: tuple = shared_fields.models(tuple(ARMS), ARMS, what="arm")
    sweep_models: tuple = option(SWEEP_ARMS, flag="--sweep-models", parse=fv.arms, help="the arms of the sweeps")
    k: int = option(0, flag="--k", parse=fv.shown,      # 0: every document (the authors' generator)
                    help="documents shown per query: all (default, the authors' generator) or a number")
    sessions: int = option(paper.SESSIONS, flag="--sessions", bounds=(1, MAX_SESSIONS),
                           help="sessions per query (the authors' generator)")
    eta: float = option(paper.ETA, flag="--eta", help="position-bias severity: examination^eta")
    share: float = option(SYNTHETIC_SHARE, flag="--share", parse=fv.share,
                          help=f"the logging ranker's labelled share of the training queries (default "
                               f"{SYNTHETIC_SHARE:g} on synthetic data, the paper's {paper.LOGGER_SHARE:g} on real "
                               f"data)")
    click_model: str = option("pbm", flag="--click-model", choices=("pbm", "cascade"), help="")
    curve: str = option("eyetracking", flag="--curve", choices=("inverse", "eyetracking"),
                        help="examination curve: Ai et al.'s eye-tracking table^eta, past 10 the 10th value (default), "
                             "or (1/r)^eta")
    no_click: str = option("redraw", flag="--no-click", choices=NO_CLICK,
                           help="a session without a click: redraw it until it has one (default, the authors' "
                                "generator) or drop it")
    logger: str = option("svm", flag="--logger", choices=LOGGERS,
                         help="the logging ranker: svm (a linear Ranking SVM, default, as the papers) or lambdamart")
    ulm: str = option("authors", flag="--ulm", choices=tuple(VARIANTS),
                      help="the harness's Unbiased LambdaMART: authors (Hu et al.'s released code, default), "
                           "lambdarank_unbiased (XGBoost's settings) or equations (the paper's as written)")
    eps_plus: float = option(paper.EPS_PLUS, flag="--eps-plus", help="click probability of the top grade")
    eps_minus: float = option(paper.EPS_MINUS, flag="--eps-minus", help="click probability of grade 0")
    bias_p: float | None = option(None, flag="--bias-p", help="Unbiased LambdaMART's bias regularization p "
                                                              "(default: the --ulm variant's)")
    logger_rounds: int = 20
    sweep_sessions: tuple = option((4, 64), flag="--sweep-sessions", parse=fv.ints("--sweep-sessions"),
                                   bounds=(1, MAX_SESSIONS), help="sessions sweep values")
    sweep_eta: tuple = option((0.5, 2.0), flag="--sweep-eta", parse=fv.floats("--sweep-eta"), help="eta sweep values")
    sweep_share: tuple = option(SYNTHETIC_SWEEP_SHARE, flag="--sweep-share", parse=fv.floats("--sweep-share"),
                                help="logger share sweep values")
    sweep_click: tuple = option(("cascade",), flag="--sweep-click", parse=fv.names,
                                help="click-model sweep values (cascade)")
    plugins: tuple = option((), added=True)     # ((unit name, spec), ...), set by --models: arms of your objectives

    def __post_init__(self):
        if not self.preset:
            object.__setattr__(self, "preset", "fast" if self.synthetic else "bruch-yahoo")
        super().__post_init__()
        if self.library not in custom_objective_libraries():
            raise UsageError(f"--library: one that trains ltrrepro's objectives ({', '.join(custom_objective_libraries())}), "
                             f"not {self.library!r}")
        if self.preset not in PRESETS:
            raise UsageError(f"unknown preset {self.preset!r}; known: {', '.join(PRESETS)}")
        self.check_plugins()                        # imported and checked: a broken one is one line now
        for name in (*self.models, *self.sweep_models):
            if name not in ARMS and name not in dict(self.plugins):
                raise UsageError(f"--models: unknown arm {name!r}; known: {', '.join(ARMS)}, or a plug-in "
                                 f"package.module:Name(k=v)")
        if not self.models:
            raise UsageError("--models is empty: name at least one arm")
        sessions = (self.sessions, *self.sweep_sessions)
        shares = (self.share, *self.sweep_share)
        if not (self.k == 0 or self.k >= 2) or min(sessions) < 1 or self.logger_rounds < 1:
            raise UsageError("--k >= 2 (or all), --sessions >= 1 (every sweep value too), logger rounds >= 1")
        if self.no_click not in NO_CLICK:
            raise UsageError(f"--no-click: one of {', '.join(NO_CLICK)}, not {self.no_click!r}")
        if self.logger not in LOGGERS:
            raise UsageError(f"--logger: one of {', '.join(LOGGERS)}, not {self.logger!r}")
        if self.ulm not in VARIANTS:
            raise UsageError(f"--ulm: one of {', '.join(VARIANTS)}, not {self.ulm!r}")
        if not all(0 < s <= 1 for s in shares):
            raise UsageError(f"--share and --sweep-share in (0, 1], got {shares}")
        if not all(e >= 0 for e in (self.eta, *self.sweep_eta)):
            raise UsageError("--eta and --sweep-eta must be >= 0")
        if not all(c in CLICK_MODELS for c in (self.click_model, *self.sweep_click)):
            raise UsageError(f"--click-model / --sweep-click: {', '.join(CLICK_MODELS)}")
        if self.curve not in ("inverse", "eyetracking"):
            raise UsageError(f"--curve: inverse or eyetracking, not {self.curve!r}")
        if not 0 <= self.eps_minus <= self.eps_plus <= 1 or (self.bias_p is not None and self.bias_p < 0):
            raise UsageError("need 0 <= --eps-minus <= --eps-plus <= 1 and --bias-p >= 0")

    def check_device(self) -> None:
        """The libraries the arms need are installed, LightGBM's position field too (>= 4.1)."""
        from ltrrepro.fit import BACKENDS
        libs = {self.arm_library(m) for m in self.all_models}
        for lib in libs:
            if why := BACKENDS[lib].missing():
                raise UsageError(f"--models: {why}")
        for m in self.all_models:
            system = self.system(m)
            if system.options.position == "dataset" and (why := BACKENDS[self.arm_library(m)].position_missing()):
                raise UsageError(f"arm {m}: {why}, or drop it from --models/--sweep-models")

    def arm(self, model: str) -> Arm:
        """The arm of ``model``: a study arm, or a plug-in trained on the clicks (in ``--library``)."""
        return ARMS[model] if model in ARMS else Arm(model, plugin_label(dict(self.plugins)[model]))

    def system(self, model: str):
        """The system an arm trains (a plug-in through :func:`ltrrepro.fit.ranking.on_clicks`)."""
        arm = self.arm(model)
        return SYSTEMS[arm.system] if arm.system in SYSTEMS else on_clicks(system_for(model, self.plugins))

    @property
    def all_models(self) -> tuple:
        return tuple(dict.fromkeys((*self.models, *self.sweep_models)))

    def arm_library(self, model: str) -> str:
        """The library an arm trains in: its own pin, its system's, else ``--library``."""
        return self.arm(model).library or self.system(model).resolve_library(self.library)

    @property
    def boosting(self):
        return preset(self.preset, rounds=self.rounds or (60 if self.synthetic else None)).replace(early_stopping=None)

    @property
    def shown(self) -> int | None:
        """Documents shown per query: ``k``, or None for every document."""
        return self.k or None

    def ulm_kwargs(self, update: bool = True) -> dict:
        """The harness's Unbiased LambdaMART's keyword arguments: the ``ulm`` variant's, p from
        ``bias_p`` if given, ``update`` (False: ``ulm_off``); ``lambdarank_unbiased``'s list
        normalization as the preset gives the study's XGBoost arm, so the two are set alike."""
        kw = dict(VARIANTS[self.ulm][1])
        if self.ulm == "lambdarank_unbiased":
            kw["list_norm"] = bool(self.boosting.lambdarank_norm)
        if self.bias_p is not None:
            kw["p"] = float(self.bias_p)
        return {**kw, "update": False} if not update else kw

    @property
    def default_setting(self) -> tuple:
        return (("sessions", self.sessions), ("eta", self.eta), ("share", self.share), ("click", self.click_model))

    def as_paper(self) -> list[str]:
        return notes.as_paper(self)

    def choices(self) -> list[str]:
        return notes.choices(self)

    def deviations(self) -> list[str]:
        return notes.deviations(self, super().deviations())


def settings(cfg: DebiasingConfig) -> list[tuple[tuple, tuple]]:
    """``(setting, models)`` of every unit group: the default point with every arm, each sweep
    value with the sweep arms, and the corner of the fewest sessions and the strongest logger
    (the reproducibility study's case) with naive λMART and Unbiased LambdaMART."""
    base = dict(cfg.default_setting)
    out = {cfg.default_setting: tuple(cfg.models)}

    def add(setting, models):
        key = tuple(setting.items())
        out[key] = tuple(dict.fromkeys((*out.get(key, ()), *models)))

    for field, values in (("sessions", cfg.sweep_sessions), ("eta", cfg.sweep_eta), ("share", cfg.sweep_share),
                          ("click", cfg.sweep_click)):
        for v in values:
            add({**base, field: v}, cfg.sweep_models)
    ulm = ulm_arm(cfg.library)
    add({**base, "sessions": min((cfg.sessions, *cfg.sweep_sessions)), "share": max((cfg.share, *cfg.sweep_share))},
        ("naive", ulm))
    return list(out.items())


def build_units(cfg: DebiasingConfig) -> list[Unit]:
    return [Unit(EXPERIMENT, cfg.unit_dataset, t, m, s, seed=cfg.seed)
            for t in range(cfg.trials) for s, models in settings(cfg) for m in models]


def _fit(system, library: str, data, side: dict, cfg, seed, threads: int, update: bool = True):
    """Train ``system`` on ``data`` (with the rows' ``side``: positions, propensities); Unbiased
    LambdaMART with the configuration's variant (:meth:`DebiasingConfig.ulm_kwargs`)."""
    more = {"objective_kwargs": tuple(cfg.ulm_kwargs(update).items())} if system.name == "unbiased_lambdamart" else {}
    trainer = system.trainer(cfg.boosting, library=library, seed=seed, threads=threads, **more)
    trainer.add_train(data, **side)
    return trainer.fit()


def unit_fn(unit, ctx):
    cfg, threads = ctx.cfg, ctx.threads
    ds = DataRef(**ctx.data).open()
    split = trial_split(ds.n_queries, unit.seed, unit.trial)
    train = ds.subset(split.train)
    arm, lib, system = cfg.arm(unit.model), cfg.arm_library(unit.model), cfg.system(unit.model)
    s = unit.settings
    logger = logging_ranker(train, float(s["share"]), cfg,
                            unit_seed(unit.seed, unit.trial, STREAM_LOGGER, f"share={s['share']}"), threads)
    log = click_log(unit, train, cfg, int(ds.y.max(initial=1)), threads, logger)
    info: dict = {}
    if arm.data == "labels":
        data, side = train, {}
    else:
        data, side = log.sessions_dataset(train)
        if arm.propensity == "estimated":       # the ltrrepro Unbiased LambdaMART's t⁺^{1+p}, same sessions
            est = _fit(SYSTEMS["unbiased_lambdamart"], lib, data, side, cfg,
                       unit_seed(unit.seed, unit.trial, STREAM_MODEL, unit.setting_text, "estimator"), threads)
            theta = np.asarray(est.info["biases"]["propensity"])
            side = {**side, "propensity": theta[np.minimum(side["position"], theta.size - 1)]}
            info["estimator"] = est.info["biases"]
    fitted = _fit(system, lib, data, side if arm.data == "clicks" else {}, cfg, unit.model_seed(), threads, arm.update)
    del data
    test = ds.subset(split.test)
    scores = fitted.scores(test.X)
    res = evaluate(scores, test.y, test.offsets, TEST_METRICS)
    logged = evaluate(logger(test.X), test.y, test.offsets, (NDCG10,))[NDCG10].mean
    record = UnitRecord.of(system, {m: r.mean for m, r in res.items()},
                           log=f"ndcg@10={res[NDCG10].mean:.4f} sessions={log.session_query.size}", library=lib,
                           scores=scores,                                  # its fingerprint: the identical-models guard
                           fit={"best_iteration": fitted.best_iteration, "n_trees": fitted.n_rounds},
                           timings={"train_s": fitted.train_s},
                           info={k: v for k, v in fitted.info.items() if k != "biases"},
                           fields={"n_dropped": max(r.n_dropped for r in res.values()),
                                   "clicks": log.stats(CURVE_POSITIONS), "logger": {NDCG10: float(logged)},
                                   "true_curve": true_curve(log, CURVE_POSITIONS),
                                   "biases": fitted.info.get("biases", info.get("estimator")), **info})
    arrays = {f"test:{m}": r.per_query.astype(np.float32) for m, r in res.items()}
    arrays["test:qid"] = test.query_ids
    return record, arrays


def train_size(unit, ctx) -> float:
    """What a unit's cost scales with: its sessions per query (the skyline: one list per query)."""
    return 1.0 if ctx.cfg.arm(unit.model).data == "labels" else float(unit.settings["sessions"])

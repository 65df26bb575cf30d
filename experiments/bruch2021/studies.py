"""Bruch (2021)'s five studies as :class:`~experiments.registry.Experiment` records: their
configurations (each field's flag declared by :class:`~.protocol.BruchConfig`), units, facts
and reports (the unit itself is :func:`.protocol.unit_fn`, Figure 1's
:func:`.protocol_jensen_gap.unit_fn`; the reports are the pure builders of :mod:`.report` and
its parts, given the run's frame and stored configuration)."""
from __future__ import annotations

import dataclasses
from functools import partial

from experiments import analysis as an
from experiments.bruch2021 import protocol_jensen_gap as jensen_gap
from experiments.bruch2021 import notes
from experiments.bruch2021 import report_figure1 as figure1
from experiments.bruch2021 import report_figure2 as figure2
from experiments.bruch2021 import report_across, report_noise, report_table1
from experiments.bruch2021.protocol import (BruchConfig, BruchStudy, paper_reference, train_size, transform_train,
                                            transform_valid, unit_fn)
from experiments.registry import Across, Experiment, register
from ltrrepro.datasets import is_synthetic
from ltrrepro.runner import DataRef, Unit
from ltrrepro.splits import trial_split
from experiments.bruch2021.report_table1 import tuned_claims
from experiments.bruch2021.report import model_name
from experiments.tuning import Search

def tuning_parts(unit, ctx):
    """A search's (training, validation) parts (``--tune``, :class:`experiments.tuning.Search`):
    the trial's split transformed as ``unit``'s data setting (clicks, say), never its test part."""
    cfg = ctx.cfg
    ds = DataRef(**ctx.data).open()
    split = trial_split(ds.n_queries, unit.seed, unit.trial)
    return transform_train(unit, ds.subset(split.train), cfg)[0], transform_valid(unit, ds.subset(split.valid), cfg)[0]



#: what a system's search needs (``--tune``): the trial's split transformed as the unit's first setting,
#: the configuration's boosting and device, NDCG@5 on validation (:mod:`experiments.tuning`)
SEARCH = Search(parts=tuning_parts, base=lambda cfg, model: cfg.boosting,
                options=lambda cfg, model: {"device": cfg.device}, metric="ndcg@5",
                words=dataclasses.replace(notes.TUNING, name_of=model_name))
#: Table 1's: at the paper's settings and tuned, the tuned claims beside the paper-settings ones
SEARCH_TABLE1 = dataclasses.replace(SEARCH, keep_fixed=True, words=dataclasses.replace(SEARCH.words, replaces=notes.TUNING_TABLE1.replaces),
                                    twin=tuned_claims)

PAPER = "bruch2021"
#: the configuration's fields of Figure 4's clicks, and with the noise types and levels, of Figure 3's
#: noise: no flag in the studies that train on clean labels (every other field of :class:`BruchConfig`
#: declares its flag)
CLICK_FIELDS = ("impressions", "click_model", "eta")
NOISE_FIELDS = ("noise", "levels", *CLICK_FIELDS)
PAPER_MODELS, BASELINES = report_table1.PAPER_MODELS, report_table1.BASELINES
NOISE_MODELS = figure2.MODELS                         # λMART and XE_NDCG MART
#: the datasets the cross-dataset reports of Table 1 and Figure 3 compare: one Web30K and one Yahoo run
#: (synthetic profiles count)
ACROSS_PROFILES = frozenset({"web30k", "yahoo"})


def _default(experiment: str, trials: int, models, **fields) -> BruchConfig:
    """A study's complete default: the synthetic Web30K profile at 400 queries, ``trials`` trials."""
    return BruchConfig(experiment=experiment, queries=400, trials=trials, models=tuple(models), **fields)


def _on_data(real_trials: int):
    """The fields whose default differs on a real dataset: the paper's trials, its preset, no synthetic size."""
    def data_defaults(dataset: str) -> dict:
        return {} if is_synthetic(dataset) else {"queries": None, "preset": "", "trials": real_trials}
    return data_defaults


def _units(cfg: BruchConfig, settings, models=None) -> list[Unit]:
    """Every (trial, setting, model) unit; the models of a trial share its split."""
    return [Unit(cfg.experiment, cfg.unit_dataset, t, m, s, seed=cfg.seed)
            for t in range(cfg.trials) for s in settings for m in (models or cfg.models)]


# ------------------------------------------------------------------------ Table 1: quality
register(Experiment(
    name="quality", paper=PAPER, title="Bruch Table 1: ranking quality of ListNet, λMART and XE_NDCG MART",
    doc="""Bruch Table 1: ranking quality of ListNet, λMART and XE_NDCG MART, with library baselines.

    python -m experiments.quality [--dataset web30k --data-dir DIR] [--trials 100] [--library lightgbm]

Models (all on the same split of each trial): ListNet and XE_NDCG MART (ltrrepro's
objectives, Neumann order 2), λMART (the library's LambdaMART: LightGBM ``lambdarank`` with
σ = 1 and ``lambdarank_norm=false``, or XGBoost ``rank:ndcg``), and the library baselines
LightGBM ``rank_xendcg`` and XGBoost ``rank:ndcg``. Early stopping on validation NDCG@5
(queries without a relevant document dropped), 50 rounds, at most 500 trees with the paper's
presets. Reports mean test NDCG@1/3/5/10 over trials, paired t-tests of every pair of the
paper's models on NDCG@5 and @10 (α = 0.01, Holm across the comparisons also given), the
paper's numbers side by side for Web30K and Yahoo, and the claims check
"XE_NDCG MART > λMART > ListNet on NDCG@5 and @10".""",
    config_cls=BruchConfig, unflagged=NOISE_FIELDS,
    units=lambda cfg: _units(cfg, [(("noise", "none"),)]), unit_fn=unit_fn, build=report_table1.build,
    frame=partial(an.frame, arrays=report_table1.ARRAYS, fields=("tuned",)), size_of=train_size,
    tuning=SEARCH_TABLE1, paper_trials=100, keeps_rankings=True,
    across=Across(report_across.build_table1, ACROSS_PROFILES, paper_reference), spec=BruchStudy(),
    default=lambda: _default("quality", 5, (*PAPER_MODELS, *BASELINES)), data_defaults=_on_data(100)))


# ------------------------------------------------------------------------ Figure 2: convergence
register(Experiment(
    name="convergence", paper=PAPER, title="Bruch Figure 2: validation NDCG@5 against the number of trees",
    doc="""Bruch Figure 2: validation NDCG@5 against the number of trees, λMART vs XE_NDCG MART.

    python -m experiments.convergence [--dataset web30k --data-dir DIR] [--trials N]

Each model is trained to the preset's maximum number of trees with early stopping switched
off, so every curve covers the whole range (the curve of a model selected by early
stopping is the prefix of this one). The figure shows one representative trial (the trial
whose final difference is the median one) and the mean over trials with a 95% band.
Claim checked: XE_NDCG's lead is larger when the ensemble is small — the per-trial lead at
10% of the trees minus the lead at the end, paired t-test. ``--models`` adds other ranking
systems (library baselines such as catboost_yetirank): their mean curves join the figure's
right panel and the table.""",
    config_cls=BruchConfig, unflagged=(*NOISE_FIELDS, "baseline"),
    units=lambda cfg: _units(cfg, [(("noise", "none"),)]), unit_fn=unit_fn, build=figure2.build,
    frame=partial(an.frame, fields=(*figure2.FIELDS, "tuned")), size_of=train_size,
    tuning=SEARCH, paper_trials=1, keeps_rankings=True, spec=BruchStudy(full_curves=True),
    default=lambda: _default("convergence", 4, NOISE_MODELS, early_stopping=False), data_defaults=_on_data(100)))


# ------------------------------------------------------------------------ Figure 3: robustness
def _robustness_units(cfg: BruchConfig) -> list[Unit]:
    """Level 0 is one setting shared by the noise types; then each noise type's levels."""
    settings = [(("noise", "none"), ("level", 0))] if 0 in cfg.levels else []
    for n in cfg.noise:
        settings += [(("noise", n), ("level", lv)) for lv in cfg.levels if lv != 0]
    return _units(cfg, settings)


register(Experiment(
    name="robustness", paper=PAPER, title="Bruch Figure 3: robustness of λMART and XE_NDCG MART to noise",
    doc="""Bruch Figure 3a–d: robustness of λMART and XE_NDCG MART to noise in the training data.

    python -m experiments.robustness [--dataset web30k --data-dir DIR] [--noise documents,labels]
                                     [--levels 0,20,40,60,80,100] [--trials N] [--jobs J]

``--noise documents``: every training list grows by LEVEL % with documents sampled from
other training lists, labelled 0. ``--noise labels``: LEVEL % of each training list's labels
are redrawn with probabilities .5/.2/.15/.1/.05 for 0–4. Validation and test data are
untouched (Bruch 2021 §5.4; docs/protocols/bruch2021.md §6). Level 0 is one shared setting.
Both models of a trial see the same split and the same noisy data (paired design); λMART is
the library's LambdaMART (LightGBM ``lambdarank``, σ = 1, no normalization; XGBoost
``rank:ndcg`` with ``--library xgboost``) and XE_NDCG MART is ltrrepro's objective.

Writes, under the results directory: ``tables/robustness.{md,tex,csv}`` (mean NDCG@5 per
model and level, the difference, its 95% CI, paired t-test p, Holm-corrected p over the
levels of a noise type, wins/ties/losses), ``figures/fig3_<noise>.{png,pdf}`` and the
claims check ``claims.{md,json}``. With no arguments it runs on the synthetic Web30K
profile at a size that finishes in about 3–4 minutes on 2 cores (the README's main job).""",
    config_cls=BruchConfig, unflagged=CLICK_FIELDS, units=_robustness_units, unit_fn=unit_fn,
    build=partial(report_noise.build, outputs=report_noise.FIGURE3),
    frame=partial(an.frame, fields=("tuned",)), size_of=train_size, tuning=SEARCH, paper_trials=100,
    keeps_rankings=True, across=Across(report_across.build_figure3, ACROSS_PROFILES, paper_reference),
    spec=BruchStudy(noises=("documents", "labels"), levels="percent"),
    default=lambda: _default("robustness", 6, NOISE_MODELS, noise=("documents", "labels"),
                             levels=(0, 20, 40, 60, 80, 100)), data_defaults=_on_data(100)))


# ------------------------------------------------------------------------ Figure 4: clicks
register(Experiment(
    name="clicks", paper=PAPER, title="Bruch Figure 4: λMART vs XE_NDCG MART trained on simulated clicks",
    doc="""Bruch Figure 4 (appendix E): λMART vs XE_NDCG MART trained on simulated cascade clicks.

    python -m experiments.clicks [--dataset web30k --data-dir DIR] [--levels 0.05,0.1,...] [--trials 20]

Per trial: the 60/20/20 split; every training and validation list is turned into 10
impressions of a persistent cascade user over a random shuffle (click probabilities
(C, .3, .5, .7, .95) for labels 0–4; a scan without a click gives no impression); models
are trained and early-stopped on clicks and evaluated on the original test labels. The
level C is the label-0 click probability, from .05 in steps of .05 (Bruch 2021 appendix E;
docs/protocols/bruch2021.md §6; 20 trials on real data). Claim checked: XE_NDCG is more
robust to click noise (the per-trial slope of the NDCG@5 difference against C is positive).""",
    config_cls=BruchConfig, unflagged=("noise",),
    units=lambda cfg: _units(cfg, [(("noise", "clicks"), ("level", c)) for c in cfg.levels]),
    unit_fn=unit_fn, build=partial(report_noise.build, outputs=report_noise.FIGURE4),
    frame=partial(an.frame, fields=("tuned",)), size_of=train_size, tuning=SEARCH,
    paper_trials=20, keeps_rankings=True, spec=BruchStudy(noises=("clicks",), levels="probability"),
    default=lambda: _default("clicks", 4, NOISE_MODELS, noise=("clicks",), levels=(0.05, 0.1, 0.15, 0.2, 0.25, 0.3)),
    data_defaults=_on_data(20)))


# ------------------------------------------------------------------------ Figure 1: Jensen gap
register(Experiment(
    name="jensen_gap", paper=PAPER, title="Bruch Figure 1: the effect of γ on the Jensen gap of XE_NDCG's bound",
    doc="""Bruch Figure 1: the effect of γ on the Jensen gap of XE_NDCG's bound.

    python -m experiments.jensen_gap [--lists 10] [--draws 1000] [--docs 100] [--probs .5,.25,.15,.07,.03]

Each simulated training example has m documents with scores drawn from U[0, 1] and labels
0–4 drawn with decreasing probabilities (the paper gives none: ``--probs``, recorded). For
each example, ``--draws`` vectors γ ~ U[0,1]^m define φ_r = (2^{y_r} − γ_r)/Σ_j(2^{y_j} − γ_j);
with ρ = softmax(f) the Jensen gap is  log Σ_r φ_r ρ_r − Σ_r φ_r log ρ_r  (≥ 0 by Jensen).
One cloud per example; the gap at γ = 0 is marked. Each example is one unit (its own
seeded generator), so the figure can be rebuilt from stored results.""",
    config_cls=jensen_gap.JensenConfig,
    units=lambda cfg: [Unit("jensen_gap", "simulated", i, "list", seed=cfg.seed) for i in range(cfg.trials)],
    unit_fn=jensen_gap.unit_fn, reads_data=lambda cfg: False, build=figure1.build,
    frame=partial(an.frame, fields=figure1.FIELDS, arrays=figure1.ARRAYS),
    default=lambda: jensen_gap.JensenConfig(experiment="jensen_gap", trials=10)))

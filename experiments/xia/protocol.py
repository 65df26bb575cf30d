"""Xia et al.'s protocol (docs/protocols/xia.md): configuration, folds and the unit of
Tables 2/3 and Figure 2.

A unit's ``model`` is a system of :mod:`ltrrepro.fit.xia` (``mcrank-se``, ``mcrank-ole``,
``lambdamart-se``, ``lambdamart-ole``, ``lambdamart-rwse``, all in ltrrepro.gbdt), its
setting the leaf count and learning rate. Every run boosts a fixed number of rounds from zero
scores (no early stopping: the paper reports the last iteration), trees grown ``growth``
(width-first, the paper's) with leaves set by ``leaf_rule`` (diagonal: Eq. 8, the paper's SE
baseline) in every arm, min 20 documents per leaf. **The leaf arm** (``leaf_arm``, on by
default): one more LambdaMART OLE arm grown with the other leaf rule (:data:`PARTNER_RULE`:
exact leaves beside a ``diagonal`` run, Eq. 8 leaves beside an ``own`` run; its units carry
the setting ``leaf_rule``), so that the final loss splits into the split-principle effect under
one common Eq. 8 rule, the leaf-rule effect (OLE splits, exact against Eq. 8 leaves) and their
sum, ``own`` (:mod:`.claims_leaf`). A plug-in loss is an arm too:
``<key>-se`` / ``-rwse`` (and ``-ole`` when the objective exposes the pair structure of its
Hessian), grown by the same tree learner for LambdaMART's number of rounds
(:func:`ltrrepro.fit.system_for`; ``--models ...,package.module:Name(k=v)-se``).

**Data.** MSLR-WEB10K/30K and LETOR: the five official folds (train → test), read by the
units themselves (the pooled dataset is never loaded); Yahoo Set 1: three self-made random
60/20/20 query splits of set1 (train → test); synthetic (default): Web10K-shaped data, three
random splits.

**Reported.** Test NDCG@1/3/10 (gain 2^y − 1, queries without a relevant document dropped)
and ERR (g_max = 4) at the last round and every ``every`` rounds (Figure 2), the final
training objective loss, the wall time and the leaves per tree (``leaves_per_tree``: mean, min, max,
trees below the leaf limit); per query, the test metrics at the last round (the unit's arrays
``test:<metric>``, ``test:qid``).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from experiments.errors import UsageError
from experiments import shared_fields
from experiments.config import RunConfig
from experiments import tuning
from experiments.options import option
from experiments.values import bounded_int, parse_levels
from experiments.xia import notes
from experiments.xia.paper import PAPER_ROUNDS
from ltrrepro.datasets import REGISTRY, has_folds, load_fold
from ltrrepro.fit import SYSTEMS, Boosting, system_for
from ltrrepro.fit.xia import GROWTH, LEAF_RULES, SPLIT_RULES, GBDTOptions, arm
from ltrrepro.fit.xia import PRINCIPLES as ARM_PRINCIPLES
from ltrrepro.metrics import canonical, evaluate
from ltrrepro.runner import DataRef, Unit, UnitRecord
from ltrrepro.splits import trial_split
from ltrrepro.tuning import TUNED

EXPERIMENT = "split_principles"
PRINCIPLES = {"mcrank": ("se", "ole"), "lambdamart": ("se", "ole", "rwse")}
MODELS = tuple(arm(s, p) for s, ps in PRINCIPLES.items() for p in ps)
LEAVES = (10, 20)
RATES = (0.06, 0.10, 0.12)
METRICS = tuple(canonical(m) for m in ("ndcg@1", "ndcg@3", "ndcg@10", "err"))
#: the leaf rule of the leaf arm (LambdaMART OLE) by the run's ``--leaf-rule``: the one its OLE
#: arm lacks among Eq. 8 (``diagonal``) and Eq. 11's exact step; None under ``exact``, whose SE
#: arms have no Eq. 8 leaves to decompose ``own`` against
PARTNER_RULE = {"diagonal": "exact", "own": "diagonal", "exact": None}
#: the system with a leaf arm (McRank's loss is derivative additive: its leaf rules coincide)
LEAF_ARM_SYSTEM = "lambdamart"


def _rounds(text: str) -> tuple:
    """``--rounds N``: N rounds for each system."""
    n = bounded_int(*shared_fields.ROUNDS)(text)
    return tuple((system, n) for system in PAPER_ROUNDS)


@dataclass(frozen=True)
class XiaConfig(RunConfig):
    """Xia's settings: ``rounds`` per system ((system, rounds), ...), the leaf counts and
    learning rates of the grid, the curve resolution ``every``."""

    models: tuple = shared_fields.models(MODELS, MODELS, suffixes=ARM_PRINCIPLES)
    rounds: tuple = option(tuple(PAPER_ROUNDS.items()), flag="--rounds", parse=_rounds, bounds=shared_fields.ROUNDS,
                           help="both systems' rounds (default: the paper's 1,000 LambdaMART / 2,500 McRank on real "
                                "data, 60 on synthetic data)")
    every: int = shared_fields.every(125, default_of=lambda v: max(1, max(dict(v["rounds"]).values()) // 20),
                                     help="curve resolution in rounds (default: a twentieth of the most rounds)")
    leaves: tuple = option(LEAVES, flag="--leaves", parse=lambda text: tuple(parse_levels(text, int, "--leaves")),
                           bounds=(1, 131_072), help="leaf counts of the grid")
    rates: tuple = option(RATES, flag="--rates", parse=lambda text: tuple(parse_levels(text, float, "--rates")),
                          help="learning rates of the grid")
    max_bin: int = option(255, bounds=(2, 65_535))
    min_data_in_leaf: int = option(20, bounds=(1, 10 ** 9))
    growth: str = option(GBDTOptions.growth, flag="--growth", choices=GROWTH,     # the tree learner's defaults,
                         help="tree growth: width-first (the paper's, default) or best-first (LightGBM's)")
    leaf_rule: str = option(GBDTOptions.leaf_rule, flag="--leaf-rule", choices=LEAF_RULES,  # declared by its options
                            help="leaf values: diagonal (Eq. 8, default) or exact (pairs inside a leaf removed from its "
                                 "second derivative) in every arm, or own (Eq. 8 for SE/RWSE, Eq. 11's exact step for "
                                 "OLE)")
    split_rule: str = option(GBDTOptions.split_rule, flag="--split-rule", choices=SPLIT_RULES, added=True,
                             help="when a node splits: leaf-limit (default, the paper's: exact OLE splits to the leaf "
                                  "limit whatever its gain's sign) or positive-gain (gain > 0 only)")
    plugins: tuple = option((), added=True)     # ((unit name, spec), ...), set by --models: arms <key>-<principle>
    tune: int = shared_fields.tune()            # every arm tuned with N configurations (experiments.tuning)
    tune_on: str = shared_fields.tune_on()
    leaf_arm: bool = option(True, flag="--no-leaf-arm", added=True,
                            help="without the leaf arm (LambdaMART OLE under the other leaf rule beside a diagonal or "
                                 "own run): no leaf-rule effect and no decomposition of the loss claim")

    def __post_init__(self):
        super().__post_init__()
        bad = [m for m in self.models if m not in MODELS and m not in self.plugin_models(self.models)]
        if bad or not self.models:
            raise UsageError(f"--models: unknown system(s) {bad}; known: {', '.join(MODELS)}, and plug-in "
                             f"objectives package.module:Name(k=v)-<se|rwse|ole>")
        self.check_plugins(suffixes=ARM_PRINCIPLES)  # imported and checked (OLE without pairs: one line)
        self.check_arms()
        if any(lv < 2 for lv in self.leaves) or any(not 0 < r <= 1 for r in self.rates):
            raise UsageError("--leaves must be >= 2 and --rates in (0, 1]")
        if self.growth not in GROWTH:
            raise UsageError(f"--growth must be one of {', '.join(GROWTH)}, got {self.growth!r}")
        if self.leaf_rule not in LEAF_RULES:
            raise UsageError(f"--leaf-rule must be one of {', '.join(LEAF_RULES)}, got {self.leaf_rule!r}")
        if self.split_rule not in SPLIT_RULES:
            raise UsageError(f"--split-rule must be one of {', '.join(SPLIT_RULES)}, got {self.split_rule!r}")
        tuning.check(self)
        if self.fold_layout and self.trials > REGISTRY[self.dataset].n_folds:
            raise UsageError(f"{self.dataset} has {REGISTRY[self.dataset].n_folds} folds; --trials must be <= "
                             f"{REGISTRY[self.dataset].n_folds}")

    def check_arms(self) -> None:
        """Each plug-in arm can run under its principle with this run's leaf rule
        (:func:`ltrrepro.fit.plugins.check_arm`: ``--leaf-rule exact`` needs the pair structure
        in SE and RWSE arms too), one line now rather than every unit failing."""
        from ltrrepro.fit.plugins import check_arm, load_plugin
        from ltrrepro.fit.xia import arm_of

        specs = dict(self.plugins)
        for m in self.plugin_models(self.models):
            key, principle = arm_of(m) or (m, None)
            if key in specs and principle is not None:
                opts = load_plugin(specs[key]).options
                check_arm(specs[key], opts.objective(**dict(opts.objective_kwargs)), principle, self.leaf_rule)

    @property
    def fold_layout(self) -> bool:
        """The dataset comes in official folds (MSLR, LETOR): trial t trains and tests on fold t + 1."""
        return has_folds(self.dataset)

    def system(self, model: str):
        """The system of a unit's ``model``: McRank or LambdaMART under a principle, or a
        plug-in arm ``<key>-<principle>``."""
        return system_for(model, self.plugins)

    def rounds_of(self, model: str) -> int:
        """The boosting length of a model: its family's (a plug-in arm: LambdaMART's)."""
        return dict(self.rounds)[SYSTEMS[model].family if model in MODELS else "lambdamart"]

    def as_paper(self) -> list[str]:
        return notes.as_paper(self)

    def choices(self) -> list[str]:
        return notes.choices(self)

    def deviations(self) -> list[str]:
        return notes.deviations(self, super().deviations())

    @property
    def partner_rule(self) -> str | None:
        """The leaf rule of the leaf arm, or None when the run has none (``leaf_arm`` off, an
        ``exact`` run, no LambdaMART SE and OLE arms to decompose, or ``--tune``: each arm is
        tuned under the run's leaf rule, and a leaf arm would need a search of its own)."""
        arms = {arm(LEAF_ARM_SYSTEM, "se"), arm(LEAF_ARM_SYSTEM, "ole")}
        return (PARTNER_RULE[self.leaf_rule] if self.leaf_arm and not self.tune and arms <= set(self.models)
                else None)

    def boosting(self, unit) -> Boosting:
        return Boosting(learning_rate=float(unit.settings["lr"]), num_leaves=int(unit.settings["leaves"]),
                        min_data_in_leaf=self.min_data_in_leaf, max_bin=self.max_bin, rounds=self.rounds_of(unit.model))


def build_units(cfg: XiaConfig) -> list[Unit]:
    """Every (fold, model, leaves, learning rate) unit, then the leaf arm's: LambdaMART OLE with
    the setting ``leaf_rule`` = :attr:`XiaConfig.partner_rule` (when the run has one); with
    ``--tune``, one unit per (trial, arm) at its tuned values (:data:`SEARCH`, :mod:`experiments.tuning`)."""
    units = [Unit(EXPERIMENT, cfg.unit_dataset, t, m, (("leaves", lv), ("lr", lr)), seed=cfg.seed)
             for t in range(cfg.trials) for m in cfg.models for lv in cfg.leaves for lr in cfg.rates]
    rule, ole = cfg.partner_rule, arm(LEAF_ARM_SYSTEM, "ole")
    units += ([Unit(EXPERIMENT, cfg.unit_dataset, t, ole, (("leaves", lv), ("lr", lr), ("leaf_rule", rule)),
                    seed=cfg.seed) for t in range(cfg.trials) for lv in cfg.leaves for lr in cfg.rates]
              if rule else [])
    return units


def tuning_base(cfg: XiaConfig, model: str) -> Boosting:
    """The boosting a search (``--tune``) starts from: the grid's first cell, the run's leaf size,
    bins and the arm's rounds."""
    return Boosting(learning_rate=float(cfg.rates[0]), num_leaves=int(cfg.leaves[0]),
                    min_data_in_leaf=cfg.min_data_in_leaf, max_bin=cfg.max_bin, rounds=cfg.rounds_of(model))


#: what an arm's search needs (``--tune``): the fold's training and validation parts (never its test part),
#: ltrrepro's tree learner with the run's growth, leaf and split rules, NDCG@10; a tuned arm replaces its grid
SEARCH = tuning.Search(
    parts=lambda unit, ctx: fold_parts(unit, ctx, other="valid"), base=tuning_base,
    library=lambda cfg, system: "ltrrepro",
    options=lambda cfg, model: {"growth": cfg.growth, "leaf_rule": cfg.leaf_rule, "split_rule": cfg.split_rule},
    setting=lambda setting: (TUNED,), seed_setting=lambda setting: (TUNED,), metric="ndcg@10", words=notes.TUNING)


def leaf_rule_of(unit, cfg: XiaConfig) -> str:
    """The leaf rule a unit's trainer gets: the leaf arm's own setting, else the run's."""
    return unit.settings.get("leaf_rule", cfg.leaf_rule)


def model_seed(unit) -> np.random.SeedSequence:
    """The unit's model seed; the leaf arm takes its OLE partner's (the same unit without the
    ``leaf_rule`` setting), so the two OLE arms differ in their leaf rule only."""
    return replace(unit, setting=tuple(kv for kv in unit.setting if kv[0] != "leaf_rule")).model_seed()


def checkpoints(rounds: int, every: int) -> list[int]:
    return sorted({*range(every, rounds + 1, every), rounds})


def fold_parts(unit, ctx, other: str = "test"):
    """(train, ``other``) of the unit's fold, ``other`` its ``"test"`` part or (``--tune``'s
    searches, which never read the test part) its ``"valid"`` part: an official fold of a fold
    layout (trial t = fold t + 1, read through the reader's cache), else the trial's 60/20/20
    random query split."""
    cfg = ctx.cfg
    if cfg.fold_layout:
        parts = load_fold(cfg.dataset, data_dir=cfg.data_dir, fold=unit.trial + 1, parts=("train", other))
        return parts["train"], parts[other]
    ds = DataRef(**ctx.data).open()
    sp = trial_split(ds.n_queries, unit.seed, unit.trial)
    return ds.subset(sp.train), ds.subset(getattr(sp, other))


def unit_fn(unit, ctx):
    cfg = ctx.cfg
    train, test = fold_parts(unit, ctx)
    system = cfg.system(unit.model)
    base = tuning_base(cfg, unit.model) if TUNED in unit.setting else cfg.boosting(unit)
    boosting, over, tuned = tuning.tuned_boosting(unit, ctx, system, base)          # --tune: its search's values
    trainer = system.trainer(boosting, seed=model_seed(unit), threads=ctx.threads,
                             growth=cfg.growth, leaf_rule=leaf_rule_of(unit, cfg), split_rule=cfg.split_rule, **over)
    trainer.add_train(train)
    fitted = trainer.fit()
    points = checkpoints(fitted.n_rounds, cfg.every)
    curves = {m: [] for m in METRICS}
    for _, scores in fitted.scores_at(test.X, points):      # test scores built up round range by round range
        final = evaluate(scores, test.y, test.offsets, METRICS)
        for m, r in final.items():
            curves[m].append(float(np.nanmean(r.per_query)))
    means = {m: float(np.nanmean(r.per_query)) for m, r in final.items()}
    rec = UnitRecord.of(system, means, scores=scores,                  # the last round's test scores
                        log=" ".join(f"{m.split('[')[0]}={v:.4f}" for m, v in means.items())
                            + (f" loss={fitted.train_loss:.6g}" if fitted.train_loss is not None else "")  # a plug-in
                            + f" {fitted.train_s:.1f}s",                                                   # may have no loss
                        fit={"train_loss": fitted.train_loss, "n_trees": fitted.n_rounds},
                        timings={"train_s": fitted.train_s, "boost_s": fitted.info["boost_s"],
                                 "tree_s": fitted.info["tree_s"]},
                        info={**fitted.info, "n_test_queries": int(test.n_queries), "rounds": fitted.n_rounds},
                        fields={"curve_points": points, "curves": curves,
                                "leaves_per_tree": fitted.info.get("leaves_per_tree"), **tuned})
    arrays = {f"test:{m}": r.per_query.astype(np.float32) for m, r in final.items()}   # per query, last round
    arrays["test:qid"] = test.query_ids
    return rec, arrays

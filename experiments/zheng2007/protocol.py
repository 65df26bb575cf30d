"""Zheng et al. (2007)'s protocol (docs/protocols/zheng2007.md): configuration, data design
and the unit of Table 1 and Figure 1.

**Data design on public data.** L1 = the queries whose documents all share one grade (no
preference pair can be drawn from them). The other queries are split at random per trial, by
query, into L2 (training, the paper's 1,300 of 2,700) and L3 (test, 1,400 of 2,700); 20% of
L2's queries are carved out as validation for tuning. P2, P3 = all within-query pairs of
different grades of L2 (training part) and L3 (ties excluded). The sizes are reported.

**Six runs per trial** (all on the trial's split, a paired design): a unit's ``model`` is
the system (``gbt``, ``qbrank``, ``ranksvm`` of :mod:`ltrrepro.fit.zheng`) and its setting
the training data: GBT(L1), GBT(L2), GBT(L1 ∪ L2), QBRank(P2), QBRank(P2 ∪ L1), RankSVM(P2).

**One η and leaf count per trial** for every tree run (GBT, QBRank, a plug-in): the paper's
η = 0.05 and 20 leaves by default (``shared_params="paper"``, the values ``eta``, ``leaves``:
Zheng et al. tuned them once, for GBT, and "did not retune them for QBrank"); with
``shared_params="tuned"`` they are tuned once per trial over ``grid`` on GBT(L2)'s
validation DCG-5 (:func:`shared_params`) and shared by all runs (realized values: each unit's
``info["shared_params"]``). The number of boosting iterations (``rounds``): the harness's choice.

**A plug-in loss** (``--models gbt,qbrank,ranksvm,package.module:Name(k=v)``) is one more run,
``<key>_L2``: the objective trained on the L2 judgments beside GBT(L2), with the trial's shared η,
leaf count and boosting length, its trees picked on the validation queries by NDCG@5 (every ranking
system's rule; GBT and QBRank keep all ``rounds``): an extension, listed among the deviations.

**Metrics.** Precision at K% on P3 (K = 10…100, ``prec@K%``), DCG-5 on L3 (gain 2^g − 1, the paper
gives none), after every ``every`` iterations for the curves.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from experiments.errors import UsageError
from experiments import shared_fields
from experiments.config import RunConfig
from experiments import tuning
from experiments.options import option
from experiments.values import parse_pairs
from experiments.zheng2007 import notes
from experiments.zheng2007.paper import PAPER_ETA, PAPER_L2_L3, PAPER_LEAVES
from ltrrepro.data import RankingDataset
from ltrrepro.fit import Boosting, system_for
from ltrrepro.fit.backends import custom_objective_libraries
from ltrrepro.fit.zheng import SELECT_METRIC as DCG5
from ltrrepro.fit.zheng import GBTOptions, QBRankOptions, RankSVMOptions, dcg5, n_pairs
from ltrrepro.metrics import TIED_PAIRS, pairwise_precision_at
from ltrrepro.fit.plugins import plugin_label
from ltrrepro.runner import STREAM_SPLIT, DataRef, Unit, UnitRecord, unit_seed
from ltrrepro.splits import random_query_split
from ltrrepro.tuning import TUNED

EXPERIMENT = "qbrank"
#: run name -> (system, training data)
RUNS = {"gbt_L1": ("gbt", "L1"), "gbt_L2": ("gbt", "L2"), "gbt_L1L2": ("gbt", "L1L2"),
        "qbrank_P2": ("qbrank", "P2"), "qbrank_P2L1": ("qbrank", "P2L1"), "ranksvm_P2": ("ranksvm", "P2")}
LABELS = {"gbt_L1": "GBT(L1)", "gbt_L2": "GBT(L2)", "gbt_L1L2": "GBT(L1∪L2)", "qbrank_P2": "QBRank(P2)",
          "qbrank_P2L1": "QBRank(P2∪L1)", "ranksvm_P2": "RankSVM(P2)"}
SYSTEM_NAMES = ("gbt", "qbrank", "ranksvm")
PERCENTS = tuple(range(10, 101, 10))
#: the (η, leaves) every tree run of a trial shares: the paper's (``eta``, ``leaves``), or tuned once per trial
SHARED_PARAMS = ("paper", "tuned")


L2_SHARE = PAPER_L2_L3[0] / sum(PAPER_L2_L3)      # the paper's L2 : L3 query ratio
VALID_SHARE = 0.2               # of L2's queries, for tuning


def single_grade(ds: RankingDataset) -> np.ndarray:
    """Query mask: every document of the query has the same grade (L1)."""
    return np.maximum.reduceat(ds.y, ds.offsets[:-1]) == np.minimum.reduceat(ds.y, ds.offsets[:-1])


def zheng_split(ds: RankingDataset, seed: int, trial: int) -> dict[str, np.ndarray]:
    """Query numbers of L1 (fixed), L2 train / L2 validation / L3 (random per trial)."""
    l1 = np.flatnonzero(single_grade(ds))
    rest = np.flatnonzero(~single_grade(ds))
    rng = np.random.default_rng(unit_seed(seed, trial, STREAM_SPLIT))
    sp = random_query_split(rest.size, rng, ((1 - VALID_SHARE) * L2_SHARE, VALID_SHARE * L2_SHARE, 1 - L2_SHARE))
    return {"L1": l1, "L2": rest[sp.train], "V": rest[sp.valid], "L3": rest[sp.test]}


def training_data(sub: dict, train: str):
    """``(dataset, labeled mask or None)`` of a run's training data."""
    if train in ("L1", "L1L2", "P2L1") and "L1" not in sub:
        raise ValueError("the dataset has no single-grade query (L1 is empty)")
    if train == "L1":
        return sub["L1"], None
    if train in ("L2", "P2"):
        return sub["L2"], None
    both = RankingDataset.concat([sub["L1"], sub["L2"]], name="L1+L2")
    labeled = np.r_[np.ones(sub["L1"].n_docs, bool), np.zeros(sub["L2"].n_docs, bool)] if train == "P2L1" else None
    return both, labeled


@dataclass(frozen=True)
class ZhengConfig(RunConfig):
    """Zheng's settings: ``rounds`` boosting iterations (the harness's choice: the paper gives
    none), QBRank's ``w``; ``shared_params``: every tree run of a trial at ``eta`` and
    ``leaves`` (``"paper"``: 0.05 and 20 by default) or at the (η, leaves) of ``grid`` that
    GBT(L2)'s validation DCG-5 picks once per trial (``"tuned"``); RankSVM's ``c_grid`` and
    ``max_pairs``. Manifests written before ``shared_params`` carry ``qbrank_params``
    (``"gbt-tuned"`` / ``"paper"``): read as ``"tuned"`` / ``"paper"`` (:meth:`from_dict`)."""

    dataset: str = "synthetic-yahoo"
    library: str = shared_fields.library(custom_objective_libraries()[0])
    models: tuple = shared_fields.models(SYSTEM_NAMES, SYSTEM_NAMES)
    rounds: int = shared_fields.rounds(300)
    every: int = shared_fields.every(10)
    w: float = QBRankOptions.w                  # the systems' defaults: declared once, by their options
    eta: float = option(PAPER_ETA, flag="--eta", help="the shared learning rate (paper 0.05)")
    leaves: int = option(PAPER_LEAVES, flag="--leaves", bounds=(1, 131_072), help="the shared leaf count (paper 20)")
    grid: tuple = option(GBTOptions.grid, flag="--gbt-grid", parse=parse_pairs,
                         help="with --shared-params tuned: the eta:leaves pairs GBT(L2)'s validation DCG-5 picks from")
    c_grid: tuple = RankSVMOptions.c_grid
    max_pairs: int = option(RankSVMOptions.max_pairs, flag="--max-pairs", bounds=(1, 10 ** 9),
                            help="RankSVM: pairs sampled from P2 at most")
    shared_params: str = option("paper", flag="--shared-params", choices=SHARED_PARAMS,
                                old=("--qbrank-params", {"gbt-tuned": "tuned", "paper": "paper"}),
                                help="the one eta and leaf count of every tree run of a trial: --eta/--leaves (paper, "
                                     "default: the paper's 0.05 and 20) or tuned once per trial on GBT(L2)'s "
                                     "validation part (tuned)")
    tied_pairs: str = option("non-contradicting", flag="--tied-pairs", choices=TIED_PAIRS,
                             help="precision at K%: a pair scored tied counts as non-contradicting (the paper, "
                                  "default) or contradicting")
    plugins: tuple = option((), added=True)     # ((unit name, spec), ...), set by --models: runs <key>_L2
    tune: int = shared_fields.tune()            # every tree system tuned with N configurations (experiments.tuning)
    tune_on: str = shared_fields.tune_on()

    def __post_init__(self):
        super().__post_init__()
        if self.library not in custom_objective_libraries():     # GBT's and QBRank's objectives are ltrrepro's
            raise UsageError(f"library must be {' or '.join(custom_objective_libraries())}, got {self.library!r}")
        bad = [m for m in self.models if m not in (*SYSTEM_NAMES, *dict(self.plugins))]
        if bad or not self.models:
            raise UsageError(f"--models: unknown system(s) {bad}; known: {', '.join(SYSTEM_NAMES)} and plug-in "
                             f"objectives package.module:Name(k=v)")
        self.check_plugins()                        # imported and checked: a broken one is one line now
        if self.shared_params not in SHARED_PARAMS:
            raise UsageError(f"--shared-params must be one of {', '.join(SHARED_PARAMS)}, got {self.shared_params!r}")
        if not 0 < self.eta <= 1 or self.leaves < 2:
            raise UsageError(f"--eta needs 0 < eta <= 1 and --leaves >= 2; got {self.eta}, {self.leaves}")
        if self.tied_pairs not in TIED_PAIRS:
            raise UsageError(f"--tied-pairs must be one of {', '.join(TIED_PAIRS)}, got {self.tied_pairs!r}")
        if not self.grid or any(not 0 < eta <= 1 or leaves < 2 for eta, leaves in self.grid):
            raise UsageError(f"--gbt-grid needs 0 < eta <= 1 and leaves >= 2; got {self.grid}")
        tuning.check(self)

    def shared_text(self) -> str:
        """How the trial's one (η, leaves) is set, in words."""
        if self.shared_params == "tuned":
            return (f"η and leaves tuned once per trial over {list(self.grid)} on GBT(L2)'s validation DCG-5 and "
                    "shared by every tree run of the trial")
        return f"η {self.eta:g} and {self.leaves} leaves for every tree run"

    def check_data(self, ds: RankingDataset) -> None:
        """Before any training: enough queries with more than one grade for the random L2 /
        validation / L3 parts (single-grade queries are L1)."""
        n = int((~single_grade(ds)).sum())
        if n < 10:
            raise UsageError(f"{self.data_dir if self.dataset == 'svmlight' else self.dataset}: {n} of "
                             f"{ds.n_queries} queries have more than one grade; Zheng's L2, validation and L3 parts "
                             f"are drawn from those and need at least 10")

    def as_paper(self) -> list[str]:
        return notes.as_paper(self)

    def choices(self) -> list[str]:
        return notes.choices(self, VALID_SHARE)

    def deviations(self) -> list[str]:
        return notes.deviations(self, super().deviations())

    def run_table(self) -> dict[str, tuple[str, str]]:
        """Run name -> (system, training data) of this configuration's runs, in table order:
        the paper's six (of the systems in ``models``), then each plug-in's ``<key>_L2``."""
        out = {r: st for r, st in RUNS.items() if st[0] in self.models}
        out.update({run_name(key, "L2"): (key, "L2") for key, _ in self.plugins if key in self.models})
        return out

    def runs(self) -> list[str]:
        return list(self.run_table())

    def system(self, model: str):
        """The system of a unit's ``model``: GBT, QBRank, RankSVM, or a plug-in objective."""
        return system_for(model, self.plugins)

    def boosting(self, system: str, params: tuple | None = None) -> Boosting:
        """The boosting of a run: every tree run at the trial's shared ``params`` (η, leaves;
        default: ``eta``, ``leaves``)."""
        eta, leaves = params or (self.eta, self.leaves)
        return Boosting(learning_rate=eta, num_leaves=leaves, rounds=self.rounds)

    def options(self, system: str, params: tuple | None = None) -> dict:
        """A system's options; GBT's grid is the trial's one shared (η, leaves): no tuning of its own."""
        return {"gbt": {"grid": (tuple(params or (self.eta, self.leaves)),)}, "qbrank": {"w": self.w},
                "ranksvm": {"c_grid": self.c_grid, "max_pairs": self.max_pairs}}.get(system, {})


def build_units(cfg: ZhengConfig) -> list[Unit]:
    units = [Unit(EXPERIMENT, cfg.unit_dataset, t, system, (("train", train),), seed=cfg.seed)
             for t in range(cfg.trials) for system, train in cfg.run_table().values()]
    return units


def run_name(model: str, train: str) -> str:
    return f"{model}_{train}"


def train_size(unit, ctx) -> float:
    """Documents of the unit's training data (L1 is a few hundred; L1 ∪ L2 the most): what
    its cost scales with, on trial 0's split."""
    ds = DataRef(**ctx.data).open()
    parts = zheng_split(ds, unit.seed, 0)
    docs = {k: int(ds.query_sizes[v].sum()) for k, v in parts.items()}
    train = unit.settings["train"]
    return float({"L1": docs["L1"], "L2": docs["L2"], "P2": docs["L2"]}.get(train, docs["L1"] + docs["L2"]))


def run_label(run: str, cfg) -> str:
    """A run's name in tables: the paper's (``GBT(L2)``), or a plug-in's ``Name(k=v)(L2)`` (its
    system and training data from the configuration's runs, never from the run's name)."""
    if run in LABELS:
        return LABELS[run]
    specs = dict(cfg.plugins)
    key, train = cfg.run_table().get(run, (None, None))
    return f"{plugin_label(specs[key])}({train})" if key in specs else run


def plugin_runs(cfg) -> list[str]:
    """The runs of the configuration's plug-in objectives (``<key>_L2``), in its order."""
    return [r for r, (system, _) in cfg.run_table().items() if system in dict(cfg.plugins)]


_TUNED: dict = {}


def shared_params(cfg: ZhengConfig, sub: dict, unit, threads: int) -> dict:
    """The (η, leaves) every tree run of ``unit``'s trial uses: the configuration's
    (``shared_params="paper"``), or GBT trained on the trial's L2 over ``grid`` with the
    seed of the trial's GBT(L2) unit, picked by validation DCG-5 (``"tuned"``; the same in
    every unit of the trial, computed once per process and trial)."""
    if cfg.shared_params == "paper":
        return {"eta": float(cfg.eta), "leaves": int(cfg.leaves), "by": "fixed (the paper's values)"
                if (cfg.eta, cfg.leaves) == (PAPER_ETA, PAPER_LEAVES) else "fixed"}
    key = (cfg.dataset, cfg.queries, cfg.data_dir, cfg.grid, cfg.rounds, cfg.library, unit.seed, unit.trial)
    if key not in _TUNED:
        ref = Unit(EXPERIMENT, cfg.unit_dataset, unit.trial, "gbt", (("train", "L2"),), seed=unit.seed)
        gbt = system_for("gbt", ()).trainer(Boosting(rounds=cfg.rounds), library=cfg.library, seed=ref.model_seed(),
                                            threads=threads, grid=cfg.grid)
        gbt.add_train(sub["L2"])
        gbt.add_valid(sub["V"])
        info = gbt.fit().info
        _TUNED[key] = {"eta": float(info["eta"]), "leaves": int(info["leaves"]),
                       "by": "tuned on GBT(L2)'s validation DCG-5", "valid_dcg5": float(info["valid_dcg5"])}
    return dict(_TUNED[key])


def unit_fn(unit, ctx):
    cfg = ctx.cfg
    ds = DataRef(**ctx.data).open()
    parts = zheng_split(ds, unit.seed, unit.trial)
    sub = {k: ds.subset(v) for k, v in parts.items() if v.size}
    trees = unit.model != "ranksvm"
    shared = shared_params(cfg, sub, unit, ctx.threads) if trees else None
    params = (shared["eta"], shared["leaves"]) if shared else None
    valid, test = sub["V"], sub["L3"]
    sizes = {"L1_queries": int(parts["L1"].size), "L1_docs": int(sub["L1"].n_docs) if "L1" in sub else 0,
             "L2_queries": int(parts["L2"].size), "L2_docs": int(sub["L2"].n_docs),
             "V_queries": int(parts["V"].size), "L3_queries": int(parts["L3"].size),
             "L3_docs": int(test.n_docs), "P2_pairs": n_pairs(sub["L2"]), "P3_pairs": n_pairs(test)}
    system = cfg.system(unit.model)
    if TUNED in unit.setting:                 # --tune: its search's values, GBT's grid their one η and leaves
        boosting, over, tuned_fields = tuning.tuned_boosting(unit, ctx, system, cfg.boosting(unit.model))
        options = {**cfg.options(unit.model, (boosting.learning_rate, boosting.num_leaves)), **over}
        shared = {"eta": boosting.learning_rate, "leaves": boosting.num_leaves, "by": f"tuned (--tune {cfg.tune})"}
    else:
        boosting, options, tuned_fields = cfg.boosting(unit.model, params), cfg.options(unit.model, params), {}
    trainer = system.trainer(boosting, library=cfg.library, seed=unit.model_seed(), threads=ctx.threads, **options)
    train, labeled = training_data(sub, unit.settings["train"])
    trainer.add_train(train, labeled=labeled)
    trainer.add_valid(valid)
    fitted = trainer.fit()
    points, curve = None, None
    if fitted.n_rounds > 1:
        points = sorted({*range(cfg.every, fitted.n_rounds + 1, cfg.every), fitted.n_rounds})
        curve = [float(np.mean(dcg5(s, test))) for _, s in fitted.scores_at(test.X, points)]
    pred = fitted.scores(test.X)
    dcg = dcg5(pred, test)
    prec = pairwise_precision_at(pred, test.y, test.offsets, PERCENTS, ties=cfg.tied_pairs)
    record = UnitRecord.of(system, {DCG5: float(dcg.mean()), **{f"prec@{k}%": v for k, v in prec.items()}}, scores=pred,
                           log=f"dcg@5={dcg.mean():.4f} prec@100%={prec[100]:.4f}",
                           library=system.resolve_library(cfg.library),
                           fit={"best_iteration": fitted.best_iteration, "n_trees": fitted.n_rounds},
                           timings={"train_s": fitted.train_s},
                           info={"sizes": sizes, **fitted.info, **({"shared_params": shared} if shared else {})},
                           fields={"curve_points": points, "test_curve_dcg5": curve, **tuned_fields})
    return record, {}


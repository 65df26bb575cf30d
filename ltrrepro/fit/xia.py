"""Xia et al.'s systems: McRank and LambdaMART under the SE, OLE and RWSE split principles
(docs/protocols/xia.md), all in ltrrepro's tree learner (:mod:`ltrrepro.gbdt`) so that every
arm grows its trees the same way. Every run boosts exactly ``rounds`` rounds from zero scores.

Trainer options (the same for every arm):

* ``growth``: ``"width-first"`` (default; Xia §4, breadth-first to the leaf limit) or
  ``"best-first"`` (LightGBM's leaf-wise order);
* ``leaf_rule``: ``"diagonal"`` (default; Xia Eq. 8, −ΣL′/ΣL″ with per-document second
  derivatives — the standard LambdaMART leaf, the paper's SE baseline), ``"exact"``
  (−L′/L″ of the whole objective in the leaf's output: the pairs inside the leaf removed
  from L″, footnote 2) in every arm, or ``"own"`` (each principle's own estimate: Eq. 8 for
  SE and RWSE, Eq. 11's exact step −L′/L″ for OLE). The paper does not say which rule its
  OLE arm used. McRank's loss is derivative additive, so all rules give the same leaves there.
* ``split_rule``: ``"leaf-limit"`` (default; the paper's: trees grow to the leaf limit, OLE
  only chooses the split, so an exact-OLE node splits even where its gain is negative) or
  ``"positive-gain"`` (a node splits only with gain > 0: an exact-OLE tree can stop short).

Systems:

* ``mcrank-se`` / ``mcrank-ole``: McRank (5-class softmax, one tree per class per round;
  ranked by Σ k·p_k). OLE = RWSE = the Newton gain (the loss is derivative additive,
  Theorem 1); SE = the squared error of the pseudo-responses −L′ with unit weights. Both
  arms share one feasible set: at least ``min_data_in_leaf`` documents and Σ L″ ≥ 1e-3 per
  child.
* ``lambdamart-se`` / ``-ole`` / ``-rwse``: LambdaMART (LightGBM's lambdas, σ = 1,
  truncation 30): OLE exact (the pairs inside each child removed from its second
  derivative), RWSE the libraries' Newton gain.
* ``mcrank-se-lgb`` / ``mcrank-ole-lgb``: the McRank arms in LightGBM, a cross-check of the
  first two under best-first growth (OLE = LightGBM's own Newton gain; SE = LightGBM
  handed Hessian 1, every leaf then reset to the Newton step by
  :class:`~.callbacks.NewtonLeafCallback`). Not part of the study: LightGBM cannot grow
  width-first, and its SE arm's leaf rewriting is work only that host library needs.

Identity: ``family`` ``mcrank`` or ``lambdamart``, ``variant`` the principle (the LightGBM
cross-checks are told apart by their library, ``libraries == ("lightgbm",)``). Any objective
can be an arm: :func:`principle_system` makes the system of one under a principle (the
plug-ins' ``<key>-se`` of :func:`ltrrepro.fit.system_for`); OLE and exact leaves need the
objective to expose the pair structure of its Hessian (``grad_hess_pairs``), see
:func:`needs_pairs`.

**Validation** (``--tune``, :mod:`ltrrepro.tuning`): :meth:`GBDTTrainer.add_valid` gives the
boosting loop a validation part; it scores it after every round (the new trees' binned
predictions added to the running scores, :func:`ltrrepro.gbdt.train`) by :data:`SELECT_METRIC`
(NDCG@10, Xia's headline metric), calls ``on_valid(round, value)`` (Optuna's pruner; it may raise
to stop) and returns the curve as ``Fitted.valid_curve``. The model still keeps every round (no
early stopping: the paper reports the last one). Without a validation part nothing changes.
:meth:`GBDTOptions.space` is the learner's search space (:data:`~ltrrepro.fit.space.GBDT_SPACE`).

``Fitted.info["boost_s"]``: the seconds spent in the boosting rounds (objective + trees),
without binning or the final loss — the time the report compares between arms.
``Fitted.info["leaves_per_tree"]``: leaves per tree over the run (``mean``, ``min``, ``max``, ``short``:
trees below the leaf limit, ``trees``).

Deviation (all systems): histogram splits (``max_bin`` bins) instead of every distinct value.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable

from ..objectives import LambdaMART, McRank, mcrank_scores
from .base import Fitted, System, Trainer, int_seed, register
from .callbacks import UnitHessian
from .space import GBDT_SPACE

__all__ = ["GBDTTrainer", "GBDTOptions", "LibraryMcRankTrainer", "LibraryMcRankOptions", "LightGBMMcRankTrainer",
           "principle_system", "arm", "arm_of", "needs_pairs", "N_CLASSES", "GROWTH", "LEAF_RULES", "SPLIT_RULES", "PRINCIPLES",
           "leaf_hessian", "SELECT_METRIC"]

N_CLASSES = 5
GROWTH = ("width-first", "best-first")
LEAF_RULES = ("diagonal", "exact", "own")
SPLIT_RULES = ("leaf-limit", "positive-gain")
PRINCIPLES = ("se", "ole", "rwse")
MIN_SUM_HESSIAN = 1e-3
#: the validation metric of a tuned arm (``--tune``): NDCG@10, gain 2^y − 1, queries without a relevant document dropped
SELECT_METRIC = "ndcg@10[gain=exp2,norel=drop]"


def arm(system: str, principle: str) -> str:
    """The unit name of ``system`` grown under ``principle`` (``lambdamart-ole``, a plug-in's
    ``<key>-se``): the one place an arm's name is made, :func:`arm_of` the one place it is read
    (a unit's key stores it; everything else reads the system's ``family`` and ``variant``)."""
    return f"{system}-{principle}"


def arm_of(name: str, principles=PRINCIPLES) -> tuple[str, str] | None:
    """``(system, principle)`` of an arm's unit name, None when ``name`` names no arm.

    >>> arm_of("lambdamart-rwse"), arm_of("m.Focal@gamma=2-ole"), arm_of("gbt")
    (('lambdamart', 'rwse'), ('m.Focal@gamma=2', 'ole'), None)
    """
    system, sep, principle = name.rpartition("-")
    return (system, principle) if sep and system and principle in principles else None


def needs_pairs(principle: str, leaf_rule: str = "diagonal") -> bool:
    """Whether an arm needs the objective's pair structure (``grad_hess_pairs``): OLE's gain
    and exact leaf values remove the pairs inside a leaf from its second derivative (Xia et
    al. §3, footnote 2), which the per-document (grad, hess) of an objective cannot tell."""
    return principle == "ole" or leaf_hessian(principle, leaf_rule) == "exact"


def leaf_hessian(principle: str, leaf_rule: str) -> str:
    """The tree learner's leaf rule of an arm: ``own`` is Eq. 11's exact step for OLE and
    Eq. 8's diagonal leaf for SE and RWSE; ``diagonal`` and ``exact`` are the same in every arm."""
    if leaf_rule == "own":
        return "exact" if principle == "ole" else "diagonal"
    return leaf_rule


def leaves_summary(leaves, limit: int) -> dict:
    """Leaves per tree of a run: mean, min, max, trees below the leaf ``limit`` and trees."""
    import numpy as np
    a = np.asarray(leaves, dtype=np.int64)
    if not a.size:
        return {"mean": None, "min": None, "max": None, "short": 0, "trees": 0}
    return {"mean": float(a.mean()), "min": int(a.min()), "max": int(a.max()), "short": int((a < limit).sum()),
            "trees": int(a.size)}


@dataclass(frozen=True)
class GBDTOptions:
    """An objective under a split principle in ltrrepro's tree learner (Xia et al.).

    ``objective``: a factory called with the :class:`~ltrrepro.fit.Boosting` (LambdaMART
    takes its σ); ``principle``: ``se``, ``ole`` or ``rwse``; ``growth``: ``width-first``
    (Xia §4) or ``best-first``; ``leaf_rule``: ``diagonal`` (Eq. 8), ``exact`` or ``own``
    (:func:`leaf_hessian`); ``split_rule``: ``leaf-limit`` (the paper's) or ``positive-gain``."""

    objective: Callable
    principle: str
    growth: str = "width-first"
    leaf_rule: str = "diagonal"
    split_rule: str = "leaf-limit"

    def __post_init__(self):
        if self.principle not in PRINCIPLES:
            raise ValueError(f"principle must be one of {PRINCIPLES}, got {self.principle!r}")
        if self.growth not in GROWTH or self.leaf_rule not in LEAF_RULES:
            raise ValueError(f"growth must be one of {GROWTH} and leaf_rule one of {LEAF_RULES}, "
                             f"got {self.growth!r}, {self.leaf_rule!r}")
        if self.split_rule not in SPLIT_RULES:
            raise ValueError(f"split_rule must be one of {SPLIT_RULES}, got {self.split_rule!r}")

    def space(self, library: str = "ltrrepro") -> dict:
        """``--tune``'s search space: the tree learner's (:data:`~ltrrepro.fit.space.GBDT_SPACE`),
        the same for every arm, whatever its objective (a plug-in's own parameters are not searched here)."""
        return dict(GBDT_SPACE)


@dataclass(frozen=True)
class LibraryMcRankOptions:
    """McRank in a GBDT library: ``principle`` ``se`` or ``ole``; ``max_depth`` (LightGBM's;
    with ``num_leaves`` = 2^max_depth and every node splittable its trees are the complete
    trees width-first growth makes)."""

    principle: str
    max_depth: int = -1

    def __post_init__(self):
        if self.principle not in ("se", "ole"):
            raise ValueError(f"McRank has principles se and ole, not {self.principle!r}")


@contextmanager
def _numba_threads(threads: int):
    import numba
    previous = numba.get_num_threads()
    numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))
    try:
        yield
    finally:
        numba.set_num_threads(previous)


def round_reporter(on_valid):
    """The boosting loop's per-round ``callback(iteration, scores, log)`` that hands the round's
    validation value (the last of ``log.valid_curve``) to ``on_valid(round, value)``; None
    without ``on_valid``. Never stops training itself (``on_valid`` may raise)."""
    if on_valid is None:
        return None

    def callback(it, scores, log):
        on_valid(it, log.valid_curve[-1])
        return False
    return callback


class GBDTTrainer(Trainer):
    """An objective boosted in :mod:`ltrrepro.gbdt` under a split principle; options:
    :class:`GBDTOptions`. A validation part (:meth:`add_valid`) is scored after every round
    by :data:`SELECT_METRIC` and told to ``on_valid`` (see the module docstring)."""

    #: ``on_valid(round, value)``, each round's validation value (Optuna's pruner); it may raise to stop
    on_valid: Callable | None = None
    valid = None

    def add_train(self, ds, **side) -> None:
        self.train = ds

    def add_valid(self, ds) -> None:
        self.valid = ds

    def _fit(self) -> Fitted:
        from ..gbdt import train as gbdt_train

        tr, b, o = self.train, self.boosting, self.options
        obj = o.objective(b)
        model, log = gbdt_train(obj, tr, self.valid, criterion=o.principle, num_rounds=b.rounds,
                                learning_rate=b.learning_rate, num_leaves=b.num_leaves, max_bin=b.max_bin,
                                min_data_in_leaf=b.min_data_in_leaf, min_sum_hessian_in_leaf=MIN_SUM_HESSIAN,
                                lambda_l2=b.lambda_l2, leaf_hessian=leaf_hessian(o.principle, o.leaf_rule),
                                growth=o.growth, split_rule=o.split_rule, valid_metric=SELECT_METRIC,
                                seed=int_seed(self.seed), threads=self.threads,
                                callback=round_reporter(self.on_valid))
        try:
            loss = float(obj.loss(model.train_scores, tr.y, tr.offsets))
        except NotImplementedError:            # a plug-in objective without a closed-form loss
            loss = None
        ranking = {"to_rank": mcrank_scores} if model.n_outputs > 1 else {}     # McRank: the expected grade
        threads = self.threads

        def raw(X, a, k):
            with _numba_threads(threads):
                return model.predict(X, num_rounds=k, start_round=a)

        return Fitted(raw, b.rounds, b.rounds, train_loss=loss, params=dict(model.meta), **ranking,
                      valid_curve=list(log.valid_curve),
                      info={"n_train_docs": int(tr.n_docs), "n_train_queries": int(tr.n_queries),
                            "boost_s": float(sum(log.objective_s) + sum(log.tree_s)),
                            "tree_s": float(sum(log.tree_s)),
                            "leaves_per_tree": leaves_summary(log.leaves, b.num_leaves)})


class LibraryMcRankTrainer(Trainer):
    """McRank in a GBDT library (best-first growth), the cross-check of the gbdt arms:
    OLE = the library's own Newton gain; SE = the library handed Hessian 1
    (:class:`~.callbacks.UnitHessian`), every leaf then reset to the Newton step by the
    backend's :meth:`~ltrrepro.fit.backends.Backend.newton_leaves` hook. Options:
    :class:`LibraryMcRankOptions`."""

    def add_train(self, ds, **side) -> None:
        self.train = ds

    def _fit(self) -> Fitted:
        tr, b, be, principle = self.train, self.boosting, self.backend, self.options.principle
        seed = int_seed(self.seed)
        obj = McRank(n_classes=N_CLASSES)
        hooks = []
        if principle == "se":
            adapter = be.adapter(UnitHessian(obj), track_scores=True)
            hooks.append(be.newton_leaves(adapter, tr.X, b.learning_rate, N_CLASSES))
        else:
            adapter = be.adapter(obj)
        # LightGBM's own names: the system is pinned to it (libraries=("lightgbm",)); a depth the
        # boosting declares (Boosting.max_depth, mapped by the backend) stands for the system's own
        depth = {} if b.max_depth else {"max_depth": int(self.options.max_depth)}
        params = be.params(adapter, b, threads=self.threads, seed=seed, min_leaf_hessian=MIN_SUM_HESSIAN,
                           n_outputs=N_CLASSES, min_data_in_bin=1, feature_pre_filter=False, **depth)
        # McRank raises on a label >= N_CLASSES
        run = be.train(params, be.dataset(tr, params, threads=self.threads, grouped=False), b.rounds, obj=adapter,
                       callbacks=hooks, seed=seed)
        raw = be.predictor(run.booster, self.threads)
        loss = float(obj.loss(raw(tr.X, 0, b.rounds), tr.y))
        used = {k: v for k, v in params.items() if k != "objective"}
        return Fitted(raw, b.rounds, b.rounds, train_loss=loss, params=used, to_rank=mcrank_scores,
                      ranges_add=be.ranges_add,
                      info={"n_train_docs": int(tr.n_docs), "n_train_queries": int(tr.n_queries)})


#: the former name
LightGBMMcRankTrainer = LibraryMcRankTrainer


def principle_system(name: str, label: str, objective: Callable, principle: str, *, family: str, paper: str,
                     **options) -> System:
    """The system of ``objective`` (a factory of the boosting) under a split principle, grown
    by ltrrepro's tree learner; ``options``: more :class:`GBDTOptions` fields."""
    return System(name, label, GBDTTrainer, libraries=("ltrrepro",),
                  options=GBDTOptions(objective=objective, principle=principle, **options), paper=paper,
                  family=family, variant=principle)


def _mcrank(b):
    return McRank(n_classes=N_CLASSES)


def _lambdamart(b):
    return LambdaMART(sigma=b.sigmoid, truncation_level=30)


for _p in ("se", "ole"):
    register(principle_system(arm("mcrank", _p), f"McRank ({_p.upper()})", _mcrank, _p, family="mcrank",
                              paper="Li et al. 2007; Xia et al."))
    register(System(arm("mcrank", _p) + "-lgb", f"McRank ({_p.upper()}, LightGBM)", LibraryMcRankTrainer,
                    libraries=("lightgbm",), options=LibraryMcRankOptions(principle=_p),
                    paper="Li et al. 2007; Xia et al.", family="mcrank", variant=_p))
for _p in PRINCIPLES:
    register(principle_system(arm("lambdamart", _p), f"LambdaMART ({_p.upper()})", _lambdamart, _p, family="lambdamart",
                              paper="Burges 2010; Xia et al."))

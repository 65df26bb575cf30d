"""The backend interface: what a trainer asks of a GBDT library.

A trainer (:mod:`ltrrepro.fit.ranking`, :mod:`~ltrrepro.fit.zheng`, :mod:`~ltrrepro.fit.xia`)
reads as its paper's algorithm and hands every library call to a :class:`Backend`:

* :meth:`Backend.params` — the library's parameters for a :class:`~ltrrepro.fit.boosting.Boosting`
  and an objective (a built-in name, or an ltrrepro objective wrapped by :meth:`Backend.adapter`),
  with explicit threads, seed and device;
* :meth:`Backend.dataset` — the library's (binned) training or validation set of a
  :class:`~ltrrepro.data.RankingDataset`, with its query group sizes;
* :meth:`Backend.train` — boosting for a number of rounds, with a custom objective, early
  stopping on the trainer's own validation metric, and per-round hooks (leaf rewriting,
  where the library allows it: :attr:`Backend.rewrites_leaves`);
* :meth:`Backend.predictor` — the raw scores of rounds ``[start, stop)``, on an explicit
  number of threads.

Choices common to both libraries (each backend says how it makes them):

* Hessians of listwise/pairwise losses are small (ρ(1 − ρ), σ²p(1 − p)|ΔNDCG|): the default
  ``min_sum_hessian_in_leaf=1e-3`` (LightGBM) / ``min_child_weight=1`` (XGBoost) would refuse
  most splits, so both are 0 (Bruch §5.2 sets ``min_sum_hessian_in_leaf`` to 0).
* Thread counts are explicit (jobs × threads ≤ cores is the runner's business), in training
  and in every prediction.
* A fixed ``seed`` (and LightGBM's ``deterministic``/``force_row_wise``) makes a run
  repeatable bit for bit; XGBoost's ``hist`` is deterministic on the CPU.
* Custom objectives start from a zero score, as the built-in ranking objectives do.

Each backend also declares its library's own defaults as data (:attr:`Backend.defaults` in
:class:`~ltrrepro.fit.boosting.Boosting`'s names, :attr:`Backend.default_params` for what the
harness otherwise sets beyond them, per loss where the library's defaults depend on it:
:meth:`Backend.library_defaults`), read from the installed library — a model trained with no
hyper-parameters (tests/lib/test_library_defaults.py checks them against the library's own dump);
:attr:`Backend.harness_params` names what stays the harness's at the library's defaults (seed,
threads, determinism, the harness's own validation metric and early stopping, a zero start score).

A fourth library is one more module here: a :class:`Backend` subclass with its facts (the class
attributes below: built-in objectives, whether it takes ltrrepro's objectives, its own ranking
losses as baselines, its protocol note, its module, its GPU probe), registered in
:data:`ltrrepro.fit.backends.BACKENDS`, and its optional dependency in ``pyproject.toml``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ...data import RankingDataset
from ..boosting import Boosting
from ..space import TREE_SPACE

__all__ = ["Backend", "Trained", "RawPredictor"]

#: ``raw(X, start, stop)``: raw scores of rounds ``[start, stop)`` of a trained model
RawPredictor = Callable[[np.ndarray, int, int], np.ndarray]


@dataclass
class Trained:
    """What :meth:`Backend.train` returns: the library's model, the rounds kept (1-based best
    iteration), the rounds trained, and the validation curve (empty without validation)."""

    booster: object
    best_iteration: int
    n_rounds: int
    curve: list = field(default_factory=list)


def round_state(obj, callbacks, seed):
    """The state of one training run (:class:`~ltrrepro.objectives.RoundState`, its generator
    seeded with ``seed``), bound to the callbacks that keep scores in it; None without a custom
    objective ``obj``."""
    from ...objectives.adapters import RoundState

    if obj is None:
        return None
    state = RoundState.start(seed)
    for cb in callbacks:
        if hasattr(cb, "bind"):
            cb.bind(state)
    return state


class Backend:
    """One GBDT library behind the trainers (see the module docstring)."""

    #: the library's name, as ``--library`` and :attr:`ltrrepro.fit.System.libraries` spell it
    name: str = ""
    #: how tables and messages name it
    label: str = ""
    #: raw scores of consecutive round ranges add up to those of their union (XGBoost adds its
    #: base margin to every prediction, so there every prefix is predicted from round 0)
    ranges_add: bool = True
    #: the library lets a callback rewrite a tree's leaves after growing it (QBRank's line
    #: search, Newton leaves under the SE principle)
    rewrites_leaves: bool = False
    #: the library's built-in objective names, by what they compute (``lambdarank``: λMART runs
    #: as the library's own LambdaMART there)
    objectives: dict = {}
    #: the library trains ltrrepro's objectives (a Python custom objective): the systems with one
    #: run in it (:attr:`ltrrepro.fit.System.libraries`)
    custom_objectives: bool = True
    #: the library takes a custom objective's negative Hessians as they are (XGBoost; LightGBM
    #: counts a histogram bin's documents from its Hessian sum, so its adapter refuses them)
    negative_hessians: bool = False
    #: the library's own ranking losses as library baselines: system name -> (label, source,
    #: family, the library's objective name), registered by :mod:`ltrrepro.fit.ranking`
    baselines: dict = {}
    #: how a run's protocol notes describe the library's models where the paper is silent, or None
    choice: str | None = None
    #: the module the library is imported as (its version is recorded in every manifest)
    module: str = ""
    #: the space ``--tune`` searches for every system of this library, in
    #: :class:`~ltrrepro.fit.boosting.Boosting`'s names (:mod:`ltrrepro.fit.space`)
    search_space: dict = TREE_SPACE
    #: a Python program that exits 0 when the library trains on a CUDA GPU here (None: CPU only;
    #: :func:`ltrrepro.device.check_device` runs it in a child process)
    gpu_probe: str | None = None
    #: why the GPU probe failed, in words, with what to do
    gpu_missing: str = ""
    #: the library's datasets take each row's displayed position (LightGBM's ``lambdarank``
    #: learns a position-bias term from it)
    position_field: bool = False
    #: the library's own debiasing of clicks, systems trained on click sessions: name -> (label,
    #: source, family, the library's objective, its parameters ((name, value), ...), how it reads
    #: the rows' positions: "dataset" its position field, "" their order in a group), registered
    #: by :mod:`ltrrepro.fit.ranking`
    debiasing: dict = {}
    #: a short tag for names made per library (the debiasing study's arms ``ulm_<tag>``)
    tag: str = ""
    #: the library's own defaults in :class:`~ltrrepro.fit.boosting.Boosting`'s names (every field
    #: but ``rounds`` and ``early_stopping``), read from the installed library (the module docstring)
    defaults: dict = {}
    #: the library's own parameters beyond :class:`~ltrrepro.fit.boosting.Boosting` that
    #: :meth:`params` otherwise sets to the harness's values, at the library's defaults (its own names)
    default_params: dict = {}
    #: the library's parameters that stay the harness's at the library's defaults (its own names)
    harness_params: tuple = ()
    #: the number of trees the library trains when given none (its training function's default)
    default_rounds: int | None = None
    #: the library version :attr:`defaults` were read from
    defaults_read: str = ""

    def library_defaults(self, objective: str) -> tuple[dict, dict]:
        """``(Boosting fields, library parameters)`` at the library's own defaults for its built-in
        ``objective`` (:attr:`defaults`, :attr:`default_params`; a library whose defaults depend on
        the loss overrides this)."""
        return dict(self.defaults), dict(self.default_params)

    def at_defaults(self, objective: str, rounds: int, early_stopping: int | None = None) -> tuple[Boosting, dict]:
        """``(boosting, library parameters)`` that train ``objective`` at the library's own defaults
        for every hyper-parameter but the number of trees: ``rounds`` with ``early_stopping``
        (the harness's; the library's own default count is :attr:`default_rounds`). The library
        parameters go to :meth:`params` as its ``extra``."""
        fields, params = self.library_defaults(objective)
        return Boosting(**fields, rounds=rounds, early_stopping=early_stopping), params

    def missing(self) -> str | None:
        """Why the library cannot be used here (not installed, with how to install it), or None."""
        return None

    def version(self) -> str | None:
        """The installed library's version (None when it is not installed)."""
        try:
            return getattr(__import__(self.module), "__version__", "?")
        except Exception:                   # an optional library that is absent (or broken)
            return None

    def tree_learner(self, leaves: int, boosting: Boosting) -> str:
        """The regression trees the library grows for ``boosting`` (its bins and leaf size) up to
        ``leaves`` leaves, in words (a run's protocol notes)."""
        return f"{self.label}'s trees up to {leaves} leaves"

    # ------------------------------------------------------------------ parameters
    def adapter(self, objective, *, track_scores: bool = False):
        """The library's form of an ltrrepro objective (:mod:`ltrrepro.objectives.adapters`):
        the function only; each :meth:`train` call hands it a fresh
        :class:`~ltrrepro.objectives.RoundState`."""
        raise NotImplementedError

    def params(self, objective, boosting: Boosting, *, threads: int, seed: int, device: str = "cpu",
               own_metric: bool = False, min_leaf_hessian: float | None = None, start: float | None = None,
               n_outputs: int = 1, **extra) -> dict:
        """The library's parameters: ``objective`` a built-in name or an :meth:`adapter`;
        ``own_metric``: the trainer evaluates with its own metric (the library computes
        none); ``min_leaf_hessian``: the least Σ Hessian of a leaf (default 0, see the
        module docstring); ``start``: the constant a squared-error regression starts from
        (its mean grade); ``n_outputs``: raw scores per document (McRank's classes);
        ``extra``: the library's own parameter names, for a system pinned to it."""
        raise NotImplementedError

    def device_params(self, device: str) -> dict:
        """The parameters that put training on ``device`` (none for the CPU)."""
        if device == "cpu":
            return {}
        raise ValueError(f"{self.label} trains on the CPU only, not on {device!r}")

    def check_labels(self, params: dict, ds: RankingDataset) -> None:
        """Refuse (or make room for) training labels the built-in objective cannot take."""

    def leaf_floor(self, params: dict, hessian_floor: Callable[[], float]) -> None:
        """A library without a minimum leaf size in documents (XGBoost) gets, for a custom
        objective, ``hessian_floor()`` as its least leaf Hessian instead; a library that has
        one (``min_data_in_leaf``) needs nothing."""

    def position_missing(self) -> str | None:
        """Why the library's datasets cannot take the rows' positions here (no field, too old), or None."""
        return None if self.position_field else f"{self.label} has no position field"

    def position_biases(self, booster, params: dict) -> dict:
        """The position biases a built-in debiasing objective learned (t⁺, t⁻ and the propensity
        estimate t⁺^{1+p}), where the library shows them; {} otherwise."""
        return {}

    def record_params(self, params: dict, adapter=None) -> dict:
        """``params`` as a unit's record keeps them (a custom objective by its ``repr``)."""
        raise NotImplementedError

    def smoothing(self, objective: str, knobs: dict) -> str:
        """The library's own ``objective`` with smoothing ``knobs`` (YetiRank's noise and neighbours,
        Lyzhin et al. 2023 §4.3); a library without such knobs takes none."""
        if knobs:
            raise ValueError(f"{self.label} has no smoothing knobs ({', '.join(sorted(knobs))}) for {objective!r}")
        return objective

    def tree_shape(self, shape: str) -> dict:
        """The parameters that grow ``shape`` trees: ``leafwise`` (this harness's default in every
        library, none needed) or ``oblivious`` (symmetric trees, where the library grows them)."""
        if shape != "leafwise":
            raise ValueError(f"{self.label} grows leaf-wise trees here, not {shape!r} ones")
        return {}

    def library_dump(self, booster) -> dict:
        """The trained model's own record of what it trained with (objective, metric), read from
        the library, not from the harness's configuration."""
        raise NotImplementedError

    # ------------------------------------------------------------------ data, training, prediction
    def dataset(self, ds: RankingDataset, params: dict, *, threads: int, reference=None, grouped: bool = True,
                position=None):
        """The library's training (or, with ``reference`` the training set, validation) set
        of ``ds``; ``grouped``: with its query group sizes (False for pointwise losses);
        ``position``: each row's displayed position, where the library learns a position bias
        from it (LightGBM's ``lambdarank``; refused by a library that has no such field)."""
        raise NotImplementedError

    def train(self, params: dict, dtrain, rounds: int, *, obj=None, valid=None, metric=None,
              patience: int | None = None, callbacks=(), seed=0) -> Trained:
        """Boost ``rounds`` rounds. ``obj``: the :meth:`adapter` of a custom objective (the
        one :meth:`params` was given), run over a :class:`~ltrrepro.objectives.RoundState`
        this call makes — its generator seeded with ``seed`` — and shares with the
        ``callbacks`` that take one (:func:`round_state`); with ``valid`` (a :meth:`dataset`
        with the training set as reference), ``metric = (name, fn)`` is evaluated on its raw
        scores after every round (larger is better) and training stops after ``patience``
        rounds without improvement; ``callbacks``: per-round hooks (:meth:`rescale_leaves`,
        :meth:`newton_leaves`)."""
        raise NotImplementedError

    def predictor(self, booster, threads: int) -> RawPredictor:
        """``raw(X, start, stop)``: raw scores of rounds ``[start, stop)``, on ``threads`` threads."""
        raise NotImplementedError

    # ------------------------------------------------------------------ leaf rewriting
    def rescale_leaves(self, adapter, X, step_fn, shrinkage: float):
        """A per-round hook rescaling each new tree's leaves by ``shrinkage · step_fn(scores,
        tree output)`` (QBRank's line search, Zheng et al. Algorithm 2)."""
        raise NotImplementedError(f"{self.label} cannot rewrite a tree's leaves after growing it")

    def newton_leaves(self, adapter, X, learning_rate: float, n_outputs: int = 1):
        """A per-round hook setting each new tree's leaves to the Newton step of the true loss
        (the SE principle with Newton leaves, Xia et al. Eq. 8)."""
        raise NotImplementedError(f"{self.label} cannot rewrite a tree's leaves after growing it")

    def validation_callback(self, X, metric):
        """A per-round hook after the leaf rewriting ones: ``metric`` of the running validation
        scores of ``X`` (its ``curve``), for a run whose leaves are rewritten (the library's own
        validation scores are stale then)."""
        raise NotImplementedError(f"{self.label} cannot rewrite a tree's leaves after growing it")

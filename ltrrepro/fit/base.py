"""The fit contract: one registry of trainable systems, one staged trainer, one result type.

A **system** is anything a paper trains: a library objective (LightGBM ``lambdarank``), an
ltrrepro objective through its adapter (XE_NDCG MART), GBT and QBRank with its line search,
RankSVM, McRank under a split principle, LambdaMART in :mod:`ltrrepro.gbdt`. Each is one
:class:`System` in :data:`SYSTEMS`, named by the ``model`` field of a unit in every
experiment. A system makes a :class:`Trainer`, which the unit drives in one straight line::

    trainer = SYSTEMS[name].trainer(boosting, library=..., seed=..., threads=..., **option_overrides)
    trainer.add_train(train)        # the library bins it; the caller drops its features
    trainer.add_valid(valid)        # when the system selects on validation data
    fitted = trainer.fit()          # -> Fitted
    scores = fitted.scores(test.X)

so a worker holds one part's features (plus the library's binned copy) at a time, and no
system calls back into an experiment. :class:`Fitted` is the one result type: raw scores per
round range, the ranking transform, best iteration, validation curve, timings, training loss.

A system's options are a frozen dataclass (:class:`RankingOptions`, :class:`GBTOptions`, ...,
beside its trainer) holding their defaults, the only place they are written; keyword
overrides to :meth:`System.trainer` replace fields of it, and a name it lacks is a
:class:`TypeError` naming the system's option fields. A system's identity is data:
``family`` (the loss or model: ``lambdamart``, ``mcrank``, a plug-in's key) and ``variant``
(how it is computed or grown: ``builtin``/``custom``/one library's own for Bruch's losses,
the split principle for Xia's arms); ``name`` is only its registry key. Library calls go
through a backend (:mod:`ltrrepro.fit.backends`), ``trainer.backend``.
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable

import numpy as np

from ..data import RankingDataset
from .backends import BACKENDS, custom_objective_libraries
from .boosting import Boosting

__all__ = ["Boosting", "Fitted", "System", "Trainer", "SYSTEMS", "register", "int_seed", "Labels", "NoOptions"]


def int_seed(ss: np.random.SeedSequence) -> int:
    """A library seed (31-bit int) drawn from a seed sequence."""
    return int(ss.generate_state(1)[0] & 0x7FFFFFFF)


class Labels:
    """What validation needs of a dataset once its features are binned: labels and offsets."""

    def __init__(self, ds: RankingDataset):
        self.y, self.offsets, self.n_queries = ds.y, ds.offsets, ds.n_queries


def _identity(raw):
    return raw


@dataclass
class Fitted:
    """A trained model. ``raw(X, start, stop)``: raw scores of rounds ``[start, stop)``;
    ``to_rank``: raw scores to ranking scores (McRank: the expected grade); with
    ``ranges_add`` the raw scores of consecutive ranges sum to the scores of their union
    (LightGBM, ltrrepro.gbdt), else every prefix is predicted from round 0 (XGBoost adds its
    base margin to every prediction)."""

    raw: Callable
    best_iteration: int                 # rounds kept (1-based)
    n_rounds: int                       # rounds trained
    train_s: float = 0.0
    valid_curve: list = field(default_factory=list)
    train_loss: float | None = None
    params: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)
    to_rank: Callable = _identity
    ranges_add: bool = True

    def scores(self, X, rounds: int | None = None) -> np.ndarray:
        """Ranking scores of ``X`` with the first ``rounds`` rounds (default: the best iteration)."""
        return self.to_rank(self.raw(X, 0, rounds or self.best_iteration))

    def scores_at(self, X, points: Iterable[int]):
        """``(k, ranking scores with k rounds)`` for each ``k`` in ascending ``points``."""
        acc, done = 0.0, 0
        for k in points:
            if self.ranges_add:
                acc = acc + self.raw(X, done, k)
                done = k
                yield k, self.to_rank(acc)
            else:
                yield k, self.to_rank(self.raw(X, 0, k))


class Trainer:
    """One training run of a system, driven by the unit (see the module docstring).
    Subclasses implement :meth:`add_train`, :meth:`add_valid` (when ``uses_valid``) and
    :meth:`_fit`; :meth:`fit` times it."""

    uses_valid = False

    def __init__(self, system: "System", boosting: Boosting, library: str, seed: np.random.SeedSequence,
                 threads: int = 1, **options):
        self.system, self.boosting, self.library, self.seed = system, boosting, library, seed
        self.threads = int(threads)
        self.options = system.configure(**options)
        #: the GBDT library's backend (None for a system grown by ltrrepro.gbdt or solved by scipy)
        self.backend = BACKENDS.get(library)
        self.t0 = time.perf_counter()

    def add_train(self, ds: RankingDataset, **side) -> None:
        raise NotImplementedError

    def add_valid(self, ds: RankingDataset) -> None:
        if self.uses_valid:
            raise NotImplementedError
        # a system that does not select on validation data ignores it: nothing to keep

    def fit(self) -> Fitted:
        """Train; ``train_s`` is the time of the training itself (boosting, the line search,
        early stopping), and ``info["setup_s"]`` the time from the trainer's creation to it —
        whatever the unit did in between (noise, clicks) and the library's binning in
        :meth:`add_train`/:meth:`add_valid` — so the timings table's "training time" is that."""
        start = time.perf_counter()
        out = self._fit()
        out.train_s = time.perf_counter() - start
        out.info.setdefault("setup_s", start - self.t0)
        return out

    def _fit(self) -> Fitted:
        raise NotImplementedError


@dataclass(frozen=True)
class NoOptions:
    """The options of a system that has none."""


@dataclass(frozen=True)
class System:
    """A trainable system: ``label`` for tables, ``libraries`` it runs in (the first is its
    default), the trainer class, its options (a frozen dataclass instance holding the
    defaults), where it comes from, and its identity as data: ``family`` (the loss or model;
    the name when not given) and ``variant`` (how it is computed or grown)."""

    name: str
    label: str
    trainer_cls: type
    libraries: tuple = field(default_factory=custom_objective_libraries)
    options: object = NoOptions()
    paper: str = ""                   # where it comes from (author-year)
    family: str = ""
    variant: str = ""

    def __post_init__(self):
        if not dataclasses.is_dataclass(self.options) or isinstance(self.options, type):
            raise TypeError(f"system {self.name!r}: options must be an instance of a frozen options dataclass, "
                            f"got {self.options!r}")
        if not self.family:
            object.__setattr__(self, "family", self.name)

    def trainer(self, boosting: Boosting, *, library: str | None = None, seed: np.random.SeedSequence,
                threads: int = 1, **options) -> Trainer:
        """A trainer of this system; ``options`` override fields of :attr:`options`."""
        lib = self.resolve_library(library)
        return self.trainer_cls(self, boosting, lib, seed, threads, **options)

    def configure(self, **overrides):
        """:attr:`options` with ``overrides`` (``dataclasses.replace``; its checks run again).
        A name that is not one of its fields is a :class:`TypeError` naming them."""
        if not overrides:
            return self.options
        names = [f.name for f in dataclasses.fields(self.options)]
        unknown = [k for k in overrides if k not in names]
        if unknown:
            raise TypeError(f"system {self.name!r} has no option {', '.join(map(repr, unknown))}: its options "
                            f"({type(self.options).__name__}) are {', '.join(names) or 'none'}")
        return dataclasses.replace(self.options, **overrides)

    def resolve_library(self, library: str | None) -> str:
        """The library this system runs in when ``library`` is asked for: a system pinned to
        one library (a library baseline, ltrrepro.gbdt) keeps its own."""
        if library in self.libraries:
            return library
        if library is None:                  # the default: the first library it runs in
            return self.libraries[0]
        if len(self.libraries) == 1:
            return self.libraries[0]
        raise ValueError(f"system {self.name!r} runs in {', '.join(self.libraries)}, not {library!r}")


#: every trainable system of every paper, by unit ``model`` name
SYSTEMS: dict[str, System] = {}


def register(system: System) -> System:
    if system.name in SYSTEMS and SYSTEMS[system.name] != system:
        raise ValueError(f"a system named {system.name!r} is already registered")
    SYSTEMS[system.name] = system
    return system

"""Query splits: randomized pooled splits (Bruch), official folds (Xia), and a validation part
drawn from an official training part that has none (Istella, Lyzhin et al. §4.1).

Trial ``i`` of an experiment draws its split from the stream with spawn key ``(i, 0)`` of
``np.random.SeedSequence(seed)`` — the split stream ``STREAM_SPLIT`` of
:mod:`ltrrepro.runner`, never used for anything else (noise is ``(i, 1, …)``, a model's own
randomness ``(i, 2, …)``) — so trial ``i`` gets the same split whatever the number of trials,
and every model of a trial shares it (paired design).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["QuerySplit", "random_query_split", "trial_split", "drawn_validation", "DRAWN_VALID_KEY"]


@dataclass(frozen=True)
class QuerySplit:
    """Query numbers (into one pooled dataset) of each part."""

    train: np.ndarray
    valid: np.ndarray
    test: np.ndarray
    trial: int = 0

    def parts(self) -> dict[str, np.ndarray]:
        return {"train": self.train, "valid": self.valid, "test": self.test}


def random_query_split(n_queries: int, rng: np.random.Generator,
                       fractions=(0.6, 0.2, 0.2), trial: int = 0) -> QuerySplit:
    """Random disjoint train/valid/test query numbers with the given fractions.

    Sizes are ``round(f * n)`` for train and valid; test takes the rest. Query numbers in
    each part are sorted, so documents keep their pooled order.
    """
    f = np.asarray(fractions, dtype=float)
    if f.shape != (3,) or np.any(f < 0) or not np.isclose(f.sum(), 1.0):
        raise ValueError(f"fractions must be three non-negative numbers summing to 1, got {fractions}")
    perm = rng.permutation(n_queries)
    n_tr = int(round(f[0] * n_queries))
    n_va = int(round(f[1] * n_queries))
    if n_tr == 0 or n_queries - n_tr - n_va < 0:
        raise ValueError(f"{n_queries} queries are too few for fractions {tuple(f)}")
    return QuerySplit(train=np.sort(perm[:n_tr]), valid=np.sort(perm[n_tr:n_tr + n_va]),
                      test=np.sort(perm[n_tr + n_va:]), trial=trial)


def trial_split(n_queries: int, seed: int, trial: int, fractions=(0.6, 0.2, 0.2)) -> QuerySplit:
    """The split of trial ``trial``: drawn from ``SeedSequence(seed, spawn_key=(trial, 0))``,
    built as ``SeedSequence(seed).spawn(trial + 1)[trial].spawn(1)[0]`` (the same sequence).

    >>> import numpy as np
    >>> rng = np.random.default_rng(np.random.SeedSequence(3, spawn_key=(2, 0)))
    >>> bool(np.array_equal(np.sort(rng.permutation(10)[:6]), trial_split(10, seed=3, trial=2).train))
    True

    The generator is used for nothing else, so adding trials never changes earlier ones.
    """
    ss = np.random.SeedSequence(seed).spawn(trial + 1)[trial]
    rng = np.random.default_rng(ss.spawn(1)[0])
    return random_query_split(n_queries, rng, fractions, trial=trial)


#: the spawn key of :func:`drawn_validation`'s stream: trial 0's split stream (``STREAM_SPLIT``)
DRAWN_VALID_KEY = (0, 0)


def drawn_validation(n_queries: int, seed: int, fraction: float = 0.2) -> QuerySplit:
    """A validation part drawn from an official training part of ``n_queries`` queries that
    comes without one (Istella: "we randomly divided the train part into train and validation",
    Lyzhin et al. 2023 §4.1 "Datasets"): ``round(fraction * n)`` queries to ``valid``, the rest
    to ``train``, ``test`` empty, drawn from ``SeedSequence(seed, spawn_key=DRAWN_VALID_KEY)`` —
    trial 0's split stream, so the part is one per run (every trial shares it) and the same seed
    always draws the same part.

    >>> sp = drawn_validation(10, seed=3)
    >>> len(sp.train), len(sp.valid), len(sp.test), bool(np.array_equal(sp.valid, trial_split(10, 3, 0, (0.8, 0.2, 0)).valid))
    (8, 2, 0, True)
    """
    if not 0 < fraction < 1:
        raise ValueError(f"the validation fraction must be in (0, 1), got {fraction}")
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=DRAWN_VALID_KEY))
    split = random_query_split(n_queries, rng, (1.0 - fraction, fraction, 0.0))
    if len(split.valid) == 0:
        raise ValueError(f"{n_queries} training queries are too few to draw a validation part of {fraction:g}")
    train = np.sort(np.concatenate([split.train, split.test]))     # a rounding remainder stays in training
    return QuerySplit(train=train, valid=split.valid, test=split.test[:0])

"""Query splits: randomized pooled splits (Bruch) and official folds (Xia).

Trial ``i`` of an experiment draws its split from the stream with spawn key ``(i, 0)`` of
``np.random.SeedSequence(seed)`` — the split stream ``STREAM_SPLIT`` of
:mod:`ltrrepro.runner`, never used for anything else (noise is ``(i, 1, …)``, a model's own
randomness ``(i, 2, …)``) — so trial ``i`` gets the same split whatever the number of trials,
and every model of a trial shares it (paired design).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["QuerySplit", "random_query_split", "trial_split"]


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

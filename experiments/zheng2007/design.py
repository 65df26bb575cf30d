"""Zheng et al. (2007)'s data design on public data (:mod:`.protocol`): L1 = the queries whose
documents share one grade; the others split at random per trial into L2 (training, with a
validation part) and L3 (test) in the paper's 1,300 : 1,400 query ratio."""
from __future__ import annotations

import numpy as np

from ltrrepro.data import RankingDataset
from ltrrepro.runner import STREAM_SPLIT, unit_seed
from ltrrepro.splits import random_query_split

__all__ = ["L2_SHARE", "VALID_SHARE", "single_grade", "zheng_split", "training_data"]

L2_SHARE = 1300 / 2700          # the paper's L2 : L3 query ratio
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

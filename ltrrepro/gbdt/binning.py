"""Feature binning for the histogram tree learner.

Each feature gets at most ``max_bin`` bins (≤ 256, so codes fit ``uint8``), defined by
increasing upper bounds ``thresholds[f]``: a value ``x`` falls in bin
``k = #{t in thresholds[f] : t < x}``, i.e. bin k holds ``thresholds[k−1] < x ≤ thresholds[k]``,
so "bin ≤ k" is the same test as ``x ≤ thresholds[k]`` and a tree fitted on bins predicts on
raw features with the same partition. Bounds come from a seeded row sample (LightGBM's
``bin_construct_sample_cnt`` idea): a feature with at most ``max_bin`` distinct sampled values
gets one bin per value (bounds at midpoints, as LightGBM); otherwise bounds at equal-frequency
quantiles of the sample, duplicates removed.
"""
from __future__ import annotations

import numba
import numpy as np

__all__ = ["BinMapper"]


@numba.njit(parallel=True, cache=True)
def _bin_columns(X, bounds, bound_start, out):
    n, F = X.shape
    for f in numba.prange(F):
        lo = bound_start[f]
        nb = bound_start[f + 1] - lo
        for i in range(n):
            x = X[i, f]
            # binary search: number of bounds strictly below x
            a, b = 0, nb
            while a < b:
                mid = (a + b) >> 1
                if bounds[lo + mid] < x:
                    a = mid + 1
                else:
                    b = mid
            out[i, f] = a


class BinMapper:
    """Per-feature bin bounds; ``fit`` on a sample, ``transform`` to ``uint8`` codes (n, F)."""

    def __init__(self, max_bin: int = 255, sample_size: int = 200_000):
        if not 2 <= max_bin <= 256:
            raise ValueError(f"max_bin must be in [2, 256], got {max_bin}")
        self.max_bin = int(max_bin)
        self.sample_size = int(sample_size)
        self.thresholds: list[np.ndarray] = []

    @property
    def n_bins(self) -> np.ndarray:
        """Bins of each feature (len(thresholds) + 1)."""
        return np.array([t.shape[0] + 1 for t in self.thresholds], dtype=np.int64)

    def fit(self, X: np.ndarray, rng: np.random.Generator | None = None) -> "BinMapper":
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D, got shape {X.shape}")
        n = X.shape[0]
        if n > self.sample_size:
            rng = rng if rng is not None else np.random.default_rng(0)
            rows = np.sort(rng.choice(n, self.sample_size, replace=False))
            S = np.asarray(X[rows], dtype=np.float64)
        else:
            S = np.asarray(X, dtype=np.float64)
        if np.isnan(S).any():
            f = int(np.flatnonzero(np.isnan(S).any(axis=0))[0])
            raise ValueError(f"feature {f} has NaN values; the tree learner needs complete features "
                             "(load data with missing='zero' or impute first)")
        self.thresholds = []
        for f in range(S.shape[1]):
            v = np.unique(S[:, f])
            if v.shape[0] <= self.max_bin:
                t = (v[:-1] + v[1:]) / 2.0
            else:
                q = np.quantile(S[:, f], np.arange(1, self.max_bin) / self.max_bin, method="inverted_cdf")
                t = np.unique(q)
                t = t[t < v[-1]]
            self.thresholds.append(np.ascontiguousarray(t, dtype=np.float64))
        return self

    def _flat(self):
        start = np.zeros(len(self.thresholds) + 1, dtype=np.int64)
        np.cumsum([t.shape[0] for t in self.thresholds], out=start[1:])
        flat = np.concatenate(self.thresholds) if self.thresholds else np.zeros(0)
        return flat.astype(np.float64), start

    def transform(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X)
        if X.ndim != 2 or X.shape[1] != len(self.thresholds):
            raise ValueError(f"X has shape {X.shape}; the mapper was fitted on {len(self.thresholds)} features")
        if not X.flags.c_contiguous:
            X = np.ascontiguousarray(X)
        if X.dtype.kind == "f" and np.isnan(X).any():
            f = int(np.flatnonzero(np.isnan(X).any(axis=0))[0])
            raise ValueError(f"feature {f} has NaN values; impute them before binning")
        flat, start = self._flat()
        out = np.empty(X.shape, dtype=np.uint8)
        _bin_columns(X, flat, start, out)
        return out

    def upper_bound(self, feature: int, bin_: int) -> float:
        """The raw-value threshold of the split "bin ≤ bin_" on ``feature``."""
        return float(self.thresholds[feature][bin_])

"""Synthetic learning-to-rank data calibrated to MSLR-WEB30K or Yahoo! LTR Set 1.

So that every command runs without the real data, :func:`make_synthetic` draws a dataset
with the shape and label statistics of the real data (docs/conventions.md §2–§3):

* documents per query: log-normal with the dataset's mean and a long tail (Web30K mean
  ≈ 120, capped at 1,251; Yahoo mean ≈ 24, capped at 139);
* label shares: Web30K ≈ 51/32/13/2/1 %, Yahoo ≈ 24/37/29/8/2 % for labels 0–4, hit by
  global quantile thresholds on a latent utility;
* ≈ 3% of Web30K queries (≈ 3.6% of Yahoo) with no relevant document, and a further
  share of single-grade queries whose documents all carry one grade ≥ 1 (Zheng's L1);
* query-level difficulty (a random offset per query in the utility) and query-level
  feature shifts, so absolute feature values are not comparable across queries;
* a latent utility with nonlinear interactions (products, a sine, a squared hinge, an
  absolute value) and Gaussian noise;
* heterogeneous, heavy-tailed features: log-normal magnitudes, integer counts, bounded
  [0, 1] scores, sparse features with many zeros, query-constant features, pure-noise
  features, and per-feature scales spanning 10^-2 … 10^5.

Profiles set the sizes; ``n_queries`` scales a profile down or up. Generation is chunked
(the whole Web30K size, 3.7M × 136, takes well under a minute) and seeded: the same
``seed`` gives the same data bit for bit.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from threadpoolctl import threadpool_limits

from .data import RankingDataset

__all__ = ["SyntheticProfile", "PROFILES", "make_synthetic"]


@dataclass(frozen=True)
class SyntheticProfile:
    name: str
    n_queries: int
    n_features: int
    mean_docs: float
    sigma_docs: float
    max_docs: int
    label_shares: tuple
    norel_share: float
    single_grade_share: float
    noise: float = 1.0
    n_latent: int = 12
    n_query_constant: int = 8
    n_noise_features: int = 10


PROFILES: dict[str, SyntheticProfile] = {
    "web30k": SyntheticProfile(
        name="web30k", n_queries=31531, n_features=136, mean_docs=119.6, sigma_docs=0.65,
        max_docs=1251, label_shares=(0.515, 0.323, 0.131, 0.021, 0.010),
        norel_share=0.03, single_grade_share=0.02, noise=3.5),
    "yahoo": SyntheticProfile(
        name="yahoo", n_queries=29921, n_features=519, mean_docs=23.7, sigma_docs=0.7,
        max_docs=139, label_shares=(0.24, 0.37, 0.29, 0.08, 0.02),
        norel_share=0.038, single_grade_share=0.02, noise=3.0, n_query_constant=12,
        n_noise_features=40),
}


def _docs_per_query(rng, p: SyntheticProfile, nq: int) -> np.ndarray:
    mu = np.log(p.mean_docs) - 0.5 * p.sigma_docs ** 2
    m = np.rint(rng.lognormal(mu, p.sigma_docs, size=nq)).astype(np.int64)
    return np.clip(m, 1, p.max_docs)


def _feature_plan(rng, p: SyntheticProfile):
    """Per-feature recipe: kind, latent loadings, query loadings, scale."""
    d, K = p.n_features, p.n_latent
    kinds = np.array(["lognormal", "count", "bounded", "sparse", "linear"])
    n_var = d - p.n_query_constant - p.n_noise_features
    kind = np.concatenate([
        rng.choice(kinds, size=n_var, p=[0.3, 0.2, 0.2, 0.15, 0.15]),
        np.full(p.n_query_constant, "qconst"), np.full(p.n_noise_features, "noise")])
    A = np.zeros((K, d), np.float32)
    for j in range(n_var):
        dims = rng.choice(K, size=rng.integers(1, 4), replace=False)
        A[dims, j] = rng.normal(0, 1, size=dims.size) * rng.uniform(0.5, 1.5)
    A[:, :n_var] /= np.maximum(np.linalg.norm(A[:, :n_var], axis=0), 1e-6)
    Q = (rng.normal(0, 1, size=(4, d)) * 0.6).astype(np.float32)   # query-level shifts
    Q[:, n_var + p.n_query_constant:] = 0.0
    fnoise = rng.uniform(0.3, 0.9, size=d).astype(np.float32)      # per-feature noise
    scale = (10.0 ** rng.uniform(-2, 5, size=d)).astype(np.float32)
    return kind, A, Q, fnoise, scale


def _utility(Z: np.ndarray) -> np.ndarray:
    """Latent relevance: linear part plus nonlinear interactions."""
    w = np.array([1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.2, 0.1, 0.1][:Z.shape[1]], np.float32)
    u = Z @ w
    u += 0.6 * Z[:, 0] * Z[:, 1]
    u += 0.8 * np.sin(1.5 * Z[:, 2])
    u += 0.5 * np.maximum(Z[:, 3], 0.0) ** 2
    u -= 0.4 * np.abs(Z[:, 4])
    u += 0.5 * Z[:, 5] * (Z[:, 6] > 0)
    return u


def _transform(F: np.ndarray, kind: np.ndarray, scale: np.ndarray) -> None:
    """In place: turn Gaussian feature values into realistic marginals."""
    for k in ("lognormal", "count", "bounded", "sparse", "linear", "qconst", "noise"):
        cols = np.flatnonzero(kind == k)
        if cols.size == 0:
            continue
        block = F[:, cols]
        if k == "lognormal":
            block = np.exp(0.8 * block)
        elif k == "count":
            block = np.floor(np.exp(0.9 * block + 0.5))
        elif k == "bounded":
            block = 1.0 / (1.0 + np.exp(-1.5 * block))
        elif k == "sparse":
            block = np.where(block > 0.6, np.exp(block), 0.0)
        elif k == "qconst":
            block = np.exp(0.5 * block)
        if k not in ("bounded",):
            block = block * scale[cols]
        F[:, cols] = block.astype(np.float32)


def make_synthetic(profile: str | SyntheticProfile = "web30k", n_queries: int | None = None,
                   seed: int = 0, noise: float | None = None, chunk_docs: int = 400_000) -> RankingDataset:
    """Draw a synthetic ranking dataset.

    Parameters
    ----------
    profile : ``"web30k"``, ``"yahoo"`` or a :class:`SyntheticProfile`.
    n_queries : number of queries (default: the real dataset's).
    seed : seeds the one ``np.random.Generator`` used for every draw.
    noise : standard deviation of the utility noise (default: the profile's).

    The dataset's ``meta`` records the profile and seed. Query ids are 1..n_queries.
    """
    p = PROFILES[profile] if isinstance(profile, str) else profile
    if noise is not None:
        p = replace(p, noise=float(noise))
    nq = int(n_queries if n_queries is not None else p.n_queries)
    if nq < 1:
        raise ValueError("n_queries must be >= 1")
    rng = np.random.default_rng(seed)
    sizes = _docs_per_query(rng, p, nq)
    n = int(sizes.sum())
    offsets = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    kind, A, Q, fnoise, scale = _feature_plan(rng, p)
    n_var = p.n_features - p.n_query_constant - p.n_noise_features

    # query-level draws
    difficulty = rng.normal(0.0, 0.9, size=nq).astype(np.float32)
    zq = rng.normal(0.0, 1.0, size=(nq, 4)).astype(np.float32)
    qconst_noise = rng.normal(0.0, 1.0, size=(nq, p.n_query_constant)).astype(np.float32)

    X = np.empty((n, p.n_features), np.float32)
    u = np.empty(n, np.float32)
    qidx = np.repeat(np.arange(nq), sizes)
    # one BLAS thread: a threaded float32 product sums in an order that depends on the thread count,
    # and the transforms then round the difference up (0.06% of the features moved by up to 0.02 at
    # 2 threads against 1): the same seed must give the same bytes on every machine and in every process
    with threadpool_limits(limits=1, user_api="blas"):
        for a in range(0, n, chunk_docs):
            b = min(a + chunk_docs, n)
            qi = qidx[a:b]
            Z = rng.standard_normal((b - a, p.n_latent), dtype=np.float32)
            F = Z @ A
            F += zq[qi] @ Q
            F += rng.standard_normal((b - a, p.n_features), dtype=np.float32) * fnoise
            # query-constant features: query shift, difficulty and noise, same for all docs
            qc = slice(n_var, n_var + p.n_query_constant)
            F[:, qc] = (0.7 * difficulty[qi, None] + qconst_noise[qi]
                        + zq[qi, :1] * 0.3)
            F[:, n_var + p.n_query_constant:] = rng.standard_normal(
                (b - a, p.n_noise_features), dtype=np.float32)
            _transform(F, kind, scale)
            X[a:b] = F
            u[a:b] = _utility(Z) + difficulty[qi] + p.noise * rng.standard_normal(b - a, dtype=np.float32)

    # labels from global quantiles of the utility, then special queries
    special = rng.permutation(nq)
    n_norel = int(round(p.norel_share * nq))
    n_single = int(round(p.single_grade_share * nq))
    norel_q = special[:n_norel]
    single_q = special[n_norel:n_norel + n_single]
    in_norel = np.zeros(nq, bool)
    in_norel[norel_q] = True
    in_single = np.zeros(nq, bool)
    in_single[single_q] = True
    regular = ~(in_norel | in_single)[qidx]
    shares = np.asarray(p.label_shares, float)
    shares = shares / shares.sum()
    # the regular documents carry the labels the special queries do not
    n_reg = int(regular.sum())
    n_zero_special = int(sizes[norel_q].sum())
    target_counts = shares * n
    single_labels = rng.choice([1, 2], size=n_single, p=[0.7, 0.3])
    single_counts = np.bincount(single_labels, weights=sizes[single_q], minlength=5)[:5]
    reg_counts = target_counts.copy()
    reg_counts[0] -= n_zero_special
    reg_counts -= single_counts
    reg_counts = np.maximum(reg_counts, 0.0)
    cum = np.cumsum(reg_counts / max(reg_counts.sum(), 1.0))[:-1]
    thresholds = np.quantile(u[regular], np.clip(cum, 0, 1)) if n_reg else np.zeros(4)
    y = np.searchsorted(thresholds, u, side="right").astype(np.int32)
    y[~regular] = 0
    lab_q = np.zeros(nq, np.int32)
    lab_q[single_q] = single_labels
    single_rows = np.repeat(in_single, sizes)
    y[single_rows] = np.repeat(lab_q, sizes)[single_rows]
    meta = {"synthetic": p.name, "seed": seed, "noise": p.noise, "n_queries": nq}
    return RankingDataset(X=X, y=y, qid=np.repeat(np.arange(1, nq + 1, dtype=np.int64), sizes),
                          offsets=offsets, name=f"synthetic-{p.name}", meta=meta)

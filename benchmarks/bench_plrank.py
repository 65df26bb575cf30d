"""PL-Rank-3 with the sampled Hessian: ltrrepro's numba kernel against a per-query NumPy version
in the authors' form, and the gradient's share of a boosting round, measured in one run.

Yahoo-shaped synthetic data (default 3,000 queries ≈ 71K documents, 519 features), the same
lists for both versions, N sampled rankings per list (default 200, the paper's), cutoff K.

* **Gradient + Hessian per round**: :class:`~ltrrepro.objectives.PLRank` (one call: sampling,
  gradient and Hessian from the same rankings) against :func:`authors_form`: a Python loop over
  queries, each drawing an (N, m) Gumbel matrix, sorting it into full rankings and computing the
  gradient and then the Hessian with (N, m) NumPy arrays, as ``plrank3obj`` in
  ``jkang98/2024-SIGIR-XGBoost-PL-Rank`` does (written here from the formulas, not copied).
  Target: ratio >= 20.
* **Gradient's share of a round**: XGBoost with the authors' reported parameters (depth 8,
  min_child_weight 6, …; ``hessian_policy="none"``, what their code hands XGBoost), the time in
  ``grad_hess`` over the time of the whole round (tree included). Target: <= 25%.

    python benchmarks/bench_plrank.py [--queries 3000] [--samples 200] [--cutoff 10] [--trees 20]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import xgboost as xgb

from ltrrepro.objectives import PLRank, RoundState, XGBoostObjective
from ltrrepro.synthetic import make_synthetic

#: the authors' reported XGBoost run with the Hessian (docs/references.md, Kang et al. 2024)
KANG_PARAMS = {"learning_rate": 0.008783301373322701, "max_depth": 8, "min_child_weight": 6,
               "gamma": 0.660318836446253, "lambda": 0.0002215968913779487, "alpha": 0.017685733626589432,
               "disable_default_eval_metric": 1, "tree_method": "hist", "verbosity": 0}


def _prefix_sums(gains, theta, scores, rankings, cutoff):
    """What the gradient and Hessian share, per sample (rows) and rank (columns): the cutoff
    rankings, e^f, D_k, G_k and the cumulative sums over ranks of θ/D, G/D."""
    top = rankings[:, :cutoff]
    ex = np.exp(scores - scores.max())
    # D_k: the mass of the documents from rank k on, from the reversed full rankings
    D = np.cumsum(ex[rankings[:, ::-1]], axis=1)[:, ::-1][:, :cutoff]
    G = np.cumsum((gains[top] * theta[None, :cutoff])[:, ::-1], axis=1)[:, ::-1]
    return top, ex, D, G


def _spread(n, top, ex, at_top, at_rest):
    """(N, n): ``at_rest`` (N, 1 or n) for every document, ``at_top`` (N, K) where it was ranked."""
    out = np.broadcast_to(at_rest, (top.shape[0], n)).copy()
    out[np.arange(top.shape[0])[:, None], top] = at_top
    return out


def authors_grad(gains, theta, scores, rankings):
    n, N = scores.shape[0], rankings.shape[0]
    K = min(theta.shape[0], n)
    top, ex, D, G = _prefix_sums(gains, theta, scores, rankings, K)
    after = np.zeros(n)
    np.add.at(after, top[:, :-1], G[:, 1:])
    dr = np.cumsum(theta[None, :K] / D, axis=1)
    ri = np.cumsum(G / D, axis=1)
    rest = ex[None, :] * (gains[None, :] * dr[:, -1:] - ri[:, -1:])
    ranked = ex[top] * (gains[top] * dr - ri)
    return -(after / N + _spread(n, top, ex, ranked, rest).mean(axis=0))


def authors_hess(gains, theta, scores, rankings):
    n, N = scores.shape[0], rankings.shape[0]
    K = min(theta.shape[0], n)
    top, ex, D, G = _prefix_sums(gains, theta, scores, rankings, K)
    c = np.cumsum(1.0 / D, axis=1)
    after = np.zeros(n)
    np.add.at(after, top[:, :-1], G[:, 1:] * (1.0 - ex[top[:, :-1]] * c[:, :-1]))
    score_fn = _spread(n, top, ex, 1.0 - ex[top] * c, -ex[None, :] * c[:, -1:])     # ∂ log π / ∂f_d
    dr = np.cumsum(theta[None, :K] / D, axis=1)
    ri = np.cumsum(G / D, axis=1)
    first = _spread(n, top, ex, ex[top] * (gains[top] * dr - ri), ex[None, :] * (gains[None, :] * dr[:, -1:] - ri[:, -1:]))
    ds = np.cumsum(theta[None, :K] / D ** 2, axis=1)
    rs = np.cumsum(G / D ** 2, axis=1)
    second = _spread(n, top, ex, ex[top] ** 2 * (gains[top] * ds - rs),
                     ex[None, :] ** 2 * (gains[None, :] * ds[:, -1:] - rs[:, -1:]))
    return -(after / N + (first * (1.0 + score_fn)).mean(axis=0) - second.mean(axis=0))


def authors_form(scores, labels, offsets, n_samples, cutoff, rng):
    """(grad, hess) of −E[DCG@cutoff]: per query, N Gumbel-perturbed full rankings, then the
    gradient and the Hessian each from them (the authors' loop, structure and array shapes)."""
    gains_all = 2.0 ** labels - 1.0
    grad, hess = np.zeros(scores.shape[0]), np.zeros(scores.shape[0])
    longest = int(np.diff(offsets).max())
    theta = 1.0 / np.log2(np.arange(min(cutoff, longest)) + 2.0)
    for q in range(offsets.shape[0] - 1):
        a, b = offsets[q], offsets[q + 1]
        s, gains = scores[a:b], gains_all[a:b]
        if b - a <= 1:
            continue
        perturbed = -(s[None, :] + rng.gumbel(size=(n_samples, b - a)))
        k = min(cutoff, b - a)
        rankings = np.argpartition(perturbed, k - 1, axis=1)         # the top k first, then the rest
        order = np.argsort(np.take_along_axis(perturbed, rankings[:, :k], axis=1), axis=1)
        rankings[:, :k] = np.take_along_axis(rankings[:, :k], order, axis=1)
        grad[a:b] = authors_grad(gains, theta, s, rankings)
        hess[a:b] = authors_hess(gains, theta, s, rankings)
    return grad, hess


def _best(fn, repeats):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


class _Timed:
    """An XGBoost objective that times the adapter's calls (grad_hess and its checks)."""

    def __init__(self, objective, seed):
        self.fn, self.seconds = XGBoostObjective(objective).bind(RoundState.start(seed)), 0.0

    def __call__(self, preds, dtrain):
        t = time.perf_counter()
        try:
            return self.fn(preds, dtrain)
        finally:
            self.seconds += time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--queries", type=int, default=3000, help="synthetic Yahoo-shaped queries (default 3000)")
    ap.add_argument("--samples", type=int, default=200, help="sampled rankings per list, N (default 200)")
    ap.add_argument("--cutoff", type=int, default=10, help="the DCG cutoff K (default 10)")
    ap.add_argument("--trees", type=int, default=20, help="XGBoost rounds timed for the share (default 20)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3, help="interleaved repeats of each timing; the fastest counts "
                                                           "(default 3)")
    args = ap.parse_args()
    import numba

    numba.set_num_threads(args.threads)
    ds = make_synthetic("yahoo", n_queries=args.queries, seed=0)
    print(f"{ds.n_docs} documents, {ds.n_queries} queries, {ds.n_features} features; N = {args.samples}, "
          f"K = {args.cutoff}, {args.threads} threads")
    obj = PLRank(n_samples=args.samples, cutoff=args.cutoff)
    scores = np.random.default_rng(1).normal(size=ds.n_docs)
    obj.grad_hess(scores, ds.y, ds.offsets, rng=np.random.default_rng(0))          # compile outside timing
    t_kernel, t_numpy = [], []
    for _ in range(args.repeats):              # interleaved, so that drifts of a shared host hit both
        t_kernel.append(_best(lambda: obj.grad_hess(scores, ds.y, ds.offsets, rng=np.random.default_rng(0)), 3))
        t_numpy.append(_best(lambda: authors_form(scores, ds.y, ds.offsets, args.samples, args.cutoff,
                                                  np.random.default_rng(0)), 1))
    t_kernel, t_numpy = min(t_kernel), min(t_numpy)
    # the two estimate the same expectations: their difference is sampling noise of both
    g1, h1 = obj.grad_hess(scores, ds.y, ds.offsets, rng=np.random.default_rng(2))
    g2, h2 = authors_form(scores, ds.y, ds.offsets, args.samples, args.cutoff, np.random.default_rng(2))
    ratio = t_numpy / t_kernel
    print(f"gradient + Hessian per round: numba {t_kernel * 1e3:.1f} ms, NumPy per query (authors' form) "
          f"{t_numpy * 1e3:.1f} ms, ratio {ratio:.1f} (target >= 20{', met' if ratio >= 20 else ', NOT met'})")
    print(f"  the two agree in the mean: mean grad {g1.mean():+.2e} vs {g2.mean():+.2e}, mean |grad| "
          f"{np.abs(g1).mean():.4f} vs {np.abs(g2).mean():.4f}, mean hess {h1.mean():+.4f} vs {h2.mean():+.4f}, "
          f"share of negative Hessians {np.mean(h1 < 0):.3f} vs {np.mean(h2 < 0):.3f}")
    dtrain = xgb.DMatrix(ds.X, ds.y)
    dtrain.set_group(ds.query_sizes)
    params = {**KANG_PARAMS, "nthread": args.threads, "seed": 0}
    xgb.train(params, dtrain, 1, obj=_Timed(obj, 0))                                 # build the bins once
    shares, per_round = [], []
    for r in range(args.repeats):
        timed = _Timed(obj, r)
        t = time.perf_counter()
        xgb.train(params, dtrain, args.trees, obj=timed)
        total = time.perf_counter() - t
        shares.append(timed.seconds / total)
        per_round.append((total / args.trees, timed.seconds / args.trees))
    i = int(np.argmin([p[0] for p in per_round]))
    share = shares[i]
    print(f"XGBoost round (authors' parameters, depth 8): {per_round[i][0] * 1e3:.1f} ms, of which grad_hess "
          f"{per_round[i][1] * 1e3:.1f} ms = {share:.1%} (target <= 25%{', met' if share <= 0.25 else ', NOT met'})")


if __name__ == "__main__":
    main()

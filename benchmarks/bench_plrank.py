"""PL-Rank-3 with the sampled Hessian: ltrrepro's numba kernel against a per-query NumPy version
in the authors' form, and the gradient's share of a boosting round, measured in one run.

Yahoo-shaped synthetic data (default 3,000 queries ≈ 69K documents, 519 features), the same
lists and scores for both versions, N sampled rankings per list (default 200, the paper's), cutoff K.

* **Gradient + Hessian per round**: :class:`~ltrrepro.objectives.PLRank` (one call: sampling,
  gradient and Hessian from the same rankings; at 1 and at ``--threads`` numba threads) against
  :func:`authors_form`, single-threaded NumPy: a Python loop over queries, each drawing an (N, m)
  Gumbel matrix, taking its top K by ``argpartition`` + ``argsort`` (the authors'
  ``multiple_cutoff_rankings``), then the gradient and the Hessian each from those rankings with
  (N, m) arrays vectorised over the N samples, as ``PL_rank_3_grad`` / ``PL_rank_3_hess`` /
  ``plrank3obj`` in ``jkang98/2024-SIGIR-XGBoost-PL-Rank`` do (written here from the formulas,
  not copied; like theirs, the two functions each recompute the shared prefix sums). The ratio
  is taken per interleaved repeat; the median is printed. Target: ratio >= 20.
* **Where the kernel's time goes** (one thread): the race keys alone (a uniform and a logarithm
  per document per sample, 16 samples at a time by the kernel's own ``_race_batch``), then with
  the top-K selection, then the whole kernel (the accumulation of Φ and Ψ is the difference),
  each by a loop that mirrors the kernel's. Figures and their history: docs/benchmarks.md.
* **Gradient's share of a round**: XGBoost with the authors' reported parameters (depth 8,
  min_child_weight 6, …; ``hessian_policy="none"``, what their code hands XGBoost), the time in
  ``grad_hess`` over the time of the whole round (tree included). Target: <= 25%.

The package measured is this checkout's (its path is printed), not whichever is installed.

    python benchmarks/bench_plrank.py [--queries 3000] [--samples 200] [--cutoff 10] [--trees 20]
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numba  # noqa: E402
import numpy as np  # noqa: E402
import xgboost as xgb  # noqa: E402

import ltrrepro  # noqa: E402
from ltrrepro.objectives import PLRank, RoundState, XGBoostObjective  # noqa: E402
from ltrrepro.objectives import plrank as _pl  # noqa: E402
from ltrrepro.synthetic import make_synthetic  # noqa: E402

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


@numba.njit(cache=False, error_model="numpy")
def _stages(scores, offsets, cutoff, n_samples, keys, select):
    """The kernel's sampling loop alone, one thread: the race keys of every sample (drawn
    ``_BATCH`` samples at a time, as the kernel draws them), and with ``select`` their top K as
    the kernel selects it (a checksum keeps the work)."""
    B = _pl._BATCH
    longest = 1
    for q in range(offsets.shape[0] - 1):
        longest = max(longest, offsets[q + 1] - offsets[q])
    padded = (longest + _pl._LANES - 1) // _pl._LANES * _pl._LANES
    kbuf, cbuf, KB = np.empty(padded), np.empty(padded), np.empty(padded * B)
    ibuf, cidx = np.empty(padded, np.int64), np.empty(padded, np.int64)
    top, tkey = np.empty(cutoff + 1, np.int64), np.empty(cutoff + 1)
    ex, inv_ex = np.empty(padded), np.empty(padded)
    check = 0.0
    for q in range(offsets.shape[0] - 1):
        a, b = offsets[q], offsets[q + 1]
        m = b - a
        if m <= 1:
            continue
        K = min(cutoff, m)
        c = scores[a:b].max()
        for i in range(m):
            ex[i] = math.exp(max(scores[a + i] - c, -_pl._FLOOR_GAP))
            inv_ex[i] = 1.0 / ex[i]
            ibuf[i] = i
        mp = (m + _pl._LANES - 1) // _pl._LANES * _pl._LANES
        for i in range(m, mp):
            kbuf[i] = np.inf
        want = K + 3.0 * math.sqrt(K) + 3.0
        cut = _pl._threshold(0, m, ex, want) if m > _pl._RANK_ALL and m > want else np.inf
        z = keys[q]
        for s0 in range(0, n_samples, B):
            nb = min(B, n_samples - s0)
            _pl._race_batch(z, 0, m, inv_ex, KB)
            z = z + np.uint64(nb * m) * _pl._GOLDEN
            if not select:
                check += KB[0]
                continue
            for s in range(nb):
                if cut == np.inf:
                    for i in range(m):
                        kbuf[i] = KB[i * B + s]
                    _pl._rank_into(kbuf, ibuf, m, mp, K, top, tkey)
                else:
                    n = 0
                    for i in range(m):
                        ki = KB[i * B + s]
                        cbuf[n] = ki
                        cidx[n] = i
                        n += ki < cut
                    if n >= K:
                        npad = (n + _pl._LANES - 1) // _pl._LANES * _pl._LANES
                        for i in range(n, npad):
                            cbuf[i] = np.inf
                        _pl._rank_into(cbuf, cidx, n, npad, K, top, tkey)
                    else:
                        for i in range(m):
                            kbuf[i] = KB[i * B + s]
                        _pl._rank_into(kbuf, ibuf, m, mp, K, top, tkey)
                check += top[0]
    return check


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
    numba.set_num_threads(args.threads)
    ds = make_synthetic("yahoo", n_queries=args.queries, seed=0)
    print(f"{ds.n_docs} documents, {ds.n_queries} queries, {ds.n_features} features; N = {args.samples}, "
          f"K = {args.cutoff}, {args.threads} threads; measuring {Path(ltrrepro.__file__).parent}")
    obj = PLRank(n_samples=args.samples, cutoff=args.cutoff)
    scores = np.random.default_rng(1).normal(size=ds.n_docs)
    offsets = np.asarray(ds.offsets, np.int64)
    keys = np.random.default_rng(0).integers(0, np.iinfo(np.int64).max, size=ds.n_queries).view(np.uint64)

    def kernel(threads):
        numba.set_num_threads(threads)
        try:
            return obj.grad_hess(scores, ds.y, ds.offsets, rng=np.random.default_rng(0))
        finally:
            numba.set_num_threads(args.threads)

    kernel(1), kernel(args.threads)                                                  # compile outside timing
    _stages(scores, offsets, args.cutoff, 2, keys, False), _stages(scores, offsets, args.cutoff, 2, keys, True)
    t1, tn, tnp, tk, tks = [], [], [], [], []
    for _ in range(args.repeats):              # interleaved, so that drifts of a shared host hit all
        t1.append(_best(lambda: kernel(1), 3))
        tn.append(_best(lambda: kernel(args.threads), 3))
        tnp.append(_best(lambda: authors_form(scores, ds.y, ds.offsets, args.samples, args.cutoff,
                                              np.random.default_rng(0)), 1))
        numba.set_num_threads(1)
        tk.append(_best(lambda: _stages(scores, offsets, args.cutoff, args.samples, keys, False), 3))
        tks.append(_best(lambda: _stages(scores, offsets, args.cutoff, args.samples, keys, True), 3))
        numba.set_num_threads(args.threads)
    t1, tn, tnp, tk, tks = (np.array(t) for t in (t1, tn, tnp, tk, tks))
    # the two estimate the same expectations: their difference is sampling noise of both
    g1, h1 = obj.grad_hess(scores, ds.y, ds.offsets, rng=np.random.default_rng(2))
    g2, h2 = authors_form(scores, ds.y, ds.offsets, args.samples, args.cutoff, np.random.default_rng(2))
    r1, rn = float(np.median(tnp / t1)), float(np.median(tnp / tn))
    print(f"gradient + Hessian per round (medians of {args.repeats} interleaved repeats): NumPy per query "
          f"(authors' form) {np.median(tnp) * 1e3:.0f} ms; numba 1 thread {np.median(t1) * 1e3:.1f} ms, ratio "
          f"{r1:.1f}; {args.threads} threads {np.median(tn) * 1e3:.1f} ms, ratio {rn:.1f} "
          f"(target >= 20{', met' if rn >= 20 else ', NOT met'}); ratios per repeat "
          f"{', '.join(f'{x:.1f}' for x in tnp / tn)}")
    samples = args.samples * int(np.sum(np.diff(ds.offsets) > 1))
    k1, ks1, f1 = np.median(tk), np.median(tks), np.median(t1)
    print(f"  where one thread's time goes ({samples / 1e6:.2f}M sampled rankings, "
          f"{args.samples * ds.n_docs / 1e6:.1f}M keys): race keys (uniform + log) {k1 * 1e3:.1f} ms "
          f"({k1 / f1:.0%}, {k1 / (args.samples * ds.n_docs) * 1e9:.1f} ns a key), top-{args.cutoff} selection "
          f"{(ks1 - k1) * 1e3:.1f} ms ({(ks1 - k1) / f1:.0%}), accumulation of Φ, Ψ and the rest "
          f"{(f1 - ks1) * 1e3:.1f} ms ({(f1 - ks1) / f1:.0%}, {(f1 - ks1) / samples * 1e9:.0f} ns a ranking); "
          f"{args.threads} threads: {f1 / np.median(tn):.2f}x one")
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
    share = float(np.median(shares))
    rounds, grads = np.median([p[0] for p in per_round]), np.median([p[1] for p in per_round])
    print(f"XGBoost round (authors' parameters, depth 8, {args.threads} threads; medians of {args.repeats}): "
          f"{rounds * 1e3:.1f} ms, of which grad_hess {grads * 1e3:.1f} ms = {share:.1%} (target <= 25%"
          f"{', met' if share <= 0.25 else ', NOT met'}; per repeat {', '.join(f'{x:.0%}' for x in shares)}); "
          f"the tree alone {(rounds - grads) * 1e3:.1f} ms, so 25% needs grad_hess <= "
          f"{(rounds - grads) / 3 * 1e3:.1f} ms")


if __name__ == "__main__":
    main()

"""Per-tree time of the split principles against LightGBM, measured in one run (issue 8).

Web10K-shaped synthetic data (the Web30K profile: 136 features, ≈120 documents per query;
default 1,000 queries ≈ 120K documents), LambdaMART gradients (LightGBM's lambdas,
truncation 30: ≈15 pairs per document), 20 leaves, 255 bins, the same trees for every
learner. Times the tree growth alone (the objective's time is measured and reported
separately) for ltrrepro's SE, RWSE and exact OLE, and for LightGBM growing trees on the
same gradients through a custom objective. Prints per-tree seconds and the two target
ratios: OLE / SE (target ≤ 3; Xia et al. report ≈ 1.3 for a sort-based learner) and
SE / LightGBM (target ≤ 2).

    python benchmarks/bench_ole.py [--queries 1000] [--trees 10] [--leaves 20] [--threads 2]

Why OLE costs more here: the exact child Hessian needs the weight of the pairs lying inside
each child for every threshold, O(pairs in node × features) per node, against
O(documents in node × features) for SE; with ≈15 LambdaMART pairs per document the pair
histograms dominate (histogram subtraction cuts them to the cheaper two of the three pair
groups: left, right, split across).

The last lines put the target in the kernel's units: the pair work that a 3x OLE / SE
allows per tree (3·SE − RWSE seconds: OLE's non-pair work is RWSE's) per (pair, feature)
that the pair kernel sees, in thread-nanoseconds, against the floor — the kernel's dense
per-pair feature loop alone (no histogram scatter, no window bookkeeping, no partition),
timed on the root's pairs.
"""
from __future__ import annotations

import argparse
import json
import time

import lightgbm as lgb
import numba
import numpy as np

from ltrrepro.gbdt import kernels as K
from ltrrepro.gbdt import train
from ltrrepro.gbdt.binning import BinMapper
from ltrrepro.objectives import LambdaMART, LightGBMObjective, RoundState
from ltrrepro.synthetic import make_synthetic


def _timed(fn):
    """``fn`` (a bound LightGBM objective) adding the seconds of its calls to ``.seconds``."""
    def objective(preds, data):
        t = time.perf_counter()
        out = fn(preds, data)
        objective.seconds += time.perf_counter() - t
        return out
    objective.seconds = 0.0
    return objective


@numba.njit(parallel=True)
def _feature_loop_only(bins, pi, pj, prho, acc):
    """The inner loop of :func:`kernels.hist_pairs` alone, its result left in ``acc``:
    ``acc[i, f] += rho·[b_if ≥ b_jf]``, ``acc[j, f] += rho·[b_if < b_jf]`` over each
    thread's slice of the pairs, rows taken modulo a window of W rows (never flushed)."""
    F = bins.shape[1]
    nthr, W = acc.shape[0], acc.shape[1]
    n = pi.shape[0]
    for t in numba.prange(nthr):
        win = acc[t]
        for k in range(n * t // nthr, n * (t + 1) // nthr):
            a, b, w = pi[k], pj[k], prho[k]
            ra, rb = bins[a], bins[b]
            A, C = win[a % W], win[b % W]
            for f in range(F):
                cw = w * np.float64(ra[f] >= rb[f])
                A[f] += cw
                C[f] += w - cw


def _pairs_through_kernel(ds, common) -> int:
    """Pairs passed to the pair histogram kernel while growing the first OLE tree (zero scores)."""
    seen = [0]
    kernel = K.hist_pairs

    def counting(bins, pi, pj, prho, s, e, *rest):
        seen[0] += e - s
        return kernel(bins, pi, pj, prho, s, e, *rest)

    K.hist_pairs = counting
    try:
        train(LambdaMART(), ds, criterion="ole", num_rounds=1, **common)
    finally:
        K.hist_pairs = kernel
    return seen[0]


def _floor(ds, threads: int, repeats: int = 5) -> float:
    """Best time of :func:`_feature_loop_only` over the root's LambdaMART pairs (zero scores),
    in thread-nanoseconds per (pair, feature)."""
    bins = BinMapper(max_bin=255).fit(ds.X).transform(ds.X)
    _, _, (pi, pj, rho) = LambdaMART().grad_hess_pairs(np.zeros(ds.n_docs), ds.y, ds.offsets)
    pi, pj, rho = (np.ascontiguousarray(a, dtype=t) for a, t in ((pi, np.int64), (pj, np.int64), (rho, np.float64)))
    W = int(min(K.max_pair_span(pi, pj, 0, pi.shape[0]), 4096))
    acc = np.zeros((threads, W, bins.shape[1]))
    _feature_loop_only(bins, pi, pj, rho, acc)
    best = np.inf
    for _ in range(repeats):
        t = time.perf_counter()
        _feature_loop_only(bins, pi, pj, rho, acc)
        best = min(best, time.perf_counter() - t)
    return best * threads / (pi.shape[0] * bins.shape[1]) * 1e9


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", default="web30k", choices=("web30k", "yahoo"),
                    help="synthetic profile: web30k (Web10K/30K-shaped, the target's data) or yahoo")
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--trees", type=int, default=10)
    ap.add_argument("--leaves", type=int, default=20)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--json", default=None, help="also write the figures to this JSON file")
    args = ap.parse_args()
    numba.set_num_threads(args.threads)
    ds = make_synthetic(args.profile, n_queries=args.queries, seed=0)
    print(f"data: {ds.n_queries} queries, {ds.n_docs} documents, {ds.X.shape[1]} features; "
          f"{args.trees} trees of {args.leaves} leaves, {args.threads} threads")
    common = dict(num_leaves=args.leaves, learning_rate=0.1, max_bin=255, min_data_in_leaf=20,
                  min_sum_hessian_in_leaf=1e-3, seed=0)
    small = make_synthetic(args.profile, n_queries=20, seed=1)
    for crit in ("se", "rwse", "ole"):          # compile the kernels outside the timings
        train(LambdaMART(), small, criterion=crit, num_rounds=2, **common)
    res = {}
    for crit in ("se", "rwse", "ole"):
        _, log = train(LambdaMART(), ds, criterion=crit, num_rounds=args.trees, threads=args.threads, **common)
        res[crit] = {"tree_s": float(np.mean(log.tree_s)), "objective_s": float(np.mean(log.objective_s)),
                     "pairs": int(np.mean(log.n_pairs))}
    data = lgb.Dataset(ds.X, ds.y, group=ds.query_sizes, params={"max_bin": 255, "verbose": -1})
    data.construct()
    obj = _timed(LightGBMObjective(LambdaMART()).bind(RoundState.start(0)))
    params = {"objective": obj, "num_leaves": args.leaves, "learning_rate": 0.1, "min_data_in_leaf": 20,
              "min_sum_hessian_in_leaf": 1e-3, "num_threads": args.threads, "verbose": -1, "max_bin": 255}
    t = time.perf_counter()
    lgb.train(params, data, args.trees)
    total = time.perf_counter() - t
    res["lightgbm"] = {"tree_s": (total - obj.seconds) / args.trees, "objective_s": obj.seconds / args.trees}
    pairs = res["ole"]["pairs"]
    print(f"LambdaMART pairs per round: {pairs} ({pairs / ds.n_docs:.1f} per document)")
    print(f"{'learner':<10}{'tree s':>10}{'objective s':>14}")
    for k, v in res.items():
        print(f"{k:<10}{v['tree_s']:>10.4f}{v['objective_s']:>14.4f}")
    r1 = res["ole"]["tree_s"] / res["se"]["tree_s"]
    r2 = res["se"]["tree_s"] / res["lightgbm"]["tree_s"]
    print(f"OLE / SE per tree:      {r1:.2f}  (target <= 3; Xia et al. ~1.3)")
    print(f"RWSE / SE per tree:     {res['rwse']['tree_s'] / res['se']['tree_s']:.2f}")
    print(f"SE / LightGBM per tree: {r2:.2f}  (target <= 2)")
    F = ds.X.shape[1]
    per_pair = (res["ole"]["tree_s"] - res["se"]["tree_s"]) / (pairs * F) * 1e9
    per_doc = res["se"]["tree_s"] / (ds.n_docs * F) * 1e9
    print(f"cost per tree: SE {per_doc:.2f} ns per (document, feature); OLE's extra {per_pair:.2f} ns per "
          f"(pair, feature) -> OLE / SE ~ 1 + {per_pair / per_doc:.2f} x pairs per document")
    res["ratios"] = {"ole_over_se": r1, "se_over_lightgbm": r2}
    scanned = _pairs_through_kernel(ds, common)
    budget = (3 * res["se"]["tree_s"] - res["rwse"]["tree_s"]) * args.threads / (scanned * F) * 1e9
    floor = _floor(ds, args.threads)
    print(f"pair kernel, first OLE tree: {scanned} pairs ({scanned / pairs:.2f} x the root's); "
          f"OLE / SE <= 3 leaves {budget:.2f} thread-ns per (pair, feature) for all pair work;")
    print(f"the kernel's feature loop alone (root pairs, no scatter or bookkeeping) takes {floor:.2f}"
          f" -> {'the target is out of reach of this kernel' if floor >= budget else 'headroom'}"
          f" ({floor / budget:.2f} x the budget)")
    res["pair_budget"] = {"pairs_through_kernel": scanned, "budget_thread_ns": budget, "loop_floor_thread_ns": floor}
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"args": vars(args), **res}, fh, indent=2)


if __name__ == "__main__":
    main()

"""Training time of custom objectives against LightGBM's native ones, measured in one run.

Web30K-shaped synthetic data (default 1,800 queries ≈ 215K documents, 136 features),
63 leaves, 2 threads, the same number of trees for both. Prints total training times,
their ratios (targets: XE_NDCG / rank_xendcg <= 1.05, LambdaMART / lambdarank <= 1.15), where
a custom objective's time goes per tree — the gradient kernel (``grad_hess``), the adapter
(labels, offsets, γ, checks: the call minus the kernel) and the library (the rest: tree
growing plus LightGBM's own handling of a Python objective) — and gradient throughput of the
kernels alone (documents/s; pairs/s for LambdaMART).

    python benchmarks/bench_objectives.py [--queries 1800] [--trees 100]
"""
from __future__ import annotations

import argparse
import time

import lightgbm as lgb
import numpy as np

from ltrrepro.objectives import XENDCG, LambdaMART, LightGBMObjective, RoundState
from ltrrepro.synthetic import make_synthetic


class _Timed:
    """Wraps an objective and its adapter: time spent in ``grad_hess`` and in the adapter call."""

    def __init__(self, adapter):
        self.adapter, self.kernel_s, self.call_s = adapter.bind(RoundState.start(0)), 0.0, 0.0
        inner = adapter.objective
        outer = self

        class Obj(type(inner)):
            def grad_hess(self, *a, **k):
                t = time.perf_counter()
                try:
                    return super().grad_hess(*a, **k)
                finally:
                    outer.kernel_s += time.perf_counter() - t

        inner.__class__ = Obj

    def __deepcopy__(self, memo):       # lgb.train copies its params: keep this one (and its counters)
        return self

    def __call__(self, preds, data):
        t = time.perf_counter()
        try:
            return self.adapter(preds, data)
        finally:
            self.call_s += time.perf_counter() - t


def _train(ds, objective, trees, threads):
    params = {"objective": objective, "num_leaves": 63, "learning_rate": 0.05, "min_data_in_leaf": 50,
              "min_sum_hessian_in_leaf": 0.0, "num_threads": threads, "verbose": -1, "max_bin": 255,
              "lambdarank_norm": False, "sigmoid": 1.0}
    data = lgb.Dataset(ds.X, ds.y, group=ds.query_sizes, params={"max_bin": 255})
    data.construct()
    t = time.perf_counter()
    lgb.train(params, data, trees)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=1800)
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3, help="interleaved repeats; the fastest counts (default 3)")
    args = ap.parse_args()
    ds = make_synthetic("web30k", n_queries=args.queries, seed=0)
    print(f"{ds.n_docs} documents, {ds.n_queries} queries, {ds.n_features} features, 63 leaves, "
          f"{args.trees} trees, {args.threads} threads")
    import numba
    numba.set_num_threads(args.threads)
    # compile kernels outside timing
    s = np.zeros(ds.n_docs)
    XENDCG().grad_hess(s, ds.y, ds.offsets, rng=np.random.default_rng(0))
    LambdaMART().grad_hess(s, ds.y, ds.offsets)
    rows = []
    for label, native, custom in (("XE_NDCG", "rank_xendcg", lambda: LightGBMObjective(XENDCG())),
                                  ("LambdaMART", "lambdarank", lambda: LightGBMObjective(LambdaMART()))):
        tn, tc, parts = [], [], None
        for _ in range(args.repeats):           # interleaved, so that drifts of the machine hit both
            tn.append(_train(ds, native, args.trees, args.threads))
            timed = _Timed(custom())
            tc.append(_train(ds, timed, args.trees, args.threads))
            if tc[-1] == min(tc):
                parts = (timed.kernel_s, timed.call_s - timed.kernel_s, tc[-1] - timed.call_s)
        rows.append((label, native, min(tn), min(tc), parts))
    ok = True
    for label, native, tn, tc, (kernel, adapter, library) in rows:
        target = 1.05 if label == "XE_NDCG" else 1.15
        ok &= tc / tn <= target
        per = 1e3 / args.trees
        print(f"{label:10s}: native {native} {tn:7.2f} s, custom {tc:7.2f} s, ratio {tc / tn:.3f} (target <= {target}"
              f"{', met' if tc / tn <= target else ', NOT met'})")
        print(f"{'':10s}  per tree: native {tn * per:6.1f} ms; custom {tc * per:6.1f} ms = gradient kernel "
              f"{kernel * per:5.1f} + adapter {adapter * per:4.1f} + library {library * per:6.1f} ms")
    print("both targets met" if ok else "a target is not met")
    rng = np.random.default_rng(1)
    scores = rng.normal(size=ds.n_docs)
    for label, obj in (("XE_NDCG", XENDCG()), ("LambdaMART", LambdaMART())):
        reps = 5
        t = time.perf_counter()
        for _ in range(reps):
            obj.grad_hess(scores, ds.y, ds.offsets, rng=rng)
        dt = (time.perf_counter() - t) / reps
        m = np.diff(ds.offsets)
        pairs = int(np.sum(np.minimum(m - 1, 30) * (2 * m - np.minimum(m - 1, 30) - 1) // 2))
        extra = f", {pairs / dt / 1e6:.1f} M candidate pairs/s" if label == "LambdaMART" else ""
        print(f"{label:10s} gradients: {dt * 1e3:.1f} ms per call, {ds.n_docs / dt / 1e6:.1f} M documents/s{extra}")


if __name__ == "__main__":
    main()

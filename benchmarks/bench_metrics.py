"""NDCG@{1,3,5,10} + ERR over ~1M documents: ltrrepro against ir_measures, same data, same run.

    python benchmarks/bench_metrics.py --docs 1000000
"""
from __future__ import annotations

import argparse
import time

import ir_measures
import numpy as np
from ir_measures import ERR, nDCG

from ltrrepro.metrics import evaluate


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", type=int, default=1_000_000)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    sizes = np.clip(rng.lognormal(np.log(120) - 0.2, 0.65, size=args.docs // 120), 1, 1251).astype(int)
    n = int(sizes.sum())
    offsets = np.r_[0, np.cumsum(sizes)]
    labels = rng.choice(5, size=n, p=[0.515, 0.323, 0.131, 0.021, 0.01])
    scores = rng.random(n) + 0.2 * labels
    metrics = ["ndcg@1", "ndcg@3", "ndcg@5", "ndcg@10", "err@10"]
    evaluate(scores[:1000], labels[:1000], [0, 1000], metrics)   # compile
    t = time.perf_counter()
    ours = evaluate(scores, labels, offsets, metrics, norel="zero")
    t_ours = time.perf_counter() - t

    qid = np.repeat(np.arange(sizes.size), sizes).astype(str)
    doc = np.arange(n).astype(str)
    t = time.perf_counter()
    qrels = [ir_measures.Qrel(q, d, int(2 ** l - 1)) for q, d, l in zip(qid, doc, labels)]
    run = [ir_measures.ScoredDoc(q, d, float(s)) for q, d, s in zip(qid, doc, scores)]
    t_build = time.perf_counter() - t
    t = time.perf_counter()
    ref = ir_measures.calc_aggregate([nDCG @ 1, nDCG @ 3, nDCG @ 5, nDCG @ 10], qrels, run)
    t_ndcg = time.perf_counter() - t
    qrels_raw = [ir_measures.Qrel(q, d, int(l)) for q, d, l in zip(qid, doc, labels)]
    t = time.perf_counter()
    ref_err = ir_measures.calc_aggregate([ERR @ 10], qrels_raw, run)
    t_err = time.perf_counter() - t
    t_ir = t_ndcg + t_err
    print(f"{n} docs, {sizes.size} queries")
    for k in (1, 3, 5, 10):
        print(f"  ndcg@{k}: ltrrepro {ours[f'ndcg@{k}[gain=exp2,norel=zero]'].mean:.6f}  ir_measures {ref[nDCG @ k]:.6f}")
    print(f"  err@10 : ltrrepro {ours['err@10[gmax=4,norel=zero]'].mean:.6f}  ir_measures(gdeval) {ref_err[ERR @ 10]:.6f}")
    print(f"ltrrepro: {t_ours:.3f} s; ir_measures: {t_ir:.2f} s (nDCG {t_ndcg:.2f} s + ERR {t_err:.2f} s; "
          f"building its inputs took another {t_build:.2f} s, not counted)")
    print(f"ratio ir_measures / ltrrepro: {t_ir / t_ours:.0f}x  (target >= 10x)")


if __name__ == "__main__":
    main()

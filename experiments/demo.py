"""Smoke-run of the foundation: library LambdaMART on the default (synthetic) data.

    python -m experiments.demo [--dataset synthetic-web30k] [--queries 2000] [--seed 0]

Draws the dataset (or loads a registered one with --data-dir), makes trial 0's 60/20/20
query split, trains LightGBM ``lambdarank`` with early stopping on validation NDCG@5 and
prints test NDCG@1/3/5/10 and ERR@10 (queries without a relevant document dropped).
This is the README's main job until the experiment modules land.
"""
from __future__ import annotations

import argparse
import time

import lightgbm as lgb

from ltrrepro.datasets import load_dataset
from ltrrepro.metrics import evaluate
from ltrrepro.splits import trial_split


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", default="synthetic-web30k")
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--queries", type=int, default=2000, help="synthetic size (queries)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--trees", type=int, default=300)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    ds = load_dataset(args.dataset, data_dir=args.data_dir, n_queries=args.queries, seed=args.seed)
    split = trial_split(ds.n_queries, seed=args.seed, trial=0)
    tr, va, te = (ds.subset(split.train), ds.subset(split.valid), ds.subset(split.test))
    print(f"{ds}  split train/valid/test = {tr.n_queries}/{va.n_queries}/{te.n_queries} queries")
    params = {"objective": "lambdarank", "learning_rate": 0.1, "num_leaves": 63, "min_data_in_leaf": 50,
              "min_sum_hessian_in_leaf": 0.0, "sigmoid": 1.0, "lambdarank_norm": False, "metric": "ndcg",
              "eval_at": [5], "num_threads": 2, "verbose": -1, "seed": args.seed, "deterministic": True}
    dtr = lgb.Dataset(tr.X, tr.y, group=tr.query_sizes)
    dva = lgb.Dataset(va.X, va.y, group=va.query_sizes, reference=dtr)
    bst = lgb.train(params, dtr, args.trees, valid_sets=[dva],
                    callbacks=[lgb.early_stopping(50, verbose=False)])
    pred = bst.predict(te.X, num_iteration=bst.best_iteration)
    res = evaluate(pred, te.y, te.offsets, ["ndcg@1", "ndcg@3", "ndcg@5", "ndcg@10", "err@10"])
    print(f"LightGBM lambdarank, best iteration {bst.best_iteration}:")
    for name, r in res.items():
        print(f"  {name:34s} {r.mean:.4f}  ({r.n_dropped} queries without a relevant document dropped)")
    print(f"wall time {time.perf_counter() - t0:.1f} s")
    return {k: v.mean for k, v in res.items()}


if __name__ == "__main__":
    main()

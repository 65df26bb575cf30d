"""``--tune``: what median pruning saves against the same budget unpruned, and the best validation NDCG each reaches.

    python benchmarks/bench_tuning.py [--models lambdamart,xendcg] [--budget 20] [--queries 400] [--preset fast]

On the default data of ``python -m experiments.quality`` (synthetic Web30K, 400 queries, preset
``fast``: at most 150 rounds, early stopping after 25) and its tuning split (trial 0's training
and validation parts), each system is searched twice with the same seeded TPE sampler and budget
(:func:`ltrrepro.tuning.tune`): with Optuna's median pruner, as ``--tune`` runs, and without
(every configuration trained to its early stop). Printed per system and arm: the boosting rounds
trained over all configurations (the saving in work, independent of the machine's load), the
wall time (on this machine, as loaded), the configurations pruned, and the best validation
NDCG@5 found. The two arms see the same first configurations (TPE's random start is seeded
alike); they part once pruned configurations feed TPE's model differently.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ltrrepro.datasets import load_dataset  # noqa: E402
from ltrrepro.fit import SYSTEMS, preset  # noqa: E402
from ltrrepro.runner import Unit  # noqa: E402
from ltrrepro.splits import trial_split  # noqa: E402
from ltrrepro.tuning import tune  # noqa: E402


def search(system, library, boosting, train, valid, budget, seed, prune, threads):
    t0 = time.perf_counter()
    res = tune(system, library, boosting, train, valid, budget=budget, seed=seed, prune=prune, threads=threads)
    wall = time.perf_counter() - t0
    rounds = sum(t["rounds"] or 0 for t in res.trials)
    return {"wall_s": wall, "rounds": rounds, "pruned": res.n_pruned, "best": res.value}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default="lambdamart,xendcg", help="systems (default lambdamart,xendcg)")
    ap.add_argument("--budget", type=int, default=20, help="configurations per search (default 20)")
    ap.add_argument("--queries", type=int, default=400, help="synthetic Web30K queries (default 400)")
    ap.add_argument("--preset", default="fast", help="the settings a configuration starts from (default fast)")
    ap.add_argument("--library", default="lightgbm")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    ds = load_dataset("synthetic-web30k", n_queries=a.queries, seed=a.seed)
    split = trial_split(ds.n_queries, a.seed, 0)
    train, valid = ds.subset(split.train), ds.subset(split.valid)
    boosting = preset(a.preset)
    print(f"synthetic-web30k, {a.queries} queries (tuning split: {train.n_queries} training, {valid.n_queries} "
          f"validation), preset {a.preset}, budget {a.budget}, {a.library}, {a.threads} thread(s)")
    print(f"{'model':<12} {'arm':<9} {'rounds':>7} {'wall s':>8} {'pruned':>6} {'best valid NDCG@5':>18}")
    for m in a.models.split(","):
        system = SYSTEMS[m]
        seed = Unit("quality", "synthetic-web30k", 0, m, (("noise", "none"),), a.seed).model_seed()
        arms = {arm: search(system, system.resolve_library(a.library), boosting, train, valid, a.budget,
                            np.random.SeedSequence(seed.entropy, spawn_key=seed.spawn_key), arm == "pruned",
                            a.threads) for arm in ("unpruned", "pruned")}
        for arm, r in arms.items():
            print(f"{m:<12} {arm:<9} {r['rounds']:>7} {r['wall_s']:>8.1f} {r['pruned']:>6} {r['best']:>18.4f}")
        u, p = arms["unpruned"], arms["pruned"]
        print(f"{m:<12} saving: {1 - p['rounds'] / u['rounds']:.0%} of the rounds, {1 - p['wall_s'] / u['wall_s']:.0%} "
              f"of the wall time; best validation NDCG@5 {p['best'] - u['best']:+.4f} (pruned − unpruned)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

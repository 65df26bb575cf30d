"""What a plug-in unit's own process costs: forked from the zygote, or a fresh interpreter.

    python benchmarks/bench_isolation.py [--units 6] [--queries 200]

A plug-in objective's unit runs in a process of its own (docs/plugins.md, "Isolation";
:func:`ltrrepro.runner.isolate._run_isolated`). Runs the same ``--units`` units — XE_NDCG MART
through LightGBM on a small synthetic Web30K draw, 20 trees, one thread: a plug-in unit's
imports and a short training — through ``_run_isolated`` twice in this process: forked from
the zygote (the default on Linux; its start, which imports numpy, pandas and the harness, is
counted, and it learns LightGBM's and the rest from its first child), then each in a fresh
interpreter (``python -m ltrrepro.isolated``, what every other platform does). Prints the wall
time per unit of each way and their ratio, and checks that both give the same numbers.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

DATA: dict = {}


def xendcg_unit(unit, ctx):
    """A plug-in unit's work: the imports it needs and a short training."""
    import numpy as np

    from ltrrepro import make_synthetic
    from ltrrepro.fit import SYSTEMS, Boosting
    from ltrrepro.metrics import evaluate

    ds = make_synthetic("web30k", n_queries=ctx.cfg["queries"], seed=unit.trial)
    idx = np.arange(ds.n_queries)
    train, valid, test = (ds.subset(part) for part in np.array_split(idx, 3))
    trainer = SYSTEMS["xendcg"].trainer(Boosting(rounds=20), library="lightgbm",
                                        seed=unit.model_seed(), threads=1)
    trainer.add_train(train)
    trainer.add_valid(valid)
    scores = trainer.fit().scores(test.X)
    return {"ndcg@10": float(next(iter(evaluate(scores, test.y, test.offsets, ["ndcg@10"]).values())).mean)}, {}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--units", type=int, default=6)
    ap.add_argument("--queries", type=int, default=200)
    a = ap.parse_args()
    import bench_isolation as me                              # by reference: the child imports it by name
    from ltrrepro.runner import Unit, UnitContext
    from ltrrepro.runner.forkserver import _Zygote
    from ltrrepro.runner.isolate import _run_isolated

    units = [Unit("bench", "synthetic", t, "xendcg", seed=1) for t in range(a.units)]
    ctx = UnitContext(cfg={"queries": a.queries})          # the benchmark's own setting
    if not sys.platform.startswith("linux"):
        sys.exit("error: the zygote is Linux's; elsewhere every unit is a fresh interpreter already")
    timings, results = {}, {}
    for way in ("zygote", "fresh"):
        if way == "fresh":
            _Zygote._mine.pop(os.getpid()).close()
            sys.platform = "not-linux"                          # _Zygote.run declines: a fresh interpreter
        t0 = time.perf_counter()
        results[way] = [_run_isolated(me.xendcg_unit, u, ctx)[0] for u in units]
        timings[way] = (time.perf_counter() - t0) / a.units
    sys.platform = "linux"
    assert results["zygote"] == results["fresh"], results
    print(f"{a.units} plug-in units ({a.queries} queries, 20 trees): forked from the zygote "
          f"{timings['zygote']:.2f} s per unit, fresh interpreter {timings['fresh']:.2f} s per unit; "
          f"ratio fresh/zygote {timings['fresh'] / timings['zygote']:.2f}x; same numbers both ways")


if __name__ == "__main__":
    main()

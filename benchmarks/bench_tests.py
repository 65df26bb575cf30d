"""Type I error and power of the harness's three paired tests (``--test t|wilcoxon|permutation``,
:func:`ltrrepro.inference.tests.one_sample_p`) on the harness's own recorded paired differences.

    python benchmarks/bench_tests.py [--results results] [--reps 300] [--jobs 2]

Two pools of differences, both read from the committed stores under ``results/`` (with
:class:`ltrrepro.store.ResultStore` and :func:`experiments.analysis.frame`, as a report reads them):

* ``per-trial``: every paired per-trial NDCG@5 difference of Bruch's quality, robustness and
  clicks runs (each pair of models, each noise level) over ≥ 4 trials, centred and scaled by its
  own SD — the residuals the tests of the claims see;
* ``per-query``: the per-query NDCG@5 differences XE_NDCG − λMART of the quality run (every
  trial), centred — real shapes: heavy tails, many ties at one value.

Each pool is scaled to unit SD. A null sample of n differences draws n values with replacement
and flips each sign at random (a symmetric null of mean 0); a sample under an effect adds
δ = 0.5 SD to every value (d_z = 0.5). Each cell repeats ``--reps`` times from seeded generators
(``numpy.random.SeedSequence``), and prints the rejection rate at α = 0.05 and 0.01 (the
harness's α): the type I error under the null (its Monte Carlo SE ≈ √(α(1−α)/reps)), the power
under the effect. Reference for the power: the noncentral t of :func:`ltrrepro.inference.power.paired_power`
(normal differences), printed beside it.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from experiments import analysis as an  # noqa: E402
from ltrrepro.inference import TESTS  # noqa: E402
from ltrrepro.inference.power import paired_power  # noqa: E402
from ltrrepro.inference.tests import one_sample_p  # noqa: E402
from ltrrepro.store import ResultStore  # noqa: E402

NDCG5 = "ndcg@5[gain=exp2,norel=drop]"
SIZES = (5, 20, 100)
ALPHAS = (0.05, 0.01)
SHIFT = 0.5


def per_trial_pool(root: Path) -> np.ndarray:
    """Standardized per-trial differences of every model pair and setting of Bruch's runs."""
    out = []
    for study in ("quality", "robustness", "clicks"):
        if not (root / "bruch2021" / study / "manifest.json").exists():
            continue
        df = an.frame(ResultStore.open(root / "bruch2021" / study))
        df["level"] = df["level"] if "level" in df else 0.0
        models = sorted(set(df.model))
        for (noise, level), g in df.groupby(["noise", "level"], dropna=False):
            for i, a in enumerate(models):
                for b in models[i + 1:]:
                    pr = an.paired(g, NDCG5, a, b)
                    d = (pr.a - pr.b).values.astype(float)
                    if d.size >= 4 and d.std(ddof=1) > 0:
                        out.append((d - d.mean()) / d.std(ddof=1))
    pool = np.concatenate(out)
    return pool / pool.std()


def per_query_pool(root: Path) -> np.ndarray:
    """Centred per-query NDCG@5 differences XE_NDCG − λMART of the quality run, every trial."""
    store = ResultStore.open(root / "bruch2021" / "quality")
    df = an.frame(store, arrays=(f"test:{NDCG5}",))
    out = []
    for _, g in df.groupby("trial"):
        x = {m: v for m, v in zip(g.model, g[f"test:{NDCG5}"])}
        if "xendcg" in x and "lambdamart" in x:
            d = x["xendcg"].astype(float) - x["lambdamart"].astype(float)
            out.append(d[np.isfinite(d)])
    pool = np.concatenate(out)
    pool = pool - pool.mean()
    return pool / pool.std()


def cell(pool: np.ndarray, n: int, shift: float, reps: int, seed: np.random.SeedSequence) -> dict:
    """Rejection rates of each test over ``reps`` samples of ``n`` resampled, sign-flipped
    differences (plus ``shift``)."""
    rng = np.random.default_rng(seed)
    p = {t: np.empty(reps) for t in TESTS}
    for r in range(reps):
        d = rng.choice(pool, n) * rng.choice((-1.0, 1.0), n) + shift
        for t in TESTS:
            p[t][r] = one_sample_p(d, t)
    return {t: [float(np.mean(np.nan_to_num(v, nan=1.0) < a)) for a in ALPHAS] for t, v in p.items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", default=str(Path(__file__).resolve().parents[1] / "results"))
    ap.add_argument("--reps", type=int, default=300, help="samples per cell (default 300: about 3 minutes on 2 cores)")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    root = Path(args.results)
    pools = {"per-trial": per_trial_pool(root), "per-query": per_query_pool(root)}
    for name, pool in pools.items():
        print(f"pool {name}: {pool.size} differences (skewness {float(np.mean(pool ** 3)):+.2f}, "
              f"share at the mode {float(np.mean(pool == np.median(pool))):.2f})")
    cells = [(name, n, shift) for name in pools for n in SIZES for shift in (0.0, SHIFT)]
    seeds = np.random.SeedSequence(2027).spawn(len(cells))
    res = Parallel(n_jobs=args.jobs)(delayed(cell)(pools[name], n, shift, args.reps, s)
                                     for (name, n, shift), s in zip(cells, seeds))
    by = dict(zip(cells, res))
    se = [np.sqrt(a * (1 - a) / args.reps) for a in ALPHAS]
    print(f"\n{args.reps} samples per cell; type I error's Monte Carlo SE ±{se[0]:.3f} (α 0.05), ±{se[1]:.3f} (α 0.01); "
          f"effect δ = {SHIFT} SD")
    head = (f"{'pool':<10} {'n':>4} {'test':<12} {'type I α.05':>11} {'type I α.01':>11} "
            f"{'power α.05':>10} {'power α.01':>10} {'t ref α.01':>10}")
    print(head)
    print("-" * len(head))
    for name in pools:
        for n in SIZES:
            ref = paired_power(SHIFT, 1.0, n, 0.01)
            for t in TESTS:
                null, eff = by[(name, n, 0.0)][t], by[(name, n, SHIFT)][t]
                print(f"{name:<10} {n:>4} {t:<12} {null[0]:>11.3f} {null[1]:>11.3f} {eff[0]:>10.3f} {eff[1]:>10.3f} "
                      f"{ref:>10.3f}")
    print(f"\nwall time {time.perf_counter() - t0:.0f} s ({args.jobs} jobs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

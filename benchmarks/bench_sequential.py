"""``--trials auto`` against the fixed design, simulated on the harness's own recorded differences.

    python benchmarks/bench_sequential.py [--results results] [--null 4000] [--runs 2000] [--seed 0]

The pools are those of ``benchmarks/bench_tests.py`` (read from the committed stores under
``results/`` with :class:`ltrrepro.store.ResultStore`): ``per-trial``, every paired per-trial
NDCG@5 difference of Bruch's quality, robustness and clicks runs, centred and scaled by its own
SD (the residuals a claim's test sees); ``per-query``, the centred per-query NDCG@5 differences
XE_NDCG − λMART of the quality run (heavy tails, ties). Each pool is scaled to unit SD. A run
draws N = 100 values with replacement and flips each sign at random (the null: symmetric, mean
0), then adds δ for an effect.

The design is the issue's: at most N = 100 trials, K = 5 equal looks, two-sided α = 0.01 (the
harness's), Lan–DeMets O'Brien–Fleming-type efficacy bounds, designed for 90% power at 100
trials: the design effect δ₁ = η·σ/√N with η the drift at which the bounds' power is 0.9
(:func:`ltrrepro.inference.sequential.drift_for_power`). Each run is held to the protocol of
:class:`ltrrepro.inference.sequential.Monitor` for one claim powered against δ₁: at look k, the paired
t-test's two-sided p over the first n_k values becomes z (:func:`~ltrrepro.inference.sequential.z_from_p`),
the run stops on |z| ≥ c_k (efficacy) or on z < b_k, the non-binding futility bound at the drift
δ₁·√N/SD_k of the SD observed at that look. Vectorized over runs: b_k is interpolated in the drift
from a grid of :func:`~ltrrepro.inference.sequential.futility_bounds` (its largest interpolation error is
printed), and the first runs of each case are replayed through the Monitor itself under the same
normal-model futility bound (``law="normal"``: the decisions must agree; at 100 trials the t law the
harness uses is close to it, and the small maxima below use the t law). The fixed design is the t-test at α over all 100.

Small maxima (``--max-trials`` 10 and 20, 4 looks; α = 0.01 and a family-of-six claim's α/6):
each look is a paired t-test over 2–20 trials, so the design's power and futility bound come from
the t law (:class:`ltrrepro.inference.tlaw.TLaw`). For each case the effect δ at which the stated
power (:meth:`ltrrepro.inference.sequential.Monitor.power`, the power a verdict uses) is 0.80 is
found; normal differences with that mean are run through the protocol (the futility bound at the
SD observed at each look, acted on) and the rejection rate in the effect's direction is the real
power, printed beside the stated one, the normal model's figure at the same δ (what was stated
before), and the real type I error of the design (null runs) with the futility-only looks.

Printed per α (0.05: the issue's design and its 73/43 figures; 0.01: the level of the harness's
claims), pool and effect (0, 1× and 2× δ₁): the rejection rate of the fixed design, of auto as
run (under the null a rejection either way, under an effect in the effect's direction), of auto's
efficacy bounds alone (``no futility``: a rejection either way whenever |z| crossed, the futility
bound ignored — the α a non-binding bound guarantees, whatever is done at a futility stop), and
auto's expected trials as a ratio of the fixed design's 100. Acted on, the futility bound makes the
run conservative under the null (a z running against the claim meets the futility bound before
−c_k: about α/2). The last line is the issue's design (α = 0.05) on the per-trial pool; its type I
is the larger of auto's two rejection rates, with its Monte Carlo SE √(α(1−α)/runs).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_tests import per_query_pool, per_trial_pool  # noqa: E402
from ltrrepro.inference import sequential as sq  # noqa: E402
from ltrrepro.inference.tlaw import TLaw, futility_only, real_alpha  # noqa: E402

N, LOOKS, POWER = 100, 5, 0.9
ALPHAS = (0.05, 0.01)                        # the issue's design (its 73/43 figures), the harness's claims' level
GRID = np.linspace(0.0, 20.0, 801)          # drifts for the futility bounds' interpolation


def futility_table(t, c) -> np.ndarray:
    """b_k at every drift of :data:`GRID` (rows: drifts)."""
    return np.array([sq.futility_bounds(t, c, e)[0] if e > 0 else np.full(t.size, -np.inf) for e in GRID])


def interpolation_error(t, c, table, rng) -> float:
    worst = 0.0
    for e in rng.uniform(0.5, 15.0, 25):
        exact = sq.futility_bounds(t, c, e)[0][:-1]
        approx = np.array([np.interp(e, GRID, table[:, k]) for k in range(t.size - 1)])
        ok = np.isfinite(exact) & np.isfinite(approx)
        worst = max(worst, float(np.max(np.abs(exact - approx)[ok], initial=0.0)))
    return worst


def simulate(pool, shift, runs, rng, sizes, c, table, delta1, alpha):
    """Per run: (fixed rejects in the expected direction or any, auto's decision, stop size, z and p per look)."""
    x = rng.choice(pool, size=(runs, N)) * rng.choice([-1.0, 1.0], size=(runs, N)) + shift
    fixed_p = stats.ttest_1samp(x, 0.0, axis=1).pvalue
    fixed = fixed_p < alpha
    fixed_right = fixed & (x.mean(1) > 0)
    stop_n = np.full(runs, N)
    decision = np.zeros(runs, int)            # +1 efficacy, -1 contradicted, 2 futility, 0 maximum
    open_ = np.ones(runs, bool)
    crossed = np.zeros(runs, bool)            # the efficacy bounds alone (futility ignored: non-binding)
    for k, n in enumerate(sizes):
        xs = x[:, :n]
        mean, sd = xs.mean(1), xs.std(1, ddof=1)
        p = stats.ttest_1samp(xs, 0.0, axis=1).pvalue
        z = sq.z_from_p(p, mean)
        crossed |= np.abs(z) >= c[k]
        up, down = open_ & (z >= c[k]), open_ & (z <= -c[k])
        decision[up], decision[down] = 1, -1
        stop_n[up | down] = n
        open_ &= ~(up | down)
        if k < len(sizes) - 1:
            eta = np.clip(delta1 * np.sqrt(N) / sd, GRID[0], GRID[-1])
            b = np.interp(eta, GRID, table[:, k])
            fut = open_ & (z < b)
            decision[fut], stop_n[fut] = 2, n
            open_ &= ~fut
    return {"x": x, "fixed": fixed, "fixed_right": fixed_right, "decision": decision, "stop_n": stop_n,
            "crossed": crossed}


def replay(sim, sizes, delta1, count, alpha) -> int:
    """Decisions of the first ``count`` runs replayed through :class:`ltrrepro.inference.sequential.Monitor`: agreements."""
    names = {sq.EFFICACY: 1, sq.CONTRADICTED: -1, sq.FUTILITY: 2, sq.MAXIMUM: 0}
    same = 0
    for i in range(count):
        m = sq.Monitor(sizes, alpha=alpha, correction="none", inference=False, law="normal")
        for k, n in enumerate(sizes):
            xs = sim["x"][i, :n]
            entry = {"key": "c", "p": float(stats.ttest_1samp(xs, 0.0).pvalue), "value": float(xs.mean()), "sign": 1,
                     "sd": float(xs.std(ddof=1)), "n": n, "effect": delta1, "family": None}
            m.look(k, [entry])
            if m.done(["c"]):
                break
        d = m.decisions["c"]
        if names[d["stop"]] == sim["decision"][i] and d["trials"] == sim["stop_n"][i]:
            same += 1
    return same


SMALL = ((10, 4), (20, 4))
SMALL_ALPHAS = (0.01, 0.01 / 6)


def design_effect(law: TLaw, c, target: float = 0.8) -> float:
    """The standardized effect at which the stated power (t law, futility acted on) is ``target`` (bisection)."""
    lo, hi = 0.0, 5.0
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if law.power(mid, c, acted=True) < target else (lo, mid)
    return (lo + hi) / 2


def protocol(x, sizes, c, delta, law: TLaw, grid) -> np.ndarray:
    """The monitor's decision per run (+1 efficacy, −1 contradicted, 2 futility, 0 maximum): z of
    each look's t-test, efficacy at ±c_k, futility below the t-law bound at the SD observed then
    (interpolated in the standardized effect on ``grid``)."""
    table = np.array([law.futility(d, c)[0] if d > 0 else np.full(len(sizes), -np.inf) for d in grid])
    runs = x.shape[0]
    decision, open_ = np.zeros(runs, int), np.ones(runs, bool)
    for k, n in enumerate(sizes):
        xs = x[:, :n]
        z = sq.z_from_p(stats.ttest_1samp(xs, 0.0, axis=1).pvalue, xs.mean(1))
        up, down = open_ & (z >= c[k]), open_ & (z <= -c[k])
        decision[up], decision[down] = 1, -1
        open_ &= ~(up | down)
        if k < len(sizes) - 1:
            d = np.clip(delta / xs.std(1, ddof=1), grid[0], grid[-1])
            b = np.interp(d, grid, table[:, k])
            fut = open_ & (z < b)
            decision[fut] = 2
            open_ &= ~fut
    return decision


def small_maxima(runs: int, seed) -> list:
    """Real against stated power at small maxima (see the module docstring); the lines printed."""
    out = [f"\nsmall maxima: stated (t law) against real power at the effect the design states 80% for; "
           f"{runs} runs per case, normal differences (SD 1)",
           f"{'max':>4} {'looks':>5} {'alpha':>8} {'effect':>7} {'stated':>7} {'real':>6} {'normal model':>13} "
           f"{'real alpha':>11} {'futility-only looks':>20}"]
    for n_max, looks in SMALL:
        sizes = sq.look_sizes(n_max, looks)
        law = TLaw(sizes)
        t = np.asarray(sizes, float) / n_max
        for alpha in SMALL_ALPHAS:
            c = sq.efficacy_bounds(t, alpha)
            d = design_effect(law, c)
            m = sq.Monitor(sizes, alpha=alpha, correction="none")
            stated = m.power({"effect": d, "sd": 1.0}, c)
            normal = sq.Monitor(sizes, alpha=alpha, correction="none", law="normal").power({"effect": d, "sd": 1.0}, c)
            rng = np.random.default_rng(seed.spawn(1)[0])
            x = rng.standard_normal((runs, n_max)) + d
            real = float(np.mean(protocol(x, sizes, c, d, law, np.linspace(0.0, 6.0, 121)) == 1))
            only = [k + 1 for k, (n, ck) in enumerate(zip(sizes, c)) if futility_only(n, ck)[0]]
            out.append(f"{n_max:>4} {len(sizes):>5} {alpha:>8.4g} {d:>7.3f} {stated:>7.3f} {real:>6.3f} "
                       f"{normal:>13.3f} {real_alpha(tuple(sizes), alpha):>11.4g} {str(only or '–'):>20}")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default=str(Path(__file__).resolve().parents[1] / "results"))
    ap.add_argument("--null", type=int, default=4000, help="null runs (type I error)")
    ap.add_argument("--runs", type=int, default=2000, help="runs under each effect")
    ap.add_argument("--replay", type=int, default=40, help="runs per case replayed through the Monitor")
    ap.add_argument("--seed", type=int, default=None, help="root seed (default: a fresh one, printed)")
    ap.add_argument("--small-runs", type=int, default=10_000, help="runs per small-maximum case")
    ap.add_argument("--small-only", action="store_true", help="only the small maxima (10, 20)")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    seed = np.random.SeedSequence(args.seed)
    print(f"seed {seed.entropy}")
    print("\n".join(small_maxima(args.small_runs, seed)))
    if args.small_only:
        print(f"({time.perf_counter() - t0:.0f} s)")
        return 0
    root = Path(args.results)
    pools = {"per-trial": per_trial_pool(root), "per-query": per_query_pool(root)}
    sizes = sq.look_sizes(N, LOOKS)
    t = np.asarray(sizes, float) / N
    line = None
    for alpha in ALPHAS:
        c = sq.efficacy_bounds(t, alpha)
        eta = sq.drift_for_power(t, c, POWER)
        delta1 = eta / np.sqrt(N)             # σ = 1
        table = futility_table(t, c)
        err = interpolation_error(t, c, table, np.random.default_rng(seed.spawn(1)[0]))
        print(f"\ndesign: at most {N} trials, looks at {sizes}, two-sided α = {alpha}, efficacy bounds "
              f"{np.round(c, 3).tolist()}; 90% power at δ₁ = {delta1:.4f} SD (drift {eta:.3f}); futility bounds "
              f"interpolated in the drift (largest error {err:.1e} on z)")
        print(f"{'pool':<10} {'effect':>7} {'runs':>6} {'fixed reject':>13} {'auto reject':>12} "
              f"{'no futility':>12} {'E[trials]/fixed':>16} {'Monitor agrees':>15}")
        for pool_name, pool in pools.items():
            res = {}
            for mult, runs in ((0, args.null), (1, args.runs), (2, args.runs)):
                rng = np.random.default_rng(seed.spawn(1)[0])
                sim = simulate(pool, mult * delta1, runs, rng, sizes, c, table, delta1, alpha)
                d = sim["decision"]           # the null: a rejection either way; an effect: the right way
                reject_auto = float(np.mean((d == 1) | (d == -1))) if mult == 0 else float(np.mean(d == 1))
                reject_fixed = float(np.mean(sim["fixed"] if mult == 0 else sim["fixed_right"]))
                bounds_only = float(np.mean(sim["crossed"]))
                ratio = float(sim["stop_n"].mean() / N)
                shown = min(args.replay, runs)
                agree = replay(sim, sizes, delta1, shown, alpha)
                res[mult] = (max(reject_auto, bounds_only), ratio, runs)
                print(f"{pool_name:<10} {f'{mult}x':>7} {runs:>6} {reject_fixed:>13.4f} {reject_auto:>12.4f} "
                      f"{bounds_only:>12.4f} {ratio:>16.3f} {f'{agree}/{shown}':>15}")
            if line is None:                  # the design on the per-trial pool
                se = np.sqrt(alpha * (1 - alpha) / res[0][2])
                line = (f"sequential: type I {res[0][0]:.4f} (alpha {alpha}, se {se:.4f}); expected trials "
                        f"{res[1][1]:.2f}x fixed at the design effect, {res[2][1]:.2f}x at twice it")
    print(f"({time.perf_counter() - t0:.0f} s)")
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())

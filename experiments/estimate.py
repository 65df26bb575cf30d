"""``--estimate``: the cost of a run's units from a short calibration on this machine."""
from __future__ import annotations

import time

from experiments.errors import UsageError
from ltrrepro.runner import UnitContext, default_jobs_threads, run_units

__all__ = ["estimate"]


def _fmt_s(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def _calibrate(calib, unit_fn, ctx, store, jobs, threads, force) -> dict:
    """Run the calibration units (stored: the run resumes from them); their times by key."""
    summary = run_units(calib, unit_fn, ctx, store, jobs=jobs, threads=threads, force=force, quiet=True,
                        backend="loky")          # calibrated here, on this machine's cores
    if summary.failed:
        raise UsageError(f"--estimate: the calibration unit {summary.failed[0]} failed: "
                         f"{store.failure(summary.failed[0]).get('error', '?')}")
    return {u.key: float(store.record(u.key)["timings"]["unit_s"]) for u in calib}  # type: ignore[index]


def estimate(units, unit_fn, ctx: UnitContext, store, execution, size_of=None,
             workers=(8, 32, 128)) -> list[str]:
    """The cost of running ``units``, from a short calibration on this machine.

    Calibration: one wave of the run — as many units as the run has jobs (at least one per
    model, models taken in turn) — runs for real, with the run's jobs and threads, so that
    the measured unit times include what concurrent jobs cost each other; the units are
    stored and the run resumes from them. Two such waves run: the first pays each worker's
    first-call costs (imports, numba's compiles or cache loads), which a run pays once per
    worker, not per unit; the rates come from the second (other units, warm workers), and the
    largest first-call cost is added once to the wall time. Every other unit is estimated as its model's
    measured time per unit of size times its size (``size_of(unit, ctx)``: the training
    data's size — extra negatives, click impressions and Zheng's training sets differ by up
    to 10x; 1 without ``size_of``). Units already stored cost nothing. The wall time on ``J``
    workers is ``max(total / J, longest unit)``, which perfect packing reaches.
    """
    units = list(units)
    pending = [u for u in units if execution.force or not store.is_done(u.key)]
    jobs, threads = default_jobs_threads(execution.jobs, execution.threads, len(pending) or 1)
    by_model: dict = {}
    for u in pending:
        by_model.setdefault(u.model, []).append(u)
    calib, k = [], 0
    wave = max(jobs, len(by_model))
    while len(calib) < 2 * wave and any(k < len(v) for v in by_model.values()):
        calib += [v[k] for v in by_model.values() if k < len(v)]
        k += 1
    calib = calib[:2 * wave]
    size = size_of or (lambda unit, ctx: 1.0)
    t0 = time.perf_counter()
    rate: dict = {}
    first = 0.0
    if calib:
        # two waves: the first pays each worker's first-call costs (imports, numba's compiles or
        # cache loads), which the run pays once per worker, not per unit (added once below); the
        # second, other units on the warm workers, gives the per-unit rates (issue 48: the
        # first wave alone overestimated a run by +65%; the first wave again, warm, underestimated
        # it: its units reuse what they cached)
        cold = _calibrate(calib[:wave], unit_fn, ctx, store, jobs, threads, execution.force)
        warm = _calibrate(calib[wave:], unit_fn, ctx, store, jobs, threads, execution.force) if calib[wave:] else {}
        times = {**cold, **warm}
        per = {u.key: times[u.key] / max(float(size(u, ctx)), 1e-12) for u in calib}
        warm_models = {u.model for u in calib[wave:]}
        for u in calib:
            if u.key in warm or u.model not in warm_models:
                rate.setdefault(u.model, []).append(per[u.key])
        rate_ = {m: sum(v) / len(v) for m, v in rate.items()}
        first = max([0.0, *(cold[u.key] - rate_[u.model] * float(size(u, ctx)) for u in calib[:wave])])
    rate = {m: sum(v) / len(v) for m, v in rate.items()}
    done = {u.key for u in calib}
    est = [rate[u.model] * float(size(u, ctx)) for u in pending if u.key not in done]
    spent = time.perf_counter() - t0
    total = sum(est) + sum(rate[u.model] * float(size(u, ctx)) for u in calib)
    longest = max(est, default=0.0) + first
    lines = [f"estimate: {len(units)} unit(s), {len(units) - len(pending)} already stored, {len(pending)} to run; "
             f"calibrated on {len(calib)} unit(s) ({jobs} job(s) x {threads} thread(s)) in {_fmt_s(spent)} (kept: "
             f"the run resumes from them)",
             *(f"  {m}: {rate[m] * float(size(by_model[m][0], ctx)):.1f} s per unit like {by_model[m][0].key}"
               for m in sorted(rate)),
             f"  total compute {_fmt_s(total)}; the rest of the run on this machine ({jobs} job(s) x {threads} "
             f"thread(s)): about {_fmt_s(max(sum(est) / jobs + first, longest))}"]
    lines += [f"  on {n} workers of {threads} thread(s): about {_fmt_s(max(total / n + first, longest))} (one unit per "
              f"worker at a time, as measured here)" for n in workers]
    return lines

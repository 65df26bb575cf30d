"""``--estimate``: the cost of a run's units from a short calibration on this machine."""
from __future__ import annotations

import time

from experiments.errors import UsageError
from ltrrepro.runner import default_jobs_threads, run_units

__all__ = ["estimate"]


def _fmt_s(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def estimate(units, unit_fn, ctx: dict, store, execution, size_of=None,
             workers=(8, 32, 128)) -> list[str]:
    """The cost of running ``units``, from a short calibration on this machine.

    Calibration: one wave of the run — as many units as the run has jobs (at least one per
    model, models taken in turn) — runs for real, with the run's jobs and threads, so that
    the measured unit times include what concurrent jobs cost each other; the units are
    stored and the run resumes from them. Every other unit is estimated as its model's
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
    while len(calib) < max(jobs, len(by_model)) and any(k < len(v) for v in by_model.values()):
        calib += [v[k] for v in by_model.values() if k < len(v)]
        k += 1
    calib = calib[:max(jobs, len(by_model))]
    size = size_of or (lambda unit, ctx: 1.0)
    t0 = time.perf_counter()
    rate: dict = {}
    if calib:
        summary = run_units(calib, unit_fn, ctx, store, jobs=jobs, threads=threads, force=execution.force, quiet=True,
                            backend="loky")          # calibrated here, on this machine's cores
        if summary.failed:
            raise UsageError(f"--estimate: the calibration unit {summary.failed[0]} failed: "
                             f"{store.failure(summary.failed[0]).get('error', '?')}")
        for u in calib:
            t = float(store.record(u.key)["timings"]["unit_s"])  # type: ignore[index]
            rate.setdefault(u.model, []).append(t / max(float(size(u, ctx)), 1e-12))
    rate = {m: sum(v) / len(v) for m, v in rate.items()}
    done = {u.key for u in calib}
    est = [rate[u.model] * float(size(u, ctx)) for u in pending if u.key not in done]
    spent = time.perf_counter() - t0
    total = sum(est) + sum(rate[u.model] * float(size(u, ctx)) for u in calib)
    longest = max(est, default=0.0)
    lines = [f"estimate: {len(units)} unit(s), {len(units) - len(pending)} already stored, {len(pending)} to run; "
             f"calibrated on {len(calib)} unit(s) ({jobs} job(s) x {threads} thread(s)) in {_fmt_s(spent)} (kept: "
             f"the run resumes from them)",
             *(f"  {m}: {rate[m] * float(size(by_model[m][0], ctx)):.1f} s per unit like {by_model[m][0].key}"
               for m in sorted(rate)),
             f"  total compute {_fmt_s(total)}; the rest of the run on this machine ({jobs} job(s) x {threads} "
             f"thread(s)): about {_fmt_s(max(sum(est) / jobs, longest))}"]
    lines += [f"  on {n} workers of {threads} thread(s): about {_fmt_s(max(total / n, longest))} (one unit per "
              f"worker at a time, as measured here)" for n in workers]
    return lines

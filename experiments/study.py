"""Running a study: :func:`run` ``(config, execution)`` — what the command line, ``python -m
experiments.report`` and the Python API all call.

The study comes from the configuration (``config.experiment``, looked up in
:mod:`experiments.registry`); :func:`run` checks the units, the outputs and the execution
before any data is loaded, prepares the data once, runs (or resumes) the units, reports and
closes the manifest. ``ctx`` carries the configuration object and the data reference
(``ctx["cfg"]``, ``ctx["data"]``) to the workers.
"""
from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from experiments import registry, tuning
from experiments.errors import UsageError
from experiments.execution import Execution, check_outputs
from experiments.results import StudyResult, load
from ltrrepro.datasets import load_dataset
from ltrrepro.fileio import atomic_write_text
from ltrrepro.runner import materialize, run_units
from ltrrepro.store import ResultStore, StoreError

__all__ = ["DataInfo", "prepare_data", "run", "run_and_report", "estimate"]


#: the fewest queries a dataset may have: the synthetic sizes' rule, applied to every dataset
MIN_QUERIES = 10


@dataclass(frozen=True)
class DataInfo:
    """The pooled dataset as the workers read it (``ref``: path and name) and its facts."""

    ref: dict | None = None
    facts: dict = field(default_factory=dict)
    load_s: float = 0.0


def prepare_data(cfg, out: Path) -> DataInfo:
    """Load the configuration's dataset once and store it for the workers (content-addressed)."""
    t0 = time.perf_counter()
    ds = load_dataset(cfg.dataset, data_dir=cfg.data_dir, n_queries=cfg.queries, seed=cfg.seed)
    if ds.n_queries < MIN_QUERIES:
        where = cfg.data_dir if cfg.dataset == "svmlight" else cfg.dataset
        raise UsageError(f"{where}: {ds.n_queries} quer{'y' if ds.n_queries == 1 else 'ies'}; the protocol's random "
                         f"query splits need at least {MIN_QUERIES} (training, validation and test parts)")
    if hasattr(cfg, "check_data"):            # what the protocol needs of the data (Zheng: multi-grade queries)
        cfg.check_data(ds)
    ref = materialize(ds, fallback_dir=out / ".cache")
    facts = {"n_queries": ds.n_queries, "n_docs": ds.n_docs, "n_features": ds.n_features,
             "data_hash": Path(ref.path).name}
    return DataInfo({"path": ref.path, "name": ref.name}, facts, time.perf_counter() - t0)


def check_units(units) -> None:
    """The run has units, and each unit's record can be stored under its name: checked
    before any data is loaded (an empty model list from a manifest ran nothing and exited 0;
    a plug-in name too long for a file name failed only after its units had trained)."""
    from ltrrepro.store import safe_key

    if not units:
        raise UsageError("the configuration runs no unit: give at least one model (--models) and one level")
    for u in units:
        try:
            name = safe_key(u.key)
        except ValueError as err:
            raise UsageError(f"model {u.model!r}: {err}") from None
        if len((name + ".json").encode()) > 255:
            raise UsageError(f"model {u.model!r}: its unit name makes a file name of {len(name.encode()) + 5} bytes "
                             f"(the limit is 255); give the plug-in a shorter module, class or argument text")


def check_same_experiment(out: Path, experiment: str) -> None:
    """``out`` holds no run of another experiment (its records and reports would be mixed
    with this one's); checked before any data is loaded. A damaged manifest is left to the
    store, which names and rebuilds it."""
    try:
        prev = ResultStore(out).read_manifest() if (out / "manifest.json").exists() else {}
    except (StoreError, OSError):
        return
    if prev.get("experiment") not in (None, experiment):
        raise UsageError(f"--out {out} holds a {prev['experiment']} run; a {experiment} run would mix its units and "
                         f"reports with it: choose another --out")


def run(config, execution: Execution | None = None) -> StudyResult:
    """Run (or resume) the study of ``config`` under ``execution`` and return what it wrote.

    Checked before any data is loaded: the units (at least one, each storable), ``--out``
    (writable, not another study's), the execution (the scheduler answers), the device and
    the files the units will read. Then the data is prepared once (content-addressed, for the
    workers), the units run, the report is written and the manifest closed. With
    ``execution.estimate`` the cost is printed instead (see :func:`estimate`); with
    ``execution.report_only`` no unit runs and the stored ones are reported on (the
    configuration is then the stored one, :meth:`~experiments.config.RunConfig.from_stored`).
    The exit code is the result's ``exit_code`` (1 when some units failed)."""
    execution = execution or Execution()
    exp = registry.get(config.experiment)
    if execution.report_only:
        return _report_only(exp, config, execution)
    units = exp.units(config)
    check_units(units)
    if execution.save_runs:
        from experiments.export import check_save_runs
        check_save_runs(config.experiment)
    out = check_outputs(execution.out_dir(config))
    check_same_experiment(out, config.experiment)
    execution.check()
    if hasattr(config, "check_device"):
        config.check_device()
    if exp.before is not None:
        exp.before(config)
    info = prepare_data(config, out) if exp.reads_data(config) else DataInfo()
    stored = {**config.to_dict(), **config.protocol_notes(), "data": info.facts}
    store = ResultStore(out, stored)
    ctx = {"cfg": config, "data": info.ref,
           "isolated": config.plugin_models(u.model for u in units)}      # plug-ins run in their own process
    size = (f" ({info.facts['n_queries']} queries, {info.facts['n_docs']} documents)" if info.facts else "")
    header = [f"{config.experiment}: {config.dataset}{size}, {config.trials} trial(s), {len(units)} unit(s), "
              f"results in {store.root}", *(f"  deviation from the paper: {d}" for d in config.deviations())]
    tune_extra = tuning.before_units(exp, config, execution, store, units, ctx)   # --tune: the searches first
    if getattr(config, "looks", None):            # --trials auto: waves and looks (experiments.sequential_run)
        from experiments import sequential_run
        return sequential_run.run(exp, config, execution, store, units, ctx, header)
    if execution.estimate:
        with store.lock():               # --tune: calibrated at fixed settings, the searches counted beside
            lines = estimate(tuning.untuned(units), exp.unit_fn, ctx, store, execution, exp.size_of)
        lines += tuning.estimate_lines(config, units, store)
        print("\n".join(lines))
        return StudyResult(out=out, exit_code=0, estimate=lines)
    inference = execution.inference(_stored_statistics(out))     # the report's statistics (never hashed)
    code = run_and_report(config.experiment, execution, store, units, exp.unit_fn,
                          lambda s: exp.report(s, inference), ctx, header,
                          extra={"trials": config.trials, "statistics": inference.to_dict(), **tune_extra})
    return _result(out, code)


def _report_only(exp, config, execution: Execution) -> StudyResult:
    """Report on the stored units of ``config`` in ``execution.out`` — every record of the
    stored configuration (its hash), as the run that wrote them reported — running none."""
    store = ResultStore.open(execution.out_dir(config))
    if not store.records():                   # those of the stored configuration (its hash)
        raise UsageError(f"{store.root}: no finished unit to report on")
    man = store.read_manifest()
    inference = execution.inference(man.get("statistics"))
    if man.get("statistics") != inference.to_dict():     # given anew: the manifest records what the report used
        atomic_write_text(store.manifest_path, json.dumps({**man, "statistics": inference.to_dict()}, indent=1))
    if getattr(config, "looks", None):           # --trials auto: its looks again (experiments.sequential_run)
        from experiments import sequential_run
        info = sequential_run.report_only(exp, config, execution, store, inference)
    else:
        info = exp.report(store, inference)
    if not execution.quiet:
        print(info.text)
        print(f"{len(info.files)} file(s) written under {store.root}", file=sys.stderr)
    res = _result(store.root, 0)
    res.report = info
    return res


def _stored_statistics(out: Path) -> dict | None:
    """The report statistics a previous run in ``out`` stored (None: none, or no readable manifest)."""
    try:
        return ResultStore(out).read_manifest().get("statistics") if (Path(out) / "manifest.json").exists() else None
    except (StoreError, OSError):
        return None


def _result(out, code: int) -> StudyResult:
    try:
        return load(out, exit_code=code)
    except (FileNotFoundError, StoreError, ValueError):      # nothing reported yet (or damaged): the code stands
        return StudyResult(out=Path(out), exit_code=code)


def _fmt_s(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def estimate(units, unit_fn, ctx: dict, store: ResultStore, execution: Execution, size_of=None,
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
    from ltrrepro.runner import default_jobs_threads

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


def _finish_quietly(store: ResultStore, status: str, extra: dict) -> None:
    """Close the manifest on a failing path; when that write fails too (the disk that made the
    run fail is still full), the first error is the one reported, and the manifest stays
    ``running`` until the next run of OUT rewrites it."""
    try:
        store.finish(status, extra=extra)
    except (OSError, StoreError):
        pass


def run_and_report(experiment: str, execution: Execution, store: ResultStore, units, unit_fn, report_fn, ctx: dict,
                   header=(), extra: dict | None = None) -> int:
    """Lock ``store`` for this process, run (or resume) the units, report on exactly these
    units, and close the manifest as ``ok``, ``failed``, ``interrupted`` or ``error`` on every
    path. The first failing unit's message is printed; the rest are in ``failures/``."""
    with store.lock():
        store.start(experiment, extra={"jobs": execution.jobs, "threads": execution.threads,
                                       "backend": execution.backend, **(extra or {})})
        if not execution.quiet:
            for line in header:
                print(line, file=sys.stderr)
        store.select([u.key for u in units])
        t0 = time.perf_counter()
        try:
            summary = run_units(units, unit_fn, ctx, store, jobs=execution.jobs, threads=execution.threads,
                                backend=execution.backend, scheduler=execution.scheduler, force=execution.force,
                                quiet=execution.quiet, scheduler_timeout=execution.scheduler_timeout)
            wall = time.perf_counter() - t0
            if not execution.no_report and summary.n_done + summary.n_skipped > 0:
                info = report_fn(store)               # a ltrrepro.report.Report, written
                text = getattr(info, "text", None)
                if not execution.quiet and text:
                    print(text)
            if getattr(execution, "save_runs", False) and summary.n_done + summary.n_skipped > 0:
                from experiments.export import save_runs
                save_runs(store, quiet=execution.quiet)      # OUT/trec: the units' test rankings
        except KeyboardInterrupt:
            _finish_quietly(store, "interrupted", {"wall_s": time.perf_counter() - t0})
            raise
        except BaseException as err:
            _finish_quietly(store, "error", {"wall_s": time.perf_counter() - t0, "error": f"{type(err).__name__}: {err}"})
            raise
        store.finish("ok" if summary.ok else "failed",
                     extra={"wall_s": wall, "n_units": summary.n_units, "n_skipped": summary.n_skipped,
                            "n_done": summary.n_done, "failed": summary.failed})
    if summary.failed:
        first = store.failure(summary.failed[0])
        print(f"error: {len(summary.failed)} unit(s) failed; the first, {summary.failed[0]}: "
              f"{first.get('error', '?')} (tracebacks in {store.failures_dir})", file=sys.stderr)
    if not execution.quiet:
        print(f"{experiment}: {summary.n_done} unit(s) run, {summary.n_skipped} resumed, "
              f"{len(summary.failed)} failed; {wall:.1f} s; results in {store.root}", file=sys.stderr)
    return summary.exit_code

"""Running a study: :func:`run` ``(config, execution)`` — what the command line, ``python -m
experiments.report`` and the Python API all call.

The study comes from the configuration (``config.experiment``, looked up in
:mod:`experiments.registry`); :func:`run` checks the units, the outputs and the execution
before any data is loaded, prepares the data once, runs (or resumes) the units, reports and
closes the manifest. ``ctx`` carries the configuration object and the data reference
(``ctx.cfg``, ``ctx.data``) to the workers.
"""
from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from experiments import registry, tuning
from experiments.design import Fixed, Sequential, design_of
from experiments.errors import UsageError
from experiments.estimate import estimate
from experiments.execution import Execution, check_outputs, check_same_experiment, check_units
from experiments.export import check_save_runs, save_runs
from experiments.results import StudyResult, load
from ltrrepro import migrations
from ltrrepro.datasets import load_dataset
from ltrrepro.fileio import atomic_write_text
from ltrrepro.page import PAGE, write_page
from ltrrepro.runner import UnitContext, materialize, run_units
from ltrrepro.store import ResultStore, StoreError

__all__ = ["DataInfo", "prepare_data", "run", "run_and_report"]


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


def run(config, execution: Execution | None = None) -> StudyResult:
    """Run (or resume) the study of ``config`` under ``execution`` and return what it wrote.

    Checked before any data is loaded: the units (at least one, each storable), ``--out``
    (writable, not another study's), the execution (the scheduler answers), the design, the
    device and the files the units will read. Then the data is prepared once
    (content-addressed, for the workers) and :func:`run_and_report` runs the units in the
    waves of the run's design (:mod:`experiments.design`), reports and closes the manifest.
    With ``execution.estimate`` the cost is printed instead (:func:`experiments.estimate.estimate`);
    with ``execution.report_only`` no unit runs and the stored ones are reported on (the
    configuration is then the stored one, :meth:`~experiments.config.RunConfig.from_stored`).
    The exit code is the result's ``exit_code`` (1 when some units failed)."""
    execution = execution or Execution()
    exp = registry.get(config.experiment)
    design = design_of(config)
    if execution.report_only:
        return _report_only(exp, config, execution, design)
    units = exp.units(config)
    check_units(units)
    if execution.save_runs:
        check_save_runs(config.experiment)
    out = check_outputs(execution.out_dir(config))
    check_same_experiment(out, config.experiment)
    execution.check()
    design.check(execution)
    if hasattr(config, "check_device"):
        config.check_device()
    if exp.before is not None:
        exp.before(config)
    info = prepare_data(config, out) if exp.reads_data(config) else DataInfo()
    stored = {**config.to_dict(), **config.protocol_notes(), "data": info.facts}
    store = ResultStore(out, stored)
    ctx = UnitContext(cfg=config, data=info.ref,
                      isolated=config.plugin_models(u.model for u in units))      # plug-ins run in their own process
    inference = execution.inference(_stored_statistics(out))     # the report's statistics (never hashed)
    if execution.estimate:
        with store.lock():               # --tune: calibrated at fixed settings, the searches counted beside
            lines = design.estimate(config, store, units, estimate(tuning.untuned(units), exp.unit_fn, ctx, store,
                                                                   execution, exp.size_of), inference)
        lines += tuning.estimate_lines(config, units, store)
        print("\n".join(lines))
        return StudyResult(out=out, exit_code=0, estimate=lines)
    size = (f" ({info.facts['n_queries']} queries, {info.facts['n_docs']} documents)" if info.facts else "")
    header = [f"{config.experiment}: {config.dataset}{size}, {config.trials} trial(s), {len(units)} unit(s), "
              f"results in {store.root}", *(f"  deviation from the paper: {d}" for d in config.protocol_notes()["deviations"])]
    search = tuning.stage(config, execution, store, units)          # --tune: the searches, the run's first stage
    code = run_and_report(config.experiment, execution, store, units, exp.unit_fn,
                          lambda s: exp.report(s, inference), ctx, header, extra={"statistics": inference.to_dict()},
                          design=design, inference=inference, stages=[search] if search else [])
    return _result(out, code)


def _report_only(exp, config, execution: Execution, design) -> StudyResult:
    """Report on the stored units of ``config`` in ``execution.out`` — every record of the
    stored configuration (its hash), as the run that wrote them reported (a sequential run:
    its looks again, up to the last one its stored trials cover) — running none."""
    store = ResultStore.open(execution.out_dir(config))
    with store.lock():                        # a run still going is refused (one line), not reported half-way
        if not store.records():               # those of the stored configuration (its hash)
            raise UsageError(f"{store.root}: no finished unit to report on")
        store.expect(u.key for u in exp.units(config))        # the report names the units not stored
        man = store.read_manifest()
        inference = execution.inference(man.get("statistics"))
        # given anew: the manifest records what the report used; stored at an older schema: written back at the
        # current one (ltrrepro.migrations: a schema-1 argv held the script's absolute path)
        if man.get("statistics") != inference.to_dict() or _stored_schema(store) < migrations.SCHEMA:
            atomic_write_text(store.manifest_path, json.dumps({**man, "statistics": inference.to_dict()}, indent=1))
        units = exp.units(config) if isinstance(design, Sequential) else None      # a fixed run: every stored unit
        info, _ = _waves(design, execution, store, units, None, lambda s: exp.report(s, inference), None, None,
                         inference)
    if info is None:
        raise UsageError(f"{store.root}: the trials of the first look are not all stored; nothing to report on")
    if not execution.quiet:
        print(info.text)
        print(f"{len(info.files)} file(s) written under {store.root}", file=sys.stderr)
    res = _result(store.root, 0)
    res.report = info
    return res


def _stored_schema(store: ResultStore) -> int:
    """The schema of ``store``'s manifest as it is on disk (0: written before the field)."""
    version = json.loads(store.manifest_path.read_text(encoding="utf-8")).get("schema", 0)
    return version if isinstance(version, int) else migrations.SCHEMA


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


def _given(stages) -> dict:
    """What the run's finished stages record in its manifest (``tuning``: each search's values),
    on every path that closes it."""
    return {k: v for stage in stages for k, v in stage.summary.items()}


def _finish_quietly(store: ResultStore, status: str, extra: dict) -> None:
    """Close the manifest on a failing path; when that write fails too (the disk that made the
    run fail is still full), the first error is the one reported, and the manifest stays
    ``running`` until the next run of OUT rewrites it."""
    try:
        store.finish(status, extra=extra)
    except (OSError, StoreError):
        pass


def _units_of(execution, store, units, fn, ctx):
    """Run (or resume) ``units`` with ``fn`` under ``execution``'s backend, jobs, threads and
    per-unit time limit: the one call every stage and wave makes."""
    return run_units(units, fn, ctx, store, jobs=execution.jobs, threads=execution.threads,
                     backend=execution.backend, scheduler=execution.scheduler, force=execution.force,
                     quiet=execution.quiet, scheduler_timeout=execution.scheduler_timeout,
                     unit_timeout=getattr(execution, "unit_timeout", None))


def _stage(stage, execution, store, ctx: dict) -> dict:
    """Run a stage before the waves (:class:`experiments.tuning.Stage`, the searches of
    ``--tune``): its units in the lifecycle like any other; the context its results give the
    units. A failed unit stops the run (the waves need every result), naming it."""
    ctx = stage.begin(ctx)
    summary = _units_of(execution, store, stage.units, stage.fn, ctx)
    if summary.failed:
        first = store.failure(summary.failed[0])
        raise UsageError(f"{stage.name} unit {summary.failed[0]} failed: {first.get('error', '?')} (the units need "
                         f"its result; tracebacks in {store.failures_dir})")
    return stage.done(store, ctx)


def _waves(design, execution, store, units, unit_fn, report_fn, ctx, counts, inference=None):
    """For each wave of ``design``: run (or resume) its units, report on exactly them, and ask
    the design whether to stop; ``(report, failed keys)``. Without ``counts`` (a report-only
    pass) nothing runs: the waves stop before the first whose units are not all stored
    (``units`` None: the stored units, one wave)."""
    info, failed, before = None, [], 0
    for k, n in enumerate(design.sizes):
        if units is not None:
            wave = [u for u in units if u.trial < n]
            if counts is None and not all(store.is_done(u.key) for u in wave):
                design.unstored(k)
                break
            store.select([u.key for u in wave])
        if counts is not None:
            # --force recomputes each unit once: a later wave runs only its new trials' units
            todo = [u for u in wave if u.trial >= design.sizes[k - 1]] if execution.force and k else wave
            summary = _units_of(execution, store, todo, unit_fn, ctx)
            counts["n_done"] += summary.n_done
            counts["n_skipped"] += summary.n_skipped - (before if todo is wave else 0)
            before = len(wave)
            failed = summary.failed
            if failed:
                design.failed(k, failed)
            if (failed and not design.report_on_failure or execution.no_report
                    or summary.n_done + summary.n_skipped == 0):
                break
        info = report_fn(store)                  # a ltrrepro.report.Report, written
        if failed or design.decide(k, info, inference, execution.quiet):
            break
    if info is not None:
        info = design.final(info, store.root)
    return info, failed


def run_and_report(experiment: str, execution: Execution, store: ResultStore, units, unit_fn, report_fn, ctx: UnitContext,
                   header=(), extra: dict | None = None, design=None, inference=None, stages=()) -> int:
    """The one lifecycle of every run: lock ``store`` for this process, start its manifest,
    run its ``stages`` (``--tune``'s searches: :class:`experiments.tuning.Stage`), then the units in the waves of ``design`` (default: one wave, :class:`~experiments.design.Fixed`)
    with a report and the design's decision after each, write the TREC runs (``--save-runs``),
    and close the manifest as ``ok``, ``failed``, ``interrupted`` or ``error`` on every path.
    The first failing unit's message is printed; the rest are in ``failures/``. The exit code
    (1: some unit failed)."""
    design = design or Fixed(max([u.trial for u in units], default=0) + 1)
    counts = {"n_done": 0, "n_skipped": 0}
    with store.lock():
        store.start(experiment, argv=getattr(execution, "command", None),
                    extra={"jobs": execution.jobs, "threads": execution.threads,
                           "backend": execution.backend, **design.manifest(), **(extra or {})})
        if not execution.quiet:
            for line in header:
                print(line, file=sys.stderr)
        t0 = time.perf_counter()
        try:
            for stage in stages:
                ctx = _stage(stage, execution, store, ctx)
            info, failed = _waves(design, execution, store, units, unit_fn, report_fn, ctx, counts, inference)
            text = getattr(info, "text", None)
            if not execution.quiet and text:
                print(text)
            if getattr(execution, "save_runs", False) and counts["n_done"] + counts["n_skipped"] > 0:
                save_runs(store, quiet=execution.quiet)      # OUT/trec: the units' test rankings
        except KeyboardInterrupt:
            _finish_quietly(store, "interrupted", {"wall_s": time.perf_counter() - t0, **_given(stages)})
            raise
        except BaseException as err:
            _finish_quietly(store, "error", {"wall_s": time.perf_counter() - t0, "error": f"{type(err).__name__}: {err}",
                                             **_given(stages)})
            raise
        wall = time.perf_counter() - t0
        done = _given(stages)
        store.finish("failed" if failed else "ok",
                     extra={"wall_s": wall, "n_units": len(units), **counts, "failed": failed, **design.record(), **done})
        if info is not None and (store.root / PAGE).exists():   # the page again, with the closed manifest's facts
            write_page(info, store.root)
    if design.stop or not execution.quiet:
        print(f"{experiment}: {design.stop + '; ' if design.stop else ''}{counts['n_done']} unit(s) run, "
              f"{counts['n_skipped']} resumed, {len(failed)} failed; {wall:.1f} s; results in {store.root}",
              file=sys.stderr)
    if failed:
        print(f"error: {len(failed)} unit(s) failed; the first, {failed[0]}: "
              f"{store.failure(failed[0]).get('error', '?')} (tracebacks in {store.failures_dir})", file=sys.stderr)
    return 1 if failed else 0

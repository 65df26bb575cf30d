"""``--trials auto``: a run in waves, stopped when every claim has crossed a group-sequential bound.

The design (a configuration's ``trials`` is the maximum N, ``looks`` the number K of equally
spaced looks; :func:`ltrrepro.inference.sequential.look_sizes`): the run trains the units of the first
n_1 trials, reports on them, and holds every tested claim of the report to its bounds
(:class:`ltrrepro.inference.sequential.Monitor`: Lan–DeMets O'Brien–Fleming-type efficacy bounds at the
report's α, two-sided; a non-binding β-spending futility bound against the effect the claim is
powered against; Holm-type α recycling within each claim family, or none with ``--correction
none``). It stops when every tested claim is settled (efficacy, contradicted, futility) or at
look K; otherwise the next wave trains the units of trials n_1..n_2 − 1, and so on.

A look is a report over the finished trials, and the store resumes finished units: an
interrupted run, re-run, recomputes its looks from the stored units (reports only) and goes
on from the last one, to the same result. The final report is that of the stopping look, its
claims those of each claim's settling look with the sequential verdict, the stage-wise
adjusted p and CI (``claims.json``: ``sequential``), and ``tables/sequential`` every look's
bounds and decisions; the manifest records the design and the stop.
"""
from __future__ import annotations

import argparse
import dataclasses
import sys
import time

from experiments.errors import UsageError
from experiments.sequential_report import (correction_of, estimate_lines, final_report, look_text, monitored,
                                           settled_claim)
from experiments.study import _finish_quietly
from ltrrepro.inference import sequential as sq
from ltrrepro.runner import run_units

__all__ = ["trials_arg", "TrialsAction", "add_flags", "apply_design", "run", "run_sequential", "report_only",
           "DEFAULT_LOOKS"]

DEFAULT_LOOKS = 5


def trials_arg(text: str):
    """``--trials``: a positive integer, or ``auto`` (a group-sequential run)."""
    if str(text).strip().lower() == "auto":
        return "auto"
    from experiments.values import positive_int
    return positive_int(text)


class TrialsAction(argparse.Action):
    """``--trials N`` stores N; ``--trials auto`` leaves ``trials`` at its default (a study's
    ``from_args`` never sees the word) and sets ``auto_trials``, which :func:`apply_design` reads."""

    def __call__(self, parser, namespace, values, option_string=None):
        namespace.auto_trials = values == "auto"
        setattr(namespace, self.dest, None if values == "auto" else values)


def add_flags(ap) -> None:
    """``--max-trials`` and ``--looks``: the design of ``--trials auto``."""
    ap.add_argument("--max-trials", type=int, default=None, metavar="N",
                    help="with --trials auto: the most trials the run may take (default: the paper's)")
    ap.add_argument("--looks", type=int, default=None, metavar="K",
                    help=f"with --trials auto: equally spaced looks at the claims (default {DEFAULT_LOOKS})")


def apply_design(args, build):
    """The configuration of a parsed command line, ``build(args)``, with the design of
    ``--trials auto`` (``trials`` = the maximum, ``looks`` = K); refused: ``--max-trials`` or
    ``--looks`` without ``--trials auto``, a maximum below 2, fewer than 2 looks."""
    auto = getattr(args, "auto_trials", False)
    max_trials, looks = getattr(args, "max_trials", None), getattr(args, "looks", None)
    if not auto:
        if max_trials is not None or looks is not None:
            raise UsageError("--max-trials and --looks design a sequential run: give them with --trials auto")
        return build(args)
    if max_trials is not None and max_trials < 2:
        raise UsageError(f"--max-trials must be at least 2 (a paired test needs two trials), got {max_trials}")
    looks = DEFAULT_LOOKS if looks is None else looks
    if looks < 2:
        raise UsageError(f"--looks must be at least 2 (one look is the fixed design: --trials N), got {looks}")
    args = argparse.Namespace(**{**vars(args), "trials": max_trials})
    cfg = build(args)
    n = max_trials or cfg.paper_trials
    if n < 2:
        raise UsageError(f"--trials auto: the paper's {n} trial(s) leave nothing to look at; give --max-trials N")
    return dataclasses.replace(cfg, trials=n, looks=looks)


def _looks(exp, execution, store, units, ctx, sizes, counts: dict, inference, report_only: bool = False) -> dict:
    """Take the looks: each wave's units run (or resumed), the report, the monitor's decisions;
    until every claim is settled or the last look. A report-only pass runs nothing: it stops
    before the first look whose trials are not all stored."""
    st = {"monitor": None, "info": None, "settled": {}, "stop": "", "failed": []}
    for k, n in enumerate(sizes):
        wave = [u for u in units if u.trial < n]
        if report_only and not all(store.is_done(u.key) for u in wave):
            st["stop"] = (f"reported at look {k} of {len(sizes)}: the trials of look {k + 1} are not all stored"
                          if k else "")
            break
        store.select([u.key for u in wave])
        if not report_only:
            summary = run_units(wave, exp.unit_fn, ctx, store, jobs=execution.jobs, threads=execution.threads,
                                backend=execution.backend, scheduler=execution.scheduler, force=execution.force,
                                quiet=execution.quiet, scheduler_timeout=execution.scheduler_timeout)
            counts["n_done"] += summary.n_done
            counts["n_skipped"] = len(wave) - counts["n_done"]
            if summary.failed:
                st["failed"] = summary.failed
                st["stop"] = f"stopped at look {k + 1}: {len(summary.failed)} unit(s) failed"
                break
        info = st["info"] = exp.report(store, inference)
        entries = monitored(info.claims)
        if st["monitor"] is None:
            st["monitor"] = sq.Monitor(sizes, alpha=inference.alpha, correction=correction_of(info.claims, inference))
        monitor, keys = st["monitor"], [e["key"] for e in entries]
        new = monitor.look(k, entries)
        for c in info.claims:
            if c.text in monitor.decisions and c.text not in st["settled"]:
                st["settled"][c.text] = settled_claim(c, monitor.decisions[c.text], len(sizes), inference.alpha)
        if not execution.quiet:
            print(look_text(k, sizes, new, len(keys) - sum(x in monitor.decisions for x in keys)), file=sys.stderr)
        if keys and monitor.done(keys) or k == len(sizes) - 1:
            kinds = [d["stop"] for d in monitor.decisions.values()]
            tally = ", ".join(f"{kinds.count(x)} {x}" for x in (sq.EFFICACY, sq.CONTRADICTED, sq.FUTILITY, sq.MAXIMUM)
                              if x in kinds)
            why = (f"every claim crossed a bound ({tally})" if k < len(sizes) - 1 else
                   f"the maximum reached ({tally})" if keys else "the maximum reached; no claim rests on a p-value")
            st["stop"] = f"stopped at look {k + 1} of {len(sizes)} ({n} of at most {sizes[-1]} trials): {why}"
            break
    if st["info"] is not None:
        st["info"] = final_report(st["info"], st["settled"], st["monitor"], sizes, st["stop"]).write(store.root)
        if not execution.quiet:
            print(st["info"].text)
        if getattr(execution, "save_runs", False) and not report_only:
            from experiments.export import save_runs
            save_runs(store, quiet=execution.quiet)         # OUT/trec: the test rankings of the units run
    return st


def run_sequential(exp, config, execution, store, units, ctx, header, inference, extra=None) -> int:
    """Run ``units`` look by look (see the module docstring); the exit code (1: a unit failed)."""
    sizes = sq.look_sizes(config.trials, config.looks)
    design = {"max_trials": config.trials, "looks": len(sizes), "sizes": sizes, "spending": "Lan–DeMets OBF",
              "futility": "non-binding, beta-spending (OBF type) at the claim's effect"}
    counts = {"n_done": 0, "n_skipped": 0}
    with store.lock():
        store.start(config.experiment, extra={"jobs": execution.jobs, "threads": execution.threads,
                                              "backend": execution.backend, "trials": "auto", "sequential": design,
                                              **(extra or {})})
        if not execution.quiet:
            for line in header:
                print(line, file=sys.stderr)
        t0 = time.perf_counter()
        try:
            st = _looks(exp, execution, store, units, ctx, sizes, counts, inference)
        except KeyboardInterrupt:
            _finish_quietly(store, "interrupted", {"wall_s": time.perf_counter() - t0})
            raise
        except BaseException as err:
            _finish_quietly(store, "error", {"wall_s": time.perf_counter() - t0,
                                             "error": f"{type(err).__name__}: {err}"})
            raise
        monitor, failed, stop = st["monitor"], st["failed"], st["stop"]
        record = {**design, "alpha": monitor.alpha if monitor else None, "stop": stop,
                  "claims": dict(monitor.decisions) if monitor else {}}
        store.finish("ok" if not failed else "failed",
                     extra={"wall_s": time.perf_counter() - t0, "n_units": len(units), **counts, "failed": failed,
                            "sequential": record})
    print(f"{config.experiment}: {stop}; {counts['n_done']} unit(s) run, {counts['n_skipped']} resumed; results in "
          f"{store.root}", file=sys.stderr)
    if failed:
        print(f"error: {len(failed)} unit(s) failed; the first, {failed[0]}: "
              f"{store.failure(failed[0]).get('error', '?')} (tracebacks in {store.failures_dir})", file=sys.stderr)
        return 1
    return 0


def report_only(exp, config, execution, store, inference):
    """``python -m experiments.report`` of an auto run: its looks again over the stored units
    (running none), the report of the last look they cover."""
    units = exp.units(config)
    with store.lock():
        st = _looks(exp, execution, store, units, None, sq.look_sizes(config.trials, config.looks), {},
                    inference, report_only=True)
    if st["info"] is None:
        raise UsageError(f"{store.root}: the trials of the first look are not all stored; nothing to report on")
    return st["info"]


def run(exp, config, execution, store, units, ctx, header):
    """:func:`experiments.study.run`'s branch for a configuration with ``looks``: the estimate
    (:func:`estimate_lines`) or the sequential run, under the report's statistics (``--test``,
    ``--correction``, ``--effect``, as a fixed run takes them, over the stored ones)."""
    from experiments import study
    from experiments.results import StudyResult

    if execution.no_report:
        raise UsageError("--no-report: a sequential run decides at each look from the report; drop it (or give "
                         "--trials N)")
    inference = execution.inference(study._stored_statistics(store.root))
    if execution.estimate:
        with store.lock():
            store.select([u.key for u in units])
            lines = estimate_lines(config, store, units, study.estimate(units, exp.unit_fn, ctx, store, execution,
                                                                        exp.size_of), inference.alpha)
        print("\n".join(lines))
        return StudyResult(out=store.root, exit_code=0, estimate=lines)
    code = run_sequential(exp, config, execution, store, units, ctx, header, inference,
                          {"statistics": inference.to_dict()})
    return study._result(store.root, code)

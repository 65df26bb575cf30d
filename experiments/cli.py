"""The top floor: the one command-line contract of every study — its flags, their parsing,
the error path.

``python -m experiments.<name>`` is :func:`entry_point`: the study's parser
(:func:`parser_for` its :class:`~experiments.registry.Experiment` record: the flag of each
field its configuration declares, :func:`experiments.options.option`), then :func:`parse_command` — the typed
configuration (or the one a ``--config`` manifest stored) and the
:class:`~experiments.execution.Execution` — then :func:`experiments.run`. A flag a study does
not take is refused by argparse like any unknown one. Every
experiment takes the execution flags (:data:`EXECUTION`: ``--seed --out --jobs --threads
--backend --scheduler --scheduler-timeout --unit-timeout --force --quiet --no-report --debug --config``);
the boosting length is ``--rounds`` and the model list ``--models`` wherever they apply.

**User errors** (a bad option, a missing or malformed data file, an unusable ``--out`` or
scheduler) are one line ``error: …`` on stderr and exit code 2, checked before any data is
loaded where they can be; ``--debug`` shows the traceback instead. Entry points are wrapped
by :func:`cli`.
"""
from __future__ import annotations

import argparse
import dataclasses

from experiments import options, registry
from experiments.errors import USER_ERRORS, ArgumentParser, UsageError, cli
from experiments.execution import BACKENDS as EXECUTION_BACKENDS, Execution
from experiments.study import run
from experiments.options import TrialsAction
from experiments.values import MAX_LOOKS, MAX_TRIALS, bounded_int, parse_levels, parse_names, positive_int

__all__ = ["UsageError", "USER_ERRORS", "cli", "entry_point", "parse_command", "make_parser", "ArgumentParser",
           "parse_names", "parse_levels", "positive_int", "EXECUTION", "DEFAULT_LOOKS", "main_of", "TrialsAction"]

#: the looks of ``--trials auto`` when ``--looks`` is not given
DEFAULT_LOOKS = 5


def sequential_flags(ap) -> None:
    """``--max-trials`` and ``--looks``: the design of ``--trials auto`` (:mod:`experiments.design`)."""
    ap.add_argument("--max-trials", type=bounded_int(-2 ** 63, MAX_TRIALS), default=None, metavar="N",
                    help="with --trials auto: the most trials the run may take (default: the paper's)")
    ap.add_argument("--looks", type=bounded_int(-2 ** 63, MAX_LOOKS), default=None, metavar="K",
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
    given = looks is not None
    looks = DEFAULT_LOOKS if looks is None else looks
    if looks < 2:
        raise UsageError(f"--looks must be at least 2 (one look is the fixed design: --trials N), got {looks}")
    args = argparse.Namespace(**{**vars(args), "trials": max_trials})
    cfg = build(args)
    n = max_trials or cfg.paper_trials
    if n < 2:
        raise UsageError(f"--trials auto: the paper's {n} trial(s) leave nothing to look at; give --max-trials N")
    if not given:                                   # the default: as many of its looks as fit
        from ltrrepro.inference.sequential import look_sizes
        looks = max([k for k in range(2, looks + 1) if len(look_sizes(n, k)) == k] or [looks])
    return dataclasses.replace(cfg, trials=n, looks=looks)


#: the execution and output flags every experiment takes
EXECUTION = ("out", "jobs", "threads", "backend", "scheduler", "scheduler-timeout", "force", "quiet",
             "no-report", "debug", "config", "estimate", "save-runs", "unit-timeout", *("test", "correction", "effect"))


def execution_flags(ap: argparse.ArgumentParser) -> None:
    """The flags every experiment honours: execution (:class:`~experiments.execution.Execution`,
    whose defaults they take), output, randomness, re-running."""
    d = Execution()
    ap.add_argument("--out", default=d.out, help="results directory (default runs/EXPERIMENT-DATASET)")
    ap.add_argument("--jobs", type=positive_int, default=d.jobs, help="parallel jobs (default: cores / threads)")
    ap.add_argument("--threads", type=positive_int, default=d.threads, help="threads per job (default: cores / jobs)")
    ap.add_argument("--backend", choices=EXECUTION_BACKENDS, default=d.backend)
    ap.add_argument("--scheduler", default=d.scheduler, help="dask.distributed scheduler address (with --backend dask)")
    ap.add_argument("--scheduler-timeout", type=positive_int, default=d.scheduler_timeout,
                    help="seconds to wait for the dask scheduler to answer, and for a cluster that lost every "
                         "worker or its scheduler mid-run before the run ends (finished units kept; default 30)")
    ap.add_argument("--unit-timeout", type=_seconds, default=d.unit_timeout, metavar="SECONDS",
                    help="a unit running longer fails with its reason (the others finish; the same command "
                         "retries it); default: no limit")
    ap.add_argument("--force", action="store_true", help="recompute units already stored")
    ap.add_argument("--quiet", action="store_true", help="no progress bar and no per-unit log lines")
    ap.add_argument("--no-report", action="store_true", help="run the units only")
    ap.add_argument("--save-runs", action="store_true",
                    help="also write each unit's test ranking as a TREC run and each trial's qrels, gzip, under "
                         "OUT/trec (docs/export.md; not configuration: the results are the same)")
    ap.add_argument("--debug", action="store_true", help="show tracebacks of user errors")
    ap.add_argument("--estimate", action="store_true",
                    help="print the number of units and their cost on this machine (and on N workers) from a "
                         "short calibration, then stop; the calibration units are kept")
    statistics_flags(ap)
    ap.add_argument("--config", default=None, metavar="MANIFEST",
                    help="re-run the configuration stored in a run's manifest.json (give only execution flags "
                         "beside it)")


def _seconds(text: str) -> float:
    """``--unit-timeout``: a positive number of seconds, at most a week."""
    import math

    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not (math.isfinite(v) and 0 < v <= 7 * 86400):
        raise argparse.ArgumentTypeError(f"{text!r} must be more than 0 and at most 604800 (a week)")
    return v


def statistics_flags(ap: argparse.ArgumentParser) -> None:
    """The report's statistics (:meth:`~experiments.execution.Execution.inference`): report
    choices, not configuration — stored in the manifest, reused by ``python -m
    experiments.report`` unless given again, never recomputing a unit. Values are checked by
    :class:`~experiments.execution.Execution` (one ``error:`` line)."""
    ap.add_argument("--test", default=None, metavar="t|wilcoxon|permutation",
                    help="the paired test of every comparison and claim (default: as stored, else t)")
    ap.add_argument("--correction", default=None, metavar="holm|bh|none",
                    help="multiple-comparison correction within each claim family, in tables and claims alike "
                         "(default: as stored, else holm)")
    ap.add_argument("--effect", default=None, metavar="FAMILY=VALUE[%],...",
                    help="smallest effects of interest where the paper gives no number, e.g. ndcg=0.005,dcg=2%% "
                         "(default: as stored, else NDCG/ERR/precision 0.01, DCG 1%% of the baseline)")


def make_parser(doc: str) -> argparse.ArgumentParser:
    """An experiment's parser before its flags: its description, the help's layout."""
    return ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)


def given_experiment_flags(argv) -> list[str]:
    """The flags of ``argv`` that are not execution flags (refused beside --config)."""
    flags = [t.split("=", 1)[0] for t in argv if t.startswith("--")]
    return [f for f in flags if f[2:] not in EXECUTION]


def parser_for(exp) -> argparse.ArgumentParser:
    """The parser of a study (:class:`~experiments.registry.Experiment`): the flag of every
    field its configuration class declares (:func:`~experiments.options.option`; the record's
    ``unflagged`` fields left out), help showing the study's defaults, its ``own_flags`` if any,
    ``--trials auto``'s design and the execution flags. A record that brings its own
    ``from_args`` (the older way) gets the flags it names, with their old defaults."""
    ap = make_parser(exp.doc)
    ap.prog = f"python -m experiments {exp.name}"          # as run through either command
    cls = exp.config_cls
    if exp.derived:
        options.add_options(ap, cls, exp.defaults_on(exp.default().dataset) if exp.default else {}, exp.unflagged)
    else:
        declared = options.flag_names(cls)
        missing = [n for n in exp.flags if n not in declared]
        if missing:
            raise UsageError(f"the study {exp.name}: --{missing[0]} is no field of {cls.__name__}; declare the field "
                             f"with experiments.options.option(..., flag='--{missing[0]}') (docs/own-study.md)")
        options.add_options(ap, cls, only=("seed", *exp.flags))
        dests = {a.dest for a in ap._actions}
        ap.set_defaults(**{k: getattr(cls, k) for k in ("dataset", "seed") if k in dests},
                        **{k: v for k, v in exp.defaults.items() if k in dests})
    if any("--trials" in a.option_strings for a in ap._actions):            # --trials auto's design
        sequential_flags(ap)
    if exp.own_flags is not None:
        exp.own_flags(ap)
    execution_flags(ap)
    return ap


def parse_command(name: str, argv):
    """``(config, execution)`` of a study's command line: the configuration built from the
    flags, or the one stored in ``--config MANIFEST`` (beside which only execution flags may
    be given), and the execution flags as an :class:`~experiments.execution.Execution`."""
    exp = registry.get(name)
    args = parser_for(exp).parse_args(argv)
    if getattr(args, "tune_on", None) is not None and not getattr(args, "tune", None):
        raise UsageError(f"--tune-on {args.tune_on} says where --tune searches; give --tune N beside it (or drop "
                         f"--tune-on: this run is at fixed settings)")
    if args.config:
        extra = given_experiment_flags(argv)
        if extra:
            raise UsageError(f"--config re-runs a stored configuration: drop {' '.join(extra)} (only execution "
                             f"flags go beside it)")
        config = exp.config_cls.from_manifest(args.config, exp.name)
    else:
        config = apply_design(args, exp.from_args)          # --trials auto: trials = the maximum, looks
    return config, Execution.from_args(args)


def main_of(name: str, program: tuple | None = None):
    """The ``main(argv) -> int`` of study ``name``: its command line parsed
    (:func:`parse_command`) and run by :func:`experiments.study.run`; user errors are one line
    (:func:`~experiments.errors.cli`). ``python -m experiments NAME`` and ``python -m
    experiments.<name>`` both run it; ``program`` is how the command began (default ``python -m
    experiments.<name>``), so that the manifest records the command as typed (``Execution.command``)."""
    head = tuple(program or ("python", "-m", f"experiments.{name}"))

    @cli
    def main(argv=None) -> int:
        config, execution = parse_command(name, argv)
        execution = dataclasses.replace(execution, command=(*head, *argv))
        return run(config, execution).exit_code

    main.__name__ = main.__qualname__ = f"main_{name}"
    return main


def entry_point(module: str):
    """The ``main`` of ``python -m experiments.<name>``: :func:`main_of` the study named after
    the module (``experiments.quality`` -> ``quality``)."""
    return main_of(module.rsplit(".", 1)[-1])

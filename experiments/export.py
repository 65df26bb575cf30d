"""Write a finished run's test rankings as TREC run files and qrels (docs/export.md).

    python -m experiments.export RESULTS_DIR [RESULTS_DIR ...] [--to DIR] [--raw-scores]

For every unit of the directory's stored configuration: ``DIR/runs/<unit record's name>.run.gz``
(``qid Q0 docid rank score run_name``, the harness's ranking order, rank-derived scores so that
trec_eval, ir_measures and ranx rank ties as the harness did), and each trial's
``DIR/qrels/<dataset>__t<trial>.qrels.gz``; ``DIR`` defaults to ``RESULTS_DIR/trec``. The same
files a run writes with ``--save-runs``. Nothing is trained: the units' stored test scores are
read (units stored before they kept scores are named, with what to do). The format and the
tie rule are :mod:`ltrrepro.trec`'s.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from experiments import registry
from experiments.errors import ArgumentParser, UsageError, cli

__all__ = ["ranking_studies", "check_save_runs", "save_runs", "export"]


def ranking_studies() -> list[str]:
    """The studies whose units store their test scores (``Experiment.keeps_rankings``)."""
    return [name for name, exp in registry.experiments().items() if exp.keeps_rankings]


def _keeps_rankings(name) -> bool:
    exp = registry.experiments().get(name)
    return exp is not None and exp.keeps_rankings


def check_save_runs(experiment: str) -> None:
    """``--save-runs`` is refused (one line, before any work) for a study whose units store no test rankings."""
    if not _keeps_rankings(experiment):
        raise UsageError(f"--save-runs: the {experiment} study's units keep no test rankings; TREC runs are written "
                         f"by {', '.join(ranking_studies())}")


def save_runs(store, dest=None, raw: bool = False, quiet: bool = False) -> dict:
    """Write the TREC runs and qrels of ``store``'s current units (:func:`ltrrepro.trec.export_store`)."""
    from ltrrepro.trec import ExportError, export_store

    try:
        out = export_store(store, dest, raw=raw)
    except ExportError as err:
        raise UsageError(str(err)) from None
    if not quiet:
        where = Path(dest) if dest is not None else Path(store.root) / "trec"
        print(f"TREC: {len(out['runs'])} run file(s) and {len(out['qrels'])} qrels file(s) in {where} "
              f"({out['bytes'] / 1024:.0f} KiB, gzip)", file=sys.stderr)
    if out.get("absent"):
        absent = out["absent"]
        print(f"note: {len(absent)} unit(s) of the configuration are not stored (not run yet, failed, or the run "
              f"is going on), so not exported: {', '.join(absent[:10])}{', ...' if len(absent) > 10 else ''}",
              file=sys.stderr)
    return out


def export(run_dir, dest=None, raw: bool = False, quiet: bool = False) -> dict:
    """The TREC files of the finished run in ``run_dir`` (its manifest's configuration)."""
    from ltrrepro.store import ResultStore

    from experiments import registry

    store = ResultStore.open(run_dir)
    man = store.read_manifest()
    name = man.get("experiment")
    if not _keeps_rankings(name):
        raise UsageError(f"{run_dir}: a {name} run; its units keep no test rankings (TREC runs come from "
                         f"{', '.join(ranking_studies())})")
    exp = registry.get(name)
    store.expect(u.key for u in exp.units(exp.config_cls.from_stored(man.get("config") or {})))
    return save_runs(store, dest, raw=raw, quiet=quiet)


def destinations(dirs, to) -> list:
    """Where each run of ``dirs`` goes: ``RUN/trec`` without ``to``; ``to`` for one run; with
    several, ``to/<run folder name>`` — and where two runs share a name
    (``runs/web30k/quality``, ``runs/yahoo/quality``), as many parent names as tell them apart
    (``to/web30k-quality``, ``to/yahoo-quality``): two runs never share a folder."""
    if to is None:
        return [None] * len(dirs)
    if len(dirs) == 1:
        return [Path(to)]
    parts = [Path(d).resolve().parts[1:] or ("run",) for d in dirs]
    if len(set(parts)) != len(parts):
        raise UsageError("a results directory is given twice: give each run once")
    names = None
    for k in range(1, max(map(len, parts)) + 1):
        names = ["-".join(p[-k:]) for p in parts]
        if len(set(names)) == len(names):
            break
    return [Path(to) / n for n in names]


@cli
def main(argv=None) -> int:
    ap = ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+", help="results directories")
    ap.add_argument("--to", default=None, metavar="DIR", help="where to write (default RESULTS_DIR/trec; with "
                                                                "several directories, DIR/<name of each>, parent "
                                                                "names added where two share a name)")
    ap.add_argument("--raw-scores", action="store_true",
                    help="write the models' scores as they are (ties then ranked by each tool's own rule)")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--debug", action="store_true", help="show tracebacks of user errors")
    args = ap.parse_args(argv)
    for d in args.dirs:
        if not (Path(d) / "manifest.json").is_file():
            raise UsageError(f"{d}: no manifest.json; give a results directory written by an ltrrepro study")
    for d, dest in zip(args.dirs, destinations(args.dirs, args.to)):
        export(d, dest, raw=args.raw_scores, quiet=args.quiet)
    return 0


if __name__ == "__main__":
    sys.exit(main())

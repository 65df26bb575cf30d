"""Rebuild every table, figure and claims check of a results directory, without training.

    python -m experiments.report RESULTS_DIR [RESULTS_DIR ...] [--test T] [--correction C] [--effect E]

Reads the directory's ``manifest.json`` for the study and its stored configuration, then
runs it with nothing to compute (:func:`experiments.run` with ``Execution(report_only=True)``):
the study's report on the stored unit records of that configuration. The report's statistics
(``--test``, ``--correction``, ``--effect``) are those the manifest stored unless given here;
given, they are stored for the next report (no unit is recomputed: they are not configuration).
"""
from __future__ import annotations

import argparse
import sys

from experiments import registry
from experiments.cli import ArgumentParser, cli, statistics_flags
from experiments.errors import UsageError
from experiments.execution import Execution
from ltrrepro.store import ResultStore


def rebuild(run_dir, quiet: bool = False, test=None, correction=None, effect=None):
    """Report on ``run_dir``'s stored units (with the report statistics given, else the stored
    ones); returns what the study's report returned."""
    import experiments

    man = ResultStore.open(run_dir).read_manifest()
    name = man.get("experiment")
    known = registry.experiments()
    if name not in known:
        raise UsageError(f"{ResultStore(run_dir).manifest_path}: names experiment {name!r}, which has no report; "
                         f"known: {', '.join(known)}")
    exp = known[name]
    config = exp.config_cls.from_stored(man.get("config") or {})
    return experiments.run(config, Execution(out=str(run_dir), quiet=quiet, report_only=True, test=test,
                                             correction=correction, effect=effect)).report


@cli
def main(argv=None) -> int:
    ap = ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+", help="results directories")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--debug", action="store_true", help="show tracebacks of user errors")
    statistics_flags(ap)
    args = ap.parse_args(argv)
    Execution(test=args.test, correction=args.correction, effect=args.effect)     # bad values: one line first
    for d in args.dirs:
        rebuild(d, quiet=args.quiet, test=args.test, correction=args.correction, effect=args.effect)
    return 0


if __name__ == "__main__":
    sys.exit(main())

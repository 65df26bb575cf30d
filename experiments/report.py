"""Rebuild every table, figure and claims check of a results directory, without training.

    python -m experiments.report RESULTS_DIR [RESULTS_DIR ...]

Reads the directory's ``manifest.json`` for the study and its stored configuration, then
runs it with nothing to compute (:func:`experiments.run` with ``Execution(report_only=True)``):
the study's report on the stored unit records of that configuration.
"""
from __future__ import annotations

import argparse
import sys

from experiments import registry
from experiments.cli import ArgumentParser, cli
from experiments.errors import UsageError
from experiments.execution import Execution
from ltrrepro.store import ResultStore


def rebuild(run_dir, quiet: bool = False):
    """Report on ``run_dir``'s stored units; returns what the study's report returned."""
    import experiments

    man = ResultStore.open(run_dir).read_manifest()
    name = man.get("experiment")
    known = registry.experiments()
    if name not in known:
        raise UsageError(f"{ResultStore(run_dir).manifest_path}: names experiment {name!r}, which has no report; "
                         f"known: {', '.join(known)}")
    exp = known[name]
    config = exp.config_cls.from_stored(man.get("config") or {})
    return experiments.run(config, Execution(out=str(run_dir), quiet=quiet, report_only=True)).report


@cli
def main(argv=None) -> int:
    ap = ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+", help="results directories")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--debug", action="store_true", help="show tracebacks of user errors")
    args = ap.parse_args(argv)
    for d in args.dirs:
        rebuild(d, quiet=args.quiet)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Rebuild every table, figure and claims check of a results directory, without training.

    python -m experiments.report RESULTS_DIR [RESULTS_DIR ...]

Reads the directory's ``manifest.json`` to find the experiment, then calls that
experiment's ``report`` on the stored unit records.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from experiments import REPORTS
from experiments.cli import ArgumentParser, UsageError, cli
from ltrrepro.store import ResultStore


def rebuild(run_dir, quiet: bool = False) -> dict:
    store = ResultStore.open(run_dir)
    name = store.read_manifest().get("experiment")
    if name not in REPORTS:
        raise UsageError(f"{store.manifest_path}: names experiment {name!r}, which has no report; known: "
                         f"{', '.join(REPORTS)}")
    mod = importlib.import_module(REPORTS[name])
    if not store.records():
        raise UsageError(f"{run_dir}: no finished unit to report on")
    info = mod.report(store)
    if not quiet:
        print(info.get("text", ""))
        print(f"{len(info.get('files', []))} file(s) written under {store.root}", file=sys.stderr)
    return info


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

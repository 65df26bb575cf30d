"""Rebuild every table, figure and claims check of a results directory, without training.

    python -m experiments.report RESULTS_DIR [RESULTS_DIR ...]

Reads the directory's ``manifest.json`` to find the experiment, then calls that
experiment's ``report`` on the stored unit records.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from ltrrepro.store import ResultStore


def rebuild(run_dir, quiet: bool = False) -> dict:
    try:
        store = ResultStore.open(run_dir)
    except FileNotFoundError as err:
        raise SystemExit(f"error: {err}") from None
    name = store.read_manifest()["experiment"]
    try:
        mod = importlib.import_module(f"experiments.{name}")
    except ImportError as err:
        raise SystemExit(f"{run_dir}: manifest names experiment {name!r}, which has no module") from err
    if not store.records():
        raise SystemExit(f"{run_dir}: no finished unit to report on")
    info = mod.report(store)
    if not quiet:
        print(info.get("text", ""))
        print(f"{len(info.get('files', []))} file(s) written under {store.root}", file=sys.stderr)
    return info


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+", help="results directories")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    for d in args.dirs:
        rebuild(d, quiet=args.quiet)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Rebuild every table, figure and claims check of a results directory, without training.

    python -m experiments.report RESULTS_DIR [RESULTS_DIR ...] [--test T] [--correction C] [--effect E] [--out DIR]
    python -m experiments.report --index DIR

Reads the directory's ``manifest.json`` for the study and its stored configuration, then
runs it with nothing to compute (:func:`experiments.run` with ``Execution(report_only=True)``):
the study's report on the stored unit records of that configuration. The report's statistics
(``--test``, ``--correction``, ``--effect``) are those the manifest stored unless given here;
given, they are stored for the next report (no unit is recomputed: they are not configuration).

Given one run per dataset of a study that has a cross-dataset report (Bruch's ``quality`` and
``robustness``: a Web30K and a Yahoo profile), it also writes that report
(:mod:`experiments.across`): the paper's Table 1 or Figure 3 with both datasets side by side
and the claims only two runs can check ("more pronounced on Yahoo / on Web30K"), under
``--out`` (default ``<first run's parent>/<study>-across-datasets``).

Every report writes its run's page, ``index.html`` (:mod:`ltrrepro.page`: the verdicts first,
the tables and figures inline, self-contained). ``--index DIR`` writes ``DIR/index.html``, a
gallery of every run under ``DIR`` (its study, dataset, trials, verdict counts and a thumbnail,
linking to the run's page), after rebuilding the runs given beside it, if any.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from experiments import across, registry
from experiments.cli import ArgumentParser, cli, statistics_flags
from experiments.errors import UsageError
from experiments.execution import Execution
from ltrrepro.page import write_gallery
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
    ap.add_argument("dirs", nargs="*", help="results directories")
    ap.add_argument("--index", default=None, metavar="DIR",
                    help="write DIR/index.html, a gallery of every run under DIR linking to each run's page")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--debug", action="store_true", help="show tracebacks of user errors")
    ap.add_argument("--out", default=None, help="where the cross-dataset report goes (given runs of one study on "
                                                "two datasets; default <first run's parent>/<study>-across-datasets)")
    statistics_flags(ap)
    args = ap.parse_args(argv)
    if not args.dirs and not args.index:
        raise UsageError("give the results directories to rebuild, or --index DIR for a gallery of the runs under DIR")
    if args.index and not Path(args.index).is_dir():
        raise UsageError(f"--index {args.index}: no such directory")
    execution = Execution(test=args.test, correction=args.correction, effect=args.effect)  # bad values: one line first
    cross = across.applies(args.dirs)
    if args.out and not cross:
        raise UsageError(f"--out names where a cross-dataset report goes: give one run per dataset of "
                         f"{' or '.join(across.studies())} (e.g. a synthetic-web30k and a synthetic-yahoo run)")
    for d in args.dirs:
        rebuild(d, quiet=args.quiet, test=args.test, correction=args.correction, effect=args.effect)
    if cross:
        stored = ResultStore.open(args.dirs[0]).read_manifest().get("statistics")
        across.write(args.dirs, args.out, quiet=args.quiet, inference=execution.inference(stored))
    if args.index:
        path = write_gallery(args.index)
        if not args.quiet:
            print(f"gallery written: {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What every experiment module shares: command line, dataset preparation, running, reporting.

Each experiment module defines ``build_units(args, cfg)``, a unit function
``(unit, ctx) -> (record, arrays)`` and ``report(store) -> dict``, and calls
:func:`main` with them. The same command run twice resumes; ``--force`` recomputes.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ltrrepro.datasets import DatasetNotFoundError, load_dataset
from ltrrepro.runner import materialize, run_units
from ltrrepro.store import ResultStore
from ltrrepro.train import PRESETS, preset

REAL_DATASETS = ("web30k", "web10k", "yahoo", "istella", "mq2007", "mq2008")
PAPER_PRESET = {"web30k": "bruch-web30k", "web10k": "bruch-web30k", "yahoo": "bruch-yahoo",
                "istella": "bruch-web30k", "mq2007": "bruch-web30k", "mq2008": "bruch-web30k"}


def parser(description: str, *, synthetic_trials: int, real_trials: int, synthetic_queries: int,
           levels: str | None = None, library: bool = True) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", default="synthetic-web30k",
                    help="web30k, web10k, yahoo, istella, mq2007, mq2008, synthetic-web30k, synthetic-yahoo")
    ap.add_argument("--data-dir", default=None, help="folder with the dataset (or $LTRREPRO_DATA_DIR)")
    ap.add_argument("--queries", type=int, default=synthetic_queries,
                    help=f"synthetic data: number of queries (default {synthetic_queries})")
    ap.add_argument("--trials", type=int, default=None,
                    help=f"randomized splits (default {real_trials} on real data, as the paper; "
                         f"{synthetic_trials} on synthetic data)")
    if levels is not None:
        ap.add_argument("--levels", default=levels, help=f"comma-separated levels (default {levels})")
    if library:
        ap.add_argument("--library", choices=("lightgbm", "xgboost"), default="lightgbm")
    ap.add_argument("--preset", default=None, choices=sorted(PRESETS),
                    help="hyperparameters (default: the paper's for real data, 'fast' for synthetic data)")
    ap.add_argument("--max-trees", type=int, default=None, help="override the preset's maximum number of trees")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None, help="results directory (default runs/EXPERIMENT-DATASET)")
    ap.add_argument("--jobs", type=int, default=None, help="parallel jobs (default: cores / threads)")
    ap.add_argument("--threads", type=int, default=None, help="threads per job (default: cores / jobs)")
    ap.add_argument("--backend", choices=("loky", "dask"), default="loky")
    ap.add_argument("--scheduler", default=None, help="dask.distributed scheduler address (with --backend dask)")
    ap.add_argument("--force", action="store_true", help="recompute units already stored")
    ap.add_argument("--quiet", action="store_true", help="no progress bar and no per-unit log lines")
    ap.add_argument("--no-report", action="store_true", help="run the units only")
    ap.set_defaults(_synthetic_trials=synthetic_trials, _real_trials=real_trials)
    return ap


def is_synthetic(name: str) -> bool:
    return name.startswith("synthetic")


def resolve(args, experiment: str) -> dict:
    """Load the dataset once, store it for the workers, and settle every default."""
    synthetic = is_synthetic(args.dataset)
    if args.trials is None:
        args.trials = args._synthetic_trials if synthetic else args._real_trials
    if args.trials < 1:
        raise SystemExit("--trials must be >= 1")
    name = args.preset or ("fast" if synthetic else PAPER_PRESET.get(args.dataset, "bruch-web30k"))
    params = preset(name, max_trees=args.max_trees)
    paper_preset = PAPER_PRESET.get(args.dataset.replace("synthetic-", ""))
    deviations = []
    if synthetic:
        deviations.append(f"synthetic data ({args.dataset}, {args.queries} queries), not the real dataset")
    if name != paper_preset:
        deviations.append(f"hyperparameters '{name}' {PRESETS[name]}, not the paper's '{paper_preset}' "
                          f"{PRESETS.get(paper_preset)}")
    if args.max_trees is not None:
        deviations.append(f"at most {args.max_trees} trees")
    t0 = time.perf_counter()
    try:
        ds = load_dataset(args.dataset, data_dir=args.data_dir, n_queries=args.queries if synthetic else None,
                          seed=args.seed)
    except DatasetNotFoundError as err:
        raise SystemExit(f"error: {err}") from None
    ref = materialize(ds)
    out = Path(args.out or f"runs/{experiment}-{args.dataset}")
    return {"dataset": args.dataset, "n_queries": ds.n_queries, "n_docs": ds.n_docs, "n_features": ds.n_features,
            "data_hash": Path(ref.path).name, "seed": args.seed, "preset": name, "params": params,
            "library": getattr(args, "library", "lightgbm"), "deviations": deviations,
            "_ref": ref, "_out": out, "_load_s": time.perf_counter() - t0}


def main(experiment: str, args, cfg: dict, units, unit_fn, report_fn, ctx_extra: dict | None = None) -> int:
    """Run (or resume) the units, then write the report; returns the exit code."""
    config = {k: v for k, v in cfg.items() if not k.startswith("_")}
    store = ResultStore(cfg["_out"], config)
    store.start(experiment, extra={"trials": args.trials, "jobs": args.jobs, "threads": args.threads,
                                   "backend": args.backend})
    ref = cfg["_ref"]
    ctx = {"data": {"path": ref.path, "name": ref.name}, "library": cfg["library"], "params": cfg["params"],
           **(ctx_extra or {})}
    if not args.quiet:
        print(f"{experiment}: {cfg['dataset']} ({cfg['n_queries']} queries, {cfg['n_docs']} documents), "
              f"{args.trials} trial(s), {len(units)} unit(s), preset '{cfg['preset']}', results in {store.root}",
              file=sys.stderr)
        for d in cfg["deviations"]:
            print(f"  deviation from the paper: {d}", file=sys.stderr)
    t0 = time.perf_counter()
    summary = run_units(units, unit_fn, ctx, store, jobs=args.jobs, threads=args.threads, backend=args.backend,
                        scheduler=args.scheduler, force=args.force, quiet=args.quiet)
    wall = time.perf_counter() - t0
    status = "ok" if summary.ok else "failed"
    if not args.no_report and summary.n_done + summary.n_skipped > 0:
        info = report_fn(store)
        if not args.quiet and info.get("text"):
            print(info["text"])
    store.finish(status, extra={"wall_s": wall, "n_units": summary.n_units, "n_skipped": summary.n_skipped,
                                "n_done": summary.n_done, "failed": summary.failed})
    if not args.quiet:
        print(f"{experiment}: {summary.n_done} unit(s) run, {summary.n_skipped} resumed, "
              f"{len(summary.failed)} failed; {wall:.1f} s; results in {store.root}", file=sys.stderr)
    return summary.exit_code


def _number(x: str):
    v = float(x)
    return int(v) if v.is_integer() else v


def parse_levels(text: str, cast=_number) -> list:
    """``"0,20,2.5"`` -> ``[0, 20, 2.5]`` (integral values as ints, so unit keys read ``level=20``)."""
    try:
        return [cast(x) for x in str(text).split(",") if x.strip() != ""]
    except ValueError:
        raise SystemExit(f"--levels must be comma-separated numbers, got {text!r}") from None

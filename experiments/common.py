"""What every experiment module shares: command line, dataset preparation, running, reporting.

Each experiment module defines ``build_units(args, cfg)``, a unit function
``(unit, ctx) -> (record, arrays)`` and ``report(store) -> dict``, and calls
:func:`main` with them. The same command run twice resumes; ``--force`` recomputes.

**User errors** (a bad option, a missing or malformed data file, an unusable ``--out`` or
scheduler) are one line ``error: …`` on stderr and exit code 2, checked before any data is
loaded where they can be; ``--debug`` shows the traceback instead. Entry points are wrapped
by :func:`cli`.
"""
from __future__ import annotations

import argparse
import functools
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ltrrepro.data import QueryOrderError
from ltrrepro.datasets import REGISTRY, DatasetNotFoundError, load_dataset
from ltrrepro.svmlight import SVMLightFormatError
from ltrrepro.runner import materialize, run_units
from ltrrepro.store import ResultStore, StoreError
from ltrrepro.train import PRESETS, preset

DATASETS = (*REGISTRY, "synthetic-web30k", "synthetic-yahoo")


class UsageError(Exception):
    """A user error: reported as one ``error: …`` line with exit code 2."""


#: what a user can cause and fix: reported as one line, never a traceback (unless --debug)
USER_ERRORS = (UsageError, SVMLightFormatError, DatasetNotFoundError, QueryOrderError, StoreError, MemoryError,
               FileNotFoundError, NotADirectoryError, IsADirectoryError, PermissionError)


def cli(main):
    """Wrap an entry point ``main(argv) -> int``: a user error is printed as ``error: …`` and
    returns 2; ``--debug`` in argv re-raises it with its traceback."""
    @functools.wraps(main)
    def wrapper(argv=None) -> int:
        argv = list(sys.argv[1:] if argv is None else argv)
        _terminate_as_interrupt()
        try:
            return main(argv)
        except USER_ERRORS as err:
            if "--debug" in argv:
                raise
            print(f"error: {err}", file=sys.stderr)
            return 2
        except KeyboardInterrupt as err:
            if "--debug" in argv:
                raise
            print(f"interrupted ({err or 'Ctrl-C'}): finished units are kept; the same command resumes",
                  file=sys.stderr)
            return 130
    return wrapper


def _terminate_as_interrupt() -> None:
    """SIGTERM (a cluster's job killer, ``kill``) unwinds like Ctrl-C: the manifest ends
    ``interrupted`` and the worker processes are shut down with the run."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return

    def handler(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
        signal.signal(signal.SIGTERM, handler)


class ArgumentParser(argparse.ArgumentParser):
    """argparse with one-line errors: ``error: …`` and exit code 2."""

    def error(self, message):
        self.exit(2, f"error: {message} (see --help)\n")


def positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return v


def common_flags(ap: argparse.ArgumentParser, out_default: str | None = None) -> None:
    """The flags every experiment honours: execution, output, randomness."""
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=out_default, help="results directory (default runs/EXPERIMENT-DATASET)")
    ap.add_argument("--jobs", type=positive_int, default=None, help="parallel jobs (default: cores / threads)")
    ap.add_argument("--threads", type=positive_int, default=None, help="threads per job (default: cores / jobs)")
    ap.add_argument("--backend", choices=("loky", "dask"), default="loky")
    ap.add_argument("--scheduler", default=None, help="dask.distributed scheduler address (with --backend dask)")
    ap.add_argument("--scheduler-timeout", type=positive_int, default=30,
                    help="seconds to wait for the dask scheduler to answer (default 30)")
    ap.add_argument("--force", action="store_true", help="recompute units already stored")
    ap.add_argument("--quiet", action="store_true", help="no progress bar and no per-unit log lines")
    ap.add_argument("--no-report", action="store_true", help="run the units only")
    ap.add_argument("--debug", action="store_true", help="show tracebacks of user errors")


def check_outputs(out: Path) -> Path:
    """``out`` is (or can be made) a writable directory; checked before any data is loaded."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file, not a directory: choose another path")
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".write-test-"):
            pass
    except OSError as err:
        raise UsageError(f"--out {out} is not writable ({err.strerror or err}): choose another path") from None
    return out


def check_execution(args) -> None:
    """--backend/--scheduler agree, and the scheduler answers within --scheduler-timeout."""
    if args.backend != "dask":
        if args.scheduler:
            raise UsageError("--scheduler is only used with --backend dask")
        return
    if not args.scheduler:
        raise UsageError("--backend dask needs --scheduler ADDRESS (a running dask.distributed scheduler)")
    import importlib.util
    if importlib.util.find_spec("distributed") is None:
        raise UsageError("--backend dask needs dask.distributed: pip install 'ltrrepro[dask]'")
    # probed in a child process: a scheduler that accepts the connection but never answers
    # makes dask's Client wait forever whatever its timeout; the child is killed at the bound
    probe = ("import sys; from dask.distributed import Client; "
             "Client(sys.argv[1], timeout=sys.argv[2] + 's').close()")
    try:
        res = subprocess.run([sys.executable, "-c", probe, args.scheduler, str(args.scheduler_timeout)],
                             capture_output=True, text=True, timeout=args.scheduler_timeout + 15)
        why = (res.stderr.strip().splitlines() or ["?"])[-1] if res.returncode else ""
    except subprocess.TimeoutExpired:
        why = "no answer"
    if why:
        raise UsageError(f"--scheduler {args.scheduler} did not answer within {args.scheduler_timeout} s "
                         f"({why}); start it, or check the address")

PAPER_PRESET = {"web30k": "bruch-web30k", "web10k": "bruch-web30k", "yahoo": "bruch-yahoo",
                "istella": "bruch-web30k", "mq2007": "bruch-web30k", "mq2008": "bruch-web30k"}


def parser(description: str, *, synthetic_trials: int, real_trials: int, synthetic_queries: int,
           levels: str | None = None, library: bool = True) -> argparse.ArgumentParser:
    ap = ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", default="synthetic-web30k", choices=DATASETS, metavar="NAME",
                    help=", ".join(DATASETS))
    ap.add_argument("--data-dir", default=None, help="folder with the dataset (or $LTRREPRO_DATA_DIR)")
    ap.add_argument("--queries", type=positive_int, default=synthetic_queries,
                    help=f"synthetic data: number of queries (default {synthetic_queries})")
    ap.add_argument("--trials", type=positive_int, default=None,
                    help=f"randomized splits (default {real_trials} on real data, as the paper; "
                         f"{synthetic_trials} on synthetic data)")
    if levels is not None:
        ap.add_argument("--levels", default=levels, help=f"comma-separated levels (default {levels})")
    if library:
        ap.add_argument("--library", choices=("lightgbm", "xgboost"), default="lightgbm")
    ap.add_argument("--preset", default=None, choices=sorted(PRESETS),
                    help="hyperparameters (default: the paper's for real data, 'fast' for synthetic data)")
    ap.add_argument("--max-trees", type=positive_int, default=None,
                    help="override the preset's maximum number of trees")
    common_flags(ap)
    ap.set_defaults(_synthetic_trials=synthetic_trials, _real_trials=real_trials)
    return ap


def is_synthetic(name: str) -> bool:
    return name.startswith("synthetic")


def resolve(args, experiment: str) -> dict:
    """Load the dataset once, store it for the workers, and settle every default."""
    synthetic = is_synthetic(args.dataset)
    if args.trials is None:
        args.trials = args._synthetic_trials if synthetic else args._real_trials
    if synthetic and args.queries < 10:
        raise UsageError(f"--queries {args.queries}: a 60/20/20 split needs at least 10 queries")
    out = check_outputs(Path(args.out or f"runs/{experiment}-{args.dataset}"))
    check_execution(args)
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
    ds = load_dataset(args.dataset, data_dir=args.data_dir, n_queries=args.queries if synthetic else None,
                      seed=args.seed)
    ref = materialize(ds, fallback_dir=out / ".cache")
    return {"dataset": args.dataset, "n_queries": ds.n_queries, "n_docs": ds.n_docs, "n_features": ds.n_features,
            "data_hash": Path(ref.path).name, "seed": args.seed, "preset": name, "params": params,
            "library": getattr(args, "library", "lightgbm"), "deviations": deviations,
            "_ref": ref, "_out": out, "_load_s": time.perf_counter() - t0}


def main(experiment: str, args, cfg: dict, units, unit_fn, report_fn, ctx_extra: dict | None = None) -> int:
    """Run (or resume) the units, then write the report; returns the exit code."""
    config = {k: v for k, v in cfg.items() if not k.startswith("_")}
    store = ResultStore(cfg["_out"], config)
    ref = cfg["_ref"]
    ctx = {"data": {"path": ref.path, "name": ref.name}, "library": cfg["library"], "params": cfg["params"],
           **(ctx_extra or {})}
    header = [f"{experiment}: {cfg['dataset']} ({cfg['n_queries']} queries, {cfg['n_docs']} documents), "
              f"{args.trials} trial(s), {len(units)} unit(s), preset '{cfg['preset']}', results in {store.root}",
              *(f"  deviation from the paper: {d}" for d in cfg["deviations"])]
    return run_and_report(experiment, args, store, units, unit_fn, report_fn, ctx, header,
                          extra={"trials": args.trials})


def run_and_report(experiment: str, args, store: ResultStore, units, unit_fn, report_fn, ctx: dict,
                   header=(), extra: dict | None = None) -> int:
    """Lock ``store`` for this process, run (or resume) the units, report on exactly these
    units, and close the manifest as ``ok``, ``failed``, ``interrupted`` or ``error`` on every
    path. The first failing unit's message is printed; the rest are in ``failures/``."""
    with store.lock():
        store.start(experiment, extra={"jobs": args.jobs, "threads": args.threads, "backend": args.backend,
                                       **(extra or {})})
        if not args.quiet:
            for line in header:
                print(line, file=sys.stderr)
        store.select([u.key for u in units])
        t0 = time.perf_counter()
        try:
            summary = run_units(units, unit_fn, ctx, store, jobs=args.jobs, threads=args.threads,
                                backend=args.backend, scheduler=args.scheduler, force=args.force, quiet=args.quiet,
                                scheduler_timeout=getattr(args, "scheduler_timeout", 30))
            wall = time.perf_counter() - t0
            if not args.no_report and summary.n_done + summary.n_skipped > 0:
                info = report_fn(store)
                if not args.quiet and info.get("text"):
                    print(info["text"])
        except KeyboardInterrupt:
            store.finish("interrupted", extra={"wall_s": time.perf_counter() - t0})
            raise
        except BaseException as err:
            store.finish("error", extra={"wall_s": time.perf_counter() - t0, "error": f"{type(err).__name__}: {err}"})
            raise
        store.finish("ok" if summary.ok else "failed",
                     extra={"wall_s": wall, "n_units": summary.n_units, "n_skipped": summary.n_skipped,
                            "n_done": summary.n_done, "failed": summary.failed})
    if summary.failed:
        first = store.failure(summary.failed[0])
        print(f"error: {len(summary.failed)} unit(s) failed; the first, {summary.failed[0]}: "
              f"{first.get('error', '?')} (tracebacks in {store.failures_dir})", file=sys.stderr)
    if not args.quiet:
        print(f"{experiment}: {summary.n_done} unit(s) run, {summary.n_skipped} resumed, "
              f"{len(summary.failed)} failed; {wall:.1f} s; results in {store.root}", file=sys.stderr)
    return summary.exit_code


def _number(x: str):
    v = float(x)
    return int(v) if v.is_integer() else v


def parse_names(text: str, known, flag: str, what: str = "model") -> list[str]:
    """``"a,b"`` -> ``["a", "b"]``: each a known name, at least one, none twice."""
    names = [n.strip() for n in str(text).split(",") if n.strip()]
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise UsageError(f"{flag}: unknown {what}(s) {unknown or text!r}; known: {', '.join(known)}")
    if len(set(names)) != len(names):
        raise UsageError(f"{flag} repeats a {what}: {text!r}")
    return names


def parse_levels(text: str, cast=_number, flag: str = "--levels") -> list:
    """``"0,20,2.5"`` -> ``[0, 20, 2.5]`` (integral values as ints, so unit keys read ``level=20``);
    empty lists and repeated values are errors."""
    try:
        out = [cast(x) for x in str(text).split(",") if x.strip() != ""]
    except ValueError:
        raise UsageError(f"{flag} must be comma-separated numbers, got {text!r}") from None
    if not out:
        raise UsageError(f"{flag} is empty")
    if len(set(out)) != len(out):
        raise UsageError(f"{flag} repeats a value: {text!r}")
    return out

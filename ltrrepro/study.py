"""Run a paper's protocol from Python (a notebook, a script): the experiments' own code path.

    >>> from ltrrepro import study
    >>> res = study.run("robustness", dataset="synthetic-web30k", queries=200, trials=3,
    ...                 models=["lambdamart", "xendcg", "mylosses:Focal(gamma=2)"],
    ...                 levels=[0, 50], out="runs/focal")                          # doctest: +SKIP
    >>> res.tables["robustness"], res.claims, res.figures                         # doctest: +SKIP

Keyword arguments are the command's flags (``data_dir`` for ``--data-dir``; lists are
joined with commas; ``True`` for a bare flag such as ``force``); they go through the very
parser, checks, resumable store and reports that ``python -m experiments.<name>`` uses, so
a call and a command with the same arguments write the same results, and a second call
resumes. A user error raises (:class:`experiments.cli.UsageError` and the other
``USER_ERRORS``) instead of printing a line. The result holds every table as a DataFrame,
the claims and deviations, the figure paths and the manifest.
"""
from __future__ import annotations

import importlib
import json
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ltrrepro.store import StoreError

__all__ = ["run", "load", "StudyResult", "EXPERIMENTS"]

#: experiment name -> the module whose ``main(argv)`` runs it
EXPERIMENTS = {
    "quality": "experiments.bruch2021.quality",
    "convergence": "experiments.bruch2021.convergence",
    "robustness": "experiments.bruch2021.robustness",
    "clicks": "experiments.bruch2021.clicks",
    "jensen_gap": "experiments.bruch2021.jensen_gap",
    "qbrank": "experiments.zheng2007.cli",
    "split_principles": "experiments.xia.cli",
}


@dataclass
class StudyResult:
    """What a run wrote, read back: ``tables`` (name -> DataFrame of ``tables/NAME.csv``),
    ``claims`` and ``deviations`` (``claims.json``), ``figures`` (PNG paths), the
    ``manifest``, and the command's ``exit_code`` (1 when some units failed)."""

    out: Path
    exit_code: int = 0
    tables: dict = field(default_factory=dict)
    claims: list = field(default_factory=list)
    deviations: list = field(default_factory=list)
    figures: list = field(default_factory=list)
    manifest: dict = field(default_factory=dict)

    @property
    def failed(self) -> list:
        return list(self.manifest.get("failed") or [])


def _argv(params: dict) -> list[str]:
    argv = []
    for key, value in params.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            argv.append(flag)
        elif isinstance(value, (list, tuple)):
            argv += [flag, ",".join(str(v) for v in value)]
        else:
            argv += [flag, str(value)]
    return argv


def run(experiment: str, out, **params) -> StudyResult:
    """Run (or resume) ``experiment`` into ``out`` with the command's flags as keywords. A
    flag the command does not take, or a value it refuses (``trials=0``), raises
    :class:`experiments.cli.UsageError` — as a user error of the command does — never
    ``SystemExit``."""
    if experiment not in EXPERIMENTS:
        raise ValueError(f"unknown experiment {experiment!r}; known: {', '.join(EXPERIMENTS)}")
    main = importlib.import_module(EXPERIMENTS[experiment]).main
    main = getattr(main, "__wrapped__", main)        # errors raise, as Python callers expect
    params.setdefault("quiet", True)
    with _parser_errors_raise(experiment):
        code = main(_argv({**params, "out": str(out)}))
    return load(out, exit_code=code)


@contextmanager
def _parser_errors_raise(experiment: str):
    """The command's parser reports a bad flag by exiting (``SystemExit(2)``, after printing
    ``error: …``); inside :func:`run` it raises :class:`~experiments.cli.UsageError` instead,
    naming the keyword as the caller wrote it."""
    from experiments.cli import PARSER_ERRORS_RAISE

    def rename(message):
        message = re.sub(r"--([\w-]+)", lambda m: f"{m.group(1).replace('-', '_')} ({m.group(0)})", message)
        return f"study.run({experiment!r}): {message}"

    token = PARSER_ERRORS_RAISE.set(rename)
    try:
        yield
    finally:
        PARSER_ERRORS_RAISE.reset(token)


def _damaged(path: Path, err: Exception, fix: str):
    return StoreError(f"{path}: damaged ({type(err).__name__}: {err}); {fix}")


def load(out, exit_code: int = 0) -> StudyResult:
    """The results of a run directory (as :func:`run` returns them), without running anything:
    the tables and figures of its last report (those ``report.json`` lists), its claims and
    manifest. A path that is not a results directory raises ``FileNotFoundError``; a damaged
    file raises :class:`ltrrepro.store.StoreError` naming it and what rebuilds it."""
    import pandas as pd

    from ltrrepro.report import OUTPUT_DIRS, read_report_index

    out = Path(out)
    if not out.is_dir():
        raise FileNotFoundError(f"{out}: no such results directory" if not out.exists() else
                                f"{out}: not a directory (a results directory holds manifest.json)")
    manifest = out / "manifest.json"
    if not manifest.is_file():
        raise FileNotFoundError(f"{manifest}: not found; is {out} a results directory written by an ltrrepro "
                                f"experiment (python -m experiments.<name> --out {out})?")
    rebuild = f"re-run `python -m experiments.report {out}` (or the experiment's command) to rebuild it"
    res = StudyResult(out=out, exit_code=exit_code)
    try:
        res.manifest = json.loads(manifest.read_text(encoding="utf-8"))
        if not isinstance(res.manifest, dict):
            raise ValueError("not a JSON object")
    except (ValueError, UnicodeDecodeError) as err:
        raise _damaged(manifest, err, "re-running the experiment's command rebuilds it (finished units are "
                                      "kept)") from None
    try:
        listed = read_report_index(out)
    except ValueError as err:
        raise StoreError(f"{err}; {rebuild}") from None
    if listed is None:           # no record of the last report (written before it was kept): what is there
        listed = [p.relative_to(out).as_posix() for d in OUTPUT_DIRS for p in sorted((out / d).glob("*"))]
    for name in sorted(listed):
        path = out / name
        if name.startswith("tables/") and path.suffix == ".csv":
            if not path.is_file():
                raise FileNotFoundError(f"{path}: listed in {out / 'report.json'} but missing; {rebuild}")
            try:
                res.tables[path.stem] = pd.read_csv(path)
            except pd.errors.EmptyDataError:
                res.tables[path.stem] = pd.DataFrame()       # a table without columns
            except (ValueError, UnicodeDecodeError) as err:
                raise _damaged(path, err, rebuild) from None
        elif name.startswith("figures/") and path.suffix == ".png":
            if not path.is_file():
                raise FileNotFoundError(f"{path}: listed in {out / 'report.json'} but missing; {rebuild}")
            res.figures.append(path)
    claims = out / "claims.json"
    if claims.exists():
        try:
            got = json.loads(claims.read_text(encoding="utf-8"))
            if not isinstance(got, dict):
                raise ValueError("not a JSON object")
        except (ValueError, UnicodeDecodeError) as err:
            raise _damaged(claims, err, rebuild) from None
        res.claims, res.deviations = got.get("claims", []), got.get("deviations", [])
    return res

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
from dataclasses import dataclass, field
from pathlib import Path

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
    """Run (or resume) ``experiment`` into ``out`` with the command's flags as keywords."""
    if experiment not in EXPERIMENTS:
        raise ValueError(f"unknown experiment {experiment!r}; known: {', '.join(EXPERIMENTS)}")
    main = importlib.import_module(EXPERIMENTS[experiment]).main
    main = getattr(main, "__wrapped__", main)        # errors raise, as Python callers expect
    params.setdefault("quiet", True)
    code = main(_argv({**params, "out": str(out)}))
    return load(out, exit_code=code)


def load(out, exit_code: int = 0) -> StudyResult:
    """The results of a run directory (as :func:`run` returns them), without running anything."""
    import pandas as pd

    out = Path(out)
    res = StudyResult(out=out, exit_code=exit_code)
    for csv in sorted((out / "tables").glob("*.csv")):
        res.tables[csv.stem] = pd.read_csv(csv)
    if (out / "claims.json").exists():
        got = json.loads((out / "claims.json").read_text())
        res.claims, res.deviations = got.get("claims", []), got.get("deviations", [])
    res.figures = sorted((out / "figures").glob("*.png"))
    if (out / "manifest.json").exists():
        res.manifest = json.loads((out / "manifest.json").read_text())
    return res

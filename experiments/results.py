"""What a run wrote, read back: :class:`StudyResult` and :func:`load` (the Python API's result)."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from ltrrepro.store import StoreError

__all__ = ["StudyResult", "load"]


@dataclass
class StudyResult:
    """What a run wrote, read back: ``tables`` (name -> DataFrame of ``tables/NAME.csv``),
    ``claims`` and the protocol notes ``as_paper``, ``choices``, ``deviations`` (``claims.json``), ``figures`` (PNG paths), the
    ``manifest``, the command's ``exit_code`` (1 when some units failed), and the
    ``estimate`` lines of an ``--estimate`` run."""

    out: Path
    exit_code: int = 0
    tables: dict = field(default_factory=dict)
    claims: list = field(default_factory=list)
    deviations: list = field(default_factory=list)
    choices: list = field(default_factory=list)
    as_paper: list = field(default_factory=list)
    figures: list = field(default_factory=list)
    manifest: dict = field(default_factory=dict)
    estimate: list = field(default_factory=list)          # the lines of an --estimate run
    report: object = None                                 # what the study's report returned (report-only runs)

    @property
    def failed(self) -> list:
        return list(self.manifest.get("failed") or [])


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
        res.choices, res.as_paper = got.get("choices", []), got.get("as_paper", [])
    return res

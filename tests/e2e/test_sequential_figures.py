"""``--trials auto`` run to its end for every study that takes ``--trials``, then its report
rebuilt by ``python -m experiments.report OUT`` (issue 48): both exit 0 and every figure the
report lists is written, by the run and again by the rebuild. Every ``--trials auto`` run of a
study with figures once crashed at its final report (``save_figure`` measured the tight box
through a canvas that a figure made without pyplot lacks), and so did its rebuild, while no test
ran a sequential run of a study with figures to its end.

The studies come from the registry; each runs at tiny sizes through the flags it takes
(:data:`NARROW` only trims the models of the costly ones, for time: a new study runs with the
common tiny flags and is checked too). Measured: 45 s wall, 28 s of CPU (one core, host loaded)."""
from __future__ import annotations

import json
import shutil

import pytest

from experiments import registry
from experiments.__main__ import main
from experiments.report import main as report_main

pytestmark = pytest.mark.slow

#: the studies that take --trials (hence --trials auto)
SEQUENTIAL = [name for name, exp in registry.experiments().items() if "trials" in exp.flags]
#: fewer models (and sweep arms) for the studies whose default list costs most at tiny sizes; every
#: figure of theirs is still drawn
NARROW = {"qbrank": ["--models", "gbt,qbrank"], "split_principles": ["--models", "lambdamart-se,lambdamart-ole"],
          "debiasing": ["--models", "naive,ips_true", "--sweep-models", "naive"],
          "hessian": ["--paper-rounds", "10"]}


def tiny_args(name: str) -> list[str]:
    """The study's tiny sequential command line, from the flags it takes."""
    exp = registry.get(name)
    args = ["--trials", "auto", "--max-trials", "3", "--looks", "2", "--threads", "1", "--jobs", "1", "--quiet"]
    for flag, value in (("queries", "60"), ("preset", "tiny"), ("rounds", "5"), ("every", "5")):
        if flag in exp.flags:
            args += [f"--{flag}", value]
    if "levels" in exp.flags:                     # two of its default levels
        args += ["--levels", ",".join(f"{v:g}" for v in exp.default().levels[:2])]
    return args + NARROW.get(name, [])


def _figures(out) -> list[str]:
    files = json.loads((out / "report.json").read_text())["files"]
    return [f for f in files if f.startswith("figures/")]


def _run_and_rebuild(name, out, capsys) -> list[str]:
    """Run ``name`` with ``--trials auto`` to its end, then rebuild its report with its figures
    removed: the figures the report lists, written both times (an assertion error otherwise)."""
    assert main([name, *tiny_args(name), "--out", str(out)]) == 0, capsys.readouterr().err[-3000:]
    assert "stopped at look" in capsys.readouterr().err
    man = json.loads((out / "manifest.json").read_text())
    assert man["status"] == "ok" and man["sequential"]["sizes"] and not man["failed"], man["status"]
    figures = _figures(out)
    for f in figures:
        assert (out / f).stat().st_size > 0, f
    if figures:
        shutil.rmtree(out / "figures")            # the rebuild draws them again
    assert report_main([str(out), "--quiet"]) == 0, capsys.readouterr().err[-3000:]
    assert _figures(out) == figures
    for f in figures:
        assert (out / f).stat().st_size > 0, f
    return figures


def test_a_sequential_run_reports_to_its_end_and_its_report_rebuilds(tmp_path, capsys):
    """Every study that takes --trials, in turn (a failure of one does not hide the others'); the
    studies that draw figures are among them (else the test would check tables only)."""
    failed, drew = {}, {}
    for name in SEQUENTIAL:
        try:
            figures = _run_and_rebuild(name, tmp_path / name, capsys)
        except Exception as err:                  # noqa: BLE001 - an assertion, or the crash itself (in-process)
            failed[name] = f"{type(err).__name__}: {str(err)[-300:]}"
            continue
        if figures:
            drew[name] = figures
    assert not failed, failed
    assert len(drew) >= 2, drew

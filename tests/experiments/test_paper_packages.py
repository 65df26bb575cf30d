"""Every paper package built the same way (issue 26, item 3): paper.py, protocol.py, a report of
pure functions of (frame, configuration); every study's report callable; a paper number in one home."""
from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pandas as pd
import pytest

from ltrrepro.inference import Inference
from ltrrepro.report import Report

ROOT = Path(__file__).resolve().parents[2]


# ----------------------------------------------------------------------------- every paper the same shape
PAPERS = {"bruch2021": ["experiments.bruch2021.report_table1", "experiments.bruch2021.report_figure1",
                        "experiments.bruch2021.report_figure2", "experiments.bruch2021.report_noise"],
          "zheng2007": ["experiments.zheng2007.report"], "xia": ["experiments.xia.report"]}
STUDIES = ["quality", "convergence", "robustness", "clicks", "jensen_gap", "qbrank", "split_principles"]


@pytest.mark.parametrize("paper", sorted(PAPERS))
def test_every_paper_package_has_paper_protocol_and_a_report_of_pure_functions(paper):
    pkg = ROOT / "experiments" / paper
    assert (pkg / "paper.py").is_file() and (pkg / "protocol.py").is_file()
    # paper.py holds the paper's numbers: it imports nothing of the harness
    tree = ast.parse((pkg / "paper.py").read_text(encoding="utf-8"))
    imported = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)] + \
        [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert not [m for m in imported if m.startswith(("experiments", "ltrrepro"))], imported
    for name in PAPERS[paper]:
        build = importlib.import_module(name).build
        params = list(inspect.signature(build).parameters)
        assert params[:2] == ["df", "cfg"] and "store" not in params, (name, params)
        assert "inference" in params, (name, params)         # the report's statistics: passed, never ambient
        assert inspect.signature(build).return_annotation in (Report, "Report")


@pytest.mark.parametrize("name", STUDIES)
def test_every_study_has_its_report_callable(name):
    from experiments import registry

    fn = registry.get(name).report
    assert list(inspect.signature(fn).parameters) == ["store", "inference"]


def test_a_paper_number_has_one_home():
    """Table 1 of Bruch and of Zheng are defined in their paper.py only."""
    for path in (ROOT / "experiments").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if "PAPER_TABLE1 = {" in text:
            assert path.name == "paper.py", path


def test_no_experiments_file_over_300_lines_and_no_library_import_of_experiments():
    long = [p for p in (ROOT / "experiments").rglob("*.py") if len(p.read_text(encoding="utf-8").splitlines()) > 300]
    assert not long, long
    for path in (ROOT / "ltrrepro").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        mods = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)] + \
            [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        assert not [m for m in mods if m.split(".")[0] == "experiments"], path


def test_a_report_is_a_function_of_frame_and_config():
    """Bruch Table 1 from a hand-made frame and a stored-style configuration, no store."""
    from experiments.bruch2021.protocol import TEST_METRICS, BruchConfig
    from experiments.bruch2021 import report_table1 as table1

    rows = [{"trial": t, "model": m, **{k: 0.4 + 0.01 * i + 0.002 * t * i for k in TEST_METRICS},
             "best_iteration": 10, "train_s": 1.0} for t in range(4) for i, m in enumerate(("listnet", "lambdamart",
                                                                                          "xendcg"))]
    cfg = BruchConfig.from_stored({"experiment": "quality", "dataset": "synthetic-web30k", "preset": "fast"})
    rep = table1.build(pd.DataFrame(rows), cfg, deviations=["d1"], inference=Inference())
    assert [t.name for t in rep.tables] == ["table1", "timings", "table1_tests"] and len(rep.claims) == 6
    assert rep.text.startswith("Bruch Table 1 (synthetic-web30k, lightgbm, preset fast)")
    assert "Deviations from the paper: d1" in rep.text and not rep.files           # nothing written


def test_xia_time_overhead_is_a_table_not_a_claim():
    """OLE's time overhead is a timing of this implementation: the wall-time table gives it beside
    the paper's ratio (≈1.3x LambdaMART, ≈1.0x McRank; none for a plug-in arm) and no claim
    checks it, so the claims do not depend on the machine or --jobs."""
    from experiments.xia import claims as xc
    from experiments.xia.report import time_legend, time_table

    df = pd.DataFrame([{"system": s, "principle": p, "boost_s": t} for s, p, t in
                       [("lambdamart", "se", 1.0), ("lambdamart", "ole", 1.5), ("mcrank", "se", 1.0),
                        ("mcrank", "ole", 2.0), ("plugin_losses.Squared@scale=0.5", "se", 1.0),
                        ("plugin_losses.Squared@scale=0.5", "ole", 1.0)]])
    times, tcol = time_table(df)
    t = times.set_index("system")
    assert tcol == "boost_s" and t.loc["lambdamart", "OLE / SE"] == 1.5 and t.loc["mcrank", "OLE / SE"] == 2.0
    assert t.loc["lambdamart", "paper OLE / SE"] == 1.3 and t.loc["mcrank", "paper OLE / SE"] == 1.0
    assert pd.isna(t.loc["plugin_losses.Squared@scale=0.5", "paper OLE / SE"])
    assert "not of the method" in time_legend(tcol) and "1.3" in time_legend(tcol)
    assert xc.claims(pd.DataFrame(), pd.DataFrame(), pd.DataFrame(), None, 3, inference=Inference()) == []

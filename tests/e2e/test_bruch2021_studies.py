"""End-to-end smoke runs of every Bruch experiment on tiny synthetic data, their outputs,
the report rebuild and the notebook."""
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import execute_notebook, tree_digest
from experiments import clicks, convergence, jensen_gap, quality, robustness
from experiments.report import rebuild

pytestmark = pytest.mark.slow          # end-to-end runs: the inner loop (-m "not slow") leaves them out

ROOT = Path(__file__).resolve().parents[2]
TINY = ["--queries", "60", "--trials", "3", "--preset", "tiny", "--jobs", "1", "--threads", "1", "--quiet"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("bruch")
    old = os.environ.get("LTRREPRO_CACHE")
    os.environ["LTRREPRO_CACHE"] = str(base / "cache")
    try:
        out = {}
        for name, mod, extra in [
            ("robustness", robustness, ["--levels", "0,50,100"]),
            ("quality", quality, []),
            ("convergence", convergence, []),
            ("clicks", clicks, ["--levels", "0.05,0.3", "--impressions", "3"]),
        ]:
            d = base / name
            assert mod.main(TINY + extra + ["--out", str(d)]) == 0
            out[name] = d
        d = base / "jensen_gap"
        assert jensen_gap.main(["--lists", "3", "--draws", "50", "--out", str(d), "--quiet"]) == 0
        out["jensen_gap"] = d
        yield out
    finally:
        if old is None:
            os.environ.pop("LTRREPRO_CACHE", None)
        else:
            os.environ["LTRREPRO_CACHE"] = old


def _png_ok(p: Path):
    data = p.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000, p


@pytest.mark.parametrize("name,tables,figures", [
    ("robustness", ["robustness"], ["fig3_documents", "fig3_labels"]),
    ("quality", ["table1", "table1_tests"], []),
    ("convergence", ["fig2_convergence"], ["fig2_convergence"]),
    ("clicks", ["clicks"], ["fig4_clicks"]),
    ("jensen_gap", ["fig1_jensen_gap"], ["fig1_jensen_gap"]),
])
def test_outputs_parse(runs, name, tables, figures):
    d = runs[name]
    man = json.loads((d / "manifest.json").read_text())
    assert man["experiment"] == name and man["status"] == "ok" and man["finished"]
    for t in tables:
        df = pd.read_csv(d / "tables" / f"{t}.csv")
        assert len(df) > 0
        assert (d / "tables" / f"{t}.md").read_text().count("|") > 10
        assert "\\begin{tabular}" in (d / "tables" / f"{t}.tex").read_text()
    for f in figures:
        _png_ok(d / "figures" / f"{f}.png")
        assert (d / "figures" / f"{f}.pdf").read_bytes()[:4] == b"%PDF"
    claims = json.loads((d / "claims.json").read_text())["claims"]
    kinds = ("supported", "direction only", "not supported", "contradicted", "inconclusive (", "descriptive (")
    assert claims and all(c["verdict"].startswith(kinds) for c in claims)
    assert not any(c["verdict"].startswith("inconclusive (") and "underpowered" not in c["verdict"]
                   and not c["detail"] for c in claims)


def test_robustness_table_matches_stored_units(runs):
    d = runs["robustness"]
    df = pd.read_csv(d / "tables" / "robustness.csv")
    assert sorted(df.level.unique()) == [0, 50, 100] and set(df.noise) == {"documents", "labels"}
    assert (df.trials == 3).all()
    # recompute one cell from the unit records
    recs = [json.loads(p.read_text()) for p in (d / "units").glob("*.json")]
    lam = [r["means"]["ndcg@5[gain=exp2,norel=drop]"] for r in recs
           if r["unit"]["model"] == "lambdamart" and r["unit"]["setting"] == {"noise": "labels", "level": 50}]
    row = df[(df.noise == "labels") & (df.level == 50)].iloc[0]
    assert row["λMART"] == pytest.approx(sum(lam) / len(lam), abs=1e-9)
    claims = json.loads((d / "claims.json").read_text())["claims"]
    assert {c["noise"] for c in claims} == {"documents", "labels"}
    assert any("trial(s), not the paper's 100" in x for x in json.loads((d / "claims.json").read_text())["deviations"])


def test_quality_compares_paper_models_and_baselines(runs):
    df = pd.read_csv(runs["quality"] / "tables" / "table1.csv")
    assert list(df.model) == ["ListNet", "λMART", "XE_NDCG MART", "LightGBM rank_xendcg", "XGBoost rank:ndcg"]
    ndcg5 = df["ndcg@5[gain=exp2,norel=drop]"]          # the CSV keeps the canonical metric names
    assert ((ndcg5 > 0) & (ndcg5 <= 1)).all()
    tests = pd.read_csv(runs["quality"] / "tables" / "table1_tests.csv")
    assert len(tests) == 6 and tests.p_adj.ge(tests.p - 1e-12).all()
    # per-query wins/ties/losses from the stored per-query arrays: every evaluated test query of every trial
    from experiments.analysis import frame, query_wtl
    from ltrrepro.store import ResultStore
    store = ResultStore.open(runs["quality"])
    m = "ndcg@5[gain=exp2,norel=drop]"
    df = frame(store, arrays=(f"test:{m}",))
    w, r = query_wtl(df, m, "xendcg", "lambdamart"), query_wtl(df, m, "lambdamart", "xendcg")
    assert (w["q_wins"], w["q_ties"], w["q_losses"]) == (r["q_losses"], r["q_ties"], r["q_wins"])
    row = tests[(tests.a == "xendcg") & (tests.b == "lambdamart") & (tests.metric == "NDCG@5")].iloc[0]
    assert (row.q_wins, row.q_ties, row.q_losses) == (w["q_wins"], w["q_ties"], w["q_losses"])
    evaluated = sum(int(np.isfinite(store.arrays(rec["key"])[f"test:{m}"]).sum())
                    for rec in store.records() if rec["unit"]["model"] == "xendcg")
    assert sum(w.values()) == evaluated > 0


def test_report_rebuilds_the_same_claims_without_training(runs):
    d = runs["robustness"]
    before = json.loads((d / "claims.json").read_text())
    (d / "claims.json").unlink()
    for p in (d / "figures").glob("*"):
        p.unlink()
    info = rebuild(d, quiet=True)
    assert json.loads((d / "claims.json").read_text()) == before
    assert (d / "figures" / "fig3_labels.png").exists() and d / "claims.json" in info.files


def test_rerun_resumes_without_training(runs, capsys):
    d = runs["convergence"]
    assert convergence.main(TINY + ["--out", str(d)]) == 0
    man = json.loads((d / "manifest.json").read_text())
    assert man["n_done"] == 0 and man["n_skipped"] == man["n_units"] == 6


def test_missing_real_dataset_is_a_clear_error(tmp_path, capsys):
    code = robustness.main(["--dataset", "web30k", "--data-dir", str(tmp_path), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: ") and "Traceback" not in err
    assert "Fold1/train.txt" in err and "microsoft.com" in err


def test_clicks_position_based_option(tmp_path):
    d = tmp_path / "c"
    assert clicks.main(TINY + ["--click-model", "pbm", "--levels", "0.1", "--trials", "1", "--impressions", "2",
                               "--out", str(d)]) == 0
    recs = [json.loads(p.read_text()) for p in (d / "units").glob("*.json")]
    assert len(recs) == 2 and all(r["transform"]["train_impressions"] > 0 for r in recs)
    assert any("position-based" in x for x in json.loads((d / "claims.json").read_text())["deviations"])


def test_xgboost_library(tmp_path):
    d = tmp_path / "q"
    assert quality.main(TINY + ["--library", "xgboost", "--models", "lambdamart,xendcg", "--trials", "2",
                                "--out", str(d)]) == 0
    recs = [json.loads(p.read_text()) for p in (d / "units").glob("*.json")]
    assert {r["library"] for r in recs} == {"xgboost"} and len(recs) == 4


def test_notebook_executes_on_small_results(runs):
    before = tree_digest(runs["robustness"].parent)
    text = execute_notebook("bruch2021.ipynb", runs["robustness"].parent)
    assert "verdict" in text and "λMART degrades faster" in text       # the claims table
    assert "ltrrepro gradient" in text                                   # the live XE_NDCG cell
    assert tree_digest(runs["robustness"].parent) == before             # the notebook wrote nothing


def test_report_choices_change_the_claims_and_recompute_nothing(runs, tmp_path):
    """--effect / --correction / --test on a stored run: the claims follow, the manifest keeps
    them for the next report, and a resumed run with other choices computes no unit (#27)."""
    import shutil

    from experiments.report import main as report_main

    d = tmp_path / "rob"
    shutil.copytree(runs["robustness"], d)
    units = sorted(p.name for p in (d / "units").rglob("*") if p.is_file())
    assert report_main([str(d), "--quiet", "--effect", "ndcg=0.02", "--correction", "none"]) == 0
    claims = json.loads((d / "claims.json").read_text())["claims"]
    slope = next(c for c in claims if c["claim"].startswith("λMART degrades faster") and c["noise"] == "labels")
    assert slope["effect"] == pytest.approx(0.02 / 100) and "--effect" in slope["effect_source"]
    assert "p_raw" not in slope                                           # no correction
    man = json.loads((d / "manifest.json").read_text())
    assert man["statistics"] == {"test": "t", "correction": "none", "effects": {"ndcg": 0.02}, "alpha": 0.01}
    assert report_main([str(d), "--quiet"]) == 0                           # reused unless given again
    assert json.loads((d / "manifest.json").read_text())["statistics"]["effects"] == {"ndcg": 0.02}
    assert robustness.main(TINY + ["--levels", "0,50,100", "--out", str(d), "--test", "wilcoxon"]) == 0
    assert json.loads((d / "manifest.json").read_text())["n_done"] == 0           # every unit resumed
    assert sorted(p.name for p in (d / "units").rglob("*") if p.is_file()) == units
    man = json.loads((d / "manifest.json").read_text())
    assert man["statistics"]["test"] == "wilcoxon" and man["statistics"]["effects"] == {"ndcg": 0.02}

"""The Hessian study end to end, small: the default command's shape on 60 synthetic queries, a
sequential run (``--trials auto``), and the report rebuilt from the stored run to the same tables."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import experiments
from experiments.hessian import main
from ltrrepro.fit.hessian import HESSIAN_SYSTEMS

ROOT = Path(__file__).resolve().parents[3]
SMALL = {"trials": 2, "queries": 60, "preset": "tiny", "lr_grid": (1e-4, 1e-1), "sweep_samples": (10, 200),
         "paper_rounds": 20}


@pytest.mark.slow
def test_the_default_command_small_runs_and_its_report_rebuilds(tmp_path):
    out = tmp_path / "hessian"
    res = experiments.run("hessian", out=out, **SMALL)
    assert res.exit_code == 0
    main_table = res.tables["hessian"]
    assert len(main_table) == len(HESSIAN_SYSTEMS) and main_table.trials.eq(2).all()
    assert len(res.tables["learning_rate"]) == 4 and res.tables["samples"].N.tolist() == [10, 200]
    assert {Path(f).stem for f in res.figures} == {"learning_rate", "samples"}
    texts = [c["claim"] for c in res.claims]
    assert any(t.startswith("PL-Rank with the sampled Hessian beats") for t in texts)
    assert any(t.startswith("The Neumann series of order 2") for t in texts)
    assert sum("beats Hessian 1" in t for t in texts) == 4
    paper = res.tables["paper_settings"]                  # the paper's column: Kang et al.'s settings, 20 rounds
    assert len(paper) == 3 and paper.settings.str.contains("20 rounds").sum() == 2
    assert sum(t.startswith("at Kang et al.'s settings") for t in texts) == 2
    before = {p.name: p.read_bytes() for p in (out / "tables").glob("*.csv")}
    done = subprocess.run([sys.executable, "-m", "experiments.report", str(out)], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert {p.name: p.read_bytes() for p in (out / "tables").glob("*.csv")} == before
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["experiment"] == "hessian"


@pytest.mark.slow
def test_trials_auto_runs_in_looks(tmp_path):
    out = tmp_path / "auto"
    code = main(["--trials", "auto", "--max-trials", "4", "--looks", "2", "--queries", "40", "--preset", "tiny",
                 "--models", "plrank_sampled,plrank_constant,xendcg_o2,xendcg_exact,lambdamart_library",
                 "--lr-grid", "0.1", "--sweep-samples", "200", "--paper-rounds", "10", "--out", str(out), "--quiet"])
    assert code == 0
    claims = json.loads((out / "claims.json").read_text())["claims"]
    assert claims and (out / "tables" / "hessian.csv").exists()


@pytest.mark.slow
def test_tune_searches_every_arm_with_its_own_learning_rate_range(tmp_path):
    out = tmp_path / "tuned"
    res = experiments.run("hessian", out=out, trials=2, queries=40, preset="tiny", tune=2,
                          models=("plrank_sampled", "plrank_constant"), lr_grid=(0.1,), sweep_samples=(200,),
                          paper_rounds=10)
    assert res.exit_code == 0
    spaces = json.loads((out / "manifest.json").read_text())["tuning"]
    lows = {k.split("@")[0]: v["space"]["learning_rate"] for k, v in spaces.items()}
    assert lows == {"plrank_sampled": "log-uniform [0.001, 0.3]", "plrank_constant": "log-uniform [1e-05, 1]",
                    "kang_plrank_sampled": "log-uniform [0.001, 0.01]", "kang_plrank_constant": "log-uniform [0.001, 0.01]"}
    assert spaces["kang_plrank_sampled@0"]["space"]["max_depth"] == "integers [3, 8]"   # the authors' space
    assert len(res.tables["tuning"]) == 4 and any("tuned with the same budget of 2" in c for c in res.choices)


@pytest.mark.slow
def test_a_letor_directory_runs_with_its_papers_column(tmp_path):
    """``--dataset svmlight --data-dir DIR`` on a LETOR-layout folder (real MQ2008 queries,
    tests/data/mq2008: vali.txt as training, test.txt), the paper's column included."""
    data = tmp_path / "letor"
    data.mkdir()
    for src, part in (("vali.txt", "train.txt"), ("vali.txt", "vali.txt"), ("test.txt", "test.txt")):
        (data / part).write_bytes((ROOT / "tests" / "data" / "mq2008" / src).read_bytes())
    out = tmp_path / "letor-run"
    assert main(["--dataset", "svmlight", "--data-dir", str(data), "--trials", "2", "--preset", "tiny",
                 "--models", "plrank_sampled,plrank_constant,lambdamart_library", "--lr-grid", "0.1",
                 "--sweep-samples", "200", "--paper-rounds", "5", "--out", str(out), "--quiet"]) == 0
    table = (out / "tables" / "paper_settings.csv").read_text()
    assert "Kang et al.'s settings" in table and "5 rounds" in table
    assert json.loads((out / "manifest.json").read_text())["config"]["dataset"] == "svmlight"


@pytest.mark.slow
def test_yahoos_official_parts_are_the_default_on_the_real_dataset(tmp_path):
    """``--dataset yahoo --data-dir DIR``: Set 1's official train/validation/test files, as the
    authors (``--split official`` by default on a registered dataset), every unit testing on
    exactly the test file's queries; the notes say it; ``--split random`` pools them instead."""
    from ltrrepro.svmlight import write_svmlight
    from ltrrepro.synthetic import make_synthetic
    ds = make_synthetic("yahoo", n_queries=48, seed=5)
    data = tmp_path / "yahoo"
    data.mkdir()
    for name, (lo, hi) in {"set1.train.txt": (0, 30), "set1.valid.txt": (30, 39), "set1.test.txt": (39, 48)}.items():
        write_svmlight(ds.subset(range(lo, hi)), data / name)
    test_qids = ds.subset(range(39, 48)).query_ids
    out = tmp_path / "official"
    common = ["--dataset", "yahoo", "--data-dir", str(data), "--trials", "2", "--preset", "tiny",
              "--models", "plrank_sampled,plrank_constant", "--lr-grid", "0.1", "--sweep-samples", "200",
              "--paper-rounds", "3", "--quiet"]
    assert main([*common, "--out", str(out)]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["split"] == "official"
    from ltrrepro.store import ResultStore
    store = ResultStore(out)
    for rec in store.records():
        if rec.get("kind") != "tuning":
            assert sorted(store.arrays(rec["key"])["test:qid"].tolist()) == sorted(test_qids.tolist())
    assert "official training, validation and test parts" in (out / "notes.md").read_text()
    rnd = tmp_path / "random"
    assert main([*common, "--split", "random", "--out", str(rnd)]) == 0
    assert "random 60/20/20 query splits" in (rnd / "notes.md").read_text()

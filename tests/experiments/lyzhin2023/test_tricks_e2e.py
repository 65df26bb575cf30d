"""The tricks study end to end (python -m experiments.tricks): the default command, small, writes
every table and claim and its report rebuilds to the same tables (python -m experiments.report OUT);
--trials auto runs its looks; a user's svmlight directory runs to the end; CatBoost's systems are
skipped with one line where it is not installed; the configuration refuses unknown names."""
import json
from pathlib import Path

import pytest

from experiments import tricks
from experiments.errors import UsageError
from experiments.lyzhin2023.protocol import TricksConfig
from experiments.report import main as report_main
from ltrrepro.fit import BACKENDS
from ltrrepro.svmlight import write_svmlight
from ltrrepro.synthetic import make_synthetic

SMALL = ["--queries", "60", "--rounds", "8", "--threads", "1", "--jobs", "1", "--quiet"]
TABLES = ("main", "systems", "ablations", "gap")


@pytest.mark.slow
def test_the_default_command_small_and_its_report_rebuild(tmp_path):
    out = tmp_path / "run"
    assert tricks.main([*SMALL, "--trials", "2", "--out", str(out)]) == 0
    shown = {t: (out / "tables" / f"{t}.md").read_text() for t in TABLES}
    claims = json.loads((out / "claims.json").read_text())["claims"]
    texts = " | ".join(c["claim"] for c in claims)
    for part in ("YetiLoss outperforms LambdaMART", "YetiLoss outperforms StochasticRank", "stochastic treatment",
                 "train–test gap"):
        assert part in texts, part
    assert all(c["verdict"] and "power" in c for c in claims)
    assert "noise-No" in shown["ablations"] and "leaf-wise" in shown["gap"]
    assert report_main([str(out), "--quiet"]) == 0
    assert {t: (out / "tables" / f"{t}.md").read_text() for t in TABLES} == shown


@pytest.mark.slow
def test_trials_auto_small(tmp_path):
    out = tmp_path / "auto"
    assert tricks.main([*SMALL, "--families", "lgb_lambdarank,yetiloss", "--targets", "ndcg", "--ablations",
                        "noise-No", "--trials", "auto", "--max-trials", "4", "--looks", "2", "--out", str(out)]) == 0
    man = json.loads((out / "manifest.json").read_text())
    assert man["sequential"]["sizes"] == [2, 4]
    assert (out / "tables" / "main.md").exists()


@pytest.mark.slow
def test_a_users_svmlight_directory(tmp_path):
    data = tmp_path / "mydata"
    data.mkdir()
    for part, seed in (("train", 1), ("vali", 2), ("test", 3)):
        write_svmlight(make_synthetic("web30k", n_queries=20, seed=seed), data / f"{part}.txt")
    out = tmp_path / "svm"
    assert tricks.main(["--dataset", "svmlight", "--data-dir", str(data), *SMALL[2:], "--trials", "1", "--families",
                        "lgb_lambdarank,xgb_rank_map,yetiloss", "--targets", "ndcg,map", "--ablations", "",
                        "--out", str(out)]) == 0
    assert "AP@10" in (out / "tables" / "main.md").read_text()


def test_catboost_missing_skips_its_systems_with_one_line(monkeypatch):
    monkeypatch.setattr(type(BACKENDS["catboost"]), "missing", lambda self: "CatBoost is not installed (test)")
    cfg = TricksConfig(experiment="tricks", queries=40, trials=2)
    assert all(not m.startswith(("catboost_",)) for m in cfg.models) and cfg.models
    assert any("CatBoost is not installed" in line for line in cfg.choices())


@pytest.mark.parametrize("field,value", [("families", ("nope",)), ("targets", ("p@5",)), ("ablations", ("x",)),
                                         ("grow_policy", "Depthwise")])
def test_unknown_names_are_refused(field, value):
    with pytest.raises(UsageError):
        TricksConfig(experiment="tricks", queries=40, trials=2, **{field: value})


@pytest.mark.slow
def test_tune_small_reports_both_and_the_tuning_table(tmp_path):
    out = tmp_path / "tuned"
    assert tricks.main([*SMALL, "--families", "lgb_lambdarank,yetiloss", "--targets", "ndcg", "--ablations",
                        "noise-No", "--trials", "2", "--tune", "2", "--out", str(out)]) == 0
    for t in ("main", "main_tuned", "ablations_tuned", "tuning"):
        assert (out / "tables" / f"{t}.md").exists(), t
    claims = json.loads((out / "claims.json").read_text())["claims"]
    assert any(c["claim"].endswith("— tuned") for c in claims) and any("— tuned" not in c["claim"] for c in claims)
    tuning = (out / "tables" / "tuning.md").read_text()
    assert "LightGBM lambdarank" in tuning and "YetiLoss" in tuning
    # two tables: the fixed one at each library's defaults (--hp's default), the tuned one from the preset
    main, tuned = ((out / "tables" / f"{t}.md").read_text().splitlines()[0] for t in ("main", "main_tuned"))
    assert main.endswith("— at each library's defaults**") and "tuned" not in main, main
    assert tuned.endswith("— every system tuned (--tune 2)**") and "defaults" not in tuned, tuned
    params = {(r["unit"]["model"], "hp" in r["unit"]["setting"]): r["params"]
              for r in map(json.loads, map(Path.read_text, (out / "units").glob("*.json"))) if "params" in r}
    fixed, searched = params[("lgb_lambdarank", False)], params[("lgb_lambdarank", True)]
    assert (fixed["max_bin"], fixed["min_sum_hessian_in_leaf"], fixed["lambdarank_norm"]) == (255, 1e-3, True)
    assert (searched["max_bin"], searched["min_sum_hessian_in_leaf"], searched["lambdarank_norm"]) == (63, 0.0, False)
    notes = (out / "notes.md").read_text()
    assert "at its defaults as read from" in notes and "the searches start from the preset 'fast'" in notes

"""CatBoost as the third library: its parameters from one Boosting, model selection on the
harness's own validation NDCG@5, seeds and threads, the one-line refusals, and a Table 1 run
with its rows and paired tests (small: seconds)."""
import json
import sys

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("catboost")

from experiments import convergence, quality, robustness                                      # noqa: E402
from ltrrepro import make_synthetic, write_svmlight                               # noqa: E402
from ltrrepro.data import RankingDataset                                          # noqa: E402
from ltrrepro.fit import BACKENDS, SYSTEMS, Boosting, preset                      # noqa: E402
from ltrrepro.fit.ranking import SELECT_METRIC                                    # noqa: E402
from ltrrepro.metrics import evaluate                                             # noqa: E402

CATBOOST = ("catboost_yetirank", "catboost_lambdamart", "catboost_querysoftmax", "catboost_pairlogit")
TINY = ["--queries", "40", "--trials", "2", "--preset", "tiny", "--jobs", "1", "--threads", "1", "--quiet"]


def _parts(n=48, seed=1):
    ds = make_synthetic("web30k", n_queries=n, seed=seed)
    k = n // 4
    return ds.subset(np.arange(2 * k)), ds.subset(np.arange(2 * k, 3 * k)), ds.subset(np.arange(3 * k, n))


def _fit(name, train, valid, boosting, seed=1, threads=1):
    t = SYSTEMS[name].trainer(boosting, seed=np.random.SeedSequence(seed), threads=threads)
    t.add_train(train)
    t.add_valid(valid)
    return t, t.fit()


def _curve(fitted, valid):
    """The harness's validation NDCG@5 of the model cut after each of its trees."""
    return np.array([next(iter(evaluate(fitted.scores(valid.X, k), valid.y, valid.offsets, [SELECT_METRIC]).values())).mean
                     for k in range(1, fitted.n_rounds + 1)])


def test_one_boosting_maps_onto_catboosts_vocabulary():
    b = Boosting(learning_rate=0.05, num_leaves=9, min_data_in_leaf=7, max_bin=32, sigmoid=2.0, lambdarank_norm=True)
    cb = BACKENDS["catboost"]
    p = cb.params("YetiRank", b, threads=3, seed=5, own_metric=True)
    assert (p["grow_policy"], p["max_leaves"], p["min_data_in_leaf"], p["border_count"]) == ("Lossguide", 9, 7, 31)
    assert (p["learning_rate"], p["thread_count"], p["random_seed"], p["l2_leaf_reg"]) == (0.05, 3, 5, 0.0)
    assert (p["bootstrap_type"], p["random_strength"], p["use_best_model"]) == ("No", 0.0, False)
    assert cb.params("LambdaMart", b, threads=1, seed=0)["loss_function"] == "LambdaMart:sigma=2;norm=true"
    assert SYSTEMS["catboost_yetirank"].libraries == ("catboost",)           # pinned: any --library runs it
    assert SYSTEMS["lambdamart"].resolve_library("catboost") == "catboost"   # λMART as CatBoost's LambdaMart
    with pytest.raises(ValueError, match="no custom ranking objective"):
        cb.adapter(SYSTEMS["xendcg"].options.objective())
    with pytest.raises(ValueError, match="runs in lightgbm, xgboost, not 'catboost'"):
        SYSTEMS["xendcg"].trainer(b, library="catboost", seed=np.random.SeedSequence(0))


@pytest.mark.parametrize("name", CATBOOST)
def test_the_chosen_iteration_is_the_harness_metrics_first_argmax(name):
    """The recorded curve is the harness's validation NDCG@5 of the model's own predictions,
    the kept iteration its first maximum, and training stops ``patience`` trees after it."""
    train, valid, _ = _parts()
    b = preset("tiny", rounds=40, early_stopping=4, learning_rate=0.3)
    t, f = _fit(name, train, valid, b)
    curve = _curve(f, valid)
    np.testing.assert_allclose(f.valid_curve, curve, rtol=0, atol=1e-12)
    assert f.best_iteration == int(np.argmax(curve)) + 1
    assert f.n_rounds == 40 or f.n_rounds == f.best_iteration + 4
    assert f.params["thread_count"] == 1 and f.params["random_seed"] == t.lib_seed


def test_equal_sized_parts_are_told_apart_by_call_order():
    """Training and validation parts of the same size: CatBoost's metric calls alternate
    (training first); the curve is still the validation part's."""
    train, _, _ = _parts()
    rng = np.random.default_rng(0)
    valid = RankingDataset(train.X[::-1].copy(), rng.permutation(train.y), train.qid, train.offsets)
    _, f = _fit("catboost_querysoftmax", train, valid, preset("tiny", rounds=8, early_stopping=None))
    np.testing.assert_allclose(f.valid_curve, _curve(f, valid), rtol=0, atol=1e-12)


def test_seeded_and_repeatable():
    train, valid, test = _parts()
    b = preset("tiny", rounds=6, early_stopping=None)
    one, two = (_fit("catboost_yetirank", train, valid, b, seed=3)[1].scores(test.X) for _ in range(2))
    other = _fit("catboost_yetirank", train, valid, b, seed=4)[1].scores(test.X)
    np.testing.assert_array_equal(one, two)
    assert not np.array_equal(one, other)          # YetiRank's permutations come from the seed


def test_custom_objective_with_library_catboost_is_one_line(tmp_path, capsys):
    assert quality.main(TINY + ["--library", "catboost", "--models", "lambdamart,xendcg", "--out",
                                str(tmp_path / "q")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: --library catboost: xendcg is a custom objective")
    assert not (tmp_path / "q" / "units").exists()


def test_catboost_missing_is_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "catboost", None)          # `import catboost` raises ImportError
    assert quality.main(TINY + ["--models", "lambdamart,catboost_yetirank", "--out", str(tmp_path / "q")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: --models catboost_yetirank: CatBoost is not installed")
    assert "pip install 'ltrrepro[catboost]'" in err[0]


def _table1(out):
    table = pd.read_csv(out / "tables" / "table1.csv")
    tests = pd.read_csv(out / "tables" / "table1_tests.csv")
    return table, tests


@pytest.mark.slow
def test_table1_has_the_catboost_rows_and_their_paired_tests(tmp_path):
    out = tmp_path / "q"
    assert quality.main(TINY + ["--models", "lambdamart,xendcg,catboost_yetirank", "--out", str(out)]) == 0
    table, tests = _table1(out)
    assert "CatBoost YetiRank" in set(table.model)
    pairs = set(zip(tests.a, tests.b))
    assert ("catboost_yetirank", "lambdamart") in pairs and ("xendcg", "catboost_yetirank") in pairs
    recs = [json.loads(p.read_text()) for p in (out / "units").glob("*catboost_yetirank.json")]
    assert len(recs) == 2 and {r["library"] for r in recs} == {"catboost"}
    assert all(r["params"]["grow_policy"] == "Lossguide" and r["params"]["thread_count"] == 1 for r in recs)
    claims = json.loads((out / "claims.json").read_text())
    assert any("CatBoost" in c for c in claims["choices"])


@pytest.mark.slow
def test_table1_with_catboost_on_a_user_file(tmp_path):
    """The same on a file in LightGBM's layout (no qid:, the query sizes in FILE.query)."""
    ds = make_synthetic("web30k", n_queries=40, seed=2)
    write_svmlight(ds, tmp_path / "tmp.txt", comment_docid=False)
    path = tmp_path / "rank.train"
    path.write_text("".join(" ".join(t for t in line.split() if not t.startswith("qid:")) + "\n"
                            for line in (tmp_path / "tmp.txt").read_text().splitlines()))
    (tmp_path / "rank.train.query").write_text("\n".join(map(str, ds.query_sizes)) + "\n")
    (tmp_path / "tmp.txt").unlink()
    out = tmp_path / "q"
    assert quality.main(["--dataset", str(path), *TINY[2:], "--rounds", "8", "--models", "lambdamart,catboost_lambdamart",
                         "--out", str(out)]) == 0
    table, tests = _table1(out)
    assert "CatBoost LambdaMart" in set(table.model)
    assert ("catboost_lambdamart", "lambdamart") in set(zip(tests.a, tests.b))


@pytest.mark.slow
def test_convergence_takes_catboost_models(tmp_path):
    out = tmp_path / "c"
    assert convergence.main(TINY + ["--trials", "1", "--rounds", "6", "--models", "lambdamart,xendcg,catboost_yetirank",
                                    "--out", str(out)]) == 0
    recs = [json.loads(p.read_text()) for p in (out / "units").glob("*catboost_yetirank.json")]
    assert len(recs) == 1 and len(recs[0]["valid_curve"]) == 6          # every round: no early stopping
    assert "catboost_yetirank" in (out / "tables" / "fig2_convergence.csv").read_text()


@pytest.mark.slow
def test_robustness_compares_xendcg_with_a_catboost_model(tmp_path):
    out = tmp_path / "r"
    assert robustness.main(TINY + ["--trials", "2", "--rounds", "4", "--noise", "labels", "--levels", "0,50",
                                   "--models", "lambdamart,xendcg,catboost_querysoftmax", "--out", str(out)]) == 0
    assert (out / "tables" / "robustness_catboost_querysoftmax.csv").exists()
    claims = json.loads((out / "claims.json").read_text())
    assert any("CatBoost QuerySoftMax degrades faster than XE_NDCG" in json.dumps(c) for c in claims["claims"])

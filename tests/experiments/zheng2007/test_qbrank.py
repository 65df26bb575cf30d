"""Zheng et al. experiment: data design, pair construction, RankSVM pairs, end-to-end smoke run."""
import json
from itertools import combinations

import numpy as np
import pandas as pd
import pytest

from conftest import execute_notebook, tree_digest
from experiments import qbrank
from experiments.zheng2007 import protocol as zp
from ltrrepro import migrations
from ltrrepro.fit import zheng as zfit
from ltrrepro import make_synthetic
from ltrrepro.data import RankingDataset


def _toy():
    # q0: grades 2,0,1,0 ; q1: all 1 (single grade) ; q2: 3,3,0
    y = np.array([2, 0, 1, 0, 1, 1, 3, 3, 0])
    qid = np.array([0, 0, 0, 0, 1, 1, 2, 2, 2])
    X = np.arange(y.size * 2, dtype=np.float32).reshape(-1, 2)
    return RankingDataset(X=X, y=y, qid=qid)


def test_preference_pairs_exclude_ties_and_orient_by_grade():
    ds = _toy()
    pairs = zfit.preference_pairs(ds)
    expected = []
    for q in range(ds.n_queries):
        a, b = ds.offsets[q], ds.offsets[q + 1]
        for i, j in combinations(range(a, b), 2):
            if ds.y[i] != ds.y[j]:
                expected.append((i, j) if ds.y[i] > ds.y[j] else (j, i))
    assert sorted(map(tuple, pairs.tolist())) == sorted(expected)
    assert len(expected) == 5 + 2                     # q0: 6 pairs minus the tie (0,0); q2: 2
    assert np.all(ds.y[pairs[:, 0]] > ds.y[pairs[:, 1]])
    assert zfit.n_pairs(ds) == len(expected)


def test_preference_pairs_match_brute_force_on_random_data(rng):
    ds = make_synthetic("yahoo", n_queries=30, seed=2)
    pairs = zfit.preference_pairs(ds)
    assert pairs.shape[0] == zfit.n_pairs(ds)
    assert np.all(ds.y[pairs[:, 0]] > ds.y[pairs[:, 1]])
    q = np.searchsorted(ds.offsets, pairs[:, 0], side="right") - 1
    assert np.all(pairs[:, 1] >= ds.offsets[q]) and np.all(pairs[:, 1] < ds.offsets[q + 1])
    assert len({tuple(p) for p in pairs.tolist()}) == pairs.shape[0]


def test_zheng_split_design():
    ds = make_synthetic("yahoo", n_queries=400, seed=1)
    parts = zp.zheng_split(ds, seed=0, trial=0)
    single = zp.single_grade(ds)
    assert set(parts["L1"]) == set(np.flatnonzero(single)) and parts["L1"].size > 0
    allq = np.concatenate([parts[k] for k in ("L1", "L2", "V", "L3")])
    assert np.unique(allq).size == allq.size == ds.n_queries        # a partition of the queries
    rest = ds.n_queries - parts["L1"].size
    assert abs((parts["L2"].size + parts["V"].size) / rest - 1300 / 2700) < 0.01
    again = zp.zheng_split(ds, seed=0, trial=0)
    assert all(np.array_equal(parts[k], again[k]) for k in parts)
    other = zp.zheng_split(ds, seed=0, trial=1)
    assert not np.array_equal(parts["L3"], other["L3"])


def test_ranksvm_equals_liblinear_primal_l2_svm(rng):
    import sklearn.svm as svm
    D = rng.normal(size=(400, 6)) + np.array([0.3, -0.2, 0, 0, 0.1, 0])
    for C in (0.01, 1.0):
        w = zfit.ranksvm_fit(D, C)
        ref = svm.LinearSVC(C=C, loss="squared_hinge", dual=False, fit_intercept=False, tol=1e-10,
                            max_iter=10000).fit(np.r_[D, -D], np.r_[np.ones(400), -np.ones(400)]).coef_.ravel()
        # liblinear's labels ±1 on (d, −d) doubles the data term: same minimizer as C/2 on d only
        w2 = zfit.ranksvm_fit(D, 2 * C)
        np.testing.assert_allclose(w2, ref, atol=1e-5)
        m = np.maximum(0, 1 - D @ w)
        np.testing.assert_allclose(w - 2 * C * D.T @ m, 0, atol=1e-6)     # stationary point


@pytest.mark.slow
def test_qbrank_experiment_smoke(tmp_path):
    out = tmp_path / "z"
    argv = ["--queries", "150", "--trials", "2", "--rounds", "10", "--every", "5", "--gbt-grid", "0.1:10",
            "--max-pairs", "3000",
            "--jobs", "1", "--threads", "1", "--quiet", "--out", str(out)]
    assert qbrank.main(argv) == 0
    t = pd.read_csv(out / "tables" / "table1_precision.csv")
    assert list(t["K%"]) == list(range(10, 101, 10))
    assert t["QBRank(P2)"].between(0.5, 1).all() and t["paper QBRank"].iloc[0] == 0.9446
    recs = [json.loads(p.read_text()) for p in (out / "units").glob("*.json")]
    runs = {zp.run_name(r["unit"]["model"], r["unit"]["setting"]["train"]) for r in recs}
    assert runs == set(zp.RUNS) and len(recs) == 12
    qb = [r for r in recs if r["unit"]["model"] == "qbrank"]
    assert all(r["info"]["line_search_steps"]["min"] >= 0 for r in qb)
    assert all(len(r["test_curve_dcg5"]) == 2 for r in qb)              # every 5 of 10 rounds
    sizes = recs[0]["info"]["sizes"]
    assert sizes["L1_queries"] > 0 and sizes["P2_pairs"] > 0 and sizes["P3_pairs"] > 0
    claims = json.loads((out / "claims.json").read_text())["claims"]
    assert any("adding L1 helps QBRank" in c["claim"] for c in claims)
    png = (out / "figures" / "fig1_dcg_iterations.png").read_bytes()
    assert png[:4] == b"\x89PNG" and len(png) > 5000
    # the notebook rebuilds everything from these results
    before = tree_digest(out)
    assert "adding L1 helps" in execute_notebook("zheng2007.ipynb", out)
    assert tree_digest(out) == before


@pytest.mark.slow
def test_qbrank_experiment_xgboost_library(tmp_path):
    out = tmp_path / "x"
    argv = ["--queries", "200", "--trials", "1", "--rounds", "10", "--every", "5", "--gbt-grid", "0.1:10",
            "--max-pairs", "2000", "--library", "xgboost", "--models", "gbt,qbrank", "--jobs", "1", "--threads", "1",
            "--quiet", "--out", str(out)]
    assert qbrank.main(argv) == 0
    recs = [json.loads(p.read_text()) for p in (out / "units").glob("*.json")]
    assert {r["library"] for r in recs} == {"xgboost"} and len(recs) == 5
    assert all(r["means"][zp.DCG5] > 0 for r in recs)
    devs = json.loads((out / "claims.json").read_text())["deviations"]
    assert any("without the per-round line search" in d for d in devs)


def test_default_shares_the_papers_eta_and_leaves_and_old_manifests_load():
    """Every tree run of a trial at one (η, leaves): the paper's 0.05 and 20 by default, not a
    deviation; iterations are the harness's choice; ``qbrank_params`` of old manifests reads
    (through :mod:`ltrrepro.migrations`)."""
    cfg = zp.ZhengConfig(experiment="qbrank", queries=100)
    assert (cfg.shared_params, cfg.eta, cfg.leaves) == ("paper", 0.05, 20)
    for system in ("gbt", "qbrank"):
        b = cfg.boosting(system)
        assert (b.learning_rate, b.num_leaves) == (0.05, 20)
    assert cfg.options("gbt") == {"grid": ((0.05, 20),)} and "tune_grid" not in cfg.options("qbrank")
    assert cfg.boosting("qbrank", (0.1, 10)).num_leaves == 10 and cfg.options("gbt", (0.1, 10))["grid"] == ((0.1, 10),)
    devs, choices = " ".join(cfg.deviations()), " ".join(cfg.choices())
    assert "η" not in devs and "iterations" not in devs
    assert "harness's choice" in choices
    tuned = zp.ZhengConfig(experiment="qbrank", queries=100, shared_params="tuned")
    assert "tuned once per trial" in " ".join(tuned.deviations())
    assert "not the paper's" in " ".join(zp.ZhengConfig(experiment="qbrank", queries=100, eta=0.1).deviations())
    old = {k: v for k, v in cfg.to_dict().items() if k != "shared_params"}
    for was, now in (("gbt-tuned", "tuned"), ("paper", "paper")):       # read through ltrrepro.migrations
        stored = migrations.manifest({"config": {**old, "qbrank_params": was}})["config"]
        assert zp.ZhengConfig.from_dict(stored).shared_params == now
        assert zp.ZhengConfig.from_stored(stored).shared_params == now
    with pytest.raises(Exception, match="shared-params"):
        zp.ZhengConfig(experiment="qbrank", queries=100, shared_params="per-run")


def test_claims_are_the_papers_table1_family_and_figure1_once(rng):
    """Table 1: QBRank > GBT and > RankSVM at every K, one Holm family powered against the
    paper's differences; no GBT > RankSVM; each DCG-5 comparison once, labelled Figure 1's."""
    from experiments.zheng2007 import claims as zr
    from ltrrepro.inference import Inference
    from ltrrepro.inference.tests import holm
    rows = []
    for t in range(6):
        for run, shift in {"gbt_L1": -1, "gbt_L2": 0, "gbt_L1L2": .1, "qbrank_P2": .2, "qbrank_P2L1": .3,
                           "ranksvm_P2": -.5}.items():
            rows.append({"trial": t, "model": run, zp.DCG5: 10 + shift + rng.normal(0, .05),
                         **{f"prec@{k}%": .7 + shift / 10 + rng.normal(0, .002) for k in zp.PERCENTS}})
    df = pd.DataFrame(rows)
    cfg = zp.ZhengConfig(experiment="qbrank", queries=100)
    claims = zr.claims(df, cfg, inference=Inference())
    fam = [c for c in claims if c.family == zr.TABLE1_FAMILY]
    assert len(fam) == 20
    conj = [c for c in claims if "intersection–union" in c.text]          # the paper's claim, each K at α
    assert len(conj) == 3 and all(c.verdict == "supported" and c.p == max(f.p_raw for f in fam
                                                                          if f.text.split(" on ")[0] in c.text
                                                                          or "both" in c.text) for c in conj)
    for k in zp.PERCENTS:
        assert {c.text for c in fam if c.text.endswith(f" {k}%")} == {
            f"Table 1: QBRank(P2) > GBT on precision at {k}%", f"Table 1: QBRank(P2) > RankSVM on precision at {k}%"}
    np.testing.assert_allclose([c.p for c in fam], holm([c.p_raw for c in fam]))     # Holm by default
    assert all(c.er is not None and c.size for c in fam)                               # ER and size: a paper number
    from experiments.zheng2007.paper import PAPER_TABLE1
    paper = PAPER_TABLE1[50]
    at50 = {c.text: c for c in fam if c.text.endswith(" 50%")}
    assert at50["Table 1: QBRank(P2) > RankSVM on precision at 50%"].paper_effect == pytest.approx(paper[0] - paper[2])
    assert all(c.verdict == "supported" for c in fam)
    assert not any("GBT >" in c.text and "RankSVM" in c.text for c in claims)
    fig = [c for c in claims if not c.text.startswith("Table 1:")]
    assert all(c.text.startswith("Figure 1:") for c in fig) and len(fig) == 5
    assert len({c.detail.split(" on ")[0] for c in fig}) == len(fig)          # each comparison once


@pytest.mark.slow
def test_tuned_params_are_shared_by_every_run_of_a_trial(tmp_path):
    out = tmp_path / "t"
    argv = ["--queries", "100", "--trials", "1", "--rounds", "3", "--every", "3", "--models", "gbt,qbrank",
            "--shared-params", "tuned", "--gbt-grid", "0.3:3,0.1:6", "--jobs", "1", "--threads", "1", "--quiet",
            "--out", str(out)]
    assert qbrank.main(argv) == 0
    recs = [json.loads(p.read_text()) for p in (out / "units").glob("*.json")]
    shared = {(r["info"]["shared_params"]["eta"], r["info"]["shared_params"]["leaves"]) for r in recs}
    assert len(recs) == 5 and len(shared) == 1 and shared <= {(0.3, 3), (0.1, 6)}
    gbt = [r for r in recs if r["unit"]["model"] == "gbt"]
    assert {(r["info"]["eta"], r["info"]["leaves"]) for r in gbt} == shared
    legend = (out / "tables" / "table1_precision.md").read_text()
    eta, leaves = shared.pop()
    assert f"at η {eta:g} and {leaves} leaves" in legend
    assert any("tuned once per trial" in d for d in json.loads((out / "claims.json").read_text())["deviations"])

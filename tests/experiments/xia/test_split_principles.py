"""Xia et al. split-principle study: SE inside LightGBM, LambdaMART's loss, end-to-end run (issue 7)."""
from __future__ import annotations

import json
from pathlib import Path

import lightgbm as lgb
import numpy as np
import pandas as pd
import pytest

from conftest import execute_notebook, tree_digest
from experiments import split_principles as sp
from experiments.xia import protocol as xp
from ltrrepro.inference import Inference
from experiments.xia import paper as xp_paper
from experiments.xia import claims as xc
from experiments.xia import claims as xc
from experiments.xia import report as xr
from ltrrepro.fit import NewtonLeafCallback, UnitHessian
from ltrrepro.gbdt import BinMapper, TreeGrower
from ltrrepro.objectives import LambdaMART, LightGBMObjective, McRank, RoundState


class _Recording(UnitHessian):
    """UnitHessian that keeps the scores of every call (what the gradients were taken at)."""

    def __init__(self, objective):
        super().__init__(objective)
        self.calls = []

    def grad_hess(self, scores, labels, offsets, iteration=0, rng=None):
        self.calls.append(np.array(scores, dtype=np.float64, copy=True))
        return super().grad_hess(scores, labels, offsets, iteration=iteration, rng=rng)

ROOT = Path(__file__).resolve().parents[3]


def _lgb_se(X, y, K, rounds, lr, leaves=2, min_data=1):
    wrap = _Recording(McRank(n_classes=K))
    adapter = LightGBMObjective(wrap, track_scores=True)
    cb = NewtonLeafCallback(adapter, X, lr, K)
    state = RoundState.start()                      # the training run's, shared by the objective and the callback
    cb.bind(state)
    params = {"objective": adapter.bind(state), "num_class": K, "num_leaves": leaves, "learning_rate": lr,
              "min_data_in_leaf": min_data, "min_data_in_bin": 1, "min_sum_hessian_in_leaf": 1e-3,
              "num_threads": 1, "verbose": -1, "deterministic": True, "feature_pre_filter": False}
    bst = lgb.train(params, lgb.Dataset(X, y.astype(float)), rounds, callbacks=[cb])
    return bst, wrap, state


def test_se_in_lightgbm_sets_newton_leaves_on_a_hand_built_case():
    """Four documents, x = (0, 0, 1, 1), labels (0, 0, 0, 1), McRank with K = 2 at zero scores:
    p = ½, class-0 gradients p − 1[y = 0] = (−½, −½, −½, +½), Hessians ¼. The SE split is
    x ≤ ½; leaf {d0, d1}: −ΣG/ΣH = 1/½ = 2, leaf {d2, d3}: 0 — not LightGBM's −ΣG/n = ½.
    Class 1 mirrors it. The second round's gradients are taken at these scores."""
    X = np.array([[0.0], [0.0], [1.0], [1.0]])
    y = np.array([0, 0, 0, 1])
    lr = 0.1
    bst, wrap, state = _lgb_se(X, y, K=2, rounds=2, lr=lr)
    raw1 = bst.predict(X, raw_score=True, num_iteration=1)
    assert np.allclose(raw1[:, 0], [2 * lr, 2 * lr, 0, 0])
    assert np.allclose(raw1[:, 1], [-2 * lr, -2 * lr, 0, 0])
    assert np.allclose(wrap.calls[1], raw1)                  # round 2 sees the rescaled scores
    assert np.allclose(state.scores, bst.predict(X, raw_score=True))


def test_se_in_lightgbm_leaves_and_scores_are_the_intended_ones_on_random_data():
    rng = np.random.default_rng(0)
    n, K, lr = 300, 3, 0.2
    X = rng.integers(0, 8, size=(n, 4)).astype(float)
    y = (X[:, 0] > 3).astype(int) + (X[:, 1] > 5) + (rng.random(n) < 0.1)
    y = np.minimum(y, K - 1)
    bst, wrap, state = _lgb_se(X, y, K, rounds=4, lr=lr, leaves=5, min_data=5)
    obj = McRank(n_classes=K)
    for t in range(4):
        prev = bst.predict(X, raw_score=True, num_iteration=t) if t else np.zeros((n, K))
        assert np.allclose(wrap.calls[t], prev)              # gradients at the model's scores
        G, H = obj.grad_hess(prev, y, None)
        leaf = np.asarray(bst.predict(X, pred_leaf=True, start_iteration=t, num_iteration=1))
        step = bst.predict(X, raw_score=True, num_iteration=t + 1) - prev
        for k in range(K):
            for v in np.unique(leaf[:, k]):
                m = leaf[:, k] == v
                assert np.allclose(step[m, k], -lr * G[m, k].sum() / H[m, k].sum())
    # the splits are SE's: LightGBM's first tree (class 0) splits its root where ltrrepro's
    # SE learner does on the same gradients and the same (one value per bin) binning
    bm = BinMapper().fit(X)
    G, H = obj.grad_hess(np.zeros((n, K)), y, None)
    tree, _ = TreeGrower(bm.transform(X), bm.n_bins, bm.thresholds, criterion="se", num_leaves=2,
                         min_data_in_leaf=5).grow(G[:, 0], H[:, 0], None)
    root = bst.dump_model()["tree_info"][0]["tree_structure"]
    assert root["split_feature"] == tree.feature[0]
    assert root["threshold"] == pytest.approx(tree.threshold[0])


def test_lambdamart_loss_has_the_lambdas_as_gradient_at_fixed_ranking():
    rng = np.random.default_rng(1)
    sizes = [7, 5, 9]
    y = rng.integers(0, 4, sum(sizes))
    off = np.r_[0, np.cumsum(sizes)]
    s = rng.normal(size=y.size)
    obj = LambdaMART(exact_sigmoid=True)
    g, _ = obj.grad_hess(s, y, off)
    eps = 1e-6
    fd = np.array([(obj.loss(s + eps * e, y, off) - obj.loss(s - eps * e, y, off)) / (2 * eps)
                   for e in np.eye(y.size)])
    assert np.allclose(fd, g, atol=1e-7)


def test_paper_table_only_for_the_papers_own_datasets():
    # the numbers themselves are checked against docs/protocols/xia.md in tests/docs/test_docs.py
    assert xp_paper.paper_table("yahoo")[0] == "yahoo" and xp_paper.paper_table("web10k")[0] == "web10k"
    for other in ("synthetic-web30k", "synthetic-yahoo", "web30k", "mq2008", "svmlight"):
        assert xp_paper.paper_table(other) == (None, {})


def test_the_papers_count_of_comparisons_is_checked_against_its_tables():
    """The text's 68 and 56 of 72 vs the tables: 6 configurations × 4 metrics × 2 datasets =
    48 per system. McRank Yahoo (10 leaves, lr .06) NDCG@1: 71.76 − 71.32 = +0.44."""
    assert xp_paper.paper_counts("mcrank") == (46, 48) and xp_paper.paper_counts("lambdamart") == (40, 48)
    d = xp_paper.paper_differences("mcrank", "yahoo")
    assert d.size == 24 and d[0] == pytest.approx(0.44)
    assert xp_paper.paper_differences("lambdamart").size == 48


def _mcrank_data(n=600, seed=0):
    from ltrrepro.data import RankingDataset
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 10, size=(n, 5)).astype(np.float32)      # ≤ 10 values: one bin per value in both
    y = np.minimum(4, (X[:, 0] > 4).astype(int) + (X[:, 1] > 6) + (X[:, 2] * X[:, 3] > 30)
                   + (rng.random(n) < 0.3)).astype(np.int32)
    return RankingDataset(X=X, y=y, qid=np.repeat(np.arange(n // 20), 20))


@pytest.mark.parametrize("principle", ["se", "ole"])
def test_mcrank_in_the_learner_equals_the_lightgbm_arm_where_growth_agrees(principle):
    """McRank's arms now run in ltrrepro.gbdt. Where the growth policies agree they grow
    LightGBM's trees: best-first against LightGBM's leaf-wise growth (SE there: Hessian 1 and
    Newton leaves by callback), and width-first with 4 leaves against LightGBM with
    max_depth 2 (complete trees of two levels). Scores agree to LightGBM's float32 histograms."""
    from ltrrepro.fit import SYSTEMS, Boosting
    ds = _mcrank_data()
    for leaves, growth, depth in ((6, "best-first", -1), (4, "width-first", 2)):
        b = Boosting(learning_rate=0.1, num_leaves=leaves, min_data_in_leaf=5, rounds=5)
        ours = SYSTEMS[f"mcrank-{principle}"].trainer(b, seed=np.random.SeedSequence(1), growth=growth)
        ours.add_train(ds)
        ref = SYSTEMS[f"mcrank-{principle}-lgb"].trainer(b, seed=np.random.SeedSequence(1), max_depth=depth)
        ref.add_train(ds)
        fo, fr = ours.fit(), ref.fit()
        assert np.allclose(fo.raw(ds.X, 0, 5), fr.raw(ds.X, 0, 5), atol=1e-6), growth
        assert fo.train_loss == pytest.approx(fr.train_loss, rel=1e-7)
        assert fo.params["growth"] == growth and fo.params["leaf_hessian"] == "diagonal"
    # and width-first differs from best-first on this data: the policy matters
    b = Boosting(learning_rate=0.1, num_leaves=6, min_data_in_leaf=5, rounds=5)
    fits = {}
    for g in ("width-first", "best-first"):
        t = SYSTEMS[f"mcrank-{principle}"].trainer(b, seed=np.random.SeedSequence(1), growth=g)
        t.add_train(ds)
        fits[g] = t.fit().raw(ds.X, 0, 5)
    assert not np.allclose(fits["width-first"], fits["best-first"])


def test_mcrank_leaf_rules_coincide_and_lambdamart_ones_differ():
    """McRank's loss is derivative additive: exact and diagonal leaves are the same; for
    LambdaMART they differ (pairs inside a leaf)."""
    from ltrrepro.fit import SYSTEMS, Boosting
    from ltrrepro.synthetic import make_synthetic
    ds = make_synthetic("web30k", n_queries=30, seed=2)
    b = Boosting(learning_rate=0.1, num_leaves=6, min_data_in_leaf=5, rounds=3)
    for system, same in (("mcrank-ole", True), ("lambdamart-ole", False)):
        out = []
        for rule in ("diagonal", "exact"):
            t = SYSTEMS[system].trainer(b, seed=np.random.SeedSequence(1), leaf_rule=rule)
            t.add_train(ds)
            out.append(t.fit().raw(ds.X, 0, 3))
        assert np.allclose(out[0], out[1]) == same, system
    with pytest.raises(ValueError, match="leaf_rule"):
        t = SYSTEMS["lambdamart-se"].trainer(b, seed=np.random.SeedSequence(1), leaf_rule="newton")
        t.add_train(ds)
        t.fit()


def _claims_frame(ole_minus_se, loss_rel, folds=3, sd=0.001, seed=0):
    """A results frame for one system (lambdamart): per fold and configuration, OLE's metrics
    = SE's + ``ole_minus_se`` + noise of SD ``sd``, OLE's loss = SE's × (1 + loss_rel)."""
    rng = np.random.default_rng(seed)
    rows = []
    for fold in range(folds):
        for leaves in (10, 20):
            for lr in (0.06, 0.1, 0.12):
                base = {m: 0.45 + 0.01 * rng.random() for m in xp.METRICS}
                noise = rng.normal(0, sd)
                rows.append({"fold": fold, "system": "lambdamart", "principle": "se", "leaves": leaves, "lr": lr,
                             **base, "loss": 100.0, "train_s": 1.0})
                rows.append({"fold": fold, "system": "lambdamart", "principle": "ole", "leaves": leaves, "lr": lr,
                             **{m: v + ole_minus_se + noise for m, v in base.items()},
                             "loss": 100.0 * (1 + loss_rel + rng.normal(0, 1e-4)), "train_s": 1.3})
    return pd.DataFrame(rows)


def _xia_claims(df):
    _, _, diffs, losses = xr.tables(df, "web10k", inference=Inference())
    return {"loss" if "loss" in c.text else "most": c
            for c in xc.claims(df, diffs, losses, "web10k", int(df.fold.nunique()), inference=Inference())}


def test_xia_loss_claim_names_the_leaf_rule():
    """The leaf rule decides the loss claim (issue #30): its line names the rule in use."""
    df = _claims_frame(0.005, -0.005, folds=3)
    _, _, diffs, losses = xr.tables(df, "web10k", inference=Inference())
    for rule, words in (("diagonal", "Eq. 8 in every arm"), ("exact", "exact −L′/L″ in every arm"),
                        ("own", "Eq. 8 for SE/RWSE, Eq. 11's exact step for OLE")):
        loss = [c for c in xc.claims(df, diffs, losses, "web10k", 3, rule, inference=Inference()) if "loss" in c.text]
        assert len(loss) == 1 and loss[0].detail.startswith(f"leaf rule {rule} ({words})")


def test_xia_claim_verdicts_on_constructed_results():
    """OLE ahead by 0.5 point with little noise over 5 folds: supported; the loss 0.5% lower:
    within the paper's 0.32–1%, supported; 3% lower: significant but out of the paper's
    magnitude; OLE behind: contradicted; no difference in 2 noisy folds: underpowered."""
    c = _xia_claims(_claims_frame(0.005, -0.005, folds=5))
    most, loss = c["most"], c["loss"]
    assert most.verdict == "supported" and most.value == pytest.approx(0.5, abs=0.05)
    assert most.paper_effect == pytest.approx(xp_paper.paper_differences("lambdamart", "web10k").mean())
    assert most.power > 0.8 and most.trials_80 <= 5
    assert loss.verdict == "supported" and loss.value == pytest.approx(-0.5, abs=0.05)
    c = _xia_claims(_claims_frame(0.005, -0.03, folds=5))
    assert c["loss"].verdict == "lower, by more than the paper's 0.32–1%"
    c = _xia_claims(_claims_frame(-0.005, 0.005, folds=5))
    assert c["most"].verdict == "contradicted"
    assert c["loss"].verdict == "contradicted"
    c = _xia_claims(_claims_frame(0.0, 0.0, folds=2, sd=0.01))
    assert c["most"].verdict == "inconclusive (underpowered)"
    assert c["most"].power < 0.8 and c["most"].trials_80 > 2


def test_checkpoints():
    assert xp.checkpoints(60, 20) == [20, 40, 60] and xp.checkpoints(50, 20) == [20, 40, 50]


@pytest.mark.slow
def test_end_to_end_run_resumes_and_reports(tmp_path, capsys):
    out = tmp_path / "xia"
    argv = ["--queries", "80", "--trials", "2", "--rounds", "4", "--every", "2", "--leaves", "10",
            "--rates", "0.1,0.12", "--out", str(out), "--quiet", "--jobs", "1", "--threads", "1"]
    assert sp.main(argv) == 0
    recs = [json.loads(p.read_text()) for p in (out / "units").glob("*.json")]
    assert len(recs) == 2 * 2 * 5 + 2 * 2                  # + the leaf arm: LambdaMART OLE with exact leaves
    assert sum(r["unit"]["setting"].get("leaf_rule") == "exact" for r in recs) == 2 * 2
    assert {r["unit"]["model"] for r in recs} == {"mcrank-se", "mcrank-ole", "lambdamart-se", "lambdamart-ole",
                                                 "lambdamart-rwse"}
    assert all(r["curve_points"] == [2, 4] and len(r["curves"]["err[gmax=4,norel=drop]"]) == 2 for r in recs)
    assert all(np.isfinite(r["fit"]["train_loss"]) and r["fit"]["train_loss"] > 0 for r in recs)
    t = pd.read_csv(out / "tables" / "table_se_ole.csv")
    assert set(t.system) == {"mcrank", "lambdamart"} and (t.folds == 2).all()
    assert t["NDCG@10 paper SE/OLE"].isna().all()          # synthetic data: no paper table beside it
    assert t["NDCG@1 SE"].between(0, 100).all()
    d = pd.read_csv(out / "tables" / "ole_minus_se.csv")
    assert len(d) == 2 * 2 * 4
    claims = json.loads((out / "claims.json").read_text())["claims"]
    assert any("most comparisons" in c["claim"] for c in claims)
    assert not any("time overhead" in c["claim"] for c in claims)          # a timing: the wall-time table
    w = pd.read_csv(out / "tables" / "wall_time.csv").set_index("system")
    assert w.loc["lambdamart", "paper OLE / SE"] == 1.3 and w.loc["mcrank", "paper OLE / SE"] == 1.0
    lv = pd.read_csv(out / "tables" / "leaves_per_tree.csv")
    assert set(lv.principle) == {"SE", "OLE", "RWSE"} and (lv["mean leaves"] <= lv.leaves).all()
    assert all(r["leaves_per_tree"]["trees"] > 0 for r in recs)
    assert all("power" in c and "trials_80" in c for c in claims)
    manifest = json.loads((out / "manifest.json").read_text())["config"]
    assert manifest["growth"] == "width-first" and manifest["leaf_rule"] == "diagonal"
    assert any("leaf rule diagonal" in c for c in manifest["choices"])
    for system in ("mcrank", "lambdamart"):
        png = (out / "figures" / f"fig2_{system}.png").read_bytes()
        assert png[:4] == b"\x89PNG"
    # the same command resumes: nothing recomputed, identical records
    before = {p.name: p.read_bytes() for p in (out / "units").glob("*.json")}
    assert sp.main(argv) == 0
    assert {p.name: p.read_bytes() for p in (out / "units").glob("*.json")} == before
    # the notebook rebuilds everything from these results
    before = tree_digest(out)
    assert "most comparisons" in execute_notebook("xia.ipynb", out)
    assert tree_digest(out) == before


def test_web10k_without_data_says_where_to_get_it(tmp_path, capsys):
    assert sp.main(["--dataset", "web10k", "--data-dir", str(tmp_path), "--out", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and ("MSLR-WEB10K" in err or "Fold1" in err)


def test_claims_pair_one_mean_per_fold():
    """Folds are the independent units: per fold, the mean over configurations and metrics."""
    rows = []
    for fold, (o, e) in enumerate([(0.5, 0.4), (0.7, 0.7)]):
        for lr in (0.1, 0.12):
            rows.append({"fold": fold, "system": "mcrank", "principle": "ole", "leaves": 10, "lr": lr,
                         "ndcg@1": o, "err": o + (0.1 if lr == 0.1 else 0.0), "loss": 90.0})
            rows.append({"fold": fold, "system": "mcrank", "principle": "se", "leaves": 10, "lr": lr,
                         "ndcg@1": e, "err": e, "loss": 100.0})
    df = pd.DataFrame(rows)
    a, b = xc._fold_means(df, "mcrank", ["ndcg@1", "err"])
    assert np.allclose(a, [0.525, 0.725]) and np.allclose(b, [0.4, 0.7])
    a, b = xc._fold_means(df, "mcrank", ["loss"], relative=True)
    assert np.allclose(a, [-0.1, -0.1]) and np.allclose(b, 0.0)


@pytest.mark.slow
def test_official_folds_are_read_from_the_fold_layout(tmp_path):
    """--dataset web10k: fold t + 1's train.txt trains, its test.txt evaluates."""
    from ltrrepro.svmlight import write_svmlight
    from ltrrepro.synthetic import make_synthetic

    ds = make_synthetic("web30k", n_queries=60, seed=5)
    root = tmp_path / "MSLR-WEB10K"
    for f in range(1, 6):
        d = root / f"Fold{f}"
        d.mkdir(parents=True)
        qs = np.roll(np.arange(60), 12 * f)
        for part, sel in (("train", qs[:36]), ("vali", qs[36:48]), ("test", qs[48:])):
            write_svmlight(ds.subset(np.sort(sel)), d / f"{part}.txt")
    out = tmp_path / "o"
    argv = ["--dataset", "web10k", "--data-dir", str(tmp_path), "--trials", "2", "--rounds", "2",
            "--models", "lambdamart-se,lambdamart-ole,lambdamart-rwse", "--leaves", "10", "--rates", "0.1", "--out", str(out), "--quiet",
            "--jobs", "1", "--threads", "1"]
    assert sp.main(argv) == 0
    recs = {(r["unit"]["trial"], r["unit"]["model"]): r for r in
            (json.loads(p.read_text()) for p in (out / "units").glob("*.json"))}
    assert len(recs) == 2 * 3
    for t in range(2):
        test_q = np.sort(np.roll(np.arange(60), 12 * (t + 1))[48:])
        assert recs[(t, "lambdamart-ole")]["info"]["n_test_queries"] == test_q.size
        assert recs[(t, "lambdamart-ole")]["info"]["n_train_queries"] == 36
    # the paper's own dataset: Table 3 beside the run (LambdaMART, 10 leaves, lr .10)
    t = pd.read_csv(out / "tables" / "table_se_ole.csv")
    assert t["NDCG@10 paper SE/OLE"].tolist() == ["48.57/48.85"]
    # the units read the folds themselves: the pooled dataset was neither loaded nor stored
    assert json.loads((out / "manifest.json").read_text())["config"]["data"] == {}
    assert not (out / ".cache").exists()

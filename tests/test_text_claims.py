"""The claims from the papers' text (#30 item 4) on constructed frames with hand-worked values:
Bruch's 40→60% remark, Xia's per-metric remarks and Figure 2's consistency, Zheng's
convergence trend."""
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from experiments.bruch2021.protocol import NDCG5
from experiments.bruch2021.remarks import remark_claims
from experiments.xia.protocol import METRICS
from experiments.xia.text_claims import text_claims
from experiments.zheng2007.protocol import DCG5
from experiments.zheng2007.trend import trend_claims


def _bruch(diffs, dataset="synthetic-web30k"):
    rows = []
    for t, d in enumerate(diffs):
        rows += [{"trial": t, "model": "xendcg", "noise": "documents", "level": 40.0, NDCG5: 0.5},
                 {"trial": t, "model": "xendcg", "noise": "documents", "level": 60.0, NDCG5: 0.5 + d}]
    cfg = SimpleNamespace(experiment="robustness", dataset=dataset, noise=("documents",))
    return pd.DataFrame(rows), cfg


def test_the_40_to_60_remark_needs_power_to_be_supported():
    sym = np.tile([-0.002, 0.002], 10)                       # mean 0, 20 trials: p = 1, power ~1 for 0.01
    (c,) = remark_claims(*_bruch(sym))
    assert c.value == pytest.approx(0.0, abs=1e-12) and c.p == pytest.approx(1.0)
    assert c.verdict.startswith("supported (not significant") and c.power > 0.99
    (c,) = remark_claims(*_bruch([0.03, 0.031, 0.029, 0.03, 0.032]))
    assert c.verdict == "contradicted (significant)" and c.value == pytest.approx(0.0304)
    (c,) = remark_claims(*_bruch([0.02, -0.03, 0.01]))       # 3 noisy trials: cannot see 0.01
    assert c.verdict == "inconclusive (underpowered)"
    assert remark_claims(*_bruch(sym, dataset="synthetic-yahoo")) == []


def _xia(folds=6, high=0.5, low=0.1, noise=0.02, seed=0):
    """OLE − SE of ``high`` points on NDCG@3/@10 and ``low`` on NDCG@1/ERR, per fold and configuration."""
    rng = np.random.default_rng(seed)
    rows = []
    for f in range(folds):
        for leaves in (10, 20):
            for lr in (0.06, 0.1):
                base = rng.uniform(0.4, 0.6, len(METRICS))
                gain = np.array([low, high, high, low]) / 100 + rng.normal(0, noise / 100, len(METRICS))
                for pr, v in (("se", base), ("ole", base + gain)):
                    curves = {m: list(np.linspace(0.3, x, 5) + (0.001 if pr == "ole" else 0)) for m, x in
                              zip(METRICS, v)}
                    rows.append({"fold": f, "system": "lambdamart", "principle": pr, "leaves": leaves, "lr": lr,
                                 **dict(zip(METRICS, v)), "curves": curves})
    return pd.DataFrame(rows)


def test_xia_text_claims_hand_worked():
    got = text_claims(_xia(), "synthetic-web30k")
    find = lambda start: next(c for c in got if c.text.split(": ", 1)[1].startswith(start))  # noqa: E731
    less = find("NDCG@1 and ERR improve")
    assert less.value == pytest.approx(0.4, abs=0.02) and less.verdict == "supported"
    assert less.effect == pytest.approx(1.0) and less.family is not None     # powered against 1 point
    share = find("NDCG@3 and @10 improve")
    assert share.value == pytest.approx(0.0)                  # every configuration improves on every metric
    mostly = find("most improvements of at")
    assert 0.1 <= mostly.value <= 0.52 and mostly.verdict.startswith("descriptive")
    consistent = find("OLE improves on SE con")
    assert consistent.value == 1.0 and "5 checkpoints" in consistent.detail


def test_xia_text_claims_against_the_paper_table():
    """On Yahoo the paper's LambdaMART table gives the 'improve less' contrast +0.075 points."""
    c = text_claims(_xia(), "yahoo")[0]
    assert c.paper_effect == pytest.approx(0.075, abs=1e-9)


def test_zheng_convergence_trend():
    rows = []
    pts = [10, 20, 30, 40, 50]
    for t in range(6):
        for run, curve in (("qbrank_P2", [10, 11.5, 12.0, 12.1, 12.15]), ("qbrank_P2L1", [10, 10.5, 11, 11.5, 12])):
            c = list(np.asarray(curve) + 0.01 * t)
            rows.append({"trial": t, "model": run, "curve_points": pts, "test_curve_dcg5": c, DCG5: c[-1]})
    got = {c.text.split("'s")[0]: c for c in trend_claims(pd.DataFrame(rows))}
    conv = got["Figure 1: QBRank(P2)"]
    assert conv.value == pytest.approx((12.0 - 10) - (12.15 - 12.0))
    assert got["Figure 1: QBRank(P2∪L1)"].value == pytest.approx(0.0)     # a straight line: no convergence
    assert conv.effect == pytest.approx(0.01 * np.mean([12.15 + 0.01 * t for t in range(6)]))

"""The claims from the papers' text (#30 item 4) on constructed frames with hand-worked values:
Bruch's 40→60% remark, Xia's per-metric remarks and Figure 2's consistency, Zheng's
convergence trend."""
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from experiments.bruch2021.protocol import NDCG5
from experiments.bruch2021.claims import remark_claims
from experiments.xia.protocol import METRICS
from experiments.xia.claims import text_claims
from experiments.zheng2007.protocol import DCG5
from experiments.zheng2007.claims import trend_claims


def _bruch(diffs, dataset="synthetic-web30k"):
    rows = []
    for t, d in enumerate(diffs):
        rows += [{"trial": t, "model": "xendcg", "noise": "documents", "level": 40.0, NDCG5: 0.5},
                 {"trial": t, "model": "xendcg", "noise": "documents", "level": 60.0, NDCG5: 0.5 + d}]
    cfg = SimpleNamespace(experiment="robustness", dataset=dataset, noise=("documents",))
    return pd.DataFrame(rows), cfg


def test_the_40_to_60_remark_is_an_equivalence_test():
    sym = np.tile([-0.002, 0.002], 10)                       # mean 0, 20 trials, inside ±0.01 with room
    (c,) = remark_claims(*_bruch(sym))
    assert c.value == pytest.approx(0.0, abs=1e-12) and c.verdict.startswith("supported (equivalent")
    assert c.p < 0.01 and c.power > 0.99 and c.effect == pytest.approx(0.01)
    (c,) = remark_claims(*_bruch([0.03, 0.031, 0.029, 0.03, 0.032]))     # 0.03, well beyond 0.01
    assert c.verdict.startswith("contradicted (a change beyond") and c.value == pytest.approx(0.0304)
    # a tiny real change (a fifth of the margin) over many trials is equivalent, not a contradiction
    (c,) = remark_claims(*_bruch(np.tile([0.001, 0.003], 100)))
    assert c.verdict.startswith("supported (equivalent")
    (c,) = remark_claims(*_bruch([0.02, -0.03, 0.01]))       # 3 noisy trials: cannot show equivalence
    assert c.verdict == "inconclusive (underpowered)" and c.trials_80 > 3
    assert remark_claims(*_bruch(sym, dataset="synthetic-yahoo")) == []
    df, cfg = _bruch(sym)
    (c,) = remark_claims(df[df.level == 40.0], cfg)           # no 60% mark: said, not dropped
    assert c.verdict == "inconclusive (the run has no 40% and 60% levels (--levels))"


def test_tost_by_hand():
    from scipy import stats
    from experiments.bruch2021.claims import tost
    d = np.array([0.004, 0.006, 0.005, 0.007, 0.003])
    se = d.std(ddof=1) / np.sqrt(5)
    p_eq, p_beyond = tost(d, 0.01)
    assert p_eq == pytest.approx(stats.t.cdf((d.mean() - 0.01) / se, 4))    # the binding side: μ ≥ +m
    assert p_beyond == pytest.approx(stats.t.sf((d.mean() - 0.01) / se, 4))


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
    assert less.effect == pytest.approx((0.075 + 0.064) / 2, abs=2e-3) and less.family is not None
    robust = find("NDCG@3 and @10 improve more robustly")
    assert robust.value == pytest.approx(0.4, abs=0.05)      # means 0.5 vs 0.1, SDs across configs alike
    mostly = find("most improvements of at")
    assert 0.1 <= mostly.value <= 0.52 and mostly.verdict.startswith("descriptive")
    consistent = find("OLE improves on SE con")
    assert consistent.value == 1.0 and "5 checkpoints" in consistent.detail


def test_xia_text_claims_against_the_paper_table():
    """On Yahoo the paper's LambdaMART table gives the 'improve less' contrast +0.075 points."""
    c = text_claims(_xia(), "yahoo")[0]
    assert c.paper_effect == pytest.approx(0.075, abs=1e-9)


@pytest.mark.parametrize("dataset", ["yahoo", "web10k"])
@pytest.mark.parametrize("system", ["mcrank", "lambdamart"])
def test_xia_statistics_read_the_papers_own_tables_in_its_direction(dataset, system):
    """Each text statistic, applied to the paper's own table, agrees with the paper's words."""
    from experiments.xia.claims import _contrast, _paper
    table = _paper(dataset, system)
    assert float(_contrast(table, robust=False).iloc[0]) > 0        # NDCG@1 and ERR improve less
    assert float(_contrast(table, robust=True).iloc[0]) > 0         # NDCG@3/@10 more robust


def test_off_the_papers_data_the_claims_are_powered_against_the_papers_size():
    less, robust = text_claims(_xia(), "synthetic-web30k")[:2]       # the frame's one system: LambdaMART
    assert less.effect == pytest.approx((0.075 + 0.064) / 2, abs=2e-3)
    assert "Tables 2 and 3" in less.effect_source and 0 < robust.effect < 0.2


def _zheng(curves, pts=(10, 20, 30, 40, 50), trials=6):
    rows = []
    for t in range(trials):
        for run, curve in curves.items():
            c = list(np.asarray(curve, float) + 0.01 * t)
            rows.append({"trial": t, "model": run, "curve_points": list(pts), "test_curve_dcg5": c, DCG5: c[-1]})
    return {c.text.split("'s")[0]: c for c in trend_claims(pd.DataFrame(rows))}


def test_zheng_convergence_trend():
    got = _zheng({"qbrank_P2": [10, 11.5, 12.0, 12.1, 12.15], "qbrank_P2L1": [10, 10.5, 11, 11.5, 12]})
    conv = got["Figure 1: QBRank(P2)"]
    assert conv.value == pytest.approx((12.0 - 10) - (12.15 - 12.0))      # halves 10→30 and 30→50, equal
    assert got["Figure 1: QBRank(P2∪L1)"].value == pytest.approx(0.0)     # a straight line: no convergence
    assert conv.effect == pytest.approx(0.01 * np.mean([12.15 + 0.01 * t for t in range(6)]))


def test_zheng_trend_unequal_halves_and_a_falling_curve():
    # four checkpoints: the middle iteration 12.5 is nearest 10; a straight line is still no convergence
    line = _zheng({"qbrank_P2": [10, 10.5, 11, 11.5]}, pts=(5, 10, 15, 20), trials=30)["Figure 1: QBRank(P2)"]
    assert line.value == pytest.approx(0.0, abs=1e-9)
    # rises then falls by more than 1% of DCG: overfitting, not convergence
    fall = _zheng({"qbrank_P2": [10, 12, 13, 12.5, 11.0]})["Figure 1: QBRank(P2)"]
    assert fall.verdict == "contradicted (DCG-5 falls in the second half)"

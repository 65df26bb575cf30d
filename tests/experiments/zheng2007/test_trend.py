"""Zheng's convergence trend (experiments.zheng2007.claims), a claim from the paper's text, on
constructed curves with hand-worked values: equal and unequal halves, a straight line, a fall."""
import numpy as np
import pandas as pd
import pytest

from experiments.zheng2007.protocol import DCG5
from experiments.zheng2007.claims import trend_claims
from ltrrepro.inference import Inference


def _zheng(curves, pts=(10, 20, 30, 40, 50), trials=6):
    rows = []
    for t in range(trials):
        for run, curve in curves.items():
            c = list(np.asarray(curve, float) + 0.01 * t)
            rows.append({"trial": t, "model": run, "curve_points": list(pts), "test_curve_dcg5": c, DCG5: c[-1]})
    return {c.text.split("'s")[0]: c for c in trend_claims(pd.DataFrame(rows), inference=Inference())}

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

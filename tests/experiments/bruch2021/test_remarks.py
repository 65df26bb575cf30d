"""Bruch's 40→60% remark (experiments.bruch2021.claims), a claim from the paper's text, on
constructed frames with hand-worked values: an equivalence test (TOST), checked by hand."""
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from experiments.bruch2021.protocol import NDCG5
from experiments.bruch2021.claims import remark_claims
from ltrrepro.inference import Inference

INF = Inference()


def _bruch(diffs, dataset="synthetic-web30k"):
    rows = []
    for t, d in enumerate(diffs):
        rows += [{"trial": t, "model": "xendcg", "noise": "documents", "level": 40.0, NDCG5: 0.5},
                 {"trial": t, "model": "xendcg", "noise": "documents", "level": 60.0, NDCG5: 0.5 + d}]
    cfg = SimpleNamespace(experiment="robustness", dataset=dataset, noise=("documents",))
    return pd.DataFrame(rows), cfg

def test_the_40_to_60_remark_is_an_equivalence_test():
    sym = np.tile([-0.002, 0.002], 10)                       # mean 0, 20 trials, inside ±0.01 with room
    (c,) = remark_claims(*_bruch(sym), inference=INF)
    assert c.value == pytest.approx(0.0, abs=1e-12) and c.verdict.startswith("supported (equivalent")
    assert c.p < 0.01 and c.power > 0.99 and c.effect == pytest.approx(0.01)
    (c,) = remark_claims(*_bruch([0.03, 0.031, 0.029, 0.03, 0.032]), inference=INF)     # 0.03, well beyond 0.01
    assert c.verdict.startswith("contradicted (a change beyond") and c.value == pytest.approx(0.0304)
    # a tiny real change (a fifth of the margin) over many trials is equivalent, not a contradiction
    (c,) = remark_claims(*_bruch(np.tile([0.001, 0.003], 100)), inference=INF)
    assert c.verdict.startswith("supported (equivalent")
    (c,) = remark_claims(*_bruch([0.02, -0.03, 0.01]), inference=INF)       # 3 noisy trials: cannot show equivalence
    assert c.verdict == "inconclusive (underpowered)" and c.trials_80 > 3
    assert remark_claims(*_bruch(sym, dataset="synthetic-yahoo"), inference=INF) == []
    df, cfg = _bruch(sym)
    (c,) = remark_claims(df[df.level == 40.0], cfg, inference=INF)           # no 60% mark: said, not dropped
    assert c.verdict == "inconclusive (the run has no 40% and 60% levels (--levels))"

def test_tost_by_hand():
    from scipy import stats
    from ltrrepro.inference.tests import tost
    d = np.array([0.004, 0.006, 0.005, 0.007, 0.003])
    se = d.std(ddof=1) / np.sqrt(5)
    p_eq, p_beyond = tost(d, 0.01)
    assert p_eq == pytest.approx(stats.t.cdf((d.mean() - 0.01) / se, 4))    # the binding side: μ ≥ +m
    assert p_beyond == pytest.approx(stats.t.sf((d.mean() - 0.01) / se, 4))

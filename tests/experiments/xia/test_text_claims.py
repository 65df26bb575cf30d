"""Xia's claims from the paper's text (experiments.xia.claims, #30 item 4) on constructed
frames with hand-worked values: the per-metric remarks and Figure 2's consistency."""

import numpy as np
import pandas as pd
import pytest

from experiments.xia.protocol import METRICS
from experiments.xia.claims import text_claims
from ltrrepro.inference import Inference

INF = Inference()


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
    got = text_claims(_xia(), "synthetic-web30k", inference=INF)
    find = lambda start: next(c for c in got if c.text.split(": ", 1)[1].startswith(start))  # noqa: E731
    less = find("NDCG@1 and ERR improve")
    assert less.value == pytest.approx(0.4, abs=0.02) and less.verdict == "supported"
    assert less.effect == pytest.approx((0.0375 + 0.0975) / 2, abs=2e-3) and less.family is not None   # the run's grid
    robust = find("NDCG@3 and @10 improve more robustly")
    assert robust.value == pytest.approx(0.4, abs=0.05)      # means 0.5 vs 0.1, SDs across configs alike
    mostly = find("most improvements of at")
    assert 0.1 <= mostly.value <= 0.52 and mostly.verdict.startswith("descriptive")
    consistent = find("OLE improves on SE con")
    assert consistent.value == 1.0 and "5 checkpoints" in consistent.detail


def test_xia_text_claims_against_the_paper_table():
    """On Yahoo the paper's LambdaMART table gives the 'improve less' contrast +0.075 points over its
    whole grid, +0.0375 over the frame's four configurations (leaves 10/20 × rates 0.06/0.1)."""
    c = text_claims(_xia(), "yahoo", inference=INF)[0]
    assert c.paper_effect == pytest.approx(0.0375, abs=1e-9)


@pytest.mark.parametrize("dataset", ["yahoo", "web10k"])
@pytest.mark.parametrize("system", ["mcrank", "lambdamart"])
def test_xia_statistics_read_the_papers_own_tables_in_its_direction(dataset, system):
    """Each text statistic, applied to the paper's own table, agrees with the paper's words."""
    from experiments.xia.claims import _contrast, _paper
    table = _paper(dataset, system)
    assert float(_contrast(table, robust=False).iloc[0]) > 0        # NDCG@1 and ERR improve less
    assert float(_contrast(table, robust=True).iloc[0]) > 0         # NDCG@3/@10 more robust


def test_off_the_papers_data_the_claims_are_powered_against_the_papers_size():
    less, robust = text_claims(_xia(), "synthetic-web30k", inference=INF)[:2]       # the frame's one system: LambdaMART
    assert less.effect == pytest.approx((0.0375 + 0.0975) / 2, abs=2e-3)     # over the run's grid
    assert "Tables 2 and 3" in less.effect_source and 0 < robust.effect < 0.2



"""Hu et al.'s numbers in the debiasing claims: the table's look-up, and the claims' ER, ΔRI and
power against the paper's difference where a table gives both arms (worked by hand on a frame
made by hand), the smallest effect of interest where it does not, and the deviation note that
follows whether the table is transcribed."""
import numpy as np
import pandas as pd
import pytest

import experiments
from experiments.hu2019 import notes, paper
from experiments.hu2019.claims import build_claims
from experiments.hu2019.protocol import NDCG10, TEST_METRICS
from ltrrepro.inference import Inference

#: per-trial NDCG@10 at the default point, by arm (3 trials): differences worked by hand below
VALUES = {"skyline": (0.60, 0.62, 0.61), "naive": (0.40, 0.42, 0.44), "ulm_lgb": (0.45, 0.48, 0.48),
          "ips_true": (0.43, 0.44, 0.46), "ips_est": (0.42, 0.43, 0.45), "lgb_position": (0.41, 0.44, 0.46)}
#: a made-up table (not the paper's): the claims' arithmetic, not its numbers, is under test
TABLE = {"ulm": {"NDCG@10": 0.70}, "naive": {"NDCG@10": 0.65}, "skyline": {"NDCG@10": 0.72},
         "lgb_position": {"NDCG@10": 0.10}}


def _frame(cfg):
    s = dict(cfg.default_setting)
    return pd.DataFrame([{"trial": t, "model": m, **s, **{k: v[t] for k in TEST_METRICS}}
                         for m, v in VALUES.items() for t in range(3)])


@pytest.fixture(scope="module")
def cfg():
    return experiments.configure("debiasing")


def _by_text(claims):
    return {c.text.split(" (")[0]: c for c in claims}


def test_paper_means_reads_the_ulm_row_for_either_library():
    assert paper.paper_means("ulm_xgb", "naive", table=TABLE) == (0.70, 0.65)
    assert paper.paper_means("ulm_lgb", "ips_est", table=TABLE) is None          # no IPS row
    assert paper.paper_means("ulm_lgb", "naive", "NDCG@5", table=TABLE) is None  # no NDCG@5 column
    assert np.isclose(paper.paper_effect("ulm_lgb", "skyline", table=TABLE), -0.02)


def test_claims_against_the_papers_difference_with_er_and_delta_ri(cfg):
    by = _by_text(build_claims(_frame(cfg), cfg, inference=Inference(), table=TABLE))
    c = by["Unbiased LambdaMART beats LambdaMART trained on raw clicks"]
    d = np.array([0.05, 0.06, 0.04])                     # ulm_lgb − naive per trial
    assert np.isclose(c.value, d.mean()) and np.isclose(c.paper_effect, 0.05)
    assert np.isclose(c.er, d.mean() / 0.05)             # ER = 0.05 / 0.05 = 1
    ri_paper, ri_run = 0.05 / 0.65, d.mean() / np.mean([0.40, 0.42, 0.44])
    assert np.isclose(c.delta_ri, ri_paper - ri_run)     # ΔRI = 0.0769 − 0.1190
    assert c.delta_ri_low < c.delta_ri < c.delta_ri_high
    assert "paper +0.0500" in c.detail
    ips = by["Unbiased LambdaMART beats IPS λMART with true propensities"]
    assert ips.paper_effect is None or not np.isfinite(ips.paper_effect)   # the table has no IPS row
    assert ips.effect is not None and ips.er is None
    close = next(c for c in by.values() if "close to λMART on expert labels" in c.text)
    d = np.array([-0.15, -0.14, -0.13])                  # ulm_lgb − skyline
    assert np.isclose(close.er, d.mean() / -0.02) and np.isfinite(close.delta_ri)
    lib = by["LightGBM's position-debiased λMART beats λMART on raw clicks"]
    assert lib.er is None                                # not the paper's claim: its table is not used


def test_without_the_table_every_claim_uses_the_effect_of_interest(cfg):
    for c in build_claims(_frame(cfg), cfg, inference=Inference(), table={}):
        assert c.er is None and c.delta_ri is None and "paper " not in c.detail


def test_the_deviation_note_follows_the_table(cfg, monkeypatch):
    note = "the paper's results table is not transcribed"
    assert any(note in d for d in notes.deviations(cfg, [])) == (not paper.PAPER_TABLE)
    monkeypatch.setattr(paper, "PAPER_TABLE", TABLE)
    assert not any(note in d for d in notes.deviations(cfg, []))

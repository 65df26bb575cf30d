"""The debiasing report's pure builders on a frame made by hand: the main table's paired
differences, the sweeps, the propensity RMSE and the claims (verdicts follow the data)."""
import numpy as np
import pandas as pd
import pytest

import experiments
from experiments.hu2019 import report as rp
from experiments.hu2019.claims import build_claims
from experiments.hu2019.protocol import ARMS, NDCG10, TEST_METRICS
from ltrrepro.inference import Inference

EFFECT = {"skyline": 0.10, "naive": 0.0, "lgb_position": 0.03, "xgb_unbiased": 0.02, "ulm_lgb": 0.05, "ulm_xgb": 0.05,
          "ulm_off": 0.0, "ips_true": 0.02, "ips_est": 0.01, "ipsxe_true": 0.04, "ipsxe_est": 0.0,
          "position_feature": 0.0}


def _frame(cfg, trials=8, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for setting, models in experiments.hu2019.protocol.settings(cfg):
        s = dict(setting)
        for t in range(trials):
            base = 0.4 + rng.normal(0, 0.02)
            for m in models:
                v = base + EFFECT[m] + rng.normal(0, 0.002)
                biases = None if m in ("skyline", "naive", "lgb_position", "position_feature") else \
                    {"propensity": list(np.ones(10) if m == "ulm_off" else
                                        1.0 / np.arange(1, 11) + (0.05 if m == "xgb_unbiased" else 0.0))}
                rows.append({"trial": t, "model": m, **s, **{k: v for k in TEST_METRICS},
                             "clicks": {"clicks_per_session": 0.5, "share_with_click": 0.4, "p_click": 0.6 + 0.01 * t,
                                        "click_share_by_position": [0.1] * 10, "ctr_by_position": [0.1] * 10},
                             "true_curve": list(1.0 / np.arange(1, 11)), "biases": biases,
                             "logger": {NDCG10: 0.3 + 0.1 * s["share"] + 0.001 * t}})
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def built():
    cfg = experiments.configure("debiasing")
    df = _frame(cfg)
    return cfg, df, rp.build(df, cfg, ["d"], ["c"], inference=Inference())


def test_main_table_has_every_arm_and_the_paired_difference(built):
    cfg, df, rep = built
    main = rep.table("main").frame.set_index("key")
    assert list(main.index) == list(ARMS)
    g = rp.at(df, cfg)
    want = (g[g.model == "ulm_lgb"].set_index("trial")[NDCG10] - g[g.model == "naive"].set_index("trial")[NDCG10]).mean()
    assert np.isclose(main.loc["ulm_lgb", "Δ vs naive"], want)
    assert np.isnan(main.loc["naive", "Δ vs naive"])


def test_sweeps_and_propensity_recovery(built):
    cfg, df, rep = built
    names = {t.name for t in rep.tables}
    assert {"sweep_sessions", "sweep_eta", "sweep_share", "sweep_click", "propensity", "clicks"} <= names
    sess = rep.table("sweep_sessions").frame
    assert set(sess.sessions) == {4, 16, 64} and set(sess.arm) >= {"naive", "ulm_lgb"}
    share = rep.table("sweep_share").frame
    logger = share.drop_duplicates("share").set_index("share")["logger NDCG@10"]
    assert np.allclose(logger, 0.3 + 0.1 * logger.index + 0.0035)       # the logger's quality at each share
    clicks = rep.table("clicks").frame
    sky = df[df.model == "skyline"].drop_duplicates("trial")[NDCG10].mean()           # the skyline's trials
    assert np.allclose(clicks["skyline NDCG@10"], sky)
    assert np.allclose(clicks["P(session clicked)"], 0.6 + 0.01 * np.mean(range(8)))   # the mean over the trials
    err = rep.table("propensity").frame.set_index("arm")
    assert np.isclose(err.loc["ulm_lgb", "RMSE"], 0) and np.isclose(err.loc["xgb_unbiased", "RMSE"], 0.05)
    assert "ips_est" not in err.index                                  # its estimator is ulm's, shown once
    assert "ulm_off" not in err.index                                  # it estimates nothing
    assert {f.name for f in rep.figures} == {"sweep_sessions", "sweep_eta", "sweep_share", "sweep_click",
                                            "propensity"}


def test_claims_follow_the_data(built):
    cfg, df, rep = built
    by = {c.text.split(" (")[0]: c for c in rep.claims}
    assert by["Unbiased LambdaMART beats LambdaMART trained on raw clicks"].verdict == "supported"
    assert by["LightGBM's position-debiased λMART beats λMART on raw clicks"].verdict == "supported"
    assert by["The bias update pays: Unbiased LambdaMART beats the same lambdas with every bias fixed at 1"].verdict \
        == "supported"
    close = next(c for c in rep.claims if "close to λMART on expert labels" in c.text)
    assert close.verdict.startswith("contradicted")                     # 0.05 apart, beyond ±0.01
    corner = next(c for c in rep.claims if "strong logger" in c.text)
    assert corner.verdict == "contradicted"                            # here debiasing does beat naive
    assert all(c.p_raw is not None for c in rep.claims if c.family)     # corrected within their families
    assert len(build_claims(df.iloc[0:0], cfg, inference=Inference())) == 0

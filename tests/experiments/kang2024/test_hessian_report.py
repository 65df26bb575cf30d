"""The Hessian study's report from a frame made by hand (no training): the table of arms × Hessian
treatments, the two figures' tables, the claims, and what ``--metric`` and ``--margin`` change."""
from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from experiments.kang2024.claims import KANG_FAMILY, OWN_FAMILY
from experiments.kang2024.protocol import KANG, PLRANK_ARMS, TEST_METRICS, HessianConfig
from experiments.kang2024.report import build
from ltrrepro.fit import SYSTEMS
from ltrrepro.fit.hessian import HESSIAN_SYSTEMS, PAPER_SYSTEMS
from ltrrepro.inference import Inference

CFG = HessianConfig(experiment="hessian", queries=60, trials=6, lr_grid=(1e-4, 1e-1), sweep_samples=(10, 200))
#: each arm's mean NDCG@10: the constant arms 0.05 below, the order-2 step 0.001 from the exact one
MEANS = {m: (0.70 if SYSTEMS[m].options.hessian == "constant" else 0.75) for m in HESSIAN_SYSTEMS}
MEANS.update({"xendcg_o2": 0.751, "xendcg_exact": 0.750, "lambdamart_library": 0.752})


def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = []
    for t in range(CFG.trials):
        noise = rng.normal(0, 0.002, len(HESSIAN_SYSTEMS))
        for m, e in zip(HESSIAN_SYSTEMS, noise):
            v = MEANS[m] + e + 0.01 * t
            rows.append({"trial": t, "model": m, "part": "arms", "lr": np.nan, "samples": np.nan,
                         **{k: v for k in TEST_METRICS}, KANG: v - 0.02, "valid_ndcg10": v + 0.01, "round_s": 0.01,
                         "hessian": SYSTEMS[m].options.hessian, "learning_rate": 0.1})
        for lr in CFG.lr_grid:
            for m in PLRANK_ARMS:
                v = MEANS[m] - (0.02 if lr < 1e-3 else 0.0)
                rows.append({"trial": t, "model": m, "part": "lr", "lr": lr, "samples": np.nan,
                             **{k: v for k in TEST_METRICS}, KANG: v, "valid_ndcg10": v, "round_s": 0.01,
                             "hessian": "", "learning_rate": lr})
        rows.append({"trial": t, "model": PLRANK_ARMS[0], "part": "samples", "lr": np.nan, "samples": 10,
                     **{k: 0.73 for k in TEST_METRICS}, KANG: 0.7, "valid_ndcg10": 0.73, "round_s": 0.002,
                     "hessian": "sampled", "learning_rate": 0.1})
    return pd.DataFrame(rows)


def test_the_report_holds_the_table_the_figures_and_every_claim():
    rep = build(_frame(), CFG, inference=Inference())
    tables = {t.name: t.frame for t in rep.tables}
    main = tables["hessian"]
    assert len(main) == len(HESSIAN_SYSTEMS) and set(main.Hessian) >= {"sampled", "constant", "neumann2", "exact"}
    plr = main[main.arm == SYSTEMS["plrank_sampled"].label].iloc[0]
    assert plr["Δ vs Hessian 1"] == pytest.approx(0.05, abs=0.005)
    assert len(tables["learning_rate"]) == 4 and tables["samples"].N.tolist() == [10, 200]
    assert {f.name for f in rep.figures} == {"learning_rate", "samples"}
    claims = {c.text: c for c in rep.claims}
    assert len(claims) == 7
    sampled = next(c for t, c in claims.items() if t.startswith("PL-Rank with the sampled Hessian beats"))
    assert sampled.family == KANG_FAMILY and sampled.verdict == "supported"
    neumann = next(c for t, c in claims.items() if t.startswith("The Neumann series of order 2"))
    assert neumann.verdict.startswith("supported")          # 0.001 apart, margin 0.01: equivalent
    own = [c for c in claims.values() if c.family == OWN_FAMILY]
    assert len(own) == 4 and all("chosen on validation" in c.text for c in own)


def test_the_margin_and_the_metric_reach_the_report():
    df = _frame()
    tight = build(df, dataclasses.replace(CFG, margin=0.0001), inference=Inference())
    neumann = next(c for c in tight.claims if c.text.startswith("The Neumann series of order 2"))
    assert not neumann.verdict.startswith("supported") and "±0.0001" in neumann.text
    df.loc[df.model == "plrank_constant", KANG] += 0.2             # Kang's metric reverses the first claim
    kang = build(df, dataclasses.replace(CFG, metric="kang"), inference=Inference())
    first = next(c for c in kang.claims if c.text.startswith("PL-Rank with the sampled Hessian beats"))
    assert not first.verdict.startswith("supported") and "mean DCG@10 / mean IDCG@10" in first.detail


def _with_paper(diverged_trials=()) -> pd.DataFrame:
    """The frame with the paper's column: the sampled arm 0.03 above Hessian 1 at Kang et al.'s
    settings, except in ``diverged_trials``, where its scores went NaN (no test value)."""
    df = _frame()
    rows = []
    for t in range(CFG.trials):
        for i, (m, v) in enumerate(zip(PAPER_SYSTEMS, (0.76, 0.73))):
            bad = m == PAPER_SYSTEMS[0] and t in diverged_trials
            v = np.nan if bad else v + 0.01 * t + 0.001 * np.sin(t + 2 * i)
            rows.append({"trial": t, "model": m, "part": "paper", **{k: v for k in TEST_METRICS}, KANG: v,
                         "valid_ndcg10": v, "best_iteration": np.nan if bad else 300, "start_hess_sum": 4.0,
                         "diverged": "scores contain NaN" if bad else None, "hessian": SYSTEMS[m].options.hessian})
    return pd.concat([df, pd.DataFrame(rows)], ignore_index=True)


def _paper_claims(rep) -> list:
    return [c for c in rep.claims if c.text.startswith("at Kang et al.'s settings")]


def test_the_papers_column_has_its_table_and_kangs_two_claims():
    rep = build(_with_paper(), CFG, inference=Inference())
    table = {t.name: t.frame for t in rep.tables}["paper_settings"]
    assert len(table) == 3 and table.diverged.tolist() == [0, 0, 0]
    sampled = table.iloc[0]
    assert "lr 0.00878, depth 8, Σh/leaf ≥ 6, gain ≥ 0.66" in sampled.settings and "1000 rounds" in sampled.settings
    assert table.iloc[1]["Δ sampled −"] == pytest.approx(0.03, abs=0.002)
    assert table.iloc[2]["Δ sampled −"] == pytest.approx(0.76 - 0.752, abs=0.003)
    beats, close = _paper_claims(rep)
    assert beats.family == KANG_FAMILY and beats.verdict == "supported"
    assert "within ±0.01 of the library's λMART" in close.text and close.trials == CFG.trials


def test_a_diverged_trial_is_left_out_and_named_and_all_diverged_is_no_test():
    rep = build(_with_paper(diverged_trials=(1, 4)), CFG, inference=Inference())
    table = {t.name: t.frame for t in rep.tables}["paper_settings"]
    assert table.diverged.tolist() == [2, 0, 0]
    beats, close = _paper_claims(rep)
    assert beats.trials == close.trials == CFG.trials - 2
    assert "diverged, left out" in beats.detail and "[1, 4]" in beats.detail
    none = build(_with_paper(diverged_trials=range(CFG.trials)), CFG, inference=Inference())
    for c in _paper_claims(none):
        assert c.verdict.startswith("inconclusive") and "diverged (NaN scores in training) in every trial (6)" in c.verdict
        assert c.trials == 0


def test_the_papers_settings_are_its_reported_values_in_the_harness_names():
    from experiments.kang2024 import paper
    from experiments.kang2024.protocol import paper_boosting
    from ltrrepro.fit.hessian import PAPER_SPACE
    b = paper_boosting(PAPER_SYSTEMS[0], 1000)
    assert (b.learning_rate, b.max_depth, b.min_sum_hessian, b.min_split_gain, b.lambda_l2, b.lambda_l1) == (
        0.00878, 8, 6, 0.660, 2.2e-4, 0.0177)
    assert (b.num_leaves, b.max_bin, b.rounds, b.early_stopping) == (256, 256, 1000, 1000)
    assert paper_boosting(PAPER_SYSTEMS[1], 50, 20).learning_rate == 1.47e-4
    space = dict(PAPER_SPACE)
    for name, (low, high, scale) in paper.SEARCH_SPACE.items():
        dist = space[paper.BOOSTING_NAMES[name]]
        assert (dist.low, dist.high) == (low, high) and (scale == "log") == bool(getattr(dist, "log", False) or
                                                                                 type(dist).__name__ == "LogUniform")
    assert SYSTEMS[PAPER_SYSTEMS[0]].options.space(SYSTEMS[PAPER_SYSTEMS[0]].libraries[0]) == space

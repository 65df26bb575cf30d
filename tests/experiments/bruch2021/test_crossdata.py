"""Bruch's claims across datasets (experiments.bruch2021.claims_noise and report_across, experiments.across): the
slope statistic, Welch's power, the verdicts on constructed runs, and `python -m
experiments.report A B` on two tiny runs (Web30K and Yahoo profiles)."""
import json
import os
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from experiments import robustness
from experiments.bruch2021 import claims_noise, report_across
from experiments.bruch2021.protocol import NDCG5
from experiments.errors import UsageError
from experiments.report import main as report_main
from ltrrepro.inference import Inference
from ltrrepro.inference.power import trials_for_welch_power, welch_power
from ltrrepro.inference.tests import two_sample_p

TINY = ["--queries", "60", "--trials", "3", "--preset", "tiny", "--rounds", "8", "--jobs", "1", "--threads", "1", "--quiet",
        "--levels", "0,100"]


def _frame(slopes, rng, noise=("documents", "labels"), levels=(0, 50, 100), curve=0.0):
    """Per trial and level: λMART at a random base, XE_NDCG = λMART + slope·level (+ tiny noise)."""
    rows = []
    for t, s in enumerate(slopes):
        base = rng.uniform(0.4, 0.5)
        for nz in noise:
            for lv in levels:
                kind = "none" if lv == 0 else nz
                lam = base - 0.001 * lv
                for m, v in (("lambdamart", lam), ("xendcg", lam + s * lv + curve * lv * lv + rng.normal(0, 1e-6))):
                    rows.append({"trial": t, "model": m, "noise": kind, "level": float(lv), NDCG5: v})
    return pd.DataFrame(rows).drop_duplicates(["trial", "model", "noise", "level"])


def _cfg(dataset, experiment="robustness", noise=("documents", "labels"), trials=8):
    return SimpleNamespace(dataset=dataset, experiment=experiment, noise=noise, trials=trials)


def _notes():
    return {"as_paper": ["a"], "choices": ["c"], "deviations": ["d"]}


def test_trial_slopes_are_least_squares_slopes_per_trial():
    rng = np.random.default_rng(0)
    df = _frame([1e-4, -2e-4, 3e-4], rng)
    got = claims_noise.trial_slopes(df, "documents")
    for t, s in enumerate(got):
        g = df[(df.trial == t) & df.noise.isin(["none", "documents"])].pivot(index="level", columns="model",
                                                                               values=NDCG5)
        want = np.polyfit(g.index.to_numpy(float), (g.xendcg - g.lambdamart).to_numpy(), 1)[0]
        assert s == pytest.approx(want, abs=1e-12)


def test_welch_power_matches_simulation_and_its_trials_reach_80_percent():
    rng = np.random.default_rng(1)
    eff, s1, s2, n1, n2 = 0.6, 1.0, 2.0, 15, 25
    x = rng.normal(eff, s1, (20_000, n1))
    y = rng.normal(0.0, s2, (20_000, n2))
    sim = float((stats.ttest_ind(x, y, axis=1, equal_var=False).pvalue < 0.05).mean())
    assert welch_power(eff, s1, n1, s2, n2, alpha=0.05) == pytest.approx(sim, abs=0.015)
    n = trials_for_welch_power(0.5, 1.0, 1.0, alpha=0.05)
    assert welch_power(0.5, 1.0, n, 1.0, n, alpha=0.05) >= 0.8 > welch_power(0.5, 1.0, n - 1, 1.0, n - 1,
                                                                                   alpha=0.05)


def test_two_sample_tests_are_scipys():
    rng = np.random.default_rng(2)
    x, y = rng.normal(0.5, 1, 8), rng.normal(0, 1, 9)
    assert two_sample_p(x, y, "t") == stats.ttest_ind(x, y, equal_var=False).pvalue
    assert two_sample_p(x, y, "wilcoxon") == stats.mannwhitneyu(x, y, alternative="two-sided").pvalue
    assert 0 < two_sample_p(x, y, "permutation") <= 1


def _claims(web_slopes, yahoo_slopes, inference=Inference()):
    rng = np.random.default_rng(3)
    runs = [("w", _cfg("synthetic-web30k"), _frame(web_slopes, rng), _notes()),
            ("y", _cfg("synthetic-yahoo"), _frame(yahoo_slopes, rng), _notes())]
    return {c.extra["noise"]: c for c in report_across.build_figure3(runs, inference).claims}


def test_more_pronounced_claims_follow_the_data():
    rng = np.random.default_rng(4)
    big, small = rng.normal(5e-4, 5e-5, 12), rng.normal(1e-4, 5e-5, 12)
    got = _claims(web_slopes=small, yahoo_slopes=big)
    assert got["documents"].verdict == "supported"          # larger on Yahoo: the paper's 3a/b
    assert got["labels"].verdict == "contradicted"          # but the paper says larger on Web30K for labels
    assert got["documents"].family == got["labels"].family and got["documents"].p_raw is not None
    assert got["documents"].power > 0.8 and got["documents"].trials_80 <= 12     # both parts (Bonferroni bound)


def test_a_run_that_cannot_see_the_effect_is_inconclusive():
    rng = np.random.default_rng(5)
    got = _claims(rng.normal(0, 3e-4, 3), rng.normal(0, 3e-4, 3))
    assert all(c.verdict == "inconclusive (underpowered)" for c in got.values())
    assert all(c.trials_80 > 3 for c in got.values())


def test_runs_that_are_not_one_per_dataset_are_refused():
    rng = np.random.default_rng(6)
    df = _frame([1e-4, 2e-4], rng)
    with pytest.raises(UsageError, match="second Web30K"):
        report_across.build_figure3([("a", _cfg("synthetic-web30k"), df, _notes()), ("b", _cfg("web30k"), df, _notes())], Inference())
    with pytest.raises(UsageError, match="one Bruch study"):
        report_across.build_figure3([("a", _cfg("synthetic-web30k"), df, _notes()),
                  ("b", _cfg("synthetic-yahoo", experiment="clicks"), df, _notes())], Inference())
    with pytest.raises(UsageError, match="neither a Web30K nor a Yahoo"):
        report_across.build_figure3([("a", _cfg("mq2008"), df, _notes()), ("b", _cfg("synthetic-yahoo"), df, _notes())], Inference())


def test_runs_are_compared_on_the_levels_both_have():
    rng = np.random.default_rng(7)
    web = _frame(rng.normal(1e-4, 1e-5, 8), rng, levels=(0, 50, 100))
    yahoo = _frame(rng.normal(1e-4, 1e-5, 8), rng, levels=(0, 40, 60, 100), curve=5e-6)
    runs = [("w", _cfg("synthetic-web30k"), web, _notes()), ("y", _cfg("synthetic-yahoo"), yahoo, _notes())]
    got = {c.extra["noise"]: c for c in report_across.build_figure3(runs, Inference()).claims}
    assert "over the levels both runs have: 0, 100" in got["documents"].detail
    want = np.mean(claims_noise.trial_slopes(yahoo, "documents", levels=[0, 100])) - \
        np.mean(claims_noise.trial_slopes(web, "documents", levels=[0, 100]))
    assert got["documents"].value == pytest.approx(want)


def test_a_noise_type_one_run_lacks_is_said_not_dropped():
    rng = np.random.default_rng(8)
    runs = [("w", _cfg("synthetic-web30k"), _frame(rng.normal(1e-4, 1e-5, 6), rng), _notes()),
            ("y", _cfg("synthetic-yahoo", noise=("documents",)), _frame(rng.normal(1e-4, 1e-5, 6), rng,
                                                                        noise=("documents",)), _notes())]
    rep = report_across.build_figure3(runs, Inference())
    got = {c.extra["noise"]: c for c in rep.claims}
    assert got["labels"].verdict == "inconclusive (the Yahoo run has no labels noise)"
    assert got["documents"].tested and len(rep.figures) == 1
    # no noise type in common: no figure, and each claim says why
    runs[0] = ("w", _cfg("synthetic-web30k", noise=("labels",)), _frame([1e-4, 2e-4], rng, noise=("labels",)),
               _notes())
    rep = report_across.build_figure3(runs, Inference())
    assert rep.figures == [] and all(c.verdict.startswith("inconclusive (the ") for c in rep.claims)


def test_a_rank_test_that_cannot_reach_alpha_has_no_power():
    from ltrrepro.inference.power import trials_for_two_sample_power
    from ltrrepro.inference.tests import min_two_sample_p
    assert min_two_sample_p(4, 4, "wilcoxon") == pytest.approx(2 / 70)
    rng = np.random.default_rng(9)
    got = _claims(rng.normal(1e-4, 1e-6, 4), rng.normal(9e-4, 1e-6, 4), Inference(test="wilcoxon"))
    assert all(c.power == 0.0 and c.verdict.startswith("inconclusive") for c in got.values())
    assert trials_for_two_sample_power(1.0, 1e-3, 1e-3, "wilcoxon", alpha=0.01) == 5   # 2/C(10, 5) < 0.01 < 2/C(8, 4)


@pytest.mark.slow
def test_report_of_two_runs_writes_both_datasets_and_the_claims(tmp_path, capsys):
    os.environ.setdefault("LTRREPRO_CACHE", str(tmp_path / "cache"))
    web, yahoo, out = tmp_path / "web", tmp_path / "yahoo", tmp_path / "both"
    assert robustness.main(TINY + ["--out", str(web)]) == 0
    assert robustness.main(TINY + ["--dataset", "synthetic-yahoo", "--out", str(yahoo)]) == 0
    assert report_main([str(web), str(yahoo), "--out", str(out), "--quiet"]) == 0
    table = pd.read_csv(out / "tables" / "fig3_across_datasets.csv")
    assert {"Web30K Δ", "Yahoo Δ"} <= set(table.columns) and set(table.level) == {0.0, 100.0}
    claims = json.loads((out / "claims.json").read_text())["claims"]
    assert [c["noise"] for c in claims] == ["documents", "labels"]
    assert "more pronounced on Yahoo" in claims[0]["claim"] and "more pronounced on Web30K" in claims[1]["claim"]
    assert (out / "figures" / "fig3_across_datasets.png").stat().st_size > 1000
    sources = json.loads((out / "sources.json").read_text())["runs"]
    assert [s["dataset"] for s in sources] == ["synthetic-web30k", "synthetic-yahoo"]
    md = (out / "notes.md").read_text()
    assert "Web30K: " in md and "Yahoo: " in md              # each run's notes, named by dataset, once
    assert "Web30K: " not in (out / "claims.md").read_text()
    # --out only where there is a cross-dataset report to write; two runs of one profile: a plain rebuild
    capsys.readouterr()
    assert report_main([str(web), "--out", str(out)]) == 2
    assert "--out names where a cross-dataset report goes" in capsys.readouterr().err
    assert report_main([str(web), str(web), "--quiet"]) == 0
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep")
    assert report_main([str(web), str(yahoo), "--out", str(mine), "--quiet"]) == 2
    assert "holds no cross-dataset report" in capsys.readouterr().err and (mine / "notes.txt").exists()


def test_more_pronounced_needs_the_degradation_on_that_dataset():
    """Issue 38: neither dataset shows λMART degrading faster (both slopes negative), yet Yahoo's
    is less negative: the difference points the claimed way, the claim must not — its value is
    Yahoo's own slope (< 0), and no number of trials makes it supported."""
    rng = np.random.default_rng(8)
    web, yahoo = rng.normal(-5e-4, 5e-5, 12), rng.normal(-1e-4, 5e-5, 12)
    got = _claims(web_slopes=web, yahoo_slopes=yahoo)["documents"]
    assert got.value < 0 and got.verdict in ("not supported", "inconclusive (underpowered)", "contradicted")
    assert "Yahoo slope" in got.detail and "relative reading" in got.detail

"""The statistics (ltrrepro.inference: tests, power) against their references: the paired t-test and its CI (scipy,
by hand), Holm, the paired power (simulation, the noncentral t integrated by hand); the tests (scipy), Benjamini–Hochberg (scipy),
d_z's CI (the noncentral t it inverts), ER and ΔRI (repro_eval, Breuer et al. 2020), the size
verdict, the family correction of claims, and the report choices (--test, --correction,
--effect) as report choices: refused in one line, never part of a run's configuration."""
from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats as st

from ltrrepro.inference import (Claim, Evidence, Expectation, Inference, correct, judge, parse_effects, reproduction,
                                size_verdict, smallest_effect)
from ltrrepro.inference.power import paired_power
from ltrrepro.inference.tests import adjust, dz, dz_interval, holm, min_p, one_sample_p, paired_test, summarize
from ltrrepro.metrics import ndcg


def test_tests_match_scipy_and_the_exact_sign_flip_distribution():
    rng = np.random.default_rng(1)
    d = rng.normal(0.3, 1.0, 9)
    assert one_sample_p(d, "t") == pytest.approx(st.ttest_1samp(d, 0).pvalue)
    assert one_sample_p(d, "wilcoxon") == pytest.approx(st.wilcoxon(d).pvalue)
    # the exact two-sided sign-flip p, by enumerating all 2^9 sign patterns by hand
    signs = np.array(np.meshgrid(*[[-1, 1]] * d.size)).reshape(d.size, -1).T
    null = (signs * np.abs(d)).mean(1)
    exact = np.mean(np.abs(null) >= abs(d.mean()) - 1e-12)
    assert one_sample_p(d, "permutation") == pytest.approx(exact)
    # a paired test uses the test it is given (the report's)
    a, b = d + 1.0, np.ones_like(d)
    c = paired_test(a, b, test=Inference(test="wilcoxon").test)
    assert c.test == "wilcoxon" and c.p == pytest.approx(st.wilcoxon(d).pvalue)
    assert c.t == pytest.approx(st.ttest_rel(a, b).statistic)        # t stays the t statistic
    # with 5 trials neither rank nor sign-flip test can reach α = 0.01: power 0, not the t-test's
    assert min_p(5, "permutation") == 0.0625 and one_sample_p(np.arange(1.0, 6.0), "permutation") == 0.0625
    assert paired_power(1.0, 0.1, 5, 0.01, "wilcoxon") == 0.0 and paired_power(1.0, 0.1, 5, 0.01) > 0.99


def test_bh_and_holm_and_none():
    p = np.array([0.01, 0.04, 0.03, np.nan, 0.005])
    bh = adjust(p, "bh")
    assert np.isnan(bh[3]) and np.allclose(bh[[0, 1, 2, 4]], st.false_discovery_control(p[[0, 1, 2, 4]]))
    # by hand: sorted 0.005, 0.01, 0.03, 0.04 (m = 4) -> 0.02, 0.02, 0.04, 0.04
    assert np.allclose(bh[[4, 0, 2, 1]], [0.02, 0.02, 0.04, 0.04])
    assert np.allclose(adjust(p, "holm")[[4, 0, 2, 1]], [0.02, 0.03, 0.06, 0.06])
    assert np.array_equal(adjust(p, "none"), p, equal_nan=True)


def test_dz_and_its_interval_invert_the_noncentral_t():
    d = np.array([0.2, 0.5, 0.1, 0.4, 0.3, 0.6])
    assert dz(d) == pytest.approx(d.mean() / d.std(ddof=1))
    lo, hi = dz_interval(dz(d), d.size)
    t, df = dz(d) * np.sqrt(d.size), d.size - 1
    assert st.nct.cdf(t, df, lo * np.sqrt(d.size)) == pytest.approx(0.975)
    assert st.nct.cdf(t, df, hi * np.sqrt(d.size)) == pytest.approx(0.025)
    c = paired_test(d + 1, np.ones_like(d))
    assert (c.dz, c.dz_low, c.dz_high) == pytest.approx((dz(d), lo, hi))


def _per_query(seed, quality):
    """Per-query NDCG@5 of a ranker that sees the labels with noise ``quality`` (lower better)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(5, 20, 60)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    labels = rng.integers(0, 5, offsets[-1]).astype(float)
    scores = labels + rng.normal(0, quality, labels.size)
    return ndcg(scores, labels, offsets, k=5)


def test_effect_ratio_and_delta_ri_are_repro_evals_for_two_runs_compared_query_by_query():
    """Breuer et al.'s ER and ΔRI where the definitions meet: an original pair of runs and a
    reproduced pair (other topics), both scored per query by the harness's NDCG@5."""
    from repro_eval.measure.overall_effects import DRI, ER

    orig_b, orig_a = _per_query(0, 2.0), _per_query(0, 1.5)
    rep_b, rep_a = _per_query(7, 2.0), _per_query(7, 1.7)
    ok_o = np.isfinite(orig_a) & np.isfinite(orig_b)
    ok_r = np.isfinite(rep_a) & np.isfinite(rep_b)

    def run(x, ok):
        return {f"q{i}": {"ndcg_cut_5": float(v)} for i, v in enumerate(x[ok])}

    args = (run(orig_a, ok_o), run(orig_b, ok_o), run(rep_a, ok_r), run(rep_b, ok_r))
    ours = reproduction(rep_a[ok_r] - rep_b[ok_r], rep_b[ok_r], float(orig_a[ok_o].mean()),
                        float(orig_b[ok_o].mean()))
    assert ours["er"] == pytest.approx(ER(*args)["ndcg_cut_5"], rel=1e-12)
    assert ours["delta_ri"] == pytest.approx(DRI(*args)["ndcg_cut_5"], rel=1e-12)
    assert ours["er_low"] < ours["er"] < ours["er_high"]
    assert ours["delta_ri_low"] < ours["delta_ri"] < ours["delta_ri_high"]


def test_size_verdict_rule():
    assert size_verdict(0.28, 1.9, 2.9) == "larger"                 # Xia's λMART gap on the default data
    assert size_verdict(0.28, 0.1, 0.5) == "reproduced in size"
    assert size_verdict(0.28, -0.1, 0.5) == "size undetermined"     # holds 0 and the paper's effect
    assert size_verdict(0.28, 0.01, 0.2) == "smaller" and size_verdict(0.28, -0.5, -0.1) == "opposite sign"
    assert size_verdict(-0.3, -0.5, -0.1) == "reproduced in size"   # a paper effect below 0
    assert size_verdict(float("nan"), 0, 1) is None


def test_claims_of_a_family_share_one_corrected_p_and_are_rejudged_on_it():
    inf = Inference()
    cl = [judge(f"c{i}", Evidence(0.01, p, 20, "d"), Expectation(family="F"), inf)
          for i, p in enumerate((0.004, 0.006, 0.2))]
    cl.append(judge("alone", Evidence(0.01, 0.006, 20, "d"), Expectation(), inf))
    out = correct(cl, Inference(correction="holm"))
    assert [c.p for c in out[:3]] == pytest.approx([0.012, 0.012, 0.2])
    assert [c.p_raw for c in out[:3]] == [0.004, 0.006, 0.2] and out[3].p == 0.006 and out[3].p_raw is None
    assert [c.verdict for c in out] == ["direction only", "direction only", "direction only", "supported"]
    bh = correct(cl, Inference(correction="bh"))        # by hand: 0.004·3/1 = 0.012, 0.006·3/2 = 0.009 -> both 0.009 (step-up)
    assert [c.p for c in bh[:2]] == pytest.approx([0.009, 0.009]) and bh[0].verdict == "supported"
    assert correct(cl, Inference(correction="none"))[0].verdict == "supported"
    assert correct(cl, Inference(correction="bh", alpha=0.005))[0].verdict == "direction only"   # α is the value's
    d = out[0].to_dict()
    assert d["family"] == "F" and d["p_raw"] == 0.004 and "sign" not in d and "standard" not in d
    back = Claim.from_dict(json.loads(json.dumps(d)))
    assert back.family == "F" and back.p_raw == 0.004


def test_effect_flag_parses_and_sets_the_effect_of_interest():
    assert parse_effects("ndcg=0.005, dcg=2%") == (("ndcg", 0.005, False), ("dcg", 0.02, True))
    for bad in ("ndcg", "foo=1", "ndcg=-1", "ndcg=x", "dcg=0%"):
        with pytest.raises(ValueError, match="--effect"):
            parse_effects(bad)
    inf = Inference(effects=parse_effects("ndcg=0.005,dcg=2%"))
    assert smallest_effect("ndcg@5[gain=exp2,norel=drop]", inf)[0] == 0.005
    assert smallest_effect("dcg@5[gain=exp2,norel=zero]", inf, 10.0)[0] == pytest.approx(0.2)
    assert smallest_effect("err@10", inf)[0] == 0.01                           # the default stands
    assert smallest_effect("ndcg@5[gain=exp2,norel=drop]", Inference())[0] == 0.01


def test_report_choices_are_checked_in_one_line_and_reused_from_the_manifest():
    from experiments.errors import UsageError
    from experiments.execution import Execution

    for kw in ({"test": "ttest"}, {"correction": "bonferroni"}, {"effect": "ndcg=0"}):
        with pytest.raises(UsageError, match="^--(test|correction|effect)"):
            Execution(**kw)
    stored = Inference(test="wilcoxon", correction="bh", effects=parse_effects("ndcg=0.005")).to_dict()
    assert Execution().inference(stored) == Inference.from_dict(stored)
    assert Execution(correction="none").inference(stored) == Inference("wilcoxon", "none", (("ndcg", 0.005, False),))
    assert Execution(effect="dcg=2%").inference(stored).effects == (("dcg", 0.02, True),)
    assert Execution().inference(None) == Inference()


def test_report_choices_stay_out_of_the_configuration_hash(tmp_path):
    """A report-only run with other choices rewrites the manifest's statistics and the claims,
    and recomputes nothing (the stored units' hash is the configuration's)."""
    from experiments.bruch2021.protocol import BruchConfig
    from experiments.report import main as report_main
    from ltrrepro.store import ResultStore

    cfg = BruchConfig.from_stored({"experiment": "quality", "dataset": "synthetic-web30k", "queries": 40})
    assert not {"test", "correction", "effect", "effects", "statistics"} & set(cfg.to_dict())
    out = tmp_path / "r"
    out.mkdir()
    (out / "manifest.json").write_text(json.dumps({"experiment": "quality", "config": cfg.to_dict()}))
    assert report_main([str(out), "--test", "nope"]) == 2            # refused before reading anything
    assert ResultStore.open(out).read_manifest().get("statistics") is None


# --------------------------------------------------------------------------- statistics
def test_paired_test_equals_scipy_and_hand_ci(rng):
    a = rng.normal(0.5, 0.02, 30)
    b = a - rng.normal(0.003, 0.01, 30)
    c = paired_test(a, b)
    ref = st.ttest_rel(a, b)
    assert c.t == pytest.approx(ref.statistic, rel=1e-12) and c.p == pytest.approx(ref.pvalue, rel=1e-12)
    assert c.wins + c.ties + c.losses == 30 and c.wins == int(((a - b) > 0).sum())
    # hand-worked CI: d = (1, 2, 3): mean 2, sd 1, t_{.975,2} = 4.302653
    d = paired_test([1.0, 2.0, 3.0], [0.0, 0.0, 0.0])
    assert d.diff == 2 and d.std_diff == 1
    assert d.ci_low == pytest.approx(2 - 4.302653 / np.sqrt(3), abs=1e-6)
    assert d.ci_high == pytest.approx(2 + 4.302653 / np.sqrt(3), abs=1e-6)
    s = summarize([1.0, 2.0, 3.0])
    assert (s.mean, s.std) == (2.0, 1.0) and s.ci_low == pytest.approx(d.ci_low)

def test_paired_test_degenerate_and_ties():
    c = paired_test([0.5, 0.5], [0.5, 0.5])
    assert np.isnan(c.p) and c.ties == 2 and not c.significant(0.01)
    c = paired_test([0.6, 0.5, 0.4], [0.5, 0.5, 0.5], tie=1e-9)
    assert (c.wins, c.ties, c.losses) == (1, 1, 1)
    with pytest.raises(ValueError):
        paired_test([1.0, np.nan], [1.0, 2.0])

def test_holm_hand_worked():
    # sorted .005,.01,.03,.04 times 4,3,2,1 = .02,.03,.06,.04 -> running max .02,.03,.06,.06
    np.testing.assert_allclose(holm([0.01, 0.04, 0.03, 0.005]), [0.03, 0.06, 0.06, 0.02])
    out = holm([0.2, np.nan, 0.9])
    assert np.isnan(out[1]) and out[0] == pytest.approx(0.4) and out[2] == pytest.approx(0.9)
    np.testing.assert_allclose(holm([0.6, 0.7]), [1.0, 1.0])             # capped at 1, monotone

def test_paired_power_matches_simulation_and_required_trials_are_minimal():
    """Power from the noncentral t against 20,000 simulated paired t-tests (seeded), and the
    required number of trials is the first that reaches 80%."""
    from ltrrepro.inference.power import paired_power, trials_for_power
    rng = np.random.default_rng(0)
    effect, sd, n, alpha = 0.004, 0.01, 30, 0.01
    d = rng.normal(effect, sd, size=(20_000, n))
    p = st.ttest_1samp(d, 0.0, axis=1).pvalue
    assert paired_power(effect, sd, n, alpha) == pytest.approx(float(np.mean(p < alpha)), abs=0.012)
    need = trials_for_power(effect, sd, 0.8, alpha=alpha)
    assert paired_power(effect, sd, need, alpha) >= 0.8 > paired_power(effect, sd, need - 1, alpha)
    assert trials_for_power(0.0, sd, alpha=alpha) is None and np.isnan(paired_power(effect, 0.0, n, alpha))

@pytest.mark.parametrize("effect, sd, n", [(0.004, 0.01, 30), (0.5, 1.0, 8), (0.186, 0.0398, 5), (1.0, 0.01, 3)])
def test_paired_power_equals_the_noncentral_t_integrated_by_hand(effect, sd, n):
    """T = (Z + δ) / √(V/ν), Z standard normal, V ~ χ²_ν, ν = n − 1, δ = effect/(sd/√n):
    P(|T| > c) = ∫ [Φ(δ − c√(v/ν)) + Φ(−δ − c√(v/ν))] χ²_ν(v) dv, c = t_{1−α/2, ν}. Includes
    effects so large that scipy's noncentral-t lower tail is NaN (power must still be 1)."""
    from scipy.integrate import quad

    from ltrrepro.inference.power import paired_power, trials_for_power
    nu, alpha = n - 1, 0.01
    delta = effect / (sd / np.sqrt(n))
    c = st.t.ppf(1 - alpha / 2, nu)
    f = lambda v: (st.norm.cdf(delta - c * np.sqrt(v / nu)) + st.norm.cdf(-delta - c * np.sqrt(v / nu))) \
        * st.chi2.pdf(v, nu)  # noqa: E731
    hand = quad(f, 0, np.inf, limit=200)[0]
    assert paired_power(effect, sd, n, alpha) == pytest.approx(hand, abs=1e-6)
    assert paired_power(-effect, sd, n, alpha) == pytest.approx(hand, abs=1e-6)     # two-sided: symmetric
    need = trials_for_power(effect, sd, 0.8, alpha=alpha)
    assert need >= 2 and paired_power(effect, sd, need, alpha) >= 0.8
    assert need == 2 or paired_power(effect, sd, need - 1, alpha) < 0.8

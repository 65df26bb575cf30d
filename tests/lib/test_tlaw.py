"""The t law of a sequential run's looks (issue 38, item 2 and the smaller items): design power,
futility bounds and real α when each look is a paired t-test over few trials."""
import numpy as np
import pytest
from scipy import stats

from ltrrepro.inference import sequential as sq
from ltrrepro.inference.sequential import alpha_warning, real_alpha
from ltrrepro.inference.tlaw import TLaw, futility_only


def _brute(sizes, d, c, runs, seed):
    """P(upper efficacy exit) and P(any |z| >= c) from raw normal differences and scipy's t-test."""
    x = np.random.default_rng(seed).standard_normal((runs, sizes[-1])) + d
    z = np.stack([sq.z_from_p(stats.ttest_1samp(x[:, :n], 0.0, axis=1).pvalue, x[:, :n].mean(1)) for n in sizes], 1)
    out = np.abs(z) >= c
    first = np.where(out.any(1), out.argmax(1), len(sizes))
    hit = first < len(sizes)
    up = np.zeros(runs, bool)
    up[hit] = z[hit, first[hit]] > 0
    return up.mean(), out.any(1).mean()


def test_the_simulated_law_matches_raw_t_tests():
    """Power and type I of the sufficient-statistic draws equal those of raw data through
    scipy's t-test (independent draws: within 4 Monte Carlo SEs)."""
    sizes = [5, 10, 15, 20]
    c = sq.efficacy_bounds(np.asarray(sizes) / 20, 0.05)
    law = TLaw(sizes)
    for d in (0.0, 0.6):
        up, any_ = _brute(sizes, d, c, 20_000, 7)
        mine = law.power(d, c) if d else law.type_one(c)
        ref = up if d else any_
        assert abs(mine - ref) < 4 * np.sqrt(ref * (1 - ref) * (1 / 20_000 + 1 / law.runs))


def test_under_no_effect_each_look_is_standard_normal():
    z = TLaw([3, 6, 9]).z(0.0)
    assert all(stats.kstest(z[:, k], "norm").pvalue > 1e-3 for k in range(3))


def test_t_law_power_is_below_the_normal_models_at_twenty_trials():
    """The issue's case: --max-trials 20 --looks 4, α = 0.01; the normal model's 0.80 is about
    0.70 on the efficacy bounds alone (less with the futility bound acted on)."""
    sizes = sq.look_sizes(20, 4)
    t = np.asarray(sizes) / 20
    c = sq.efficacy_bounds(t, 0.01)
    eta = sq.drift_for_power(t, c, 0.8)
    real = TLaw(sizes).power(eta / np.sqrt(20), c)
    assert 0.65 < real < 0.75
    big = sq.look_sizes(400, 4)             # many trials: the t law is the normal one
    tb = np.asarray(big) / 400
    cb = sq.efficacy_bounds(tb, 0.01)
    eb = sq.drift_for_power(tb, cb, 0.8)
    assert TLaw(big).power(eb / np.sqrt(400), cb) == pytest.approx(0.8, abs=0.015)
    fb, beta = TLaw(big).futility(eb / np.sqrt(400), cb)
    assert beta == pytest.approx(0.2, abs=0.015)
    assert np.max(np.abs(fb - sq.futility_bounds(tb, cb, eb)[0])) < 0.05


def test_the_monitor_states_the_t_law_power_and_its_range():
    sizes = sq.look_sizes(20, 4)
    m = sq.Monitor(sizes, alpha=0.01, correction="none")
    c = {"key": "A", "p": 0.5, "value": 0.1, "sign": 1, "sd": 1.0, "n": 5, "effect": 0.9, "family": None}
    for k in range(4):
        m.look(k, [{**c, "n": sizes[k]}])
        if m.done(["A"]):
            break
    d = m.decisions["A"]
    assert d["power"] == pytest.approx(TLaw(sizes).power(0.9, m.bounds(0.01), acted=True))
    assert d["power_range"][0] < d["power"] < d["power_range"][1] and d["law"] == "t"
    normal = sq.Monitor(sizes, alpha=0.01, correction="none", law="normal")
    assert normal.power(c, normal.bounds(0.01)) > d["power"] + 0.05


def test_look_one_at_five_trials_is_futility_only():
    """--max-trials 20 --looks 4 at α/6: look 1 (5 trials) needs t₄ ≥ 598; the monitor's row says so."""
    sizes = sq.look_sizes(20, 4)
    m = sq.Monitor(sizes, alpha=0.01 / 6, correction="none")
    rows = m.look(0, [{"key": "A", "p": 0.5, "value": 0.1, "sign": 1, "sd": 1.0, "n": 5, "effect": 0.9,
                       "family": None}])
    assert rows[0]["note"].startswith("futility-only") and "268" in rows[0]["note"]
    only, need = futility_only(5, m.bounds(0.01 / 6)[0])
    assert only and stats.t.sf(need * np.sqrt(5), 4) == pytest.approx(stats.norm.sf(m.bounds(0.01 / 6)[0]), rel=1e-6)
    assert not futility_only(10, m.bounds(0.01 / 6)[1])[0]
    assert futility_only(5, 3.0, "permutation")[0]        # 2/2^5 = 0.0625 > the bound's p


def test_small_maxima_are_warned_with_the_measured_alpha():
    """Type I of --trials auto at small maxima (documented in docs/statistics.md): about 0.0113
    at 5 trials, 0.0109 at 10, 0.0104 at 20 (α = 0.01); a maximum whose real α exceeds α by more
    than 10% is warned with its figure."""
    small, ten, twenty = sq.look_sizes(5, 4), sq.look_sizes(10, 5), sq.look_sizes(20, 4)
    assert real_alpha(tuple(small), 0.01) > 0.011 and "0.011" in alpha_warning(small, 0.01)
    assert real_alpha(tuple(ten), 0.01) < 0.011 and alpha_warning(ten, 0.01) is None
    assert alpha_warning(twenty, 0.01) is None and alpha_warning(small, 0.05) is not None


@pytest.mark.slow
def test_stated_power_is_the_protocols_at_a_maximum_of_twenty(monkeypatch):
    """The bench's check, small: normal differences run through the monitor (futility at the SD
    observed at each look) reject at the rate the design states (within 4 Monte Carlo SEs).

    The monitor and the stated power share one law of ``draws`` draws (the library's is 20,000,
    each look's futility bound a pass over all of them: most of this test's time). The
    comparison stays exact in expectation, as both the bounds and the stated power are that
    law's; its own Monte Carlo error enters the tolerance (4 SEs of the difference, 1/runs +
    1/draws: 0.070 at the stated 0.803), which still fails the normal model's stated 0.80 for a
    real 0.67 (module docstring of :mod:`ltrrepro.inference.tlaw`)."""
    sizes, alpha, d, runs, draws = sq.look_sizes(20, 4), 0.01, 0.88, 600, 4000
    law = TLaw(tuple(sizes), runs=draws)
    monkeypatch.setattr(sq, "t_law", lambda s: law if tuple(s) == tuple(sizes) else TLaw(s, runs=draws))
    m = sq.Monitor(sizes, alpha=alpha, correction="none")
    stated = m.power({"effect": d, "sd": 1.0}, m.bounds(alpha))
    x = np.random.default_rng(11).standard_normal((runs, 20)) + d
    wins = 0
    for i in range(runs):
        mon = sq.Monitor(sizes, alpha=alpha, correction="none", inference=False)
        mon._bounds = m._bounds
        for k, n in enumerate(sizes):
            xs = x[i, :n]
            mon.look(k, [{"key": "A", "p": float(stats.ttest_1samp(xs, 0.0).pvalue), "value": float(xs.mean()),
                          "sign": 1, "sd": float(xs.std(ddof=1)), "n": n, "effect": d, "family": None}])
            if mon.done(["A"]):
                break
        wins += mon.decisions["A"]["stop"] == sq.EFFICACY
    assert abs(wins / runs - stated) < 4 * np.sqrt(stated * (1 - stated) * (1 / runs + 1 / draws))

"""``--estimate``'s expected trials of an auto run under the law the monitor uses (issue 38): the
looks' t-tests, with the futility bound of a claim powered at the design effect acted on."""
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats

from experiments.sequential_report import estimate_lines
from ltrrepro.inference import sequential as sq
from ltrrepro.inference.tlaw import TLaw


def _raw_expected(sizes, d, powered, c, law, runs=20_000, seed=11):
    """Expected trials from raw normal differences through scipy's t-test, the futility bound
    read from the law's table at the powered effect over each look's observed SD."""
    x = np.random.default_rng(seed).standard_normal((runs, sizes[-1])) + d
    grid, table = law.futility_table(c)
    n_at = np.full(runs, sizes[-1])
    open_ = np.ones(runs, bool)
    for k, n in enumerate(sizes):
        z = sq.z_from_p(stats.ttest_1samp(x[:, :n], 0.0, axis=1).pvalue, x[:, :n].mean(1))
        low = np.interp(np.clip(powered / x[:, :n].std(1, ddof=1), grid[0], grid[-1]), grid, table[:, k])
        stop = open_ & ((np.abs(z) >= c[k]) | (z < low))
        n_at[stop] = n
        open_ &= ~stop
    return n_at.mean(), n_at.std()


def test_expected_trials_match_raw_t_tests_and_the_design_effect_is_powered_90():
    sizes = sq.look_sizes(20, 4)
    c = sq.efficacy_bounds(np.asarray(sizes) / 20, 0.01)
    law = TLaw(sizes)
    d = law.effect_for_power(c, 0.9)
    assert law.power(d, c, acted=True) == pytest.approx(0.9, abs=2e-3)
    for true in (0.0, d, 2 * d):
        ref, sd = _raw_expected(sizes, true, d, c, law)
        assert law.expected(true, c, d) == pytest.approx(ref, abs=4 * sd * np.sqrt(2 / 20_000) + 0.05)


def test_estimate_states_the_t_laws_expected_trials_not_the_normal_models():
    """At --max-trials 20 --looks 4 the t law's design effect is larger than the normal model's,
    so the expected trials the estimate states are the t law's (they differ from the normal
    model's numbers)."""
    sizes = sq.look_sizes(20, 4)
    t = np.asarray(sizes) / 20
    c = sq.efficacy_bounds(t, 0.01)
    law = TLaw(sizes)
    d = law.effect_for_power(c, 0.9)
    eta = sq.drift_for_power(t, c, 0.9)
    assert d > eta / np.sqrt(20) * 1.05                   # few trials: the t law needs a larger effect
    lines = estimate_lines(SimpleNamespace(trials=20, looks=4), SimpleNamespace(records=lambda: []), [], [], 0.01)
    got = [line for line in lines if "expected (t law)" in line]
    assert len(got) == 3
    want = [law.expected(x, c, d) for x in (0.0, d, 2 * d)]
    assert [int(line.split(": ")[1].split(" trials")[0]) for line in got] == [round(w) for w in want]
    b = sq.futility_bounds(t, c, eta)[0]
    normal = [20 * sq.expected_fraction(t, c, e, b) for e in (0.0, eta, 2 * eta)]
    assert not np.allclose(want, normal, atol=0.3)

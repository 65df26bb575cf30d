"""Power at the level a verdict is judged (issue 38, item 1): within a family the power and the
trials for 80% are those at the level the claim's own p is compared with after the correction."""
import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from ltrrepro.inference import Evidence, Expectation, Inference, correct, judge
from ltrrepro.inference.power import paired_power, trials_for_power
from ltrrepro.inference.tests import applied_levels


def test_holm_levels_reproduce_holms_decisions(monkeypatch):
    """A raw p below its level is exactly a Holm rejection (statsmodels), for random families.
    statsmodels' Holm ends with a ``gc.collect()`` (memory hygiene, no part of its decisions),
    which costs up to a second a call in a full test session's heap: disabled here."""
    import gc
    monkeypatch.setattr(gc, "collect", lambda *args: 0)
    rng = np.random.default_rng(3)
    for _ in range(300):
        p = rng.uniform(0, 0.03, rng.integers(1, 8)) ** rng.uniform(0.5, 2)
        lv = applied_levels(p, "holm", 0.01)
        rej = multipletests(p, 0.01, "holm")[0]
        assert ((p < lv) == rej).all(), (p, lv, rej)


def test_bh_levels_reproduce_bh_decisions():
    rng = np.random.default_rng(4)
    for _ in range(300):
        p = rng.uniform(0, 0.05, rng.integers(1, 8))
        lv = applied_levels(p, "bh", 0.01)
        rej = multipletests(p, 0.01, "fdr_bh")[0]
        assert ((p <= lv) == rej).all(), (p, lv, rej)


def _family(ps, sd=0.01, effect=0.01, n=10):
    inf = Inference()
    return [judge(f"c{i}", Evidence(0.004, p, n, "d", sd=sd), Expectation(effect=effect, family="F"), inf)
            for i, p in enumerate(ps)], inf


def test_power_recomputed_at_the_holm_step_where_the_family_stopped():
    """20 claims, none rejected: each is in effect tested at α/20, and its power is that one."""
    claims, inf = _family([0.02 + 0.01 * i for i in range(20)], n=18)
    assert claims[0].power > 0.8                          # at the raw α
    out = correct(claims, inf)
    for c in out:
        assert c.alpha_applied == pytest.approx(0.01 / 20)
        assert c.power == pytest.approx(paired_power(0.01, 0.01, 18, 0.01 / 20))
        assert c.trials_80 == trials_for_power(0.01, 0.01, alpha=0.01 / 20)
        assert c.power < 0.8 and c.verdict == "inconclusive (underpowered)"


def test_a_well_powered_claim_stays_direction_only_at_its_level():
    claims, inf = _family([0.3, 0.4], n=200)
    out = correct(claims, inf)
    assert all(c.alpha_applied == pytest.approx(0.005) and c.power >= 0.8 and c.verdict == "direction only" for c in out)


def test_a_claim_alone_keeps_alpha_and_the_column_is_the_verdicts():
    c = judge("x", Evidence(0.004, 0.3, 30, "d", sd=0.01), Expectation(effect=0.01), Inference())
    (out,) = correct([c], Inference())
    assert out.alpha_applied is None and out.power == pytest.approx(paired_power(0.01, 0.01, 30, 0.01))
    assert "alpha_applied" in out.replace(alpha_applied=0.005).to_dict()


def test_power_calls_scipys_noncentral_t_as_scipy_stats_does_bit_for_bit():
    """The power functions call the special functions behind scipy.stats' ``t.ppf``,
    ``nct.sf`` and ``nct.cdf`` directly (their per-call checks were most of a search's time):
    on this scipy the numbers are scipy.stats' exactly."""
    from scipy import stats

    from ltrrepro.inference.power import welch_power

    def by_stats(df, nc, alpha):
        crit = stats.t.ppf(1.0 - alpha / 2.0, df)
        far, near = stats.nct.cdf(-crit, df, nc), stats.nct.sf(crit, df, nc)
        return float(min(1.0, near + (far if np.isfinite(far) else 0.0)))

    rng = np.random.default_rng(8)
    for _ in range(400):
        effect, s1, s2 = rng.uniform(-0.05, 0.05), rng.uniform(0.001, 0.05), rng.uniform(0.001, 0.05)
        n, m, alpha = int(rng.integers(8, 3000)), int(rng.integers(8, 3000)), float(rng.choice([0.05, 0.01, 0.001]))
        assert paired_power(effect, s1, n, alpha) == by_stats(n - 1, abs(effect / (s1 / np.sqrt(n))), alpha)
        v1, v2 = s1 * s1 / n, s2 * s2 / m
        df = (v1 + v2) ** 2 / (v1 * v1 / (n - 1) + v2 * v2 / (m - 1))
        assert welch_power(effect, s1, n, s2, m, alpha) == by_stats(df, abs(effect) / np.sqrt(v1 + v2), alpha)

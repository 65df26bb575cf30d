"""Group-sequential bounds and inference (ltrrepro.inference.sequential) against published values,
the bivariate normal law (scipy), and simulation of the Brownian-motion model and of paired
t-tests over few trials."""
import numpy as np
import pytest
from scipy import stats

from ltrrepro.inference import sequential as sq

T5 = np.arange(1, 6) / 5


def test_lan_demets_obf_bounds_published():
    """gsDesign sfLDOF / rpact asOF, two-sided α = .05 (α/2 per side), 5 equal looks."""
    c = sq.efficacy_bounds(T5, 0.05, "obf")
    assert np.round(c, 3).tolist() == [4.877, 3.357, 2.680, 2.290, 2.031]


def test_classic_obrien_fleming_bounds_published():
    """O'Brien & Fleming (1979); Jennison & Turnbull table 2.3 (C = 2.040, K = 5, α = .05)."""
    c = sq.obrien_fleming_bounds(T5, 0.05)
    assert np.round(c, 3).tolist() == [4.562, 3.226, 2.634, 2.281, 2.040]


def test_pocock_spending_spends_alpha_and_bounds_are_flat_ish():
    c = sq.efficacy_bounds(T5, 0.05, "pocock")
    up, down = sq.exit_probabilities(-c, c, T5)
    assert up.sum() + down.sum() == pytest.approx(0.05, abs=1e-7)
    cum = np.cumsum(up)                         # each side spends α/2·ln(1 + (e − 1)t)
    assert cum == pytest.approx(0.025 * np.log1p((np.e - 1) * T5), abs=1e-8)
    assert c.max() - c.min() < 0.3              # Pocock-type: nearly constant bounds


@pytest.mark.parametrize("drift", [0.0, 1.3, -0.8])
def test_exit_probabilities_match_the_bivariate_normal(drift):
    t = np.array([0.35, 1.0])
    lo, hi = np.array([-2.2, -1.5]), np.array([2.6, 1.9])
    up, down = sq.exit_probabilities(lo, hi, t, drift)
    r = np.sqrt(t[0] / t[1])
    mvn = stats.multivariate_normal(drift * np.sqrt(t), [[1, r], [r, 1]])

    def box(a1, b1, a2, b2):
        F = lambda x, y: mvn.cdf([x, y])        # noqa: E731
        return F(b1, b2) - F(a1, b2) - F(b1, a2) + F(a1, a2)
    assert up[0] == pytest.approx(stats.norm.sf(hi[0] - drift * np.sqrt(t[0])), abs=1e-10)
    assert up[1] == pytest.approx(box(lo[0], hi[0], hi[1], 40), abs=1e-6)
    assert down[1] == pytest.approx(box(lo[0], hi[0], -40, lo[1]), abs=1e-6)


def _brownian(rng, t, drift, runs):
    """Z_k of the canonical joint law, simulated: S_k = Σ increments N(η·Δ, Δ), Z = S/√t."""
    dt = np.diff(np.concatenate([[0.0], t]))
    s = np.cumsum(rng.normal(drift * dt, np.sqrt(dt), size=(runs, t.size)), axis=1)
    return s / np.sqrt(t)


def _stop(z, c, b=None):
    """Per run: the look (0-based) of the first exit and its kind (+1 up, -1 down/futility, 0 none)."""
    lo = -c if b is None else np.maximum(b, -c)
    up, down = z >= c, z <= lo
    out = up | down
    first = np.where(out.any(1), out.argmax(1), z.shape[1] - 1)
    kind = np.where(up[np.arange(len(z)), first], 1, np.where(down[np.arange(len(z)), first], -1, 0))
    return first, kind


def test_expected_trials_the_issue_quotes():
    """5 OBF-type looks, α = .05 two-sided, designed for 90% power at 100 trials: about 73
    expected trials at the design effect and about 43 at twice it (with the futility bound)."""
    c = sq.efficacy_bounds(T5, 0.05)
    eta = sq.drift_for_power(T5, c, 0.9)
    b, beta = sq.futility_bounds(T5, c, eta)
    assert beta == pytest.approx(0.1, abs=1e-9)
    e1 = 100 * sq.expected_fraction(T5, c, eta, b)
    e2 = 100 * sq.expected_fraction(T5, c, 2 * eta, sq.futility_bounds(T5, c, 2 * eta)[0])
    assert abs(e1 - 73) < 1.5 and abs(e2 - 43) < 1.5
    assert abs(100 * sq.expected_fraction(T5, c, eta) - 73) < 1.5      # without futility: 74.2
    # the same by simulating the canonical joint law
    z = _brownian(np.random.default_rng(0), T5, eta, 40_000)
    first, kind = _stop(z, c, b)
    assert 100 * T5[first].mean() == pytest.approx(e1, abs=0.5)
    first, kind = _stop(z, c)
    assert (kind == 1).mean() == pytest.approx(0.9, abs=0.006)


def test_futility_bound_spends_beta_and_leaves_alpha_alone():
    c = sq.efficacy_bounds(T5, 0.05)
    eta = sq.drift_for_power(T5, c, 0.8)
    b, beta = sq.futility_bounds(T5, c, eta)
    assert b[-1] == c[-1] and np.all(np.diff(b) > 0)
    z = _brownian(np.random.default_rng(1), T5, eta, 40_000)
    first, kind = _stop(z, c, b)
    interim = (kind == -1) & (first < 4)        # futility exits before the last look: β spent by t_4
    assert interim.mean() == pytest.approx(float(sq.obf_spending(T5[3], beta)), abs=0.005)
    assert (kind == 1).mean() < 0.8             # acted on, the bound costs some power (the maximum is fixed)
    z0 = _brownian(np.random.default_rng(2), T5, 0.0, 40_000)
    _, k0 = _stop(z0, c)                        # non-binding: α is that of the efficacy bounds alone
    assert (k0 != 0).mean() == pytest.approx(0.05, abs=0.0035)


def test_stagewise_p_is_consistent_with_the_bounds():
    c = sq.efficacy_bounds(T5, 0.05)
    up, _ = sq.exit_probabilities(-c, c, T5)
    for k in range(5):                          # at the bound of look k: 2 × the α spent per side so far
        assert sq.stagewise_p(T5[:k + 1], c, c[k]) == pytest.approx(2 * up[:k + 1].sum(), rel=1e-5)
    assert sq.stagewise_p([1.0], [np.inf], 2.5) == pytest.approx(2 * stats.norm.sf(2.5))
    # an earlier stop is more extreme than any later one
    assert sq.stagewise_p(T5[:2], c, c[1] + 0.01) < sq.stagewise_p(T5[:3], c, 6.0)


def test_stagewise_p_is_uniform_under_the_null():
    rng = np.random.default_rng(3)
    t = np.array([0.25, 0.5, 0.75, 1.0])
    c = sq.efficacy_bounds(t, 0.2)             # a wide α, so that early stops happen
    z = _brownian(rng, t, 0.0, 300)
    first, _ = _stop(z, c)
    p = np.array([sq.stagewise_p(t[:k + 1], c, z[i, k]) for i, k in enumerate(first)])
    assert stats.kstest(p, "uniform").pvalue > 0.01
    assert (p <= 0.2).mean() == pytest.approx((first < 3).mean() + (np.abs(z[:, 3]) >= c[3])[first == 3].sum() / 300,
                                              abs=1e-9)


def test_stagewise_ci_covers_the_drift():
    rng = np.random.default_rng(4)
    c = sq.efficacy_bounds(T5, 0.05)
    eta = 3.0
    z = _brownian(rng, T5, eta, 400)
    first, _ = _stop(z, c)
    ends = np.array([sq.stagewise_ci(T5[:k + 1], c, z[i, k])[:2] for i, k in enumerate(first)])
    covered = (ends[:, 0] <= eta) & (eta <= ends[:, 1])
    assert covered.mean() == pytest.approx(0.95, abs=0.033)             # 3 standard errors
    low, high, est = sq.stagewise_ci([1.0], [np.inf], 1.0)
    assert (low, high, est) == pytest.approx((1 - 1.959964, 1 + 1.959964, 1.0), abs=1e-6)


@pytest.mark.parametrize("alpha,max_trials", [(0.01, 20), (0.05, 100)])
def test_small_n_looks_keep_alpha(alpha, max_trials):
    """Looks over few trials: each look's paired t-test p (n − 1 df) becomes the z with the
    same two-sided p (z_from_p) and is held to the z bounds. Simulated on normal paired
    differences: the type I error is α within 3 standard errors."""
    rng = np.random.default_rng(5)
    sizes = sq.look_sizes(max_trials, 4 if max_trials == 20 else 5)
    c = sq.efficacy_bounds(np.array(sizes) / max_trials, alpha)
    runs = 20_000
    d = rng.standard_normal((runs, max_trials))
    rejected = np.zeros(runs, bool)
    for n, ck in zip(sizes, c):
        x = d[:, :n]
        p = stats.ttest_1samp(x, 0.0, axis=1).pvalue
        z = sq.z_from_p(p, x.mean(1))
        rejected |= np.abs(z) >= ck
    se = np.sqrt(alpha * (1 - alpha) / runs)
    assert rejected.mean() <= alpha + 3 * se


def test_look_sizes_and_bad_fractions():
    assert sq.look_sizes(100, 5) == [20, 40, 60, 80, 100]
    assert sq.look_sizes(3, 5) == [2, 3]
    with pytest.raises(ValueError):
        sq.efficacy_bounds([0.5, 0.5, 1.0], 0.05)
    with pytest.raises(ValueError):
        sq.futility_bounds([0.5, 0.8], [3.0, 2.5], 2.0)


def test_design_expected_trials():
    d = sq.Design(max_trials=100, looks=5, alpha=0.05)
    assert np.round(d.bounds(), 3).tolist() == [4.877, 3.357, 2.680, 2.290, 2.031]
    eta = sq.drift_for_power(d.fractions(), d.bounds(), 0.9)
    assert d.expected(eta) == pytest.approx(100 * sq.expected_fraction(
        d.fractions(), d.bounds(), eta, sq.futility_bounds(d.fractions(), d.bounds(), eta)[0]))
    assert d.expected(0.0, futility=False) > 99


def _entry(key, z, family="f", effect=float("nan"), n=50):
    """A claim whose own two-sided p is that of ``z`` (value of z's sign, SD 1)."""
    return {"key": key, "p": float(2 * stats.norm.sf(abs(z))), "value": float(np.sign(z) or 1.0) * 0.1, "sign": 1,
            "sd": 1.0, "n": n, "effect": effect, "family": family}


def test_monitor_recycles_alpha_within_a_family():
    """Holm-type recycling (Maurer & Bretz 2013): B sits between the bounds at α/2 and α; once A
    is rejected at α/2, B is tested at α at the same look and rejected; with no correction both
    are tested at α from the start; a claim of another family is tested alone."""
    sizes = [25, 50, 75, 100]
    m = sq.Monitor(sizes, alpha=0.05)
    c_half, c_full = m.bounds(0.025)[1], m.bounds(0.05)[1]
    za, zb = c_half + 0.1, (c_half + c_full) / 2
    m.look(0, [_entry("A", 0.0), _entry("B", 0.0)])
    rows = m.look(1, [_entry("A", za), _entry("B", zb)])
    assert {r["claim"]: r["decision"] for r in rows} == {"A": sq.EFFICACY, "B": sq.EFFICACY}
    assert m.decisions["A"]["alpha"] == 0.025 and m.decisions["B"]["alpha"] == 0.05
    alone = sq.Monitor(sizes, alpha=0.05)
    alone.look(0, [_entry("B", 0.0)])
    assert alone.look(1, [_entry("B", zb, family=None), _entry("A", 0.0, family="other")])[0]["decision"] == \
        sq.EFFICACY
    held = sq.Monitor(sizes, alpha=0.05)            # without A's rejection B waits at α/2
    held.look(0, [_entry("A", 0.0), _entry("B", 0.0)])
    assert {r["decision"] for r in held.look(1, [_entry("A", 0.0), _entry("B", zb)])} == {sq.CONTINUE}


def test_monitor_settles_futility_and_the_maximum_with_stagewise_inference():
    sizes = [20, 40, 60]
    m = sq.Monitor(sizes, alpha=0.05, correction="none", law="normal")
    # powered against an effect of 0.5 SD at 60 trials (drift 3.9, b_1 = −1.36): a z of −1.5 is futile
    m.look(0, [_entry("F", -1.5, effect=0.5), _entry("O", 0.5)])
    assert m.decisions["F"]["stop"] == sq.FUTILITY and "O" not in m.decisions
    assert m.decisions["F"]["power"] == pytest.approx(
        sq.exit_probabilities(-m.bounds(0.05), m.bounds(0.05), m.t, 0.5 * np.sqrt(60))[0].sum())
    m.look(1, [_entry("F", 3.0, effect=0.5), _entry("O", 1.0)])
    assert m.decisions["F"]["look"] == 1                                  # settled stays settled
    m.look(2, [_entry("F", 3.0, effect=0.5), _entry("O", 1.5)])
    d = m.decisions["O"]
    assert d["stop"] == sq.MAXIMUM and d["trials"] == 60
    assert d["p_stagewise"] == pytest.approx(sq.stagewise_p(m.t, m.bounds(0.05), 1.5))
    se = 0.1 / 1.5                                  # |value|/|z|: the SE that gives the claim's own p
    low, high, _ = sq.stagewise_ci(m.t, m.bounds(0.05), 1.5)
    assert d["ci"] == pytest.approx((low * se, high * se))


def test_monitor_keeps_the_familywise_error():
    """Three null claims of one family, four looks: the probability that any is rejected is at
    most α (simulated, 3 standard errors)."""
    rng = np.random.default_rng(6)
    sizes, alpha, runs = [10, 20, 30, 40], 0.05, 1500
    proto = sq.Monitor(sizes, alpha=alpha)
    for a in (alpha, alpha / 2, alpha / 3):
        proto.bounds(a)
    z = _brownian(rng, np.asarray(sizes) / 40, 0.0, 3 * runs).reshape(runs, 3, 4)
    any_rejected = 0
    for r in range(runs):
        m = sq.Monitor(sizes, alpha=alpha, inference=False)
        m._bounds = proto._bounds
        for k in range(4):
            m.look(k, [_entry(name, z[r, i, k]) for i, name in enumerate("ABC")])
            if m.done("ABC"):
                break
        any_rejected += any(d["stop"] in (sq.EFFICACY, sq.CONTRADICTED) for d in m.decisions.values())
    assert any_rejected / runs <= alpha + 3 * np.sqrt(alpha * (1 - alpha) / runs)

"""PL-Rank-3 with the sampled Hessian (ltrrepro/objectives/plrank.py): its gradient and
diagonal Hessian equal the exact ones — enumerated over every ranking of lists of ≤ 6
documents — within the sampling error; the enumeration itself equals finite differences of
the exact expected DCG@K; one seed, one answer; lists together equal lists apart; it trains in
XGBoost and (with a positive Hessian policy) LightGBM through the fit layer."""
import itertools

import numpy as np
import pytest

from ltrrepro import make_synthetic
from ltrrepro.fit import Boosting
from ltrrepro.fit.base import System
from ltrrepro.fit.ranking import RankingOptions, RankingTrainer
from ltrrepro.objectives import HESS_FLOOR, LightGBMObjective, PLRank, XGBoostObjective
from ltrrepro.objectives.base import check_grad_hess


def exact_pl(scores, labels, cutoff):
    """(R, ∂R, diag ∂²R) of R = E_π[DCG@cutoff] (gain 2^y − 1, weight 1/log2(rank + 1)) under the
    Plackett–Luce policy of ``scores``, summed over all m! rankings y with π(y) = Π_k e^{f_{y_k}}/D_k:
    ∂R = Σ π R(y) ∇log π, ∂²_dd R = Σ π R(y) ((∂_d log π)² + ∂²_dd log π), the log-derivatives
    taken over the first K' = min(cutoff, m) placements (what the metric sees)."""
    s = np.asarray(scores, float)
    m = s.shape[0]
    e = np.exp(s - s.max())
    gain = 2.0 ** np.asarray(labels) - 1.0
    K = min(cutoff, m)
    theta = 1.0 / np.log2(np.arange(K) + 2.0)
    R, g, h = 0.0, np.zeros(m), np.zeros(m)
    for y in itertools.permutations(range(m)):
        left = np.ones(m, bool)
        p, dlog, d2log = 1.0, np.zeros(m), np.zeros(m)
        for k, d in enumerate(y):
            D = e[left].sum()
            p *= e[d] / D
            if k < K:
                pr = np.where(left, e / D, 0.0)
                dlog -= pr
                dlog[d] += 1.0
                d2log -= pr * (1.0 - pr)
            left[d] = False
        value = float(theta @ gain[list(y[:K])])
        R += p * value
        g += p * value * dlog
        h += p * value * (dlog ** 2 + d2log)
    return R, g, h


#: small lists: sizes 2–6, ties in labels and scores, a spread of scores, cutoffs below, at and above m
LISTS = [
    ([0.3, -0.5, 1.0, 0.0, 0.2], [2, 0, 1, 3, 0], 2),
    ([0.3, -0.5, 1.0, 0.0, 0.2], [2, 0, 1, 3, 0], 5),
    ([0.0, 0.0], [1, 0], 10),
    ([0.5, -0.2, 0.0], [1, 2, 0], 10),
    ([0.0, 0.0, 0.0, 0.0], [1, 1, 0, 2], 3),
    ([1.5, -1.0, 0.4, 2.0, -0.3, 0.1], [0, 1, 4, 2, 0, 1], 3),
    ([1.5, -1.0, 0.4, 2.0, -0.3, 0.1], [0, 1, 4, 2, 0, 1], 1),
    ([-2.0, 3.0, 0.5], [3, 0, 1], 2),
    ([6.0, 4.0, -3.0, -4.0, -2.5], [1, 2, 0, 3, 1], 2),     # the top 2 hold all but 1e-4 of the mass
]


def _flat(lists):
    scores = np.concatenate([np.asarray(s, float) for s, _, _ in lists])
    labels = np.concatenate([np.asarray(y) for _, y, _ in lists])
    offsets = np.r_[0, np.cumsum([len(s) for s, _, _ in lists])]
    return scores, labels, offsets


@pytest.mark.parametrize("scores, labels, cutoff", LISTS)
def test_the_enumeration_equals_finite_differences_of_the_exact_expected_dcg(scores, labels, cutoff):
    s = np.asarray(scores, float)
    R, g, h = exact_pl(s, labels, cutoff)
    I = np.eye(s.shape[0])
    e1, e2 = 1e-5, 1e-3
    fd1 = np.array([(exact_pl(s + e1 * u, labels, cutoff)[0] - exact_pl(s - e1 * u, labels, cutoff)[0]) / (2 * e1)
                    for u in I])
    fd2 = np.array([(exact_pl(s + e2 * u, labels, cutoff)[0] - 2 * R + exact_pl(s - e2 * u, labels, cutoff)[0]) / e2 ** 2
                    for u in I])
    # central differences: truncation O(e²·f''') and rounding O(ε·R/e), O(ε·R/e²)
    np.testing.assert_allclose(g, fd1, rtol=0, atol=1e-8)
    np.testing.assert_allclose(h, fd2, rtol=0, atol=1e-5)


N_BIG, N_SMALL, REPEATS = 1_600_000, 2_000, 40


@pytest.mark.parametrize("cutoff", sorted({c for _, _, c in LISTS}))
def test_gradient_and_hessian_equal_the_enumeration_within_sampling_error(cutoff):
    """All lists of that cutoff at once (the kernel runs them together). The tolerance is 5
    standard errors at N_BIG: the per-document standard deviation of the estimate at N_SMALL,
    measured over REPEATS seeds, times √(N_SMALL / N_BIG) (the estimate is a mean of N iid
    terms), plus rounding. It fails (cutoffs 2–10) when the kernel drops the Hessian's last term
    e^{2f}(r DS − RS), writes (1 − g) for (1 + g), or drops PR from the gradient."""
    lists = [t for t in LISTS if t[2] == cutoff]
    scores, labels, offsets = _flat(lists)
    exact_g = np.concatenate([exact_pl(s, y, cutoff)[1] for s, y, _ in lists])
    exact_h = np.concatenate([exact_pl(s, y, cutoff)[2] for s, y, _ in lists])
    small = PLRank(n_samples=N_SMALL, cutoff=cutoff)
    reps = [small.expected(scores, labels, offsets, np.random.default_rng(100 + i)) for i in range(REPEATS)]
    se_g = np.std([r[0] for r in reps], axis=0, ddof=1) * np.sqrt(N_SMALL / N_BIG)
    se_h = np.std([r[1] for r in reps], axis=0, ddof=1) * np.sqrt(N_SMALL / N_BIG)
    g, h = PLRank(n_samples=N_BIG, cutoff=cutoff).expected(scores, labels, offsets, np.random.default_rng(7))
    # plus the rounding of sums of N_BIG terms (ε · N_BIG ≈ 4e-10) where the error is nil (a tie)
    assert np.all(np.abs(g - exact_g) <= 5 * se_g + 1e-9), np.c_[g, exact_g, se_g]
    assert np.all(np.abs(h - exact_h) <= 5 * se_h + 1e-9), np.c_[h, exact_h, se_h]
    # the tolerance is tight: well below the size of what it checks
    assert (5 * se_h).max() < 0.05 * np.abs(exact_h).max()
    # and the objective hands the library the negatives (objectives minimise −R)
    gg, hh = PLRank(n_samples=N_BIG, cutoff=cutoff).grad_hess(scores, labels, offsets, rng=np.random.default_rng(7))
    np.testing.assert_array_equal(gg, -g)
    np.testing.assert_array_equal(hh, -h)


def test_labels_all_zero_give_zero_and_one_document_lists_give_zero():
    scores, labels, offsets = np.array([0.1, -0.4, 2.0, 0.5]), np.array([0, 0, 0, 3]), np.array([0, 3, 4])
    g, h = PLRank(n_samples=50).expected(scores, labels, offsets, np.random.default_rng(0))
    np.testing.assert_array_equal(g, 0.0)
    np.testing.assert_array_equal(h, 0.0)


def test_one_seed_one_answer_and_the_seed_matters():
    scores, labels, offsets = _flat(LISTS)
    obj = PLRank(n_samples=50, cutoff=3)
    a = obj.grad_hess(scores, labels, offsets, rng=np.random.default_rng(3))
    b = obj.grad_hess(scores, labels, offsets, rng=np.random.default_rng(3))
    c = obj.grad_hess(scores, labels, offsets, rng=np.random.default_rng(4))
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[0], c[0])
    # a round draws one key per list from the generator, so the next round differs
    rng = np.random.default_rng(3)
    first, second = obj.grad_hess(scores, labels, offsets, rng=rng), obj.grad_hess(scores, labels, offsets, rng=rng)
    assert not np.array_equal(first[0], second[0])


def test_lists_together_equal_lists_apart(rng):
    from conftest import random_lists

    scores, labels, offsets = random_lists(rng, n_queries=30, max_size=40)
    keys = rng.integers(0, 2 ** 63 - 1, size=offsets.shape[0] - 1)
    obj = PLRank(n_samples=64, cutoff=5, hessian_policy="abs")
    g, h = obj.grad_hess(scores, labels, offsets, keys=keys)
    for q in range(offsets.shape[0] - 1):
        a, b = offsets[q], offsets[q + 1]
        gq, hq = obj.grad_hess(scores[a:b], labels[a:b], [0, b - a], keys=keys[q:q + 1])
        np.testing.assert_array_equal(g[a:b], gq)
        np.testing.assert_array_equal(h[a:b], hq)


def test_hessian_policies(rng):
    from conftest import random_lists

    scores, labels, offsets = random_lists(rng, n_queries=30, max_size=30)
    raw = PLRank(n_samples=32).grad_hess(scores, labels, offsets, rng=np.random.default_rng(1))[1]
    clip = PLRank(n_samples=32, hessian_policy="clip").grad_hess(scores, labels, offsets, rng=np.random.default_rng(1))[1]
    ab = PLRank(n_samples=32, hessian_policy="abs").grad_hess(scores, labels, offsets, rng=np.random.default_rng(1))[1]
    assert (raw < 0).any() and (raw > 0).any()          # the estimate is not sign-constrained
    np.testing.assert_array_equal(clip, np.maximum(raw, HESS_FLOOR))
    np.testing.assert_array_equal(ab, np.maximum(np.abs(raw), HESS_FLOOR))
    assert PLRank().negative_hessians and not PLRank(hessian_policy="clip").negative_hessians
    with pytest.raises(FloatingPointError, match="negative or non-finite Hessian"):
        check_grad_hess(np.zeros_like(raw), raw, "plrank", 0)
    check_grad_hess(np.zeros_like(raw), raw, "plrank", 0, allow_negative=True)
    with pytest.raises(FloatingPointError, match="non-finite Hessian"):
        check_grad_hess(np.zeros(2), np.array([-1.0, np.nan]), "plrank", 0, allow_negative=True)
    with pytest.raises(ValueError, match="hessian_policy: one of none, clip, abs, not 'floor'"):
        PLRank(hessian_policy="floor")
    with pytest.raises(ValueError, match="pass a seeded np.random.Generator"):
        PLRank().grad_hess(scores, labels, offsets)


def test_lightgbm_refuses_negative_hessians_in_one_line_and_xgboost_takes_them():
    with pytest.raises(ValueError, match=r"^plrank: its Hessians may be negative .* hessian_policy='clip' or 'abs'\) "
                                         r"or train it in XGBoost$"):
        LightGBMObjective(PLRank())
    LightGBMObjective(PLRank(hessian_policy="clip"))
    XGBoostObjective(PLRank())


@pytest.fixture(scope="module")
def parts():
    ds = make_synthetic("web30k", n_queries=30, seed=5)
    idx = np.arange(ds.n_queries)
    return ds.subset(idx[:20]), ds.subset(idx[20:25]), ds.subset(idx[25:])


@pytest.mark.parametrize("library, policy", [("xgboost", "none"), ("xgboost", "clip"), ("lightgbm", "clip"),
                                             ("lightgbm", "abs")])
def test_it_trains_through_the_fit_layer(parts, library, policy):
    train, valid, test = parts
    system = System("plrank_test", "PL-Rank-3", RankingTrainer, family="plrank", variant="custom",
                    options=RankingOptions(objective=PLRank, objective_kwargs=(("n_samples", 20), ("cutoff", 5),
                                                                               ("hessian_policy", policy))))
    b = Boosting(learning_rate=0.1, num_leaves=4, min_data_in_leaf=5, max_bin=15, rounds=4, early_stopping=None)

    def run(seed):
        tr = system.trainer(b, library=library, seed=np.random.SeedSequence(seed), threads=1)
        tr.add_train(train)
        tr.add_valid(valid)
        return tr.fit()

    fitted = run(2)
    scores = fitted.scores(test.X)
    assert fitted.n_rounds == 4 and np.isfinite(scores).all() and np.ptp(scores) > 0
    np.testing.assert_array_equal(scores, run(2).scores(test.X))      # the rankings come from the unit's seed


def exact_top2(scores, labels):
    """(R, ∂R, diag ∂²R) of E_π[DCG@2] for any m, by central differences of the closed form
    R = θ₀ Σ_i p_i r_i + θ₁ Σ_i p_i (Σ_{j≠i} e_j r_j) / (S − e_i), p_i = e_i / S."""
    gain = 2.0 ** np.asarray(labels) - 1.0
    t0, t1 = 1.0, 1.0 / np.log2(3.0)

    def R(f):
        e = np.exp(f - f.max())
        S = e.sum()
        p = e / S
        return t0 * p @ gain + t1 * p @ ((e @ gain - e * gain) / (S - e))

    s = np.asarray(scores, float)
    I = np.eye(s.shape[0])
    e1, e2 = 1e-5, 1e-3
    g = np.array([(R(s + e1 * u) - R(s - e1 * u)) / (2 * e1) for u in I])
    h = np.array([(R(s + e2 * u) - 2 * R(s) + R(s - e2 * u)) / e2 ** 2 for u in I])
    return R(s), g, h


def test_long_lists_equal_the_closed_form_within_sampling_error():
    """Lists longer than those enumerated above (40 and 150 documents), where the kernel ranks
    only the keys under a per-list threshold: at K = 2 the gradient and Hessian equal central
    differences of the closed-form E[DCG@2] within 6 standard errors of the mean of 20 seeds'
    estimates (the standard error from their spread: a document rarely in the top 2 has a
    per-sample spread that a few thousand samples underestimate). It fails when the threshold
    keeps too few keys and the fallback does not rank them all."""
    rng = np.random.default_rng(11)
    lists = [(rng.normal(size=m) * sd, rng.integers(0, 5, size=m), 2) for m, sd in ((40, 1.0), (150, 2.0))]
    scores, labels, offsets = _flat(lists)
    parts = [exact_top2(s, y) for s, y, _ in lists]
    exact_g, exact_h = np.concatenate([p[1] for p in parts]), np.concatenate([p[2] for p in parts])
    obj, repeats = PLRank(n_samples=50_000, cutoff=2), 20
    reps = np.array([obj.expected(scores, labels, offsets, np.random.default_rng(100 + i)) for i in range(repeats)])
    g, h = reps.mean(axis=0)
    se_g, se_h = reps.std(axis=0, ddof=1) / np.sqrt(repeats)
    # plus the central differences' own error (truncation and rounding, as in the enumeration test)
    assert np.all(np.abs(g - exact_g) <= 6 * se_g + 1e-7), np.c_[g, exact_g, se_g]
    assert np.all(np.abs(h - exact_h) <= 6 * se_h + 1e-4), np.c_[h, exact_h, se_h]
    # the tolerance is tight: well below the size of what it checks
    assert (6 * se_g).max() < 0.05 * np.abs(exact_g).max()
    assert (6 * se_h).max() < 0.05 * np.abs(exact_h).max()


def test_ranking_by_counting_orders_like_a_stable_sort_ties_included():
    """The kernel's selection of a sample's top K (each key's rank counted over a padded buffer)
    gives the stable sort's first K, also where keys are equal (a tie shares a count and is
    ranked again), whatever the tie's place: inside the top K, at rank K − 1, below."""
    from ltrrepro.objectives.plrank import _LANES, _rank_into

    rng = np.random.default_rng(5)
    for trial in range(400):
        c = int(rng.integers(1, 41))
        K = int(rng.integers(1, 13))
        K = min(K, c)
        keys = rng.integers(0, 6 if trial % 2 else 10 ** 9, size=c).astype(float)
        cp = -(-c // _LANES) * _LANES
        buf = np.r_[keys, np.full(cp - c, np.inf)]
        idx = np.arange(100, 100 + c)
        top, tkey = np.empty(K + 1, np.int64), np.empty(K + 1)
        _rank_into(buf, idx, c, cp, K, top, tkey)
        np.testing.assert_array_equal(top[:K], idx[np.argsort(keys, kind="stable")[:K]])


def test_the_same_numbers_whatever_the_thread_count():
    """Lists run in parallel over numba's threads; a list's rankings depend on its key only."""
    import numba

    from conftest import random_lists
    from ltrrepro.objectives.plrank import plrank3_kernel

    scores, labels, offsets = random_lists(np.random.default_rng(3), n_queries=200, max_size=60)
    keys = np.random.default_rng(4).integers(0, 2 ** 63 - 1, size=offsets.shape[0] - 1).view(np.uint64)
    gains = 2.0 ** labels - 1.0
    theta = 1.0 / np.log2(np.arange(10) + 2.0)
    before = numba.get_num_threads()
    out = []
    try:
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        for threads in (1, 2, 7):
            g, h = np.empty(scores.shape[0]), np.empty(scores.shape[0])
            plrank3_kernel(scores, gains, offsets, theta, 50, keys, g, h, threads=threads)
            out.append((g, h))
    finally:
        numba.set_num_threads(before)
    for g, h in out[1:]:
        np.testing.assert_array_equal(g, out[0][0])
        np.testing.assert_array_equal(h, out[0][1])
    assert np.abs(out[0][0]).max() > 0


def test_the_race_keys_logarithm_is_within_an_ulp_of_libm():
    """The kernel's −log (fdlibm's algorithm without branches, so that it vectorises) on the
    uniforms it is given — SplitMix64's (j + 0.5)/2⁵³, and the extremes: near 0, near 1, exactly
    1, powers of two and the sides of fdlibm's √2 and mid-range cuts — is within 1 ulp of libm's."""
    import numba

    from ltrrepro.objectives.plrank import _neg_log

    @numba.njit
    def neg_log(u, out):
        for i in range(u.shape[0]):
            out[i] = _neg_log(u[i])

    rng = np.random.default_rng(0)
    j = rng.integers(0, 2 ** 53, size=2_000_000, dtype=np.int64).astype(np.uint64)
    cuts = np.array([1.0 + c / 2.0 ** 20 for c in (0x6A09C, 0x6147A, 0x6B851, 0x6B852)])
    u = np.r_[(j + 0.5) / 2.0 ** 53, 1.0 - np.exp(-rng.uniform(1, 36, 200_000)),
              np.exp(-rng.uniform(0, 37.4, 200_000)), (np.arange(1, 1000) + 0.5) / 2.0 ** 53,
              2.0 ** -np.arange(55.0), np.nextafter(1.0, 0.0), 2.0 ** -54,
              np.ravel([np.nextafter(c, d) * 2.0 ** -e for c in cuts for d in (0, 2) for e in range(3)])]
    got = np.empty_like(u)
    neg_log(u, got)
    ref = -np.log(u)
    assert got[u == 1.0].tolist() == [0.0] * int((u == 1.0).sum())
    nz = ref != 0
    assert np.all(np.abs(got[nz] - ref[nz]) <= np.spacing(np.abs(ref[nz]))), "more than 1 ulp from libm"
    assert np.mean(got == ref) > 0.9


def _splitmix_race_reference(scores, labels, offsets, keys, n_samples, cutoff):
    """(mean Φ, mean Ψ) by the module docstring's formulas, one sample at a time in NumPy: list
    q's sample s ranks by the keys −log U / e^{f} with U from SplitMix64's states
    keys[q] + (s·m + i + 1)·γ (its outputs' top 53 bits, + ½, over 2⁵³), stable order."""
    gamma, m1, m2 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
    gains_all = 2.0 ** np.asarray(labels) - 1.0
    grad, hess = np.zeros(len(scores)), np.zeros(len(scores))
    for q in range(len(offsets) - 1):
        a, b = offsets[q], offsets[q + 1]
        m = b - a
        if m <= 1:
            continue
        f, r = np.asarray(scores[a:b], float), gains_all[a:b]
        e = np.exp(np.maximum(f - f.max(), -300.0))
        K = min(cutoff, m)
        theta = 1.0 / np.log2(np.arange(K) + 2.0)
        with np.errstate(over="ignore"):
            x = np.uint64(keys[q]) + (np.arange(n_samples * m, dtype=np.uint64) + np.uint64(1)) * gamma
            x = (x ^ (x >> np.uint64(30))) * m1
            x = (x ^ (x >> np.uint64(27))) * m2
            x = x ^ (x >> np.uint64(31))
        u = ((x >> np.uint64(11)).astype(float) + 0.5) / 2.0 ** 53
        race = (-np.log(u)).reshape(n_samples, m) / e
        for s in range(n_samples):
            y = np.argsort(race[s], kind="stable")[:K]
            placed = np.zeros(m, bool)
            D = np.empty(K)
            for k in range(K):
                D[k] = e[~placed].sum()
                placed[y[k]] = True
            G = np.r_[np.cumsum((theta * r[y])[::-1])[::-1], 0.0]
            DR, RI = np.cumsum(theta / D), np.cumsum(G[:K] / D)
            DS, RS, C = np.cumsum(theta / D ** 2), np.cumsum(G[:K] / D ** 2), np.cumsum(1.0 / D)
            kappa = np.full(m, K - 1)
            kappa[y] = np.arange(K)
            PR = np.where(placed, G[kappa + 1], 0.0)
            g = placed - e * C[kappa]
            phi = PR + e * (r * DR[kappa] - RI[kappa])
            grad[a:b] += phi / n_samples
            hess[a:b] += (PR * g + (phi - PR) * (1 + g) - e * e * (r * DS[kappa] - RS[kappa])) / n_samples
    return grad, hess


@pytest.mark.parametrize("cutoff", [3, 10])
def test_the_kernel_is_the_splitmix_race_one_sample_at_a_time(cutoff):
    """The kernel — keys of 16 samples at once, Φ and Ψ one sample per vector lane, long lists
    ranking only the keys under a threshold — against a NumPy version of the same race one
    sample at a time (libm's logarithm, a stable sort, the docstring's formulas): the same
    rankings, so the same means up to the order of the sums. N = 37: a last batch part full."""
    rng = np.random.default_rng(8)
    sizes = [2, 5, 11, 24, 33, 60, 140]
    offsets = np.r_[0, np.cumsum(sizes)]
    scores = rng.normal(size=offsets[-1]) * 1.5
    labels = rng.integers(0, 5, size=offsets[-1])
    keys = rng.integers(0, 2 ** 63 - 1, size=len(sizes))
    g, h = PLRank(n_samples=37, cutoff=cutoff).expected(scores, labels, offsets, None, keys=keys)
    rg, rh = _splitmix_race_reference(scores, labels, offsets, keys, 37, cutoff)
    # one ranking different would move a mean by ~|Φ|/N ~ 1e-2; sums in other orders, ~1e-12
    np.testing.assert_allclose(g, rg, rtol=0, atol=1e-9)
    np.testing.assert_allclose(h, rh, rtol=0, atol=1e-9)
    assert np.abs(rh).max() > 0.01

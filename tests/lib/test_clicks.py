"""ltrrepro.clicks: the simulated click logs of the debiasing study — the click rates equal the
model's probabilities (χ² tests that reject a wrong model), the shown lists, the sessions dataset
and the aggregates agree, the cascade is the harness's user, draws are determined by the seed."""
import numpy as np
import pytest
from scipy import stats

from ltrrepro.clicks import click_probabilities, examination, shown_lists, simulate
from ltrrepro.data import RankingDataset
from ltrrepro.noise import cascade_session_clicks

PROBS = click_probabilities(0.1, 1.0, 4)


def _lists(rng, nq=40, m=12):
    y = rng.integers(0, 5, size=nq * m).astype(np.int32)
    offsets = np.arange(0, nq * m + 1, m)
    return y, offsets, rng.normal(size=nq * m)


def _chi2_p(clicks, n, prob):
    """Pearson's χ² of binomial counts ``clicks`` of ``n`` trials against probabilities ``prob``
    (a cell of probability 0 or 1 must be exact: else the p-value is 0)."""
    sure = (prob <= 0) | (prob >= 1)
    if not np.array_equal(clicks[sure], n * prob[sure]):
        return 0.0
    c, p = clicks[~sure], prob[~sure]
    return stats.chi2.sf((((c - n * p) ** 2) / (n * p * (1 - p))).sum(), c.size)


def test_click_probabilities_and_examination_by_hand():
    assert np.allclose(PROBS, [0.1, 0.16, 0.28, 0.52, 1.0])        # Ai et al.'s generator's values
    assert np.allclose(click_probabilities(0.0, 1.0, 2), [0, 1 / 3, 1])
    assert np.allclose(examination(4, 2.0), [1, 1 / 4, 1 / 9, 1 / 16])
    assert np.allclose(examination(12, 1.0, "eyetracking")[[0, 9, 11]], [0.68, 0.06, 0.06])
    with pytest.raises(ValueError):
        click_probabilities(0.5, 0.2, 4)


def test_shown_lists_are_each_querys_top_k_in_score_order(rng):
    y, offsets, s = _lists(rng, 5, 7)
    rows, sizes = shown_lists(s, offsets, 3)
    assert sizes.tolist() == [3] * 5
    for q in range(5):
        top = offsets[q] + np.argsort(-s[offsets[q]:offsets[q + 1]], kind="stable")[:3]
        assert rows[3 * q:3 * q + 3].tolist() == top.tolist()
    rows, sizes = shown_lists(np.zeros(5), np.array([0, 2, 5]), 10)      # short lists, ties in input order
    assert sizes.tolist() == [2, 3] and rows.tolist() == [0, 1, 2, 3, 4]


def test_pbm_click_rates_equal_the_models_probabilities(rng):
    y, offsets, s = _lists(rng)
    rows, sizes = shown_lists(s, offsets, 10)
    n = 3000
    log = simulate(y, rows, sizes, n, rng, model="pbm", click_probs=PROBS, eta=1.0)
    prob = examination(10, 1.0)[log.position] * PROBS[y[rows]]
    assert _chi2_p(log.clicks, n, prob) > 1e-3
    wrong = examination(10, 1.5)[log.position] * PROBS[y[rows]]          # the test can tell a wrong η
    assert _chi2_p(log.clicks, n, wrong) < 1e-6
    assert np.allclose(log.propensity, examination(10, 1.0)[log.position])


def test_cascade_click_rates_and_examination_equal_the_models(rng):
    y, offsets, s = _lists(rng)
    rows, sizes = shown_lists(s, offsets, 10)
    n = 3000
    log = simulate(y, rows, sizes, n, rng, model="cascade", click_probs=PROBS)
    c = PROBS[y[rows]].reshape(-1, 10)
    above = np.cumprod(np.c_[np.ones(len(c)), 1 - c[:, :-1]], axis=1)    # P(no click above)
    assert np.allclose(log.propensity, above.ravel())
    assert _chi2_p(log.clicks, n, (above * c).ravel()) > 1e-3
    per_session = np.add.reduceat(log.session_clicks, np.arange(0, log.session_clicks.size, 10))
    assert per_session.max() == 1 and per_session.min() == 1           # one click per kept session


def test_cascade_session_clicks_is_the_harness_cascade_user():
    """The same draw as cascade_clicks (u < c per row) and the first candidate kept."""
    p, offs = np.array([0.5, 0.5, 0.5, 0.9, 0.1, 0.9]), np.array([0, 3, 6])
    u = np.random.default_rng(7).random(6)
    got = cascade_session_clicks(p, offs, np.random.default_rng(7))
    cand = u < p
    want = np.zeros(6, bool)
    for a, b in zip(offs[:-1], offs[1:]):
        hit = np.flatnonzero(cand[a:b])
        if hit.size:
            want[a + hit[0]] = True
    assert got.tolist() == want.tolist()


def test_sessions_dataset_agrees_with_the_aggregates(rng):
    y, offsets, s = _lists(rng, 8, 15)
    X = rng.normal(size=(y.size, 3)).astype(np.float32)
    ds = RankingDataset(X=X, y=y, qid=np.repeat(np.arange(8), 15), offsets=offsets)
    rows, sizes = shown_lists(s, offsets, 10)
    log = simulate(y, rows, sizes, 50, rng, click_probs=PROBS, eta=1.0)
    sd, side = log.sessions_dataset(ds)
    assert sd.n_queries == log.session_query.size and sd.y.sum() == log.clicks.sum()
    assert (sd.y.reshape(-1, 10).sum(axis=1) > 0).all()                # only sessions with a click
    assert side["position"].reshape(-1, 10).tolist() == [list(range(10))] * sd.n_queries
    shown = rows.reshape(8, 10)[log.session_query]                       # each session shows its query's list
    assert np.array_equal(sd.X, X[shown.ravel()])
    per_row = np.zeros(rows.size)
    np.add.at(per_row, (log.session_query[:, None] * 10 + np.arange(10)).ravel(), sd.y)
    assert np.array_equal(per_row, log.clicks)                          # aggregated per (query, document, position)
    st = log.stats(10)
    assert np.isclose(sum(st["click_share_by_position"]), 1) and st["sessions"] == 8 * 50


def test_draws_are_determined_by_the_seed(rng):
    y, offsets, s = _lists(rng)
    rows, sizes = shown_lists(s, offsets, 10)
    a = simulate(y, rows, sizes, 20, np.random.default_rng(1), click_probs=PROBS)
    b = simulate(y, rows, sizes, 20, np.random.default_rng(1), click_probs=PROBS)
    c = simulate(y, rows, sizes, 20, np.random.default_rng(2), click_probs=PROBS)
    assert np.array_equal(a.session_clicks, b.session_clicks) and not np.array_equal(a.clicks, c.clicks)
    with pytest.raises(ValueError, match="click model"):
        simulate(y, rows, sizes, 20, rng, model="ubm", click_probs=PROBS)
    with pytest.raises(ValueError, match="grades reach"):
        simulate(y, rows, sizes, 20, rng, click_probs=PROBS[:3])


def _pattern_probs(p, cascade):
    """Every click pattern of one session with rows' probabilities ``p`` and its probability
    given at least one click (enumerated by hand: the rejection sampler's law)."""
    from itertools import product
    out = {}
    for pat in product((0, 1), repeat=len(p)):
        if not any(pat):
            continue
        if cascade and sum(pat) > 1:
            continue
        first = pat.index(1)
        if cascade:
            prob = np.prod([1 - q for q in p[:first]]) * p[first]
        else:
            prob = np.prod([q if c else 1 - q for q, c in zip(p, pat)])
        out[pat] = prob
    total = sum(out.values())
    return {k: v / total for k, v in out.items()}


@pytest.mark.parametrize("model", ["pbm", "cascade"])
def test_redrawn_sessions_follow_the_law_given_a_click(model):
    """``no_click="redraw"``: every session has a click and the click patterns of one query's
    sessions follow P(pattern | at least one click), enumerated (χ² over the patterns); the
    patterns of dropped mode's kept sessions follow the same law (both are that conditional)."""
    y = np.array([2, 0, 1], np.int32)                                   # grades of one 3-document list
    rows, sizes = np.arange(3), np.array([3])
    n = 40_000
    want = _pattern_probs(list(examination(3, 1.0)[:3] * PROBS[y] if model == "pbm" else PROBS[y]), model == "cascade")
    for mode in ("redraw", "drop"):
        log = simulate(y, rows, sizes, n, np.random.default_rng(7), model=model, click_probs=PROBS, eta=1.0,
                       no_click=mode)
        pats = log.session_clicks.reshape(-1, 3)
        assert (pats.sum(1) > 0).all()
        if mode == "redraw":
            assert pats.shape[0] == n and log.stats(3)["share_with_click"] == 1.0
        keys = list(want)
        counts = np.array([np.all(pats == np.array(k), axis=1).sum() for k in keys])
        assert counts.sum() == pats.shape[0]                              # no pattern outside the law
        exp = np.array([want[k] for k in keys]) * pats.shape[0]
        assert stats.chisquare(counts, exp).pvalue > 1e-4, (mode, counts, exp.round())
    p0 = np.prod(1 - np.array(list(examination(3, 1.0)[:3] * PROBS[y] if model == "pbm" else PROBS[y])))
    assert np.isclose(log.p_click, 1 - p0)                              # the exact P(a session has a click)


def test_redraw_keeps_the_sessions_that_had_a_click_and_skips_unclickable_queries():
    """The first draw is the dropping mode's draw for draw; a list no one can click (every
    θ c(y) = 0) keeps no session in either mode."""
    y = np.array([1, 0, 0, 0, 0, 0], np.int32)
    rows, sizes = np.arange(6), np.array([3, 3])
    probs = np.array([0.0, 0.5])                                         # grade 0 never clicked: query 2 cannot be
    a = simulate(y, rows, sizes, 200, np.random.default_rng(3), click_probs=probs, no_click="drop")
    b = simulate(y, rows, sizes, 200, np.random.default_rng(3), click_probs=probs, no_click="redraw")
    assert set(b.session_query.tolist()) == {0} and b.session_query.size == 200
    assert a.session_query.size < 200
    # the first draw by hand (one uniform per session row, query-major): the sessions it gave a click
    # are the dropping mode's, and the re-drawing mode keeps them draw for draw and fills the others
    y2 = np.array([2, 1, 0, 1, 2, 0], np.int32)
    a2 = simulate(y2, rows, sizes, 300, np.random.default_rng(4), click_probs=PROBS, no_click="drop")
    b2 = simulate(y2, rows, sizes, 300, np.random.default_rng(4), click_probs=PROBS, no_click="redraw")
    prob = np.repeat((examination(3, 1.0) * PROBS[y2].reshape(2, 3)), 300, axis=0)        # (600 sessions, 3)
    first = np.random.default_rng(4).random((600, 3)) < prob
    had = first.any(axis=1)
    pa, pb = a2.session_clicks.reshape(-1, 3), b2.session_clicks.reshape(-1, 3)
    assert np.array_equal(pa, first[had]) and np.array_equal(pb[had], first[had])
    assert pb.shape[0] == 600 and pb[~had].any(axis=1).all() and (~had).sum() > 20
    assert a.clicks[3:].sum() == b.clicks[3:].sum() == 0
    with pytest.raises(ValueError, match="no_click"):
        simulate(y, rows, sizes, 2, np.random.default_rng(3), click_probs=probs, no_click="keep")


def test_whole_list_shows_every_document_in_score_order(rng):
    y, offsets, s = _lists(rng, 5, 17)
    rows, sizes = shown_lists(s, offsets, None)
    assert sizes.tolist() == [17] * 5 and sorted(rows.tolist()) == list(range(85))
    assert all((np.diff(s[rows[i * 17:(i + 1) * 17]]) <= 0).all() for i in range(5))
    theta = examination(17, 1.0, "eyetracking")
    assert np.allclose(theta[9:], 0.06)                                   # past 10: the 10th value

"""The Hessian study's building blocks, checked by hand: the constant-Hessian wrapper, the exact
Newton step on the range of XE_NDCG's Hessian, Kang et al.'s metric, and that the arms of one loss
differ only in the Hessian (the same gradient on the same scores and generator)."""
from __future__ import annotations

import numpy as np
import pytest

from experiments.errors import UsageError
from experiments.kang2024.protocol import HessianConfig, kang_ndcg
from ltrrepro.fit import SYSTEMS
from ltrrepro.fit.backends import BACKENDS, custom_objective_libraries, negative_hessian_libraries
from ltrrepro.fit.hessian import CONSTANT_RATE, HESSIAN_SYSTEMS, LOSSES, NEWTON_RATE
from ltrrepro.objectives import XENDCG, LambdaMART, ListNet, PLRank
from ltrrepro.objectives.hessian import ConstantHessian, RangeNewton, constant_hessian

SCORES = np.array([0.3, -1.2, 0.8, 0.0, 2.0, -0.5, 0.1])
LABELS = np.array([2, 0, 1, 0, 3, 1, 0])
OFFSETS = np.array([0, 4, 7])


def _takes_negative_hessians(library: str) -> bool:
    """Whether ``library``'s adapter takes PL-Rank's raw Hessian (``hessian_policy="none"``): asked of the adapter."""
    try:
        BACKENDS[library].adapter(PLRank(hessian_policy="none"))
    except ValueError:
        return False
    return True


def _objective(name: str, **kw):
    o = SYSTEMS[name].options
    return o.objective(**{**dict(o.objective_kwargs), **kw})


def test_constant_hessian_keeps_the_gradient_and_hands_a_constant():
    """Two documents, labels (1, 0), equal scores: λMART's lambdas ∓0.1845 (its own Hessian 0.0923)
    pass unchanged; the Hessian is the constant, 1 by default, 0.5 when asked."""
    g, h = ConstantHessian(LambdaMART()).grad_hess([0.0, 0.0], [1, 0], [0, 2])
    assert g.round(4).tolist() == [-0.1845, 0.1845] and h.tolist() == [1.0, 1.0]
    g2, h2 = ConstantHessian(LambdaMART(), value=0.5).grad_hess([0.0, 0.0], [1, 0], [0, 2])
    assert (g2 == g).all() and h2.tolist() == [0.5, 0.5] and h2.dtype == np.float64
    assert ConstantHessian(LambdaMART()).loss([0.0, 0.0], [1, 0], [0, 2]) == LambdaMART().loss([0.0, 0.0], [1, 0], [0, 2])
    with pytest.raises(ValueError):
        ConstantHessian(LambdaMART(), value=0.0)
    with pytest.raises(TypeError):
        ConstantHessian(lambda *a: None)


def test_constant_hessian_passes_the_generator_through():
    """A stochastic loss draws the same sample: PL-Rank's gradient from the same rankings."""
    g, _ = PLRank(n_samples=50, cutoff=3, hessian_policy="abs").grad_hess(SCORES, LABELS, OFFSETS,
                                                                         rng=np.random.default_rng(7))
    gc, hc = ConstantHessian(PLRank(n_samples=50, cutoff=3)).grad_hess(SCORES, LABELS, OFFSETS,
                                                                       rng=np.random.default_rng(7))
    np.testing.assert_array_equal(g, gc)
    assert (hc == 1.0).all() and ConstantHessian(PLRank()).stochastic
    assert constant_hessian(ListNet) == constant_hessian(ListNet) != constant_hessian(XENDCG)


def test_range_newton_is_the_newton_step_of_the_singular_hessian():
    """H x = ∇ with x ⊥ 1 in each list (H = diag(ρ) − ρρᵀ), handed as grad = ρ(1 − ρ)x, hess = ρ(1 − ρ);
    the Neumann series' high orders approach a solution of H x = ∇ too, this one up to a constant per
    list (H's null space: a shift of a list's scores, which no ranking sees)."""
    g0, h0 = ListNet(order=0).grad_hess(SCORES, LABELS, OFFSETS)
    g, h = RangeNewton(ListNet(order=0)).grad_hess(SCORES, LABELS, OFFSETS)
    np.testing.assert_array_equal(h, h0)
    for a, b in zip(OFFSETS[:-1], OFFSETS[1:]):
        rho = np.exp(SCORES[a:b]) / np.exp(SCORES[a:b]).sum()
        H = np.diag(rho) - np.outer(rho, rho)
        x = g[a:b] / h[a:b]
        np.testing.assert_allclose(H @ x, g0[a:b], atol=1e-12)
        assert abs(x.sum()) < 1e-10
    far, _ = ListNet(order=200).grad_hess(SCORES, LABELS, OFFSETS)
    shift = far / h - g / h
    for a, b in zip(OFFSETS[:-1], OFFSETS[1:]):
        assert np.ptp(shift[a:b]) < 1e-6
    with pytest.raises(ValueError):
        RangeNewton(ListNet(order=2))


def test_kang_metric_is_mean_dcg_over_mean_idcg():
    """Query 1: labels (2, 0) ranked (0, 2) — DCG@2 = 3/log2(3) = 1.8928, IDCG 3; query 2: labels
    (1, 1) — DCG = IDCG = 1 + 1/log2(3) = 1.6309. Kang: (1.8928 + 1.6309) / (3 + 1.6309) = 0.7609;
    the mean of per-query NDCGs would be (0.6309 + 1) / 2 = 0.8155."""
    v = kang_ndcg([0.0, 1.0, 0.5, 0.2], [2, 0, 1, 1], [0, 2, 4], k=2)
    assert round(v, 4) == 0.7609
    # a query without a relevant document adds 0 to both means
    assert kang_ndcg([0.0, 1.0, 0.5, 0.2, 0.1], [2, 0, 1, 1, 0], [0, 2, 4, 5], k=2) == pytest.approx(v)


@pytest.mark.parametrize("loss", ["plrank", "xendcg", "lambdamart", "listnet"])
def test_the_arms_of_a_loss_differ_only_in_the_hessian(loss):
    """Every arm of a loss hands a step of the same gradient ∇ (its first-order arm's, the constant
    arm's gradient exactly) from the same generator: the Hessian is all that differs."""
    arms = LOSSES[loss]
    const = [m for m in arms if SYSTEMS[m].options.hessian == "constant"]
    assert len(const) == 1 and arms[-1] == const[0]
    out = {m: _objective(m).grad_hess(SCORES, LABELS, OFFSETS, rng=np.random.default_rng(3)) for m in arms}
    grad_c, hess_c = out[const[0]]
    assert (hess_c == 1.0).all()
    first = {"plrank": "plrank_sampled", "xendcg": "xendcg_o0", "lambdamart": "lambdamart_lambda",
             "listnet": "listnet_diag"}[loss]
    np.testing.assert_array_equal(out[first][0], grad_c)
    assert not np.allclose(out[first][1], 1.0)
    for m in arms:                               # the Newton steps of higher order: a step of the same ∇
        g, h = out[m]
        assert g.shape == grad_c.shape and np.isfinite(g).all() and (h > 0).all()
        for a, b in zip(OFFSETS[:-1], OFFSETS[1:]):
            assert np.dot(-g[a:b] / h[a:b], grad_c[a:b]) < 0          # a descent direction of the loss


def test_the_systems_search_their_learning_rate_ranges():
    for m in HESSIAN_SYSTEMS:
        lr = SYSTEMS[m].options.space(custom_objective_libraries()[0])["learning_rate"]
        assert (lr.low, lr.high) == (CONSTANT_RATE if SYSTEMS[m].options.hessian == "constant" else NEWTON_RATE)
    assert CONSTANT_RATE[0] <= 1e-5 and CONSTANT_RATE[1] >= NEWTON_RATE[1]


def test_the_configuration_refuses_what_the_library_cannot_take():
    refusing = [lib for lib in custom_objective_libraries() if not _takes_negative_hessians(lib)]
    taking = [lib for lib in custom_objective_libraries() if _takes_negative_hessians(lib)]
    assert taking == list(negative_hessian_libraries())        # the backends' declared fact is their adapters' own
    assert refusing and taking
    with pytest.raises(UsageError, match="negative Hessians"):
        HessianConfig(experiment="hessian", queries=30, library=refusing[0], hessian_policy="none")
    HessianConfig(experiment="hessian", queries=30, library=taking[0], hessian_policy="none")
    for bad in ({"models": ("xendcg",)}, {"metric": "map"}, {"margin": 0.0}, {"lr_grid": (0.0,)}):
        with pytest.raises(UsageError):
            HessianConfig(experiment="hessian", queries=30, **bad)


def test_a_diverged_paper_unit_is_recorded_and_an_arm_that_diverges_fails(monkeypatch, tmp_path):
    """Non-finite validation scores raise FloatingPointError (as a non-finite gradient does); a
    paper-column unit records it as diverged — NaN metrics, its test queries, the library it ran
    in, its parameters — while an arm's unit lets it through (an arm that diverges is a failure)."""
    from dataclasses import asdict

    from experiments.kang2024.protocol import EXPERIMENT, build_units, unit_fn
    from ltrrepro.fit import ranking
    from ltrrepro.runner import UnitContext, materialize
    from ltrrepro.synthetic import make_synthetic
    ds = make_synthetic("yahoo", n_queries=30, seed=1)
    with pytest.raises(FloatingPointError, match="diverged"):
        ranking._valid_metric(np.array([0.1, np.nan]), type("L", (), {"y": np.array([1, 0]),
                                                                       "offsets": np.array([0, 2])})())
    cfg = HessianConfig(experiment=EXPERIMENT, queries=30, trials=1, preset="tiny", paper_rounds=2,
                        models=("plrank_sampled",), lr_grid=(0.1,), sweep_samples=())
    ref = materialize(ds, cache_dir=tmp_path)
    units = {u.settings.get("part"): u for u in build_units(cfg) if u.model in ("kang_plrank_sampled", "plrank_sampled")}

    def boom(self):
        raise FloatingPointError("the model diverged: 3 non-finite validation scores")
    monkeypatch.setattr(ranking.RankingTrainer, "fit", boom)
    ctx = UnitContext(cfg=cfg, threads=1, data=asdict(ref))
    record, arrays = unit_fn(units["paper"], ctx)
    d = record.to_dict()
    assert d["diverged"].startswith("the model diverged") and np.isnan(d["means"][list(d["means"])[0]])
    assert d["library"] == "xgboost" and d["params"]["min_child_weight"] == 6
    assert len(arrays["test:qid"]) > 0 and np.isnan(arrays["test:ndcg@10[gain=exp2,norel=drop]"]).all()
    with pytest.raises(FloatingPointError):
        unit_fn(units["arms"], ctx)

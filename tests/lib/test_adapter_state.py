"""Stateless adapters (issue #37, item 9): an adapter holds only the objective, as LightGBM's own
objective wrapper holds only the function; the round state (iteration, generator, tracked
scores) is a :class:`RoundState` each backend ``train`` call makes and hands to the objective
and the callbacks. So one adapter trains any number of models, each from its own first round."""
from __future__ import annotations

import copy

import numpy as np
import pytest

from ltrrepro import make_synthetic
from ltrrepro.fit import BACKENDS
from ltrrepro.fit.boosting import Boosting
from ltrrepro.objectives import XENDCG, LightGBMObjective, Objective, RoundState, XGBoostObjective


class Rounds(Objective):
    """Records the iteration and the first draw of each call (XE_NDCG-like randomness)."""

    name = "rounds"

    def __init__(self):
        self.seen = []

    def grad_hess(self, scores, labels, offsets, iteration=0, rng=None):
        self.seen.append((iteration, float(rng.random())))
        f = np.asarray(scores, dtype=np.float64)
        return f - labels, np.ones_like(f)


@pytest.fixture(scope="module")
def data():
    return make_synthetic("web30k", n_queries=15, seed=2)


@pytest.mark.parametrize("library", ["lightgbm", "xgboost"])
def test_one_adapter_trains_two_models_alike(data, library):
    be = BACKENDS[library]
    obj = Rounds()
    adapter = be.adapter(obj)
    params = be.params(adapter, Boosting(num_leaves=4, learning_rate=0.1), threads=1, seed=0)
    raw = []
    for _ in range(2):                               # the same adapter, two training runs
        run = be.train(params, be.dataset(data, params, threads=1), 3, obj=adapter, seed=11)
        raw.append(be.predictor(run.booster, 1)(data.X, 0, 3))
    np.testing.assert_array_equal(raw[0], raw[1])
    assert [i for i, _ in obj.seen] == [0, 1, 2, 0, 1, 2]                # each run from round 0
    assert obj.seen[:3] == obj.seen[3:]                                   # and from the seed's generator
    first = np.random.default_rng(11).random()
    assert obj.seen[0][1] == first


def test_an_adapter_holds_only_the_function():
    for adapter in (LightGBMObjective(XENDCG(), track_scores=True), XGBoostObjective(XENDCG())):
        assert not {"iteration", "rng", "scores"} & set(vars(adapter))
        assert copy.deepcopy(adapter) is not adapter                    # no __deepcopy__ returning self
        with pytest.raises(TypeError, match="bind"):
            adapter(np.zeros(2), None)


def test_a_bound_objective_survives_the_librarys_deep_copy():
    state = RoundState.start(3)
    fn = LightGBMObjective(XENDCG()).bind(state)
    params = copy.deepcopy({"objective": fn})                               # what lgb.train does
    assert params["objective"] is fn and fn.objective.name == XENDCG().name


def test_the_state_moves_by_rounds():
    state = RoundState.start(5)
    adapter = XGBoostObjective(Rounds())
    labels = np.array([1.0, 0.0, 2.0])

    class D:
        def get_uint_info(self, name):
            return np.array([0, 3], dtype=np.uint32)

        def get_label(self):
            return labels

    fn = adapter.bind(state)
    for _ in range(3):
        fn(np.zeros(3), D())
    assert state.iteration == 3 and [i for i, _ in adapter.objective.seen] == [0, 1, 2]

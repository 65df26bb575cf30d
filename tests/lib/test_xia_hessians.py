"""Xia's arms refuse what Bruch's and Zheng's paths refuse (issue #39): a negative (or
non-finite) Hessian from an objective, in ltrrepro's tree learner and behind the SE wrapper of
the library McRank; an OLE arm whose pair structure is broken is refused up front, not unit by
unit. Inputs built here."""
from __future__ import annotations

import numpy as np
import pytest

from ltrrepro import make_synthetic
from ltrrepro.fit.callbacks import UnitHessian
from ltrrepro.fit.plugins import PluginError, _smoke_pairs
from ltrrepro.gbdt import train as gbdt_train
from ltrrepro.objectives import LambdaMART, Objective


class NegativeLater(Objective):
    """Squared loss whose Hessian turns negative from iteration 1 (passes a smoke test at 0)."""

    name = "negative-later"

    def grad_hess(self, scores, labels, offsets, iteration=0, rng=None):
        f = np.asarray(scores, dtype=np.float64)
        return f - labels, np.full_like(f, 1.0 if iteration == 0 else -0.5)


class BrokenPairs(LambdaMART):
    """Pairs across lists (and a float index): not a pair structure the tree learner can use."""

    def grad_hess_pairs(self, scores, labels, offsets, iteration=0, rng=None):
        g, h = self.grad_hess(scores, labels, offsets)
        return g, h, (np.array([0.0]), np.array([4]), np.array([1.0]))


class RaisingPairs(LambdaMART):
    def grad_hess_pairs(self, scores, labels, offsets, iteration=0, rng=None):
        raise NotImplementedError("not yet")


@pytest.fixture(scope="module")
def data():
    return make_synthetic("web30k", n_queries=12, seed=1)


@pytest.mark.parametrize("criterion", ["se", "rwse"])
def test_the_tree_learner_refuses_a_negative_hessian(data, criterion):
    with pytest.raises(FloatingPointError, match="negative or non-finite Hessian -0.5 at document 0, iteration 1"):
        gbdt_train(NegativeLater(), data, criterion=criterion, num_rounds=3, num_leaves=4, leaf_hessian="diagonal")


def test_the_tree_learner_refuses_a_wrong_shape(data):
    class Short(NegativeLater):
        def grad_hess(self, scores, labels, offsets, iteration=0, rng=None):
            return np.zeros(3), np.ones(3)

    with pytest.raises(ValueError, match="one gradient and one Hessian per document"):
        gbdt_train(Short(), data, criterion="se", num_rounds=1, num_leaves=4, leaf_hessian="diagonal")


def test_the_se_wrapper_checks_the_true_hessian():
    wrap = UnitHessian(NegativeLater())
    g, h = wrap.grad_hess(np.zeros(3), np.array([1.0, 0.0, 2.0]), np.array([0, 3]), iteration=0)
    assert np.array_equal(h, np.ones(3))
    with pytest.raises(FloatingPointError, match="negative-later: negative or non-finite Hessian"):
        wrap.grad_hess(np.zeros(3), np.array([1.0, 0.0, 2.0]), np.array([0, 3]), iteration=1)


@pytest.mark.parametrize("objective,match", [(BrokenPairs(), "no valid pair structure"),
                                             (RaisingPairs(), "NotImplementedError: not yet")])
def test_an_ole_arm_with_a_broken_pair_structure_is_refused_up_front(objective, match):
    with pytest.raises(PluginError, match=match):
        _smoke_pairs("m:X", objective)
    _smoke_pairs("m:LambdaMART", LambdaMART())              # ltrrepro's own passes


LOSS = '''
import numpy as np
from ltrrepro.objectives import Objective


class NegativeLater(Objective):
    def grad_hess(self, scores, labels, offsets, iteration=0, rng=None):
        f = np.asarray(scores, dtype=np.float64)
        return f - labels, np.full_like(f, 1.0 if iteration == 0 else -0.5)
'''


@pytest.mark.slow
def test_a_xia_arm_fails_its_units_on_a_negative_hessian_as_bruch_does(tmp_path, monkeypatch, capsys):
    import experiments

    (tmp_path / "neglater.py").write_text(LOSS)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    res = experiments.run("split_principles", out="xia", queries=40, trials=1, rounds=(("mcrank", 3), ("lambdamart", 3)),
                          leaves=(4,), rates=(0.1,),
                          models=("lambdamart-se", "neglater:NegativeLater-se"), jobs=1)
    assert res.exit_code == 1
    err = capsys.readouterr().err
    assert "negative or non-finite Hessian" in err and "Traceback" not in err


def test_an_arm_that_needs_pairs_under_the_leaf_rule_is_refused_up_front(tmp_path, monkeypatch):
    import experiments
    from experiments.errors import USER_ERRORS

    (tmp_path / "neglater2.py").write_text(LOSS)
    monkeypatch.syspath_prepend(str(tmp_path))
    experiments.configure("split_principles", queries=40, models=("neglater2:NegativeLater-se",))     # diagonal: fine
    with pytest.raises(USER_ERRORS, match="--leaf-rule exact .* needs the pair structure"):
        experiments.configure("split_principles", queries=40, models=("neglater2:NegativeLater-se",), leaf_rule="exact")
    with pytest.raises(USER_ERRORS, match="the OLE principle needs the pair structure"):
        experiments.configure("split_principles", queries=40, models=("neglater2:NegativeLater-ole",))

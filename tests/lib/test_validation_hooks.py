"""The per-round validation hooks ``--tune``'s pruner reads (``on_valid``) of the systems with
fixed rounds: Zheng's GBT and QBRank (LightGBM, whose line search rewrites leaves after the
library scored them, and XGBoost) and Xia's arms in ltrrepro's own boosting loop. Each curve
ends at the validation value of the model it returns, and the hook leaves the model unchanged."""
from __future__ import annotations

import numpy as np
import pytest

from ltrrepro.fit import SYSTEMS, Boosting
from ltrrepro.fit.xia import SELECT_METRIC as NDCG10
from ltrrepro.fit.zheng import dcg5
from ltrrepro.metrics import evaluate
from ltrrepro.synthetic import make_synthetic


@pytest.fixture(scope="module")
def parts():
    ds = make_synthetic("yahoo", n_queries=60, seed=3)
    q = np.arange(ds.n_queries)
    return ds.subset(q[:40]), ds.subset(q[40:])


def _fit(name, library, parts, on_valid=None, **options):
    train, valid = parts
    t = SYSTEMS[name].trainer(Boosting(rounds=4, num_leaves=7, min_data_in_leaf=10), library=library,
                              seed=np.random.SeedSequence(5), threads=1, **options)
    t.on_valid = on_valid
    t.add_train(train)
    t.add_valid(valid)
    return t.fit()


CASES = [("gbt", "lightgbm", {"grid": None}), ("gbt", "xgboost", {"grid": None}), ("qbrank", "lightgbm", {}),
         ("qbrank", "xgboost", {}), ("lambdamart-ole", "ltrrepro", {}), ("mcrank-se", "ltrrepro", {})]


@pytest.mark.parametrize("name,library,options", CASES)
def test_the_curve_ends_at_the_returned_models_validation_value(name, library, options, parts):
    seen = []
    fitted = _fit(name, library, parts, lambda r, v: seen.append((r, v)), **options)
    valid = parts[1]
    scores = fitted.scores(valid.X)
    final = (float(np.mean(dcg5(scores, valid))) if library != "ltrrepro" else
             next(iter(evaluate(scores, valid.y, valid.offsets, [NDCG10]).values())).mean)
    assert [r for r, _ in seen] == [0, 1, 2, 3]
    # XGBoost's evaluation log keeps the values it printed (6 significant digits)
    assert fitted.valid_curve == pytest.approx([v for _, v in seen], rel=1e-5)
    assert seen[-1][1] == pytest.approx(final, rel=1e-6, abs=1e-9)
    assert len(set(np.round(fitted.valid_curve, 9))) > 1          # a real curve, not one value repeated


@pytest.mark.parametrize("name,library,options", CASES)
def test_the_hook_leaves_the_model_unchanged(name, library, options, parts):
    watched = _fit(name, library, parts, lambda r, v: None, **options)
    plain = _fit(name, library, parts, None, **options)
    X = parts[1].X
    np.testing.assert_allclose(watched.scores(X), plain.scores(X), rtol=1e-12, atol=1e-12)
    assert plain.valid_curve == [] or name.startswith(("lambdamart", "mcrank"))


def test_a_raising_hook_stops_training(parts):
    class Stop(Exception):
        pass

    def stop(r, v):
        if r == 1:
            raise Stop

    for name, library, options in CASES:
        with pytest.raises(Stop):
            _fit(name, library, parts, stop, **options)


def test_gbt_refuses_a_hook_over_a_grid(parts):
    with pytest.raises(ValueError, match="one \\(eta, leaves\\)"):
        _fit("gbt", "lightgbm", parts, lambda r, v: None)

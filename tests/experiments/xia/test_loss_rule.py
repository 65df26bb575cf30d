"""Xia's loss claim says which effect it measures (issue 38, item 4): under one common leaf rule
(diagonal, the default, or exact) the split-principle effect; under `own` the sum of the
split-principle and leaf-rule effects, which cannot judge a claim about split principles."""
import numpy as np
import pandas as pd

from experiments.xia import claims as xc
from experiments.xia import protocol as xp
from experiments.xia import report as xr
from ltrrepro.inference import Inference


def _frame(folds=5, loss_rel=-0.005, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for fold in range(folds):
        for leaves in (10, 20):
            for lr in (0.06, 0.1, 0.12):
                base = {m: 0.45 + 0.01 * rng.random() for m in xp.METRICS}
                rows.append({"fold": fold, "system": "lambdamart", "principle": "se", "leaves": leaves, "lr": lr,
                             **base, "loss": 100.0, "train_s": 1.0})
                rows.append({"fold": fold, "system": "lambdamart", "principle": "ole", "leaves": leaves, "lr": lr,
                             **{m: v + 0.005 for m, v in base.items()},
                             "loss": 100.0 * (1 + loss_rel + rng.normal(0, 1e-4)), "train_s": 1.3})
    return pd.DataFrame(rows)


def test_the_loss_claim_names_its_effect_and_own_cannot_settle_it():
    df = _frame()
    _, _, diffs, losses = xr.tables(df, "web10k", inference=Inference())
    got = {rule: next(c for c in xc.claims(df, diffs, losses, "web10k", 5, rule, inference=Inference())
                      if "loss" in c.text) for rule in ("diagonal", "exact", "own")}
    assert "the split-principle effect (one common leaf rule for both arms, the default)" in got["diagonal"].detail
    assert "the split-principle effect (one common leaf rule" in got["exact"].detail
    assert "plus the leaf-rule effect" in got["own"].detail
    assert got["diagonal"].verdict == got["exact"].verdict == "supported"
    assert got["own"].verdict == xc.OWN_VERDICT and got["own"].value == got["diagonal"].value

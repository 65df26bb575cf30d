"""The tricks study relies on its tuning: its searches are declared unpruned (``Search.prune``),
and that reaches the search (``ltrrepro.tuning.tune(prune=False)``); the other studies keep the
median pruner."""
from __future__ import annotations

import dataclasses

import pytest

from experiments import registry, tuning
from ltrrepro.runner import UnitContext


@pytest.mark.parametrize("study,prune", [("tricks", False), ("quality", True), ("qbrank", True)])
def test_a_studys_declared_pruning_reaches_its_search(study, prune, monkeypatch, tmp_path):
    exp = registry.get(study)
    cfg = dataclasses.replace(exp.default(), tune=2)
    unit = tuning.search_units(cfg, exp.units(cfg))[0]
    seen = {}

    def fake_tune(*args, prune=True, **kw):
        seen["prune"] = prune
        raise RuntimeError("the search itself is not run here")

    monkeypatch.setattr(tuning, "tune", fake_tune)
    monkeypatch.setattr(tuning, "_search", lambda c: dataclasses.replace(exp.tuning, parts=lambda u, ctx: (None, None)))
    ctx = UnitContext(cfg=cfg, threads=1, tuning_dir=str(tmp_path), tuning_study="h")
    with pytest.raises(RuntimeError, match="not run here"):
        tuning.search_fn(unit, ctx)
    assert seen["prune"] is prune

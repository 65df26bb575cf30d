"""A loss written outside the repository runs in every paper's protocol: a Bruch model, a Xia
arm under SE and RWSE (OLE refused without its pair structure), a Zheng run on the L2
judgments — and appears in each study's tables and claims."""
from __future__ import annotations

import pytest

import experiments
from experiments.errors import USER_ERRORS

LOSS = '''
import numpy as np
from ltrrepro.objectives import Objective


class Tilted(Objective):
    """Pointwise squared loss towards a tilted target, a user's own loss."""

    def __init__(self, tilt: float = 1.0):
        self.tilt = float(tilt)

    def grad_hess(self, scores, labels, offsets, iteration=0, rng=None):
        f = np.asarray(scores, dtype=np.float64)
        return f - self.tilt * np.asarray(labels, dtype=np.float64), np.ones_like(f)
'''
SPEC = "userloss:Tilted(tilt=2)"
LABEL = "Tilted(tilt=2)"
#: Xia's rounds per system (what --rounds 3 sets), its curves every round
ROUNDS = (("mcrank", 3), ("lambdamart", 3))


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    (tmp_path / "userloss.py").write_text(LOSS)
    monkeypatch.chdir(tmp_path)                        # where a user runs the command from
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def _spy_isolation(monkeypatch) -> list:
    """The models of the units that ran in a process of their own (plug-ins must)."""
    import ltrrepro.runner.worker as worker     # where each unit's task looks it up

    seen, real = [], worker._run_isolated
    monkeypatch.setattr(worker, "_run_isolated", lambda fn, unit, ctx: (seen.append(unit.model), real(fn, unit, ctx))[1])
    return seen


@pytest.mark.slow
def test_a_plugin_is_a_xia_arm_under_se_and_rwse(user_module, monkeypatch):
    isolated = _spy_isolation(monkeypatch)
    res = experiments.run("split_principles", out="xia", queries=40, trials=1, rounds=ROUNDS, every=1, leaves=(4,),
                          rates=(0.1,), models=("lambdamart-se", f"{SPEC}-se", f"{SPEC}-rwse"), jobs=1)
    assert res.exit_code == 0, res.failed
    assert sorted(isolated) == ["userloss.Tilted@tilt=2-rwse", "userloss.Tilted@tilt=2-se"]    # not lambdamart-se
    table = res.tables["table_se_ole"]
    row = table[table.system == "userloss.Tilted@tilt=2"]
    assert len(row) == 1 and row.filter(like="RWSE").notna().all(axis=None)
    assert any(c["claim"].startswith("userloss.Tilted@tilt=2: RWSE beats SE") for c in res.claims)
    assert any("extension: plug-in userloss:Tilted(tilt=2) as an arm under SE, RWSE" in d for d in res.deviations)
    with pytest.raises(USER_ERRORS, match="the OLE principle needs the pair structure"):
        experiments.run("split_principles", out="xia-ole", queries=40, models=(f"{SPEC}-ole",))
    # a plug-in-only run reports too (no paper system, no OLE arm)
    alone = experiments.run("split_principles", out="xia-alone", queries=40, trials=1, rounds=ROUNDS, every=1, leaves=(4,),
                            rates=(0.1,), models=(f"{SPEC}-se",), jobs=1)
    assert alone.exit_code == 0 and list(alone.tables["table_se_ole"].system) == ["userloss.Tilted@tilt=2"]
    assert not any(c["claim"].startswith("lambdamart") for c in alone.claims)


@pytest.mark.slow
def test_a_plugin_is_a_zheng_run_beside_gbt(user_module, monkeypatch):
    isolated = _spy_isolation(monkeypatch)
    res = experiments.run("qbrank", out="zheng", queries=100, trials=1, rounds=3, models=("gbt", SPEC),
                          grid=((0.1, 4),), jobs=1)
    assert res.exit_code == 0, res.failed
    assert isolated == ["userloss.Tilted@tilt=2"]
    assert f"{LABEL}(L2)" in set(res.tables["dcg5"].run)
    assert f"{LABEL}(L2)" in res.tables["table1_precision"].columns
    assert any(c["claim"].startswith(f"{LABEL}(L2) beats GBT(L2)") for c in res.claims)


@pytest.mark.slow
def test_the_same_plugin_is_a_bruch_model(user_module):
    res = experiments.run("quality", out="bruch", queries=60, trials=1, preset="tiny",
                          models=("lambdamart", SPEC), jobs=1)
    assert res.exit_code == 0, res.failed
    assert LABEL in set(res.tables["table1"].model)
    assert any(c["claim"].startswith(f"{LABEL} > λMART") for c in res.claims)

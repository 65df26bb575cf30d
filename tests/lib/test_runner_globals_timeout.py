"""The runner (issue #39): ``np.random`` and ``random`` seeded from the unit's own stream in the
process that runs it (a unit drawing from the global state gives the same numbers at any
``--jobs``, whatever ran before, in the worker or an isolated child), and ``--unit-timeout``: a
unit that runs too long fails with its reason — stopped in its worker, or its own process
killed — and the others finish."""
from __future__ import annotations

import random
import time

import numpy as np
import pytest

from ltrrepro.runner import Unit, UnitContext, UnitTimeout, run_units, seed_globals
from ltrrepro.store import ResultStore


def draws(unit, ctx):
    """A unit that draws from the global state (as a careless plug-in would), after other draws."""
    for _ in range(unit.trial):              # what ran before in the process must not matter
        np.random.rand()
    return {"np": float(np.random.rand()), "py": random.random()}, {}


def slow_or_fast(unit, ctx):
    if unit.model == "stuck":
        while True:                          # a plug-in stuck in a loop
            time.sleep(0.01)
    return {"ok": 1}, {}


def _units(models=("a", "b"), trials=3):
    return [Unit("e", "d", t, m, seed=7) for t in range(trials) for m in models]


def test_seed_globals_is_the_units_and_restores_the_process_state():
    u = Unit("e", "d", 1, "m", seed=7)
    np.random.seed(1)
    random.seed(1)
    before = np.random.rand(), random.random()
    np.random.seed(1)
    random.seed(1)
    with seed_globals(u):
        a = np.random.rand(), random.random()
    after = np.random.rand(), random.random()
    assert after == before                                     # the caller's streams go on untouched
    np.random.rand(5)
    with seed_globals(u):
        assert (np.random.rand(), random.random()) == a        # whatever was drawn before
    with seed_globals(Unit("e", "d", 1, "other", seed=7)):
        assert np.random.rand() != a[0]                         # each unit its own stream


def _records(tmp_path, name, jobs):
    store = ResultStore(tmp_path / name, {"x": 1})
    run_units(_units(), draws, UnitContext(), store, jobs=jobs, threads=1, quiet=True)
    return {r["key"]: (r["np"], r["py"]) for r in store.records()}


@pytest.mark.slow
def test_global_draws_are_the_same_at_any_jobs(tmp_path):
    one = _records(tmp_path, "one", 1)
    assert one == _records(tmp_path, "two", 2) and len(set(one.values())) == len(one)


def test_a_unit_over_the_timeout_fails_with_its_reason_and_the_others_finish(tmp_path):
    store = ResultStore(tmp_path / "r", {"x": 1})
    t0 = time.perf_counter()
    summary = run_units(_units(("stuck", "fast"), trials=1), slow_or_fast, UnitContext(), store, jobs=1, threads=1,
                        quiet=True, unit_timeout=1)
    assert time.perf_counter() - t0 < 30
    assert summary.failed == ["d/t000/base/stuck"] and summary.n_done == 1
    fail = store.failure("d/t000/base/stuck")
    assert fail["error"].startswith("UnitTimeout: the unit ran longer than --unit-timeout 1 s")


@pytest.mark.slow
def test_an_isolated_unit_over_the_timeout_has_its_process_killed(tmp_path):
    store = ResultStore(tmp_path / "r", {"x": 1})
    summary = run_units(_units(("stuck", "fast"), trials=1), slow_or_fast, UnitContext(isolated=("stuck",)), store, jobs=1,
                        threads=1, quiet=True, unit_timeout=5)
    assert summary.failed == ["d/t000/base/stuck"] and summary.n_done == 1
    assert "UnitTimeout" in store.failure("d/t000/base/stuck")["error"]


def test_the_flag_is_checked(tmp_path, capsys):
    from experiments import quality
    from experiments.errors import UsageError
    from experiments.execution import Execution

    for bad in ("0", "abc", "inf", "-3"):
        with pytest.raises(SystemExit) as exit_:
            quality.main(["--unit-timeout", bad, "--out", str(tmp_path / "o")])
        assert exit_.value.code == 2
        assert "--unit-timeout" in capsys.readouterr().err
    with pytest.raises(UsageError, match="unit-timeout"):
        Execution(unit_timeout=True)
    assert Execution(unit_timeout=30).unit_timeout == 30
    assert UnitTimeout.__mro__[1] is RuntimeError

"""The runner package's interfaces: the typed unit context (attribute access, the
``ctx["cfg"]`` compatibility form, never changed in place), the one executor interface behind
``--backend``/``--jobs``, and the names the package re-exports."""
from __future__ import annotations

import dataclasses
import os

import pytest

import ltrrepro.runner as runner
from ltrrepro.runner import (DaskExecutor, LocalExecutor, SerialExecutor, Unit, UnitContext, UnitRecord, make_executor,
                             run_units)
from ltrrepro.store import ResultStore


def test_the_context_reads_by_attribute_and_by_the_former_keys():
    ctx = UnitContext(cfg={"a": 1}, data={"path": "/p", "name": "n"}, threads=3, tuned={"m@0": {"eta": 0.1}})
    assert ctx.cfg == {"a": 1} and ctx["cfg"] is ctx.cfg
    assert ctx["data"]["path"] == "/p" and ctx["threads"] == 3 and ctx["tuned"] == {"m@0": {"eta": 0.1}}
    assert ctx["isolated"] == () and ctx["unit_timeout"] is None and ctx["tuning_dir"] is None
    for missing in ("queries", "values", 0):
        with pytest.raises(KeyError):
            ctx[missing]


def test_the_context_is_never_changed_in_place():
    ctx = UnitContext(threads=1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        ctx.threads = 2
    with pytest.raises(TypeError):
        ctx["threads"] = 2
    after = dataclasses.replace(ctx, tuned={"x@0": 1})
    assert after.tuned == {"x@0": 1} and ctx.tuned is None


def reads_the_former_keys(unit, ctx):
    """A unit function written against the former dictionary: ``ctx["..."]`` still reads."""
    return UnitRecord(means={"m": 1.0}, fields={"threads_seen": ctx["threads"], "cfg_seen": ctx["cfg"],
                                                "timeout_seen": ctx.unit_timeout}), {}


def test_a_unit_function_of_the_compatibility_form_runs_and_sees_what_the_runner_set(tmp_path):
    store = ResultStore(tmp_path / "run", {"c": 1})
    units = [Unit("e", "d", t, "m", seed=1) for t in range(2)]
    s = run_units(units, reads_the_former_keys, UnitContext(cfg="the-config"), store, jobs=1, threads=2, quiet=True,
                  unit_timeout=30)
    assert s.ok and s.n_done == 2
    recs = list(store.records())
    assert [(r["threads_seen"], r["cfg_seen"], r["timeout_seen"]) for r in recs] == [(2, "the-config", 30.0)] * 2


def test_one_executor_interface_chosen_by_backend_and_jobs():
    assert isinstance(make_executor("loky", 1), SerialExecutor)
    local = make_executor("loky", 3)
    assert isinstance(local, LocalExecutor) and local.jobs == 3 and local.local_workers
    threads = make_executor("threading", 2)
    assert isinstance(threads, LocalExecutor) and not threads.local_workers
    assert list(make_executor("loky", 1).map(divmod, [(7, 2), (9, 4)])) == [(3, 1), (2, 1)]
    assert sorted(threads.map(divmod, [(7, 2), (9, 4)])) == [(2, 1), (3, 1)]
    with pytest.raises(ValueError, match="unknown backend 'ray': loky or dask"):
        make_executor("ray", 2)
    pytest.importorskip("dask.distributed")
    with pytest.raises(ValueError, match="--scheduler ADDRESS"):
        DaskExecutor(None)


def test_the_package_exports_what_the_module_did():
    former = {"Unit", "UnitRecord", "unit_seed", "DataRef", "materialize", "run_units", "RunSummary",
              "default_jobs_threads", "UnitProcessDied", "UnitTimeout", "ClusterError", "seed_globals",
              "STREAM_SPLIT", "STREAM_TRANSFORM", "STREAM_MODEL", "STREAM_GLOBAL"}
    assert former | {"UnitContext"} <= set(runner.__all__)
    assert all(hasattr(runner, name) for name in runner.__all__)
    here = os.path.dirname(runner.__file__)
    sizes = {f: sum(1 for _ in open(os.path.join(here, f), encoding="utf-8")) for f in os.listdir(here)
             if f.endswith(".py")}
    assert max(sizes.values()) <= 500, sizes

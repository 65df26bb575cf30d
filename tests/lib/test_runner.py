"""The runner (ltrrepro.runner): paired unit seeds, threads per job, memory-mapped data, resume,
SIGKILL, failures, Dask."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from experiments.bruch2021 import protocol as bruch
from ltrrepro import make_synthetic
from ltrrepro.runner import Unit, UnitContext, default_jobs_threads, materialize, run_units, unit_seed
from ltrrepro.splits import trial_split
from ltrrepro.store import ResultStore, safe_key

ROOT = Path(__file__).resolve().parents[2]


# --------------------------------------------------------------------------- seeds
def test_unit_seeds_are_paired_and_match_the_split_stream():
    ss = unit_seed(7, 3, 0)
    ref = np.random.SeedSequence(7).spawn(4)[3].spawn(1)[0]
    assert ss.generate_state(4).tolist() == ref.generate_state(4).tolist()
    a = Unit("e", "d", 2, "lambdamart", (("noise", "labels"), ("level", 20)), seed=1)
    b = Unit("e", "d", 2, "xendcg", (("noise", "labels"), ("level", 20)), seed=1)
    c = Unit("e", "d", 2, "xendcg", (("noise", "labels"), ("level", 40)), seed=1)
    st_ = lambda s: s.generate_state(2).tolist()  # noqa: E731
    assert st_(a.transform_seed()) == st_(b.transform_seed())          # paired: same noisy data
    assert st_(a.transform_seed()) != st_(c.transform_seed())
    assert st_(a.model_seed()) != st_(b.model_seed())
    assert a.key == "d/t002/noise=labels,level=20/lambdamart"
    with pytest.raises(ValueError):
        safe_key("a b/c")


def test_default_jobs_threads_never_oversubscribe():
    cores = len(os.sched_getaffinity(0))
    for jobs, threads in [(None, None), (1, None), (None, 1), (None, 2)]:
        j, t = default_jobs_threads(jobs, threads)
        assert j * t <= max(cores, (jobs or 1) * (threads or 1))
    assert default_jobs_threads(None, None, n_units=1)[0] == 1


# --------------------------------------------------------------------------- runner
def _tiny_ctx(tmp_path, n_queries=40):
    ds = make_synthetic("web30k", n_queries=n_queries, seed=3)
    ref = materialize(ds, cache_dir=tmp_path / "cache")
    cfg = bruch.BruchConfig(experiment="robustness", dataset="synthetic-web30k", queries=n_queries, seed=5,
                            preset="tiny", rounds=6, noise=("labels",), levels=(0, 20))
    return UnitContext(data={"path": ref.path, "name": ref.name}, cfg=cfg)


def _units(settings, trials=2, models=("lambdamart", "xendcg")):
    return [Unit("robustness", "tiny", t, m, s, seed=5) for t in range(trials) for s in settings for m in models]


def _results(store):
    out = {}
    for r in store.records():
        arr = store.arrays(r["key"])
        out[r["key"]] = (r["means"], r["fit"]["best_iteration"], {k: v.tolist() for k, v in arr.items()})
    return out


def test_materialized_data_is_memory_mapped_and_content_addressed(tmp_path):
    ds = make_synthetic("web30k", n_queries=20, seed=1)
    a = materialize(ds, cache_dir=tmp_path)
    b = materialize(ds, cache_dir=tmp_path)
    assert a.path == b.path
    back = a.open()
    assert isinstance(back.X, np.memmap) or isinstance(back.X.base, np.memmap)
    np.testing.assert_array_equal(back.X, ds.X)
    np.testing.assert_array_equal(back.offsets, ds.offsets)
    ds2 = make_synthetic("web30k", n_queries=20, seed=2)
    assert materialize(ds2, cache_dir=tmp_path).path != a.path


def test_run_records_failures_and_resumes(tmp_path):
    ctx = _tiny_ctx(tmp_path)
    store = ResultStore(tmp_path / "run", {"c": 1})
    good = (("noise", "labels"), ("level", 30))
    bad = (("noise", "bogus"), ("level", 1))
    units = _units([good, bad], trials=1)
    s = run_units(units, bruch.unit_fn, ctx, store, jobs=1, quiet=True)
    assert sorted(s.failed) == sorted(u.key for u in units if u.settings["noise"] == "bogus")
    assert s.n_done == 2 and s.exit_code == 1
    f = store.failures()
    assert len(f) == 2 and "unknown noise 'bogus'" in f[0]["traceback"]
    rec = store.records()[0]
    assert rec["transform"]["relabelled"] > 0 and len(rec["valid_curve"]) == rec["fit"]["n_trees"]
    assert rec["seeds"]["entropy"] == 5 and rec["threads"] == default_jobs_threads(1, None)[1]
    # resume: finished units are skipped, failed ones retried
    s2 = run_units(units[:2], bruch.unit_fn, ctx, store, jobs=1, quiet=True)
    assert s2.n_skipped == 2 and s2.n_done == 0
    s3 = run_units(units[:2], bruch.unit_fn, ctx, store, jobs=1, quiet=True, force=True)
    assert s3.n_done == 2


def test_same_seed_same_numbers_and_parallel_equals_sequential(tmp_path):
    ctx = _tiny_ctx(tmp_path)
    settings = [(("noise", "none"), ("level", 0)), (("noise", "documents"), ("level", 50))]
    units = _units(settings, trials=2)
    a = ResultStore(tmp_path / "a", {"c": 1})
    b = ResultStore(tmp_path / "b", {"c": 1})
    run_units(units, bruch.unit_fn, ctx, a, jobs=1, quiet=True)
    run_units(units, bruch.unit_fn, ctx, b, jobs=2, threads=1, quiet=True)
    ra, rb = _results(a), _results(b)
    assert ra == rb and len(ra) == len(units)
    # a different seed gives different numbers
    c = ResultStore(tmp_path / "c", {"c": 1})
    run_units([Unit(u.experiment, u.dataset, u.trial, u.model, u.setting, seed=6) for u in units[:2]],
              bruch.unit_fn, ctx, c, jobs=1, quiet=True)
    assert [v[2] for v in _results(c).values()] != [ra[u.key][2] for u in units[:2]]


@pytest.mark.slow
def test_sigkill_midway_then_resume_equals_uninterrupted(tmp_path):
    args = [sys.executable, "-m", "experiments.robustness", "--queries", "60", "--trials", "3", "--levels", "0,50",
            "--noise", "labels", "--preset", "tiny", "--jobs", "1", "--threads", "1", "--quiet"]
    env = {**os.environ, "LTRREPRO_CACHE": str(tmp_path / "cache")}
    killed = tmp_path / "killed"
    proc = subprocess.Popen(args + ["--out", str(killed)], cwd=ROOT, env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and len(list((killed / "units").glob("*.json"))) < 2:
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    n_before = len(list((killed / "units").glob("*.json")))
    assert 2 <= n_before < 12, n_before
    assert json.loads((killed / "manifest.json").read_text())["status"] == "running"
    r = subprocess.run(args + ["--out", str(killed)], cwd=ROOT, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    full = tmp_path / "full"
    r = subprocess.run(args + ["--out", str(full)], cwd=ROOT, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    a, b = _results(ResultStore.open(killed)), _results(ResultStore.open(full))
    assert len(a) == 12 and a == b
    man = json.loads((killed / "manifest.json").read_text())
    assert man["status"] == "ok" and man["n_skipped"] == n_before and man["history"]


@pytest.mark.slow
def test_dask_local_cluster_equals_loky(tmp_path):
    import dask.distributed as distributed
    ctx = _tiny_ctx(tmp_path)
    units = _units([(("noise", "labels"), ("level", 20))], trials=2)
    a = ResultStore(tmp_path / "loky", {"c": 1})
    run_units(units, bruch.unit_fn, ctx, a, jobs=2, threads=1, quiet=True)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cl, \
            distributed.Client(cl) as client:
        b = ResultStore(tmp_path / "dask", {"c": 1})
        s = run_units(units, bruch.unit_fn, ctx, b, threads=1, backend="dask", scheduler=client, quiet=True)
    assert s.ok and s.n_done == len(units)
    assert _results(a) == _results(b)


def test_split_is_shared_by_models_of_a_trial(tmp_path):
    ctx = _tiny_ctx(tmp_path)
    store = ResultStore(tmp_path / "run", {"c": 1})
    units = _units([(("noise", "none"), ("level", 0))], trials=1)
    run_units(units, bruch.unit_fn, ctx, store, jobs=1, quiet=True)
    qids = [store.arrays(u.key)["test:qid"].tolist() for u in units]
    ds = make_synthetic("web30k", n_queries=40, seed=3)
    expected = ds.query_ids[trial_split(ds.n_queries, 5, 0).test].tolist()
    assert qids[0] == qids[1] == expected



"""Engine: seeds, statistics, results store, runner (resume, SIGKILL, failures, Dask)."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as st

from experiments.bruch2021 import protocol as bruch
from ltrrepro import make_synthetic
from ltrrepro.runner import Unit, default_jobs_threads, materialize, run_units, unit_seed
from ltrrepro.splits import trial_split
from ltrrepro.inference.tests import holm, paired_test, summarize
from ltrrepro.store import ResultStore, safe_key

ROOT = Path(__file__).resolve().parents[1]


# --------------------------------------------------------------------------- statistics
def test_paired_test_equals_scipy_and_hand_ci(rng):
    a = rng.normal(0.5, 0.02, 30)
    b = a - rng.normal(0.003, 0.01, 30)
    c = paired_test(a, b)
    ref = st.ttest_rel(a, b)
    assert c.t == pytest.approx(ref.statistic, rel=1e-12) and c.p == pytest.approx(ref.pvalue, rel=1e-12)
    assert c.wins + c.ties + c.losses == 30 and c.wins == int(((a - b) > 0).sum())
    # hand-worked CI: d = (1, 2, 3): mean 2, sd 1, t_{.975,2} = 4.302653
    d = paired_test([1.0, 2.0, 3.0], [0.0, 0.0, 0.0])
    assert d.diff == 2 and d.std_diff == 1
    assert d.ci_low == pytest.approx(2 - 4.302653 / np.sqrt(3), abs=1e-6)
    assert d.ci_high == pytest.approx(2 + 4.302653 / np.sqrt(3), abs=1e-6)
    s = summarize([1.0, 2.0, 3.0])
    assert (s.mean, s.std) == (2.0, 1.0) and s.ci_low == pytest.approx(d.ci_low)


def test_paired_test_degenerate_and_ties():
    c = paired_test([0.5, 0.5], [0.5, 0.5])
    assert np.isnan(c.p) and c.ties == 2 and not c.significant(0.01)
    c = paired_test([0.6, 0.5, 0.4], [0.5, 0.5, 0.5], tie=1e-9)
    assert (c.wins, c.ties, c.losses) == (1, 1, 1)
    with pytest.raises(ValueError):
        paired_test([1.0, np.nan], [1.0, 2.0])


def test_holm_hand_worked():
    # sorted .005,.01,.03,.04 times 4,3,2,1 = .02,.03,.06,.04 -> running max .02,.03,.06,.06
    np.testing.assert_allclose(holm([0.01, 0.04, 0.03, 0.005]), [0.03, 0.06, 0.06, 0.02])
    out = holm([0.2, np.nan, 0.9])
    assert np.isnan(out[1]) and out[0] == pytest.approx(0.4) and out[2] == pytest.approx(0.9)
    np.testing.assert_allclose(holm([0.6, 0.7]), [1.0, 1.0])             # capped at 1, monotone


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


# --------------------------------------------------------------------------- store
def test_store_atomic_records_config_and_failures(tmp_path):
    st_ = ResultStore(tmp_path / "run", {"a": 1})
    st_.start("demo", argv=["x"])
    st_.write("d/t000/base/m", {"means": {"ndcg@5": 0.5}}, {"v": np.arange(3.0)})
    assert st_.is_done("d/t000/base/m") and not st_.is_done("d/t001/base/m")
    np.testing.assert_array_equal(st_.arrays("d/t000/base/m")["v"], [0, 1, 2])
    assert not list((tmp_path / "run" / "units").glob(".*"))           # no temporary file left
    other = ResultStore(tmp_path / "run", {"a": 2})
    assert not other.is_done("d/t000/base/m") and other.stale(["d/t000/base/m"]) == ["d/t000/base/m"]
    st_.write_failure("d/t001/base/m", {"error": "boom", "traceback": "tb"})
    assert st_.failures()[0]["error"] == "boom"
    st_.write("d/t001/base/m", {"means": {}})
    assert st_.failures() == []                                         # cleared once it succeeds
    st_.finish("ok")
    man = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert man["status"] == "ok" and man["versions"]["lightgbm"] and man["config"] == {"a": 1}
    assert ResultStore.open(tmp_path / "run").config_hash == st_.config_hash


# --------------------------------------------------------------------------- runner
def _tiny_ctx(tmp_path, n_queries=40):
    ds = make_synthetic("web30k", n_queries=n_queries, seed=3)
    ref = materialize(ds, cache_dir=tmp_path / "cache")
    cfg = bruch.BruchConfig(experiment="robustness", dataset="synthetic-web30k", queries=n_queries, seed=5,
                            preset="tiny", rounds=6, noise=("labels",), levels=(0, 20))
    return {"data": {"path": ref.path, "name": ref.name}, "cfg": cfg}


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
            "--noise", "labels", "--preset", "tiny", "--jobs", "1", "--quiet"]
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
        s = run_units(units, bruch.unit_fn, {**ctx}, b, threads=1, backend="dask", scheduler=client, quiet=True)
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


def test_paired_power_matches_simulation_and_required_trials_are_minimal():
    """Power from the noncentral t against 20,000 simulated paired t-tests (seeded), and the
    required number of trials is the first that reaches 80%."""
    from ltrrepro.inference.power import paired_power, trials_for_power
    rng = np.random.default_rng(0)
    effect, sd, n, alpha = 0.004, 0.01, 30, 0.01
    d = rng.normal(effect, sd, size=(20_000, n))
    p = st.ttest_1samp(d, 0.0, axis=1).pvalue
    assert paired_power(effect, sd, n, alpha) == pytest.approx(float(np.mean(p < alpha)), abs=0.012)
    need = trials_for_power(effect, sd, 0.8, alpha=alpha)
    assert paired_power(effect, sd, need, alpha) >= 0.8 > paired_power(effect, sd, need - 1, alpha)
    assert trials_for_power(0.0, sd, alpha=alpha) is None and np.isnan(paired_power(effect, 0.0, n, alpha))


@pytest.mark.parametrize("effect, sd, n", [(0.004, 0.01, 30), (0.5, 1.0, 8), (0.186, 0.0398, 5), (1.0, 0.01, 3)])
def test_paired_power_equals_the_noncentral_t_integrated_by_hand(effect, sd, n):
    """T = (Z + δ) / √(V/ν), Z standard normal, V ~ χ²_ν, ν = n − 1, δ = effect/(sd/√n):
    P(|T| > c) = ∫ [Φ(δ − c√(v/ν)) + Φ(−δ − c√(v/ν))] χ²_ν(v) dv, c = t_{1−α/2, ν}. Includes
    effects so large that scipy's noncentral-t lower tail is NaN (power must still be 1)."""
    from scipy.integrate import quad

    from ltrrepro.inference.power import paired_power, trials_for_power
    nu, alpha = n - 1, 0.01
    delta = effect / (sd / np.sqrt(n))
    c = st.t.ppf(1 - alpha / 2, nu)
    f = lambda v: (st.norm.cdf(delta - c * np.sqrt(v / nu)) + st.norm.cdf(-delta - c * np.sqrt(v / nu))) \
        * st.chi2.pdf(v, nu)  # noqa: E731
    hand = quad(f, 0, np.inf, limit=200)[0]
    assert paired_power(effect, sd, n, alpha) == pytest.approx(hand, abs=1e-6)
    assert paired_power(-effect, sd, n, alpha) == pytest.approx(hand, abs=1e-6)     # two-sided: symmetric
    need = trials_for_power(effect, sd, 0.8, alpha=alpha)
    assert need >= 2 and paired_power(effect, sd, need, alpha) >= 0.8
    assert need == 2 or paired_power(effect, sd, need - 1, alpha) < 0.8

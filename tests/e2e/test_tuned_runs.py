"""--tune end to end (slow): a tuned Table 1 run writes both claim families, the tuned values and
the manifest's record of the searches; killed mid-search and run again, it resumes with no
configuration repeated; --estimate counts the searches."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import experiments
from ltrrepro.fit.ranking import RankingTrainer

pytestmark = pytest.mark.slow

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_cluster import _children, cluster as cluster_for_tuning  # noqa: E402,F401  (a scheduler and two workers)

SMALL = dict(queries=30, trials=2, preset="tiny", rounds=3, models=("lambdamart", "xendcg"), jobs=1, threads=1)


def _configs(record) -> list:
    return [tuple(sorted(t["params"].items())) for t in record["tuned"]["trials"]]


def test_a_tuned_quality_run_reports_both_families_and_the_tuned_values(tmp_path):
    out = tmp_path / "q"
    res = experiments.run("quality", out=str(out), tune=3, **SMALL)
    assert res.exit_code == 0
    families = {c["family"] for c in res.claims}
    assert len(families) == 2 and any("tuned" in f for f in families)
    text = (out / "claims.md").read_text()
    assert "λMART (tuned)" in text and "XE_NDCG MART > λMART (tuned)" in text
    assert (out / "tables" / "table1_tuned.md").exists() and (out / "tables" / "tuning.md").exists()
    man = json.loads((out / "manifest.json").read_text())
    for key in ("lambdamart@0", "xendcg@0"):
        rec = man["tuning"][key]
        assert rec["budget"] == 3 and set(rec["params"]) >= {"learning_rate", "num_leaves"} and "space" in rec
    assert any("tuned" in d for d in man["config"]["deviations"])
    before = (out / "claims.md").read_text()
    from experiments.report import rebuild
    rebuild(out, quiet=True)                     # the report of the stored run: the searches are not units
    assert (out / "claims.md").read_text() == before
    assert sorted(p.name for p in (out / "tuning").glob("*.sqlite3")) == [
        "synthetic-web30k__t000__tune=3,on=first-split,noise=none__lambdamart.sqlite3",
        "synthetic-web30k__t000__tune=3,on=first-split,noise=none__xendcg.sqlite3"]


def test_killed_mid_tuning_the_run_resumes_with_no_configuration_repeated(tmp_path, monkeypatch):
    out = tmp_path / "k"
    fit = RankingTrainer._fit
    calls = []

    def killed(self):
        calls.append(1)
        if len(calls) == 3:                   # the first search's third configuration
            raise KeyboardInterrupt("killed")
        return fit(self)

    monkeypatch.setattr(RankingTrainer, "_fit", killed)
    with pytest.raises(KeyboardInterrupt):
        experiments.run("quality", out=str(out), tune=4, **SMALL)
    assert not list((out / "units").glob("*.json"))          # no search finished, no unit ran
    trained = []
    monkeypatch.setattr(RankingTrainer, "_fit", lambda self: trained.append(1) or fit(self))
    res = experiments.run("quality", out=str(out), tune=4, **SMALL)
    assert res.exit_code == 0
    from ltrrepro.store import ResultStore
    store = ResultStore.open(out)
    first = store.record("synthetic-web30k/t000/tune=4,on=first-split,noise=none/lambdamart")
    second = store.record("synthetic-web30k/t000/tune=4,on=first-split,noise=none/xendcg")
    searched = [r for r in (first, second) if r]
    assert len(searched) == 2
    for r in searched:
        configs = _configs(r)
        assert len(configs) == 4 and len(set(configs)) == 4
    # the search killed at its third configuration kept its first two: 2 + 4 configurations, then 8 units
    assert len(trained) == 2 + 4 + 8


def test_estimate_counts_the_searches(tmp_path, capsys):
    res = experiments.run("quality", out=str(tmp_path / "e"), tune=5, estimate=True, **SMALL)
    assert any("tuning (--tune 5, first-split): 2 search(es) of 5 configuration(s)" in line for line in res.estimate)
    assert any("4 tuned unit(s) beside the fixed ones" in line for line in res.estimate)


@pytest.mark.parametrize("tune_on", ["first-split", "per-trial"])
def test_a_tuned_robustness_run_trains_every_unit_with_the_searched_values(tmp_path, capsys, tune_on):
    out = tmp_path / "r"
    res = experiments.run("robustness", out=str(out), tune=2, tune_on=tune_on, levels=(0, 50), noise=("labels",), **SMALL)
    assert res.exit_code == 0 and (out / "tables" / "tuning.md").exists()
    assert "not part of this command" not in capsys.readouterr().err        # the searches are the run's own
    from ltrrepro.store import ResultStore
    store = ResultStore.open(out)
    units = [r for r in store.records() if r.get("kind") != "tuning"]
    searched = {(r["unit"]["model"], r["unit"]["trial"]): r["tuned"]["params"] for r in store.records()
                if r.get("kind") == "tuning"}
    trials = [0, 1] if tune_on == "per-trial" else [0]
    assert len(units) == 2 * 2 * 2 and set(searched) == {(m, t) for m in ("lambdamart", "xendcg") for t in trials}
    for r in units:
        own = (r["unit"]["model"], r["unit"]["trial"] if tune_on == "per-trial" else 0)
        assert r["unit"]["setting"]["hp"] == "tuned" and r["tuned"]["params"] == searched[own]
    if tune_on == "per-trial":
        assert searched[("xendcg", 0)] != searched[("xendcg", 1)]          # each trial's own search


def test_on_a_dask_cluster_the_systems_search_on_the_workers_with_loky_s_results(tmp_path, cluster_for_tuning):
    """The searches are units: sent to the workers like the others (each search's Optuna storage
    in the run directory, here on the shared file system), the same values as with loky."""
    import os
    import subprocess
    import sys

    from ltrrepro.store import ResultStore

    address, procs = cluster_for_tuning
    env = {**os.environ, "LTRREPRO_CACHE": str(tmp_path / "cache")}
    argv = ["--queries", "30", "--trials", "2", "--levels", "0,50", "--noise", "labels", "--preset", "tiny",
            "--rounds", "3", "--tune", "2", "--quiet", "--threads", "1"]
    root = Path(__file__).resolve().parents[2]
    for out, more in (("loky", ["--jobs", "2"]), ("dask", ["--backend", "dask", "--scheduler", address])):
        r = subprocess.run([sys.executable, "-m", "experiments.robustness", *argv, "--out", str(tmp_path / out), *more],
                           cwd=root, env=env, capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stderr[-3000:]
    tuned = {name: {r["key"]: r["tuned"]["params"] for r in ResultStore.open(tmp_path / name).records()
                    if r.get("kind") == "tuning"} for name in ("loky", "dask")}
    assert len(tuned["dask"]) == 2 and tuned["dask"] == tuned["loky"]
    workers = {p.pid for p in procs[1:]} | _children(procs[1:])
    assert {r["worker_pid"] for r in ResultStore.open(tmp_path / "dask").records() if r.get("kind") == "tuning"} <= workers


def test_a_search_is_a_unit_of_the_runs_lifecycle(tmp_path, monkeypatch):
    """The searches are the run's first stage, not a door of their own: ``--unit-timeout`` stops
    one, its failure is recorded under ``failures/`` like any unit's, the run stops with one line
    naming it, and the manifest is closed (``error``), not left ``running``."""
    import time

    from experiments import tuning
    from experiments.errors import UsageError

    def stuck(unit, ctx):
        time.sleep(60)

    monkeypatch.setattr(tuning, "search_fn", stuck)
    out = tmp_path / "t"
    t0 = time.perf_counter()
    with pytest.raises(UsageError, match=r"tuning unit .*/lambdamart failed: .*time"):
        experiments.run("quality", out=str(out), tune=2, unit_timeout=2, **SMALL)
    assert time.perf_counter() - t0 < 30
    man = json.loads((out / "manifest.json").read_text())
    assert man["status"] == "error" and "tuning unit" in man["error"]
    assert len(list((out / "failures").glob("*.json"))) >= 1

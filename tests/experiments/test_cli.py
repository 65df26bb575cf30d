"""User errors are one line and exit code 2; damaged or stale state is named and healed;
concurrent runs and caches do not collide."""
import argparse
import gzip
import json
import os
import socket
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import numpy as np
import pytest

from experiments import clicks, convergence, jensen_gap, qbrank, quality, report, robustness
from experiments import split_principles as sp
from experiments import study
from experiments.cli import UsageError, cli
from ltrrepro import make_synthetic
from ltrrepro.data import RankingDataset, npy_dir_ok, save_npy_dir
from ltrrepro.svmlight import write_svmlight
from ltrrepro.runner import Unit, UnitContext, default_jobs_threads, materialize
from ltrrepro.fileio import atomic_write_text
from ltrrepro.store import ResultStore, StoreError

TINY = ["--queries", "60", "--trials", "2", "--preset", "tiny", "--jobs", "1", "--quiet"]


def _one_error_line(capsys):
    out, err = capsys.readouterr()
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err and out == ""
    return lines[0]


@pytest.mark.parametrize("main,argv,needle", [
    (robustness.main, ["--threads", "0"], "--threads: '0' must be at least 1"),
    (robustness.main, ["--jobs", "-2"], "--jobs: '-2' must be at least 1"),
    (robustness.main, ["--trials", "0"], "--trials"),
    (robustness.main, ["--queries", "3"], "at least 10 queries"),
    (robustness.main, ["--dataset", "web40k"], "'web40k': neither a known dataset"),
    (robustness.main, ["--levels", "0,20,20"], "repeats a value"),
    (robustness.main, ["--levels", ","], "--levels is empty"),
    (robustness.main, ["--levels", "a,b"], "comma-separated numbers"),
    (robustness.main, ["--noise", "clicks"], "--noise takes documents and/or labels"),
    (robustness.main, ["--backend", "dask"], "needs --scheduler"),
    (robustness.main, ["--backend", "dask", "--scheduler", "tcp://127.0.0.1:1", "--jobs", "4"], "drop --jobs"),
    (robustness.main, ["--scheduler", "tcp://127.0.0.1:1"], "only used with --backend dask"),
    (robustness.main, ["--no-such-flag"], "unrecognized arguments: --no-such-flag"),
    (quality.main, ["--models", "lambdamart,nope"], "unknown model"),
    (quality.main, ["--models", "xendcg,xendcg"], "repeats a model"),
    (clicks.main, ["--levels", "0.1,1.5"], "click probabilities in [0, 1]"),
    (clicks.main, ["--impressions", "0"], "--impressions"),
    (clicks.main, ["--click-model", "pbm", "--eta", "-1"], "--eta must be > 0"),
    (clicks.main, ["--eta", "2"], "use it with --click-model pbm"),
    (quality.main, ["--models", "mcrank-se"], "unknown model"),
    (robustness.main, ["--dataset", "web30k", "--queries", "50"], "sizes a synthetic dataset"),
    (qbrank.main, ["--rounds", "0"], "--rounds: '0' must be at least 1"),
    (qbrank.main, ["--gbt-grid", "0.1"], "--gbt-grid takes eta:leaves pairs"),
    (qbrank.main, ["--gbt-grid", "0.1:1"], "leaves >= 2"),
    (qbrank.main, ["--models", "gbt_L9"], "--models"),
    (sp.main, ["--models", "mcrank-se,foo"], "--models"),
    (sp.main, ["--leaves", "1"], "--leaves must be >= 2"),
    (sp.main, ["--dataset", "web10k", "--trials", "6"], "has 5 folds"),
    (jensen_gap.main, ["--probs", "0.5,0.6"], "sum to 1"),
    (jensen_gap.main, ["--lists", "0"], "--lists"),
    (report.main, ["/nonexistent/run"], "no manifest"),
    (quality.main, ["--tune-on", "per-trial"], "give --tune N beside it"),
    (qbrank.main, ["--tune-on", "first-split"], "give --tune N beside it"),
    (sp.main, ["--tune-on", "per-trial"], "give --tune N beside it"),
])
def test_option_errors_are_one_line_before_any_work(tmp_path, capsys, main, argv, needle):
    out = ["--out", str(tmp_path / "o")] if main is not report.main else []
    t0 = time.perf_counter()
    try:
        code = main(argv + out)
    except SystemExit as exit_:                     # argparse's own checks exit with 2 as well
        code = exit_.code
    assert code == 2
    assert needle in _one_error_line(capsys)
    assert time.perf_counter() - t0 < 20                  # refused before loading or training anything
    assert not (tmp_path / "o" / "units").exists()


def test_out_is_a_file_is_refused_before_loading_data(tmp_path, capsys):
    f = tmp_path / "afile"
    f.write_text("x")
    assert robustness.main(TINY + ["--out", str(f)]) == 2
    assert "is a file, not a directory" in _one_error_line(capsys)


def test_debug_shows_the_traceback(tmp_path):
    with pytest.raises(UsageError):
        robustness.main(["--levels", "1,1", "--debug", "--out", str(tmp_path / "o")])


def _mq_layout(root, train_name="train.txt"):
    ds = make_synthetic("web30k", n_queries=30, seed=0)
    fold = root / "MQ2008" / "Fold1"
    for name, part in (("train", ds.subset(range(0, 18))), ("vali", ds.subset(range(18, 24))),
                       ("test", ds.subset(range(24, 30)))):
        sub = RankingDataset(X=part.X[:, :46], y=np.minimum(part.y, 2), qid=part.qid)
        write_svmlight(sub, fold / (train_name if name == "train" else f"{name}.txt"))
    return fold


def test_a_malformed_data_file_is_one_line_naming_file_and_line(tmp_path, capsys):
    fold = _mq_layout(tmp_path)
    lines = (fold / "train.txt").read_text().splitlines()
    lines[6] = lines[6].replace("qid:", "qid=")
    (fold / "train.txt").write_text("\n".join(lines) + "\n")
    assert robustness.main(TINY[2:] + ["--dataset", "mq2008", "--data-dir", str(tmp_path),
                                   "--out", str(tmp_path / "o")]) == 2
    line = _one_error_line(capsys)
    assert "train.txt, line 7:" in line and "qid" in line


def test_a_truncated_gz_data_file_is_one_line_naming_it(tmp_path, capsys):
    fold = _mq_layout(tmp_path, train_name="train.txt.gz")
    data = (fold / "train.txt.gz").read_bytes()
    (fold / "train.txt.gz").write_bytes(data[: len(data) // 2])
    assert robustness.main(TINY[2:] + ["--dataset", "mq2008", "--data-dir", str(tmp_path),
                                   "--out", str(tmp_path / "o")]) == 2
    assert "train.txt.gz: the gz stream is damaged or truncated" in _one_error_line(capsys)


def test_a_silent_scheduler_is_refused_within_the_timeout(tmp_path, capsys, monkeypatch):
    # the probe's child is killed at the bound (2 s + its grace for importing dask, 15 s by
    # default, 4 here): without that kill the run would wait for ever and this test hang
    from experiments import execution
    monkeypatch.setattr(execution, "PROBE_GRACE_S", 4)
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)                                  # accepts connections, never says a word
    port = srv.getsockname()[1]
    try:
        t0 = time.perf_counter()
        code = robustness.main(TINY[:-3] + ["--backend", "dask", "--scheduler", f"tcp://127.0.0.1:{port}",
                                       "--scheduler-timeout", "2", "--out", str(tmp_path / "o")])
        assert code == 2 and time.perf_counter() - t0 < 30
        assert "did not answer within 2 s" in _one_error_line(capsys)
    finally:
        srv.close()


# ------------------------------------------------------------------ runs, failures, manifest
def _args(**kw):
    base = dict(jobs=1, threads=1, backend="loky", scheduler=None, force=False, quiet=True, no_report=True,
                scheduler_timeout=30)
    return argparse.Namespace(**{**base, **kw})


def _fn(unit, ctx):
    if unit.model == "bad":
        raise ValueError("boom: the objective returned NaN")
    if unit.model == "stop":
        raise KeyboardInterrupt
    return {"means": {"m": float(unit.trial)}}, {"per_query": np.arange(5.0) + unit.trial}


def _units(models=("good",), trials=3):
    return [Unit("t", "d", t, m) for t in range(trials) for m in models]


def test_the_first_failing_units_message_is_printed(tmp_path, capsys):
    store = ResultStore(tmp_path / "run", {"c": 1})
    code = study.run_and_report("t", _args(), store, _units(("good", "bad")), _fn, lambda s: {}, UnitContext())
    err = capsys.readouterr().err
    assert code == 1
    assert "error: 3 unit(s) failed; the first, d/t000/base/bad: ValueError: boom: the objective returned NaN" in err
    assert store.read_manifest()["status"] == "failed"


def test_manifest_ends_interrupted_or_error(tmp_path):
    store = ResultStore(tmp_path / "run", {"c": 1})
    with pytest.raises(KeyboardInterrupt):
        study.run_and_report("t", _args(), store, _units(("stop",)), _fn, lambda s: {}, UnitContext())
    assert store.read_manifest()["status"] == "interrupted"

    def broken_report(s):
        raise RuntimeError("report failed")
    with pytest.raises(RuntimeError):
        study.run_and_report("t", _args(no_report=False), store, _units(), _fn, broken_report, UnitContext())
    man = store.read_manifest()
    assert man["status"] == "error" and "report failed" in man["error"]


def test_one_run_at_a_time_per_out(tmp_path):
    a, b = ResultStore(tmp_path / "run", {"c": 1}), ResultStore(tmp_path / "run", {"c": 1})
    with a.lock():
        with pytest.raises(StoreError, match=rf"another run is using {tmp_path / 'run'} \(pid {os.getpid()}\)"):
            with b.lock():
                pass
    with b.lock():                                  # released with the first run
        pass


@pytest.mark.parametrize("damage", ["npz", "json"])
def test_damaged_unit_files_are_named_and_recomputed(tmp_path, capsys, damage):
    store = ResultStore(tmp_path / "run", {"c": 1})
    study.run_and_report("t", _args(), store, _units(), _fn, lambda s: {}, UnitContext())
    victim = next((tmp_path / "run" / "units").glob(f"*t001*.{damage}"))
    victim.write_bytes(victim.read_bytes()[:20])              # truncated
    capsys.readouterr()
    study.run_and_report("t", _args(quiet=False), ResultStore(tmp_path / "run", {"c": 1}), _units(), _fn,
                          lambda s: {}, UnitContext())
    err = capsys.readouterr().err
    assert str(victim) in err and "damaged" in err
    man = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert man["n_done"] == 1 and man["n_skipped"] == 2
    assert ResultStore(tmp_path / "run", {"c": 1}).arrays("d/t001/base/good")["per_query"].tolist() == [1, 2, 3, 4, 5]


def test_a_damaged_manifest_is_named_by_report_and_rebuilt_by_a_run(tmp_path, capsys):
    store = ResultStore(tmp_path / "run", {"c": 1})
    study.run_and_report("t", _args(), store, _units(), _fn, lambda s: {}, UnitContext())
    (tmp_path / "run" / "manifest.json").write_text('{"experiment": "t", "conf')
    assert report.main([str(tmp_path / "run")]) == 2
    assert "manifest.json: the manifest is damaged" in _one_error_line(capsys)
    study.run_and_report("t", _args(), ResultStore(tmp_path / "run", {"c": 1}), _units(), _fn, lambda s: {}, UnitContext())
    man = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert man["status"] == "ok" and man["n_skipped"] == 3
    assert "rebuilding it" in capsys.readouterr().err


def test_reports_cover_exactly_the_units_of_the_command(tmp_path, capsys):
    store = ResultStore(tmp_path / "run", {"c": 1})
    study.run_and_report("t", _args(), store, _units(trials=4), _fn, lambda s: {}, UnitContext())
    seen = {}
    store2 = ResultStore(tmp_path / "run", {"c": 1})
    study.run_and_report("t", _args(no_report=False, quiet=False), store2, _units(trials=2), _fn,
                          lambda s: seen.update(keys=sorted(r["key"] for r in s.records())) or {}, UnitContext())
    assert seen["keys"] == ["d/t000/base/good", "d/t001/base/good"]
    assert "2 stored unit(s)" in capsys.readouterr().err


def test_units_from_another_code_version_are_flagged(tmp_path, capsys):
    store = ResultStore(tmp_path / "run", {"c": 1})
    study.run_and_report("t", _args(), store, _units(), _fn, lambda s: {}, UnitContext())
    js = next((tmp_path / "run" / "units").glob("*t000*.json"))
    rec = json.loads(js.read_text())
    rec["code"] = {"ltrrepro": "0.0.1", "git_commit": "0123abc"}
    js.write_text(json.dumps(rec))
    capsys.readouterr()
    study.run_and_report("t", _args(quiet=False), ResultStore(tmp_path / "run", {"c": 1}), _units(), _fn,
                          lambda s: {}, UnitContext())
    assert "computed by other code versions (0123abc" in capsys.readouterr().err


def test_files_follow_the_users_umask(tmp_path):
    old = os.umask(0o027)
    try:
        atomic_write_text(tmp_path / "a.json", "{}")
    finally:
        os.umask(old)
    assert (tmp_path / "a.json").stat().st_mode & 0o777 == 0o640


def test_worker_pools_are_capped_by_the_units_to_run():
    assert default_jobs_threads(8, 1, n_units=2)[0] == 2
    assert default_jobs_threads(None, 1, n_units=1)[0] == 1


# ------------------------------------------------------------------ caches
def test_a_damaged_dataset_cache_entry_is_rewritten(tmp_path):
    ds = make_synthetic("web30k", n_queries=20, seed=1)
    ref = materialize(ds, cache_dir=tmp_path)
    x = os.path.join(ref.path, "X.npy")
    with open(x, "r+b") as fh:
        fh.truncate(100)
    assert not npy_dir_ok(ref.path)
    ref2 = materialize(ds, cache_dir=tmp_path)
    assert ref2.path == ref.path and npy_dir_ok(ref2.path)
    np.testing.assert_array_equal(np.load(x), ds.X)


def test_an_unwritable_cache_falls_back_to_the_run_directory(tmp_path, capsys):
    blocked = tmp_path / "cache"
    blocked.write_text("a file where the cache directory should be")
    ds = make_synthetic("web30k", n_queries=20, seed=1)
    ref = materialize(ds, cache_dir=blocked, fallback_dir=tmp_path / "run" / ".cache")
    assert ref.path.startswith(str(tmp_path / "run" / ".cache")) and npy_dir_ok(ref.path)
    assert "cannot be written" in capsys.readouterr().err


def _materialize_in_another_process(root: str) -> str:
    ds = make_synthetic("web30k", n_queries=40, seed=7)
    return materialize(ds, cache_dir=root).path


def test_processes_materializing_one_dataset_at_once_do_not_collide(tmp_path):
    with ProcessPoolExecutor(4, mp_context=get_context("spawn")) as pool:
        for round_ in range(3):
            root = tmp_path / f"c{round_}"
            paths = list(pool.map(_materialize_in_another_process, [str(root)] * 8))
            assert len(set(paths)) == 1 and npy_dir_ok(paths[0])
            assert [p.name for p in (root / "datasets").iterdir()] == [os.path.basename(paths[0])]


def test_save_npy_dir_replaces_a_damaged_entry(tmp_path):
    ds = make_synthetic("web30k", n_queries=10, seed=2)
    entry = tmp_path / "e"
    entry.mkdir()
    (entry / "meta.json").write_text("{")
    save_npy_dir(ds, entry, {"name": "x"})
    assert npy_dir_ok(entry)


def test_a_truncated_gz_member_under_a_fold_layout_names_the_file(tmp_path):
    from ltrrepro.datasets import load_fold
    from ltrrepro.svmlight import SVMLightFormatError
    fold = _mq_layout(tmp_path, train_name="train.txt.gz")
    raw = gzip.decompress((fold / "train.txt.gz").read_bytes())
    (fold / "train.txt.gz").write_bytes(gzip.compress(raw)[:-30])
    with pytest.raises(SVMLightFormatError, match=r"train\.txt\.gz: the gz stream"):
        load_fold("mq2008", data_dir=tmp_path, fold=1)


def test_a_worker_exits_when_the_runs_main_process_is_killed():
    import subprocess
    import sys
    main = subprocess.Popen(["sleep", "60"])
    worker = subprocess.Popen([sys.executable, "-c",
                               f"import time; from ltrrepro.runner.worker import _watch_parent; "
                               f"_watch_parent({main.pid}, 0.2); time.sleep(60)"])
    try:
        time.sleep(3)
        assert worker.poll() is None                   # the main process lives: the worker stays
        main.kill()
        main.wait()
        assert worker.wait(timeout=15) == 1            # gone soon after its main process
    finally:
        for p in (main, worker):
            if p.poll() is None:
                p.kill()


def test_an_interrupt_is_one_line_and_exit_130(capsys):
    @cli
    def main(argv):
        raise KeyboardInterrupt("signal 15")
    assert main([]) == 130
    err = capsys.readouterr().err
    assert err.startswith("interrupted (signal 15)") and "Traceback" not in err


def test_cache_entries_follow_the_users_umask(tmp_path):
    old = os.umask(0o027)
    try:
        ref = materialize(make_synthetic("web30k", n_queries=10, seed=3), cache_dir=tmp_path)
    finally:
        os.umask(old)
    assert os.stat(ref.path).st_mode & 0o777 == 0o750
    assert os.stat(os.path.join(ref.path, "meta.json")).st_mode & 0o777 == 0o640


# ------------------------------------------------------------------ one flag contract
#: flags each experiment does not take: refused as unknown, never silently ignored
INAPPLICABLE = {
    robustness.main: ["--every 5", "--impressions 3", "--max-pairs 10"],
    quality.main: ["--levels 0,20", "--noise labels", "--every 5"],
    convergence.main: ["--baseline xendcg", "--levels 0"],        # --models: other systems join Figure 2
    clicks.main: ["--noise labels", "--every 5"],
    qbrank.main: ["--preset fast", "--levels 0", "--iterations 10"],
    sp.main: ["--preset fast", "--library xgboost", "--systems mcrank", "--max-trees 5"],
    jensen_gap.main: ["--library xgboost", "--trials 3", "--dataset web30k", "--rounds 5"],
}


@pytest.mark.parametrize("main,flag", [(m, f) for m, fs in INAPPLICABLE.items() for f in fs])
def test_a_flag_an_experiment_cannot_honour_is_an_error(tmp_path, capsys, main, flag):
    with pytest.raises(SystemExit) as exit_:
        main(flag.split() + ["--out", str(tmp_path / "o")])
    assert exit_.value.code == 2
    assert "unrecognized arguments: " + flag.split()[0] in _one_error_line(capsys)


@pytest.mark.parametrize("main", [robustness.main, quality.main, convergence.main, clicks.main, qbrank.main,
                                  sp.main, jensen_gap.main])
def test_every_experiment_takes_the_same_execution_flags(main, capsys):
    from experiments.cli import EXECUTION
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    assert [f for f in (*EXECUTION, "seed") if f"--{f}" not in text] == []


@pytest.mark.slow
def test_config_reruns_a_stored_run_exactly(tmp_path, capsys):
    first = tmp_path / "first"
    argv = ["--queries", "40", "--trials", "2", "--preset", "tiny", "--levels", "0,50", "--noise", "labels",
            "--seed", "3"]
    assert robustness.main(argv + ["--out", str(first), "--jobs", "1", "--quiet"]) == 0
    again = tmp_path / "again"
    assert robustness.main(["--config", str(first / "manifest.json"), "--out", str(again), "--jobs", "1",
                            "--quiet"]) == 0
    for f in ("tables/robustness.csv", "claims.json"):
        assert (first / f).read_text() == (again / f).read_text()
    a, b = (json.loads((d / "manifest.json").read_text())["config"] for d in (first, again))
    assert a == b and a["seed"] == 3 and a["levels"] == [0, 50]
    capsys.readouterr()
    assert robustness.main(["--config", str(first), "--trials", "3", "--out", str(tmp_path / "x")]) == 2
    assert "drop --trials" in _one_error_line(capsys)
    assert quality.main(["--config", str(first), "--out", str(tmp_path / "y")]) == 2
    assert "a robustness run, not quality" in _one_error_line(capsys)
    assert quality.main(["--config", str(tmp_path / "none.json"), "--out", str(tmp_path / "z")]) == 2
    assert "no such file" in _one_error_line(capsys)


@pytest.mark.parametrize("main,argv", [(robustness.main, []),
                                       (quality.main, ["--library", "xgboost", "--models", "lambdamart"])])
def test_device_cuda_without_a_gpu_is_one_line_and_exit_2(tmp_path, capsys, monkeypatch, main, argv):
    from ltrrepro import device
    monkeypatch.setattr(device, "_probe", lambda program: False)
    assert main(argv + ["--device", "cuda", "--out", str(tmp_path / "o")]) == 2
    assert "--device cuda:" in _one_error_line(capsys)
    assert not (tmp_path / "o" / "units").exists()


def test_device_is_refused_where_nothing_can_use_it(tmp_path, capsys):
    for main in (qbrank.main, sp.main, jensen_gap.main):
        with pytest.raises(SystemExit):
            main(["--device", "cuda", "--out", str(tmp_path / "o")])
        assert "unrecognized arguments: --device" in _one_error_line(capsys)


@pytest.mark.slow
def test_estimate_calibrates_on_kept_units_and_the_run_resumes_from_them(tmp_path, capsys):
    out = tmp_path / "o"
    argv = ["--queries", "60", "--trials", "2", "--preset", "tiny", "--levels", "0,100", "--noise", "documents",
            "--out", str(out)]
    assert robustness.main(argv + ["--estimate"]) == 0
    text = capsys.readouterr().out
    assert "estimate: 8 unit(s), 0 already stored, 8 to run; calibrated on 4 unit(s)" in text   # two waves
    assert "lambdamart:" in text and "xendcg:" in text and "on 8 workers" in text
    assert len(list((out / "units").glob("*.json"))) == 4            # the calibration units are kept
    assert robustness.main(argv + ["--quiet", "--jobs", "1"]) == 0
    man = json.loads((out / "manifest.json").read_text())
    assert man["n_skipped"] == 4 and man["n_done"] == 4


def test_estimate_scales_by_training_size(tmp_path):
    """Extra negatives grow the training lists: a unit at +100% is estimated dearer than at 0."""
    from experiments.bruch2021.protocol import BruchConfig, train_size
    from ltrrepro.runner import Unit, UnitContext
    ds = make_synthetic("web30k", n_queries=40, seed=2)
    ref = materialize(ds, cache_dir=tmp_path)
    ctx = UnitContext(cfg=BruchConfig(experiment="robustness", queries=40, noise=("documents",), levels=(0, 100)),
                      data={"path": ref.path, "name": ref.name})
    base = train_size(Unit("r", "d", 1, "xendcg", (("noise", "none"), ("level", 0))), ctx)
    more = train_size(Unit("r", "d", 1, "xendcg", (("noise", "documents"), ("level", 100))), ctx)
    assert 1.5 < more / base < 2.0            # the training part (3/4 of the two) doubles; validation does not


def test_a_real_layout_is_stored_once_and_the_workers_map_that_copy(tmp_path):
    """The pooled dataset is one content-addressed entry (no per-file reader caches beside
    it); materialize finds it and writes nothing; a second load maps it without parsing; a
    changed file is parsed again."""
    from ltrrepro.datasets import load_dataset, load_fold
    fold = _mq_layout(tmp_path)
    cache = tmp_path / "cache"
    ds = load_dataset("mq2008", data_dir=tmp_path, cache_dir=cache)
    files = sorted(p.relative_to(cache).parts[0] for p in cache.rglob("*") if p.is_file())
    assert set(files) == {"datasets", "pooled"}                      # one entry + its small index
    (entry,) = (cache / "datasets").iterdir()
    assert Path(materialize(ds, cache_dir=cache).path) == entry and len(list((cache / "datasets").iterdir())) == 1
    assert isinstance(ds.X, np.memmap) or isinstance(ds.X.base, np.memmap)
    before = {p: p.stat().st_mtime_ns for p in cache.rglob("*") if p.is_file()}
    again = load_dataset("mq2008", data_dir=tmp_path, cache_dir=cache)
    assert {p: p.stat().st_mtime_ns for p in cache.rglob("*") if p.is_file()} == before   # nothing written
    np.testing.assert_array_equal(again.X, ds.X)
    lines = (fold / "test.txt").read_text().splitlines()
    (fold / "test.txt").write_text("\n".join(lines[:-1]) + "\n")    # the data changed: parsed again
    assert load_dataset("mq2008", data_dir=tmp_path, cache_dir=cache).n_docs == ds.n_docs - 1
    # a fold layout reads (and caches) only the parts asked for
    fcache = tmp_path / "fcache"
    parts = load_fold("mq2008", data_dir=tmp_path, fold=1, cache_dir=fcache, parts=("train", "test"))
    assert set(parts) == {"train", "test"}
    assert not any("vali" in p.read_text() for p in fcache.rglob("*.json") if p.name == "meta.json")



_CALLS = []


def _first_call_dear(unit, ctx):
    """A unit of 0.05 s, the first in its process 0.4 s (a worker's imports and numba compiles)."""
    import time as time_

    time_.sleep(0.4 if not _CALLS else 0.05)
    _CALLS.append(unit.key)
    return {"ndcg": 0.5}, {}


def test_estimate_counts_a_workers_first_call_once_not_per_unit(tmp_path):
    """``--estimate`` on a fresh folder said 4.6 min for a run of 167 s (+65%, issue 48): its one
    calibration wave was the workers' first units, which pay the imports and numba's compiles
    that the run pays once per worker. Now a second wave on the warm workers gives the rate and
    the first-call cost is added once: 10 units of 0.05 s after a first of 0.4 s (jobs 1) are
    about 0.4 + 9 x 0.05 s, not 10 x 0.4 s."""
    from experiments.estimate import estimate
    from experiments.execution import Execution
    from ltrrepro.runner import Unit
    from ltrrepro.store import ResultStore

    _CALLS.clear()
    units = [Unit("toy", "d", t, "m", (), seed=0) for t in range(12)]
    store = ResultStore(tmp_path / "o", {"experiment": "toy"})
    lines = estimate(units, _first_call_dear, UnitContext(), store, Execution(jobs=1, threads=1, estimate=True))
    assert "calibrated on 2 unit(s)" in lines[0] and len(_CALLS) == 2
    rest = float(lines[2].split("about ")[1].split(" s")[0])
    assert 0.6 <= rest <= 2.0, lines                  # 10 x 0.05 + 0.35 once; the cold rate gave 10 x 0.4 = 4 s

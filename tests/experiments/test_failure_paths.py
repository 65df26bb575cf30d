"""Hardening, third pass: every failure path ends, in one line, with finished work kept.

Each test builds its own bad input; the runs go through the real entry points."""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
TINY = ["--queries", "60", "--trials", "2", "--preset", "tiny", "--quiet"]
MANY = ["--queries", "60", "--trials", "8", "--preset", "tiny", "--quiet"]  # units still queued at the failure

# A full disk under the units directory after the first record: the first unit is kept, the
# next write fails with ENOSPC. Run in a child process so that a regression (the loky pool
# deadlocking on its way out) fails the test at its timeout instead of hanging the suite.
_FULL_DISK = r"""
import errno, sys
from ltrrepro import fileio, store
from ltrrepro.fileio import WriteError
real, calls = store.atomic_write_text, []
def full(path, text):
    if "/units/" in str(path):
        calls.append(path)
        if len(calls) > 1:
            raise WriteError.of(path, OSError(errno.ENOSPC, "No space left on device"))
    return real(path, text)
store.atomic_write_text = full
from experiments import quality
sys.exit(quality.main(sys.argv[1:]))
"""


@pytest.mark.slow
def test_a_full_disk_under_two_jobs_ends_within_seconds_in_one_line(tmp_path):
    out = tmp_path / "run"
    env = {**os.environ, "LTRREPRO_CACHE": str(tmp_path / "cache")}
    t0 = time.perf_counter()
    res = subprocess.run([sys.executable, "-c", _FULL_DISK, *MANY, "--jobs", "2", "--threads", "1",
                          "--models", "lambdamart,xendcg", "--out", str(out)],
                         capture_output=True, text=True, timeout=90, cwd=ROOT, env=env)
    took = time.perf_counter() - t0
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert res.returncode == 2, res.stderr
    assert len(lines) == 1 and lines[0].startswith("error: cannot write "), res.stderr
    assert "No space left on device (ENOSPC)" in lines[0] and "/units/" in lines[0]
    assert "Traceback" not in res.stderr and "cannot schedule new futures" not in res.stderr
    assert took < 120                                  # seconds of work, not a wait on the pool
    kept = list((out / "units").glob("*.json"))
    assert len(kept) == 1                              # the finished unit is kept ...
    assert not [p for p in (out / "units").iterdir() if p.name.endswith(".tmp")]   # ... nothing partial
    assert json.loads((out / "manifest.json").read_text())["status"] == "error"


_FULL_AT = r"""
import errno, sys
import ltrrepro.fileio as f
where = sys.argv.pop(1)
orig_replace = f.os.replace
def replace(src, dst, *a, **k):                  # the disk fills when a file under `where` lands
    if where in str(dst):
        raise OSError(errno.ENOSPC, "No space left on device")
    return orig_replace(src, dst, *a, **k)
f.os.replace = replace
from experiments import quality
sys.exit(quality.main(sys.argv[1:]))
"""


@pytest.mark.slow
@pytest.mark.parametrize("where,jobs", [("/units/", "1"), ("/tables/", "1"), ("/tables/", "2")])
def test_a_full_disk_at_one_job_or_while_reporting_is_one_line(tmp_path, where, jobs):
    out = tmp_path / "run"
    env = {**os.environ, "LTRREPRO_CACHE": str(tmp_path / "cache")}
    res = subprocess.run([sys.executable, "-c", _FULL_AT, where, *TINY, "--jobs", jobs, "--threads", "1",
                          "--models", "lambdamart", "--out", str(out)],
                         capture_output=True, text=True, timeout=90, cwd=ROOT, env=env)
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert res.returncode == 2 and len(lines) == 1, res.stderr
    assert lines[0].startswith(f"error: cannot write {out}{where}") and "(ENOSPC)" in lines[0]
    assert not list(out.rglob("*.tmp"))                # nothing partial is left behind
    if where == "/tables/":                            # the units were all written before the report
        assert len(list((out / "units").glob("*.json"))) == 2


@pytest.fixture(scope="module")
def stored_robustness(tmp_path_factory):
    """A finished tiny robustness run whose manifest the --config tests edit."""
    from experiments import robustness
    out = tmp_path_factory.mktemp("stored") / "run"
    assert robustness.main(TINY + ["--jobs", "1", "--models", "lambdamart", "--levels", "0,50", "--noise", "labels",
                                   "--out", str(out)]) == 0
    return json.loads((out / "manifest.json").read_text())


@pytest.mark.parametrize("field,value,needle", [
    ("levels", [], "--levels is empty"),
    ("levels", [0, 150], "label-noise levels are percentages in [0, 100]"),
    ("levels", [0, -50], "percentages >= 0"),
    ("levels", [0, "x"], "finite numbers"),
    ("noise", ["labels", "labels"], "each once"),
    ("noise", ["fire"], "--noise takes documents and/or labels"),
    ("seed", "abc", "field 'seed' must be int, got 'abc'"),
    ("seed", -1, "--seed must be a non-negative integer"),
    ("trials", 2.5, "field 'trials' must be int, got 2.5"),
    ("trials", 0, "trials must be >= 1"),
    ("models", "lambdamart", "field 'models' must be tuple"),
])
def test_a_manifest_gets_the_checks_of_the_flags(tmp_path, capsys, stored_robustness, field, value, needle):
    from experiments import robustness
    man = json.loads(json.dumps(stored_robustness))
    man["config"][field] = value
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(man))
    assert robustness.main(["--config", str(path), "--out", str(tmp_path / "again"), "--quiet"]) == 2
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(err) == 1 and err[0].startswith(f"error: --config {path}: ") and needle in err[0], err
    assert not (tmp_path / "again" / "units").exists()


@pytest.mark.parametrize("argv,needle", [
    (["--seed", "-1"], "--seed: '-1' must be a non-negative integer"),
    (["--noise", "labels,labels"], "--noise repeats a type"),
    (["--levels", "0,nan"], "--levels must be finite numbers"),
    (["--levels", "0,inf"], "--levels must be finite numbers"),
    (["--conf", "x"], "unrecognized arguments: --conf"),      # no abbreviation read as --config
])
def test_flags_refused_in_one_line(tmp_path, capsys, argv, needle):
    from experiments import robustness
    try:
        code = robustness.main(argv + ["--out", str(tmp_path / "o")])
    except SystemExit as exit_:
        code = exit_.code
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert code == 2 and len(err) == 1 and needle in err[0], err


@pytest.mark.slow
def test_another_experiment_into_the_same_out_is_refused_and_its_records_kept(tmp_path, capsys):
    from experiments import convergence, quality
    out = tmp_path / "o"
    assert quality.main(TINY + ["--jobs", "1", "--models", "lambdamart", "--out", str(out)]) == 0
    before = sorted(p.name for p in (out / "units").iterdir())
    capsys.readouterr()
    assert convergence.main(TINY + ["--jobs", "1", "--out", str(out)]) == 2
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(err) == 1 and f"--out {out} holds a quality run" in err[0]
    assert sorted(p.name for p in (out / "units").iterdir()) == before
    assert json.loads((out / "manifest.json").read_text())["experiment"] == "quality"


@pytest.mark.slow
def test_a_record_copied_over_another_units_file_is_recomputed(tmp_path, capsys):
    from experiments import quality
    out = tmp_path / "o"
    argv = TINY + ["--jobs", "1", "--models", "lambdamart", "--out", str(out)]
    assert quality.main(argv) == 0
    a, b = sorted((out / "units").glob("*.json"))
    b.write_text(a.read_text())                          # t000's record under t001's name
    capsys.readouterr()
    assert quality.main(argv) == 0
    assert "holds the record of another unit" in capsys.readouterr().err
    assert json.loads(b.read_text())["key"] == b.stem.replace("__", "/")


@pytest.mark.parametrize("n_queries", [1, 3])
def test_a_dataset_too_small_to_split_is_one_line_before_training(tmp_path, capsys, n_queries):
    from experiments import quality
    from ltrrepro import make_synthetic
    from ltrrepro.svmlight import write_svmlight
    ds = make_synthetic("web30k", n_queries=20, seed=1)
    path = tmp_path / "small.txt"
    write_svmlight(ds.subset(np.arange(n_queries)), path)
    assert quality.main(["--dataset", str(path), "--trials", "2", "--preset", "tiny", "--jobs", "1", "--quiet",
                         "--out", str(tmp_path / "o")]) == 2
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(err) == 1 and f"{path}: {n_queries} quer" in err[0] and "at least 10" in err[0], err
    assert not (tmp_path / "o" / "units").exists()


def test_zheng_on_data_without_multi_grade_queries_is_one_line_before_training(tmp_path, capsys):
    from experiments import qbrank
    from ltrrepro import make_synthetic
    from ltrrepro.data import RankingDataset
    from ltrrepro.svmlight import write_svmlight
    ds = make_synthetic("web30k", n_queries=30, seed=1)
    path = tmp_path / "zeros.txt"
    write_svmlight(RankingDataset(X=ds.X, y=np.zeros_like(ds.y), qid=ds.qid), path)
    assert qbrank.main(["--dataset", str(path), "--trials", "1", "--quiet", "--jobs", "1",
                        "--out", str(tmp_path / "o")]) == 2
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(err) == 1 and "0 of 30 queries have more than one grade" in err[0], err


#: ``python -m MODULE`` as a terminal starts it: Ctrl-C raises KeyboardInterrupt (the handler
#: Python installs when SIGINT is not ignored). A suite started in the background (``pytest &``
#: from a script: a non-interactive shell ignores SIGINT in background jobs) hands the ignore down
#: to the run, Python keeps an inherited ignore, and the run would finish with exit 0 instead of
#: stopping.
AS_IN_A_TERMINAL = ("import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
                    "sys.argv[0] = sys.argv[1]; del sys.argv[1]; runpy.run_module(sys.argv[0], run_name='__main__', "
                    "alter_sys=True)")


@pytest.mark.slow
@pytest.mark.parametrize("signame,said", [("SIGTERM", "signal 15"), ("SIGINT", "Ctrl-C")])
def test_sigterm_under_two_jobs_ends_in_one_line_without_pool_noise(tmp_path, signame, said):
    """SIGTERM mid-run (a cluster's job killer) or Ctrl-C: 'interrupted', exit 130, the finished
    units kept, the manifest closed, and no traceback or 'cannot schedule new futures' from the pool."""
    import signal
    out = tmp_path / "run"
    env = {**os.environ, "LTRREPRO_CACHE": str(tmp_path / "cache")}
    run = subprocess.Popen([sys.executable, "-c", AS_IN_A_TERMINAL, "experiments.quality", "--queries", "100",
                            "--trials", "20", "--preset", "tiny", "--quiet", "--jobs", "2", "--threads", "1",
                            "--out", str(out)],
                           cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline and len(list((out / "units").glob("*.json"))) < 4:
        time.sleep(0.05)
    run.send_signal(getattr(signal, signame))
    _, err = run.communicate(timeout=60)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert run.returncode == 130 and lines == [f"interrupted ({said}): finished units are kept; the same command "
                                               "resumes"], err
    assert len(list((out / "units").glob("*.json"))) >= 4
    assert json.loads((out / "manifest.json").read_text())["status"] == "interrupted"


@pytest.mark.parametrize("edit,needle", [
    (lambda c: c.update(models=[]), "runs no unit"),
    (lambda c: c.pop("models"), "runs no unit"),
    (lambda c: c.update(trails=100), "unknown field(s) 'trails'"),
    (lambda c: c.update(plugins=[["os.system@command=id", "os:system(command='id')"]],
                        models=["lambdamart", "os.system@command=id"]), "nothing was called"),
])
def test_a_manifest_that_runs_nothing_or_names_an_unknown_field_is_refused(tmp_path, capsys, stored_robustness,
                                                                          edit, needle):
    from experiments import robustness
    man = json.loads(json.dumps(stored_robustness))
    edit(man["config"])
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(man))
    assert robustness.main(["--config", str(path), "--out", str(tmp_path / "again"), "--quiet"]) == 2
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(err) == 1 and err[0].startswith("error: ") and needle in err[0], err
    if "field" in needle or "called" in needle:
        assert err[0].startswith(f"error: --config {path}: ")


def test_a_plugin_name_too_long_for_a_file_is_refused_before_any_data(tmp_path, capsys):
    from experiments import quality
    spec = f"plugin_losses:CrashOnData(how='{'a' * 300}')"
    assert quality.main(TINY + ["--jobs", "1", "--models", f"lambdamart,{spec}", "--out", str(tmp_path / "o")]) == 2
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(err) == 1 and "the limit is 255" in err[0] and "shorter" in err[0], err
    assert not (tmp_path / "o" / "units").exists()


@pytest.mark.parametrize("argv,needle", [
    (["--models", ""], "--models is empty"),
    (["--models", ","], "--models is empty"),
])
def test_an_empty_model_list_is_refused(tmp_path, capsys, argv, needle):
    from experiments import quality
    assert quality.main(argv + ["--out", str(tmp_path / "o")]) == 2
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(err) == 1 and needle in err[0], err


@pytest.mark.slow
def test_the_baseline_may_be_given_as_the_plugins_spec(tmp_path):
    from experiments import quality
    spec = "plugin_losses:Squared(scale=0.5)"
    out = tmp_path / "o"
    assert quality.main(TINY + ["--jobs", "1", "--models", f"lambdamart,xendcg,{spec}", "--baseline", spec,
                                "--out", str(out)]) == 0
    assert json.loads((out / "manifest.json").read_text())["config"]["baseline"] == "plugin_losses.Squared@scale=0.5"


@pytest.mark.slow
def test_rewording_a_choice_or_deviation_recomputes_nothing(tmp_path, monkeypatch):
    """The store hashes the configuration's fields and data, not the prose computed from them."""
    from experiments import quality
    from experiments.bruch2021.protocol import BruchConfig
    out = tmp_path / "o"
    argv = TINY + ["--jobs", "1", "--models", "lambdamart", "--out", str(out)]
    assert quality.main(argv) == 0
    stamp = {p.name: p.stat().st_mtime_ns for p in (out / "units").glob("*.json")}
    monkeypatch.setattr(BruchConfig, "choices", lambda self: ["a choice, worded anew"])
    monkeypatch.setattr(BruchConfig, "deviations", lambda self: ["a deviation, worded anew"])
    assert quality.main(argv) == 0
    assert {p.name: p.stat().st_mtime_ns for p in (out / "units").glob("*.json")} == stamp
    man = json.loads((out / "manifest.json").read_text())
    assert man["config"]["choices"] == ["a choice, worded anew"]          # written beside the hash


@pytest.mark.parametrize("target", ["loop", "missing"])
def test_a_dataset_path_that_is_a_broken_link_says_so(tmp_path, capsys, target):
    from experiments import quality
    link = tmp_path / "train.txt"
    link.symlink_to(link if target == "loop" else tmp_path / "nowhere.txt")
    assert quality.main(["--dataset", str(link), "--out", str(tmp_path / "o")]) == 2
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(err) == 1 and "a symbolic link that leads nowhere" in err[0], err


def test_a_run_stored_before_the_prose_left_the_hash_resumes(tmp_path):
    """Records hashed under the old recipe (the deviations and choices hashed too) are this
    configuration's: a run stored before the upgrade resumes instead of recomputing."""
    from ltrrepro.store import ResultStore, config_hash
    config = {"type": "X", "seed": 0, "deviations": ["few trials"], "choices": ["a choice"]}
    store = ResultStore(tmp_path, config)
    store.write("u1", {"means": {"m": 1.0}})
    rec = json.loads((tmp_path / "units" / "u1.json").read_text())
    rec["config_hash"] = config_hash(config)                      # as a store before UNHASHED wrote it
    (tmp_path / "units" / "u1.json").write_text(json.dumps(rec))
    assert store.is_done("u1") and len(store.records()) == 1
    # found once, the record is re-stamped: re-wording the prose later recomputes nothing, a field does
    assert ResultStore(tmp_path, {**config, "choices": ["another choice"]}).is_done("u1")
    assert not ResultStore(tmp_path, {**config, "seed": 1}).is_done("u1")


def test_a_stored_run_resumes_after_its_prose_is_reworded_too(tmp_path):
    """A store written under the old recipe, whose prose has been re-worded since: the manifest's
    recorded hash (same hashed entries) makes its records current, and they are re-stamped, so
    the run stays resumable after this one rewrites the manifest."""
    from ltrrepro.store import ResultStore, config_hash
    old = {"type": "X", "seed": 0, "deviations": ["few trials"], "choices": ["a choice"]}
    store = ResultStore(tmp_path, old)
    store.write("u1", {"means": {"m": 1.0}})
    rec = json.loads((tmp_path / "units" / "u1.json").read_text())
    rec["config_hash"] = config_hash(old)
    (tmp_path / "units" / "u1.json").write_text(json.dumps(rec))
    (tmp_path / "manifest.json").write_text(json.dumps({"config": old, "config_hash": config_hash(old)}))
    new = ResultStore(tmp_path, {**old, "choices": ["the choice, re-worded"]})
    assert new.is_done("u1")
    assert json.loads((tmp_path / "units" / "u1.json").read_text())["config_hash"] == new.config_hash
    (tmp_path / "manifest.json").write_text(json.dumps({"config": {}, "config_hash": "x"}))
    assert ResultStore(tmp_path, {**old, "choices": ["once more"]}).is_done("u1")
    assert not ResultStore(tmp_path, {**old, "seed": 1}).is_done("u1")


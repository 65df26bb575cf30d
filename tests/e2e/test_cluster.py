"""A real dask cluster on localhost: a scheduler and two workers started as separate
processes, each in its own working directory (as ``dask worker`` or dask-jobqueue start them
on a cluster), run an experiment through ``--backend dask --scheduler ADDR``; the results
equal loky's, and a worker killed mid-run costs nothing but its unit's retry. Every wait is
bounded, so a hang fails the test instead of the CI job."""
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ltrrepro.store import ResultStore

pytestmark = pytest.mark.slow          # end-to-end runs: the inner loop (-m "not slow") leaves them out

ROOT = Path(__file__).resolve().parents[2]
PLUGINS = ROOT / "tests" / "plugins"       # the plug-in losses alone: tests/ on a worker's path would shadow experiments
ARGS = ["--queries", "60", "--trials", "3", "--levels", "0,50", "--noise", "labels", "--preset", "tiny",
        "--quiet"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(cmd, cwd: Path, log: Path, pythonpath: Path = PLUGINS):
    cwd.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(pythonpath), os.environ.get("PYTHONPATH")]))}
    return subprocess.Popen(cmd, cwd=cwd, stdout=open(log, "w"), stderr=subprocess.STDOUT, start_new_session=True,
                            env=env)                    # the workers find the tests' plug-in module


def _wait_for_workers(address: str, n: int, timeout: float = 90) -> None:
    from dask.distributed import Client
    deadline = time.time() + timeout
    with Client(address, timeout="30s") as client:
        while len(client.scheduler_info()["workers"]) < n:
            if time.time() > deadline:
                raise TimeoutError(f"{n} workers did not join {address} within {timeout} s")
            time.sleep(0.5)


def _run(argv, env, timeout=300):
    r = subprocess.run([sys.executable, "-m", "experiments.robustness", *argv], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, r.stderr[-3000:]


def _results(out: Path) -> dict:
    store = ResultStore.open(out)
    return {r["key"]: (r["means"], r["fit"], {k: v.tolist() for k, v in store.arrays(r["key"]).items()})
            for r in store.records()}


def _cluster(tmp_path: Path, pythonpath: Path = PLUGINS):
    """A scheduler and two one-thread workers on localhost, each process in a folder of its own
    with ``pythonpath`` first on its path; killed with their process groups at the end."""
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    procs = [_start([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port",
                     str(port), "--dashboard-address", ":0"], tmp_path / "scheduler", tmp_path / "scheduler.log",
                    pythonpath)]
    for w in ("w1", "w2"):
        procs.append(_start([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nworkers", "1",
                             "--nthreads", "1", "--dashboard-address", ":0", "--local-directory",
                             str(tmp_path / w / "scratch")], tmp_path / w, tmp_path / f"{w}.log", pythonpath))
    try:
        _wait_for_workers(address, 2)
        yield address, procs
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
            p.wait(timeout=30)


@pytest.fixture
def cluster(tmp_path):
    """A cluster of the test's own: for the tests that kill its workers or its scheduler."""
    yield from _cluster(tmp_path)


@pytest.fixture(scope="module")
def shared_cluster(tmp_path_factory):
    """One cluster for the tests that leave it whole (each checks that it does): starting one
    costs three interpreters."""
    yield from _cluster(tmp_path_factory.mktemp("shared-cluster"))


@pytest.fixture(scope="module")
def loky_run(tmp_path_factory):
    """The reference: ``ARGS`` run by loky on this machine (2 jobs of 1 thread, as the dask
    workers), once for the tests that compare a dask run with it."""
    tmp = tmp_path_factory.mktemp("loky")
    _run(ARGS + ["--out", str(tmp / "loky"), "--jobs", "2", "--threads", "1"],
         {**os.environ, "LTRREPRO_CACHE": str(tmp / "cache")})
    return tmp / "loky"


@pytest.fixture
def foreign_cluster(tmp_path):
    """A cluster whose environment is not this one: an unrelated package named ``experiments``
    comes first on its path (as a tests/experiments folder on a worker's PYTHONPATH once did)."""
    other = tmp_path / "other-env"
    for pkg in ("experiments", "experiments/bruch2021"):          # a package and its study folder: an editable
        (other / pkg).mkdir(parents=True)                          # install's finder would fill in a missing one
        (other / pkg / "__init__.py").write_text("# someone else's package\n")
    (other / "plugin_losses.py").write_text((PLUGINS / "plugin_losses.py").read_text())
    yield from _cluster(tmp_path, other)


def test_a_cluster_that_cannot_import_the_study_ends_the_run_in_one_line(tmp_path, foreign_cluster):
    """The scheduler cannot unpickle a task graph that names modules its environment lacks; dask
    logs that on the scheduler and the client waits for ever. The run checks first and says so."""
    address, _ = foreign_cluster
    out = tmp_path / "dask"
    t0 = time.time()
    r = subprocess.run([sys.executable, "-m", "experiments.robustness", *ARGS, "--out", str(out), "--backend", "dask",
                        "--scheduler", address, "--threads", "1"], cwd=ROOT,
                       env={**os.environ, "LTRREPRO_CACHE": str(tmp_path / "cache")}, capture_output=True, text=True,
                       timeout=120)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr[-3000:]
    assert lines[-1].startswith(f"error: the dask cluster at {address}: the scheduler cannot import experiments."), \
        lines[-1]
    assert "install ltrrepro and the study's package" in lines[-1] and time.time() - t0 < 90
    assert not list((out / "units").glob("*.json")) if (out / "units").exists() else True


def test_separate_worker_processes_give_loky_s_results(tmp_path, shared_cluster, loky_run):
    address, procs = shared_cluster
    env = {**os.environ, "LTRREPRO_CACHE": str(tmp_path / "cache")}       # the shared filesystem
    _run(ARGS + ["--out", str(tmp_path / "dask"), "--backend", "dask", "--scheduler", address, "--threads", "1"],
         env)
    a, b = _results(loky_run), _results(tmp_path / "dask")
    assert len(a) == 2 * 3 * 2 and a == b
    pids = {r["worker_pid"] for r in ResultStore.open(tmp_path / "dask").records()}
    assert pids <= {p.pid for p in procs[1:]} | _children(procs[1:]) and len(pids) == 2      # both workers worked
    assert (tmp_path / "dask" / "tables" / "robustness.csv").read_text() == \
        (loky_run / "tables" / "robustness.csv").read_text()


def test_a_worker_killed_mid_run_is_survived(tmp_path, cluster, loky_run):
    address, procs = cluster
    env = {**os.environ, "LTRREPRO_CACHE": str(tmp_path / "cache")}
    out = tmp_path / "dask"
    run = subprocess.Popen([sys.executable, "-m", "experiments.robustness", *ARGS, "--out", str(out), "--backend",
                            "dask", "--scheduler", address, "--threads", "1"], cwd=ROOT, env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline and len(list((out / "units").glob("*.json"))) < 2:
        time.sleep(0.05)
    os.killpg(procs[2].pid, signal.SIGKILL)                 # one worker dies; the other finishes the run
    _, err = run.communicate(timeout=300)
    assert run.returncode == 0, err[-3000:]
    man = json.loads((out / "manifest.json").read_text())
    assert man["status"] == "ok" and man["n_done"] == 12
    assert _results(out) == _results(loky_run)


def _children(procs) -> set:
    """The pids of the worker processes a ``dask worker`` nanny started."""
    out = set()
    for p in procs:
        try:
            r = subprocess.run(["pgrep", "-P", str(p.pid)], capture_output=True, text=True, timeout=10)
            out |= {int(x) for x in r.stdout.split()}
        except (OSError, subprocess.SubprocessError):
            pass
    return out


@pytest.mark.parametrize("victims", ["workers", "scheduler"])
def test_a_cluster_lost_mid_run_ends_the_run_in_one_line(tmp_path, cluster, victims):
    """Every worker killed (or the scheduler) mid-run: the run ends after --scheduler-timeout
    with one line, the finished units kept and the manifest closed, instead of waiting for ever."""
    address, procs = cluster
    env = {**os.environ, "LTRREPRO_CACHE": str(tmp_path / "cache")}
    out = tmp_path / "dask"
    run = subprocess.Popen([sys.executable, "-m", "experiments.robustness", *ARGS, "--out", str(out), "--backend",
                            "dask", "--scheduler", address, "--threads", "1", "--scheduler-timeout", "5"], cwd=ROOT,
                           env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline and len(list((out / "units").glob("*.json"))) < 2:
        time.sleep(0.05)
    for p in (procs[1:] if victims == "workers" else procs[:1]):
        os.killpg(p.pid, signal.SIGKILL)
    t0 = time.time()
    _, err = run.communicate(timeout=120)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert run.returncode == 2 and lines[-1].startswith(f"error: the dask cluster at {address}: "), err[-3000:]
    assert (["every worker was lost"] if victims == "workers" else
            ["the scheduler stopped answering", "the connection to the scheduler was lost"]).count(
        lines[-1].split(": ", 2)[2].split(" for ")[0].split(";")[0]) == 1, lines[-1]
    assert "Traceback" not in err and time.time() - t0 < 60
    kept = len(list((out / "units").glob("*.json")))
    assert 2 <= kept < 12
    assert json.loads((out / "manifest.json").read_text())["status"] == "error"


def test_a_plugin_that_kills_its_process_on_a_dask_worker_fails_its_units_only(tmp_path, shared_cluster):
    """dask workers are daemonic processes: the plug-in's unit still runs in a process of its
    own, so a segfault fails that unit (it used to kill the worker again and again, and the
    run waited for ever) and the workers live on."""
    address, procs = shared_cluster
    workers = _worker_pids(address)
    assert len(workers) == 2 and workers <= _children(procs[1:])        # the nannies' worker processes
    env = {**os.environ, "LTRREPRO_CACHE": str(tmp_path / "cache")}
    out = tmp_path / "dask"
    r = subprocess.run([sys.executable, "-m", "experiments.quality", "--queries", "60", "--trials", "2", "--preset",
                        "tiny", "--quiet", "--models", "lambdamart,plugin_losses:CrashOnData(how='segfault')",
                        "--backend", "dask", "--scheduler", address, "--threads", "1", "--scheduler-timeout", "5",
                        "--out", str(out)], cwd=ROOT, env={**env, "PYTHONPATH": str(PLUGINS)},
                       capture_output=True, text=True, timeout=180)
    assert r.returncode == 1 and "killed by signal SIGSEGV" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert {json.loads(p.read_text())["unit"]["model"] for p in (out / "units").glob("*.json")} == {"lambdamart"}
    assert len(list((out / "failures").glob("*.json"))) == 2
    assert _worker_pids(address) == workers and workers <= _children(procs[1:])     # no worker died


def _worker_pids(address: str) -> set:
    """The pids of the workers the scheduler counts now, each asked for its own."""
    from dask.distributed import Client
    with Client(address, timeout="30s") as client:
        futures = [client.submit(os.getpid, workers=[w], allow_other_workers=False, pure=False)
                   for w in client.scheduler_info()["workers"]]
        return {f.result(timeout=30) for f in futures}

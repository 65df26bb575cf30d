"""ltrrepro.isolated and ltrrepro.runner.isolate._run_isolated: a plug-in unit in a process of its own, forked
from this process's zygote (Linux) or a fresh interpreter, sees what a fresh process started
at the unit would see, and every way it can end is the unit's alone."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from ltrrepro.runner import Unit, UnitContext, UnitProcessDied, UnitTimeout, seed_globals
from ltrrepro.runner.forkserver import _Zygote
from ltrrepro.runner.isolate import _run_isolated

LINUX = sys.platform.startswith("linux")
pytestmark = pytest.mark.allowed_skip(reason="the zygote is Linux's: elsewhere every plug-in unit is a fresh interpreter")


def what_it_sees(unit, ctx):
    """A unit reporting its process's circumstances."""
    print(f"unit {unit.model} says hello", flush=True)
    print(f"unit {unit.model} warns", file=sys.stderr, flush=True)
    return {"pid": os.getpid(), "ppid": os.getppid(), "cwd": os.getcwd(), "env": os.environ.get("LTRREPRO_TEST_MARK"),
            "path": list(sys.path), "draw": float(np.random.random())}, {}


def behaves(unit, ctx):
    if unit.model == "sleep":
        time.sleep(60)
    if unit.model == "segv":
        os.kill(os.getpid(), signal.SIGSEGV)
    if unit.model == "exit":
        os._exit(3)
    if unit.model == "raise":
        raise ValueError("the unit's own error")
    return {"ok": unit.model}, {}


def _unit(model="m"):
    return Unit("e", "d", 0, model, seed=5)


@pytest.fixture
def fresh_zygote():
    """This test's own zygote: none before, and the one it started closed after (the other
    tests share this process's)."""
    old = _Zygote._mine.pop(os.getpid(), None)
    yield
    z = _Zygote._mine.pop(os.getpid(), None)
    if z is not None:
        z.close()
    if old is not None:
        _Zygote._mine[os.getpid()] = old


@pytest.mark.parametrize("how", ["zygote", "fresh"])
def test_the_child_sees_the_parents_directory_environment_path_and_output_at_the_unit(
        how, tmp_path, monkeypatch, capfd):
    if how == "fresh":
        monkeypatch.setattr(sys, "platform", "darwin")      # no zygote: a fresh interpreter
    elif not LINUX:
        pytest.skip("the zygote is Linux's")
    _run_isolated(what_it_sees, _unit("first"), UnitContext())          # starts the zygote (where there is one) ...
    capfd.readouterr()
    monkeypatch.chdir(tmp_path)                              # ... and then the parent changes
    monkeypatch.setenv("LTRREPRO_TEST_MARK", "set after the zygote started")
    monkeypatch.syspath_prepend(str(tmp_path / "extra"))
    seen, _ = _run_isolated(what_it_sees, _unit("second"), UnitContext())
    assert seen["pid"] != os.getpid()
    assert seen["cwd"] == str(tmp_path) and seen["env"] == "set after the zygote started"
    assert seen["path"] == list(sys.path)
    out, err = capfd.readouterr()                            # the child wrote to this process's fds 1 and 2
    assert "unit second says hello" in out and "unit second warns" in err
    # seeded for the unit, not by what ran in the zygote or before: the draw seed_globals gives here
    assert seen["draw"] == _run_isolated(what_it_sees, _unit("second"), UnitContext())[0]["draw"]
    with seed_globals(_unit("second")):
        assert seen["draw"] == float(np.random.random())
    zygote = _Zygote._mine.get(os.getpid())
    assert seen["ppid"] == (zygote.proc.pid if how == "zygote" else os.getpid())


@pytest.mark.skipif(not LINUX, reason="the zygote is Linux's")
def test_one_zygote_serves_every_unit_and_each_unit_has_a_new_process():
    pids = [_run_isolated(what_it_sees, _unit(m), UnitContext())[0]["pid"] for m in "abc"]
    zygote = _Zygote._mine[os.getpid()]
    assert len(set(pids)) == 3 and zygote.proc.pid not in pids and zygote.proc.poll() is None
    for pid in pids:                                          # each child is gone (reaped by the zygote)
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


@pytest.mark.parametrize("how", ["zygote", "fresh"])
@pytest.mark.parametrize("model, raises, why", [
    ("segv", UnitProcessDied, "killed by signal SIGSEGV"),
    ("exit", UnitProcessDied, "exited with code 3 (os._exit?)"),
    ("raise", RuntimeError, "ValueError: the unit's own error"),
])
def test_every_end_of_a_child_is_its_units_and_the_zygote_goes_on(how, model, raises, why, monkeypatch):
    if how == "fresh":
        monkeypatch.setattr(sys, "platform", "darwin")
    elif not LINUX:
        pytest.skip("the zygote is Linux's")
    with pytest.raises(raises, match=why.replace("(", r"\(").replace(")", r"\)").replace("?", r"\?")):
        _run_isolated(behaves, _unit(model), UnitContext())
    assert _run_isolated(behaves, _unit("fine"), UnitContext())[0] == {"ok": "fine"}


@pytest.mark.skipif(not LINUX, reason="the zygote is Linux's")
def test_a_child_over_the_timeout_is_killed_and_the_zygote_goes_on():
    t0 = time.perf_counter()
    with pytest.raises(UnitTimeout, match="--unit-timeout 2 s"):
        _run_isolated(behaves, _unit("sleep"), UnitContext(unit_timeout=2))
    assert time.perf_counter() - t0 < 20
    zygote = _Zygote._mine[os.getpid()]
    assert _run_isolated(behaves, _unit("fine"), UnitContext())[0] == {"ok": "fine"}
    assert _Zygote._mine[os.getpid()] is zygote


@pytest.mark.skipif(not LINUX, reason="the zygote is Linux's")
def test_a_zygote_killed_under_a_unit_fails_that_unit_and_the_next_starts_a_new_one(fresh_zygote):
    import threading

    _run_isolated(behaves, _unit("fine"), UnitContext())
    zygote = _Zygote._mine[os.getpid()]
    threading.Timer(1.0, lambda: os.kill(zygote.proc.pid, signal.SIGKILL)).start()
    with pytest.raises(UnitProcessDied, match="its zygote process ended while it ran"):
        _run_isolated(behaves, _unit("sleep"), UnitContext())
    assert _run_isolated(behaves, _unit("fine"), UnitContext())[0] == {"ok": "fine"}
    assert _Zygote._mine[os.getpid()] is not zygote


@pytest.mark.skipif(not LINUX, reason="the zygote is Linux's")
def test_the_zygote_and_its_child_end_when_their_parent_is_killed(tmp_path):
    script = tmp_path / "parent.py"
    script.write_text(textwrap.dedent(f"""
        import os, sys, time
        sys.path[:0] = {[os.path.dirname(__file__)] + sys.path!r}
        from ltrrepro.runner import UnitContext
        from ltrrepro.runner.forkserver import _Zygote
        from ltrrepro.runner.isolate import _run_isolated
        from test_isolated import behaves, _unit
        _run_isolated(behaves, _unit("fine"), UnitContext())
        print(_Zygote._mine[os.getpid()].proc.pid, flush=True)
        _run_isolated(behaves, _unit("sleep"), UnitContext())
    """))
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    zygote_pid = int(parent.stdout.readline())
    time.sleep(1.0)                                         # the sleeping child has started
    children = [int(p) for p in open(f"/proc/{zygote_pid}/task/{zygote_pid}/children").read().split()]
    assert len(children) == 1
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 15
    alive = [zygote_pid, *children]
    while alive and time.monotonic() < deadline:
        time.sleep(0.2)
        alive = [p for p in alive if os.path.exists(f"/proc/{p}") and
                 open(f"/proc/{p}/stat").read().split(") ")[1][0] != "Z"]
    assert not alive, "the zygote or its child outlived the parent"


@pytest.mark.skipif(not LINUX, reason="the zygote is Linux's")
def test_ctrl_c_in_the_parent_takes_the_running_child_with_it(capfd):
    _run_isolated(behaves, _unit("fine"), UnitContext())
    zygote = _Zygote._mine[os.getpid()]
    children = []

    def interrupt(signum, frame):
        children.extend(open(f"/proc/{zygote.proc.pid}/task/{zygote.proc.pid}/children").read().split())
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 1.5)
    try:
        with pytest.raises(KeyboardInterrupt):
            _run_isolated(behaves, _unit("sleep"), UnitContext())
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert len(children) == 1
    deadline = time.monotonic() + 10
    while os.path.exists(f"/proc/{children[0]}") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not os.path.exists(f"/proc/{children[0]}")             # killed, and reaped by its zygote
    assert zygote.proc.poll() is not None and os.getpid() not in _Zygote._mine
    assert "Traceback" not in capfd.readouterr().err
    assert _run_isolated(behaves, _unit("fine"), UnitContext())[0] == {"ok": "fine"}     # a new zygote

"""Reports and exports of a running or incomplete run (issue #39): they take the run's lock, so a
run still going is refused in one line, and a report of a run with units missing names them —
printed, in the tables' legends and claims — and a cross-dataset report gives the trials stored."""
from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from experiments import export, quality
from experiments import report as report_cli

pytestmark = pytest.mark.slow

FAST = ["--queries", "40", "--trials", "2", "--preset", "tiny", "--rounds", "2", "--jobs", "1", "--threads", "1",
        "--quiet", "--models", "lambdamart,xendcg"]


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs") / "q"
    assert quality.main(FAST + ["--out", str(out)]) == 0
    return out


@pytest.mark.slow
def test_a_report_of_a_run_with_units_missing_names_them(finished, tmp_path, capsys):
    run = tmp_path / "q"
    shutil.copytree(finished, run, ignore=shutil.ignore_patterns(".lock"))
    gone = sorted((run / "units").glob("*xendcg.json"))[0]
    key = gone.stem.replace("__", "/")
    gone.unlink()
    capsys.readouterr()
    assert report_cli.main([str(run)]) == 0
    out = capsys.readouterr().out
    assert "Missing: 1 unit(s) of the configuration are not stored" in out and key in out
    assert key in (run / "tables" / "table1.md").read_text() or any(
        key in p.read_text() for p in (run / "tables").glob("*.md"))
    assert "Traceback" not in out


@pytest.mark.slow
def test_a_live_run_is_refused_by_report_and_export(finished, tmp_path, capsys):
    run = tmp_path / "live"
    shutil.copytree(finished, run, ignore=shutil.ignore_patterns(".lock"))
    holder = subprocess.Popen([sys.executable, "-c", "import fcntl, sys, time; f = open(sys.argv[1], 'a+'); "
                               "fcntl.flock(f, fcntl.LOCK_EX); f.write('4242'); f.flush(); print('held', flush=True); "
                               "time.sleep(60)", str(run / ".lock")], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        before = {p.name: p.read_bytes() for p in (run / "tables").iterdir()}
        capsys.readouterr()
        assert report_cli.main([str(run)]) == 2
        err = capsys.readouterr().err
        assert err.count("error:") == 1 and "another run is using" in err and "Traceback" not in err
        assert export.main([str(run), "--to", str(tmp_path / "t")]) == 2
        err = capsys.readouterr().err
        assert err.count("error:") == 1 and "another run is using" in err
        assert {p.name: p.read_bytes() for p in (run / "tables").iterdir()} == before
    finally:
        holder.kill()
        holder.wait()
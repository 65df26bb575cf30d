"""Hardening, third pass: every failure path ends, in one line, with finished work kept.

Each test builds its own bad input; the runs go through the real entry points."""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
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

"""A study from outside the repository (examples/ltrrepro-toy-study): installed as a
distribution that declares an entry point in the group ``ltrrepro.studies`` — here its module
and a generated ``.dist-info`` (what ``pip install`` writes) on PYTHONPATH — it is listed by
``python -m experiments`` and runs as ``python -m experiments toy [flags]`` with the flag
contract, the store (resume), the report statistics, sequential trials and the TREC export."""
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "ltrrepro-toy-study"
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The example as pip would install it: its module and a dist-info with its entry points."""
    site = tmp_path_factory.mktemp("site")
    project = tomllib.loads((EXAMPLE / "pyproject.toml").read_text())["project"]
    for module in tomllib.loads((EXAMPLE / "pyproject.toml").read_text())["tool"]["setuptools"]["py-modules"]:
        shutil.copy(EXAMPLE / f"{module}.py", site)
    info = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n")
    eps = "".join(f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items())
                  for group, entries in project["entry-points"].items())
    (info / "entry_points.txt").write_text(eps)
    return site


def _run(site, *args, module="experiments"):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    return subprocess.run([sys.executable, "-m", module, *map(str, args)], capture_output=True, text=True, env=env,
                          cwd=site, timeout=300)


def test_an_installed_study_is_listed_and_runs_like_a_built_in_one(site, tmp_path):
    listing = _run(site)
    assert listing.returncode == 0 and "  toy " in listing.stdout and "  quality " in listing.stdout
    assert "--save-runs" in _run(site, "toy", "--help").stdout
    bad = _run(site, "toy", "--trials", "0")
    assert bad.returncode == 2 and bad.stderr.strip().startswith("error:") and len(bad.stderr.strip().splitlines()) == 1

    out = tmp_path / "toy"
    res = _run(site, "toy", "--out", out, "--jobs", "1", "--quiet", "--save-runs", "--correction", "none")
    assert res.returncode == 0, res.stderr
    man = json.loads((out / "manifest.json").read_text())
    assert man["experiment"] == "toy" and man["n_done"] == 12 and man["statistics"]["correction"] == "none"
    claims = json.loads((out / "claims.json").read_text())["claims"]
    assert len(claims) == 1 and claims[0]["verdict"] == "supported"
    assert len(list((out / "trec" / "runs").glob("*.run.gz"))) == 12

    again = _run(site, "toy", "--config", out / "manifest.json", "--out", out, "--quiet")      # resumed: none recomputed
    assert again.returncode == 0 and json.loads((out / "manifest.json").read_text())["n_done"] == 0
    assert _run(site, str(out), "--quiet", module="experiments.report").returncode == 0
    assert _run(site, str(out), "--to", tmp_path / "trec", "--quiet", module="experiments.export").returncode == 0

    auto = _run(site, "toy", "--trials", "auto", "--max-trials", "6", "--looks", "2", "--out", tmp_path / "auto",
                "--jobs", "1", "--quiet")
    assert auto.returncode == 0 and "stopped at look" in auto.stderr
    assert json.loads((tmp_path / "auto" / "manifest.json").read_text())["sequential"]["sizes"] == [3, 6]

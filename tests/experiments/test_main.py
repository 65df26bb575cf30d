"""``python -m experiments``: the list of studies (the built-in ones and those installed
packages declare in the entry-point group ``ltrrepro.studies``), and ``python -m experiments
NAME [flags]`` running one with the command line of ``python -m experiments.NAME``."""
from __future__ import annotations

import dataclasses
import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from experiments import registry
from experiments.__main__ import main
from experiments.cli import parse_command
from experiments.errors import UsageError

ROOT = Path(__file__).resolve().parents[2]


class _EntryPoint:
    """What ``importlib.metadata.entry_points(group=...)`` yields, loading ``value``."""

    def __init__(self, name, value, dist="pkg-x"):
        self.name, self.value, self._obj = name, f"{dist.replace('-', '_')}:X", value
        self.dist = type("Dist", (), {"name": dist})()

    def load(self):
        if isinstance(self._obj, Exception):
            raise self._obj
        return self._obj


@pytest.fixture
def installed(monkeypatch):
    """Install entry points (restoring the registry afterwards)."""
    registry.experiments()                      # the built-in studies registered before the registry is saved
    saved, loaded, broken = dict(registry._REGISTRY), set(registry._LOADED), dict(registry._BROKEN)

    def install(*eps):
        monkeypatch.setattr(importlib.metadata, "entry_points", lambda group=None: list(eps) if
                            group == registry.ENTRY_POINTS else [])
        monkeypatch.setattr(registry, "_SCANNED", [None])              # read them again
    yield install
    registry._REGISTRY.clear()
    registry._REGISTRY.update(saved)
    registry._LOADED.clear()
    registry._LOADED.update(loaded)
    registry._BROKEN.clear()
    registry._BROKEN.update(broken)


@pytest.mark.slow
def test_a_built_in_study_runs_as_python_m_experiments_name(tmp_path, capsys):
    assert main(["jensen_gap", "--lists", "2", "--draws", "10", "--docs", "5", "--out", str(tmp_path / "j"),
                 "--quiet"]) == 0
    man = json.loads((tmp_path / "j" / "manifest.json").read_text())
    assert man["n_done"] == 2 and man["argv"][:4] == ["python", "-m", "experiments", "jensen_gap"]   # as typed
    with pytest.raises(SystemExit) as bad:                     # argparse's one line, as the module's command
        main(["jensen_gap", "--lists", "0"])
    assert bad.value.code == 2 and "error: argument --lists" in capsys.readouterr().err
    assert main(["table9"]) == 2 and "unknown study 'table9'" in capsys.readouterr().err
    assert main(["report"]) == 2 and "python -m experiments.report" in capsys.readouterr().err


def test_an_installed_study_is_listed_and_named_when_it_does_not_load(installed, capsys):
    """A broken installed study stops nothing else (issue 48): the listing names it in one line
    and goes on, the built-in commands parse and run, and only asking for it is refused."""
    toy = dataclasses.replace(registry.get("jensen_gap"), name="toy", paper="toy", title="a toy study")
    installed(_EntryPoint("toy", toy))
    assert main([]) == 0 and "  toy " in capsys.readouterr().out and "toy" in registry.experiments()
    installed(_EntryPoint("broken", ImportError("no module named\ntoy_study"), dist="ltrrepro-broken"),
              _EntryPoint("toy", toy))
    assert main([]) == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if "ltrrepro-broken" in line]
    assert len(lines) == 1 and lines[0].startswith("  broken ") and "ImportError: no module named toy_study" in lines[0]
    assert "  quality " in out and "  toy " in out and "not loaded" in out
    assert set(registry.experiments()) >= {"quality", "toy"} and "broken" not in registry.experiments()
    cfg, _ = parse_command("quality", ["--trials", "2"])                  # a built-in command is untouched
    assert cfg.trials == 2
    with pytest.raises(SystemExit) as helped:
        main(["quality", "--help"])
    assert helped.value.code == 0
    assert main(["broken"]) == 2                                          # asked for by name: why, in one line
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: the study") and "ltrrepro-broken" in err and "ImportError" in err
    assert len(err.splitlines()) == 1
    with pytest.raises(UsageError, match="does not load"):
        registry.get("broken")


@pytest.mark.parametrize("value, message", [("not a record", "is not an experiments.registry.Experiment"),
                                            ("quality", "two studies named 'quality'")])
def test_an_installed_study_must_be_a_record_with_a_name_of_its_own(installed, capsys, value, message):
    obj = registry.get("quality") if value == "quality" else value
    if value == "quality":
        obj = dataclasses.replace(obj, paper="elsewhere")
    name = "quality" if value == "quality" else "x"
    installed(_EntryPoint(name, obj))
    assert main([]) == 0
    assert [line for line in capsys.readouterr().out.splitlines() if message in line][0].startswith(f"  {name} ")
    if value == "quality":                      # the built-in study keeps its name and runs
        assert registry.get("quality").paper == "bruch2021"
    else:
        assert main(["x"]) == 2 and message in capsys.readouterr().err


def test_a_broken_distribution_stops_no_built_in_command(tmp_path):
    """As pip would install it: a dist-info whose entry point names a module that is not there;
    ``python -m experiments`` lists it in one line and the built-in commands run."""
    info = tmp_path / "ltrrepro_broken-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: ltrrepro-broken\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[{registry.ENTRY_POINTS}]\nbroken = no_such_module_48:STUDY\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}

    def run(*args):
        return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, env=env, cwd=tmp_path,
                               timeout=300)
    listing = run("experiments")
    assert listing.returncode == 0 and "  quality " in listing.stdout, listing.stderr
    assert len([line for line in listing.stdout.splitlines() if "ltrrepro-broken" in line]) == 1
    assert "ModuleNotFoundError" in listing.stdout
    assert run("experiments.quality", "--help").returncode == 0
    bad = run("experiments", "broken")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "ltrrepro-broken" in bad.stderr


def test_the_manifest_records_the_command_as_typed(monkeypatch):
    """``python -m experiments NAME …`` and ``python -m experiments.NAME …``: the execution carries
    the command in the form typed, the arguments as given (the manifest's ``argv``)."""
    import experiments.cli as cli
    from experiments.jensen_gap import main as module_main

    seen = []
    monkeypatch.setattr(cli, "run", lambda config, execution: seen.append(execution.command) or
                        type("R", (), {"exit_code": 0})())
    assert main(["jensen_gap", "--out", "runs/j", "--quiet"]) == 0
    assert module_main(["--out", "runs/j"]) == 0
    assert seen == [("python", "-m", "experiments", "jensen_gap", "--out", "runs/j", "--quiet"),
                    ("python", "-m", "experiments.jensen_gap", "--out", "runs/j")]

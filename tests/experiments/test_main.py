"""``python -m experiments``: the list of studies (the built-in ones and those installed
packages declare in the entry-point group ``ltrrepro.studies``), and ``python -m experiments
NAME [flags]`` running one with the command line of ``python -m experiments.NAME``."""
from __future__ import annotations

import dataclasses
import importlib.metadata
import json

import pytest

from experiments import registry
from experiments.__main__ import main


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
    saved, loaded = dict(registry._REGISTRY), set(registry._LOADED)

    def install(*eps):
        monkeypatch.setattr(importlib.metadata, "entry_points", lambda group=None: list(eps) if
                            group == registry.ENTRY_POINTS else [])
        monkeypatch.setattr(registry, "_SCANNED", [None])              # read them again
    yield install
    registry._REGISTRY.clear()
    registry._REGISTRY.update(saved)
    registry._LOADED.clear()
    registry._LOADED.update(loaded)


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
    toy = dataclasses.replace(registry.get("jensen_gap"), name="toy", paper="toy", title="a toy study")
    installed(_EntryPoint("toy", toy))
    assert main([]) == 0 and "  toy " in capsys.readouterr().out and "toy" in registry.experiments()
    installed(_EntryPoint("broken", ImportError("no module named toy_study"), dist="ltrrepro-broken"))
    assert main([]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: the study") and "ltrrepro-broken" in err and "ImportError" in err
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize("value, message", [("not a record", "is not an experiments.registry.Experiment"),
                                            ("quality", "two studies named 'quality'")])
def test_an_installed_study_must_be_a_record_with_a_name_of_its_own(installed, capsys, value, message):
    obj = registry.get("quality") if value == "quality" else value
    if value == "quality":
        obj = dataclasses.replace(obj, paper="elsewhere")
    installed(_EntryPoint("quality" if value == "quality" else "x", obj))
    assert main(["quality", "--help"]) == 2 and message in capsys.readouterr().err


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

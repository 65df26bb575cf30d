"""The Python API builds no command line: ``experiments.configure(name, **fields)`` is
``dataclasses.replace`` of the study's complete default configuration (its record's
``default``; on another dataset with the fields whose default differs there), which is what
the command runs with no flag."""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

import experiments
from experiments import registry
from experiments.cli import parse_command
from experiments.errors import UsageError

@pytest.mark.parametrize("name", sorted(n for n, e in registry.experiments().items() if e.paper in registry.PAPERS))
def test_every_study_has_a_complete_default_that_the_command_runs_too(name):
    """One source of defaults (``Experiment.defaults_on``): the command with no flag, or with only
    ``--dataset``, builds what ``configure`` builds; the paper's trials and presets on real data.
    Every built-in study (an installed outside study, e.g. the toy example, is its author's to test)."""
    exp = registry.get(name)
    default = exp.default()
    assert isinstance(default, exp.config_cls) and default.experiment == name
    assert experiments.configure(name) == default == parse_command(name, [])[0]
    if default.dataset == "simulated":                                      # it simulates its own lists
        return
    for dataset in ("web30k", "yahoo", "web10k", "synthetic-yahoo"):       # the paper's trials on real data
        assert experiments.configure(name, dataset=dataset) == parse_command(name, ["--dataset", dataset])[0], \
            (name, dataset)


def test_configure_is_a_replace_of_the_default():
    cfg = experiments.configure("robustness", queries=200, levels=[0, 50])
    assert cfg == dataclasses.replace(registry.get("robustness").default(), queries=200, levels=(0, 50))
    spec = "plugin_losses:Squared(scale=2)"                                 # tests/ is on the path
    plug = experiments.configure("split_principles", models=["lambdamart-se", f"{spec}-se"])
    assert plug.models == ("lambdamart-se", "plugin_losses.Squared@scale=2-se")
    assert plug.plugins == (("plugin_losses.Squared@scale=2", spec),)


@pytest.mark.parametrize("fields, message", [
    ({"lists": 2}, "unknown field(s) lists"),
    ({"out": "x"}, "out belong(s) to the execution"),
    ({"trials": "3"}, "field 'trials' must be int"),
    ({"models": "gbt,qbrank"}, "field 'models' is a tuple"),
    ({"trials": 0}, "trials must be >= 1"),
])
def test_a_bad_field_is_one_usage_error(fields, message):
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        experiments.configure("qbrank", **fields)


@pytest.mark.parametrize("fields, message", [
    ({"out": 123}, "Execution: field 'out' must be str or null, got 123"),
    ({"force": "yes"}, "Execution: field 'force' must be bool, got 'yes'"),
    ({"backend": None}, "Execution: field 'backend' must be str, got None"),
    ({"test": 3}, "Execution: field 'test' must be str or null, got 3"),
])
def test_an_execution_of_the_wrong_type_is_one_usage_error(fields, message):
    """``Execution(out=123)`` raised a raw TypeError from pathlib later, in the run (issue 48):
    now the field and the type it wants, when it is built, as a configuration's fields do."""
    from experiments.execution import Execution

    with pytest.raises(UsageError, match=re.escape(message)):
        Execution(**fields)
    assert Execution(out=Path("runs") / "x").out == str(Path("runs") / "x")          # a path is a directory too


def test_bruch_levels_are_numbers_whatever_the_study():
    """``BruchConfig(levels=(0, "a"))`` was accepted and ran (issue 48): a noise-free study
    checked no level; now its levels are refused as not numbers, and as levels it has none of."""
    for name, exp in registry.experiments().items():
        if "levels" not in {f.name for f in dataclasses.fields(exp.config_cls)}:
            continue
        cfg = experiments.configure(name, queries=40)
        with pytest.raises(UsageError, match=re.escape("--levels must be finite numbers, got [0, 'a']")):
            dataclasses.replace(cfg, levels=(0, "a"))
        if not cfg.levels:                        # a study without noise has no levels
            with pytest.raises(UsageError, match="has no levels"):
                dataclasses.replace(cfg, levels=(0, 5))


def test_run_splits_keywords_into_execution_and_configuration(tmp_path):
    from experiments.api import run_keywords
    from experiments.execution import Execution

    cfg, ex = run_keywords("jensen_gap", {"out": tmp_path / "j", "jobs": 1, "trials": 2, "draws": 10})
    assert ex == Execution(out=str(tmp_path / "j"), jobs=1, quiet=True)
    assert cfg == dataclasses.replace(registry.get("jensen_gap").default(), trials=2, draws=10)

"""A configuration field is declared once (:func:`experiments.options.option`): one line in a
study's configuration gives its flag (in ``--help``, with the default shown), its value in the
manifest and the hash, and its range; the older way of a study from outside (its own
``from_args`` and ``flags``) still runs, and a flag it names that no field declares is one line."""
from __future__ import annotations

import dataclasses
import importlib.util
import sys
from pathlib import Path

import pytest

from experiments.cli import parser_for
from experiments.errors import UsageError
from experiments.options import option
from experiments.registry import Experiment
from ltrrepro.migrations import config_hash

TOY = Path(__file__).resolve().parents[2] / "examples" / "ltrrepro-toy-study" / "toy_study.py"


def _toy():
    spec = importlib.util.spec_from_file_location("toy_study_under_test", TOY)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module                 # a dataclass reads its module
    spec.loader.exec_module(module)
    return module


def _with(config_cls, toy):
    """The toy study's record with another configuration class."""
    return dataclasses.replace(toy.TOY, config_cls=config_cls, default=config_cls, from_args=None, flags=None)


def _config(exp, *argv):
    return exp.from_args(parser_for(exp).parse_args(list(argv)))


@pytest.mark.parametrize("added", [True, False])
def test_a_field_with_a_flag_is_one_line(added):
    toy = _toy()

    @dataclasses.dataclass(frozen=True)
    class ToyConfig(toy.ToyConfig):                 # the toy's own class, one line added
        depth: int = option(3, flag="--depth", bounds=(1, 9), help="tree depth", added=added)

    exp = _with(ToyConfig, toy)
    text = parser_for(exp).format_help()
    assert "--depth DEPTH" in text and "tree depth (default 3)" in text
    before = toy.TOY.from_args(parser_for(toy.TOY).parse_args([])).to_dict()
    default, set_ = _config(exp), _config(exp, "--depth", "5")
    assert set_.depth == 5 and set_.to_dict()["depth"] == 5                  # in the manifest
    assert config_hash(set_.to_dict()) != config_hash(default.to_dict())    # a new configuration
    # added: stored runs keep their hash while it is at its default; else it is part of every hash
    assert (config_hash(default.to_dict()) == config_hash(before)) is added
    assert ("depth" in default.to_dict()) is not added
    with pytest.raises(SystemExit):                                         # bounded where parsed
        parser_for(exp).parse_args(["--depth", "10"])
    with pytest.raises(UsageError, match=r"depth \(--depth\) must be between 1 and 9"):   # and when built
        ToyConfig(depth=0)


def test_a_plain_redeclaration_keeps_the_flag_and_option_without_one_removes_it():
    toy = _toy()

    @dataclasses.dataclass(frozen=True)
    class ToyConfig(toy.ToyConfig):
        queries: int | None = 50                    # the flag kept, the default changed
        data_dir: str | None = option(None)         # no --data-dir

    exp = _with(ToyConfig, toy)
    assert "queries" in exp.flags and "data-dir" not in exp.flags
    assert _config(exp).queries == 50 and _config(exp, "--queries", "60").queries == 60


def test_the_older_way_of_an_outside_study_still_runs():
    toy = _toy()

    def from_args(a):
        d = old.defaults_on(a.dataset)
        return toy.ToyConfig(dataset=a.dataset, trials=a.trials or d["trials"], seed=a.seed,
                             queries=a.queries or d["queries"])

    old = dataclasses.replace(toy.TOY, from_args=from_args, flags=("dataset", "queries", "trials"))
    assert not old.derived
    cfg = _config(old, "--trials", "3")
    assert (cfg.trials, cfg.queries, cfg.dataset, cfg.seed) == (3, 200, "synthetic-web30k", 0)
    assert cfg == _config(toy.TOY, "--trials", "3")                       # the same as the one-line way
    with pytest.raises(SystemExit):
        parser_for(old).parse_args(["--data-dir", "x"])                    # a flag it does not name


def test_an_older_way_flag_no_field_declares_is_one_line():
    toy = _toy()
    old = dataclasses.replace(toy.TOY, from_args=lambda a: None, flags=("dataset", "library"))
    with pytest.raises(UsageError, match=r"--library is no field of ToyConfig; declare the field with "):
        parser_for(old)


def test_a_record_built_from_another_keeps_the_derived_configuration():
    exp = dataclasses.replace(_toy().TOY, title="another")
    assert exp.derived and _config(exp, "--trials", "2").trials == 2
    assert isinstance(exp, Experiment)

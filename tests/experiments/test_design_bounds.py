"""Every numeric design field typed and bounded (issue #39): where a flag is parsed, where a
configuration object is built by hand (``trials='3'``, ``seed=1.5``, ``trials=True``,
``rounds=-5``) and where a manifest is read; the sequential design never runs fewer looks than
it says; the report's stored statistics get the flags' checks. Each case is one ``error:`` line
(exit 2) or a :class:`UsageError`, within a second, with no traceback."""
from __future__ import annotations

import dataclasses
import json
import time

import pytest

import experiments
from experiments import quality, robustness, split_principles
from experiments.errors import UsageError
from experiments.execution import Execution


@pytest.fixture(scope="module")
def cfg():
    return experiments.configure("quality", queries=40, trials=2, preset="tiny")


@pytest.mark.parametrize("field,value,match", [
    ("trials", "3", "'trials' must be int"), ("seed", 1.5, "'seed' must be int"),
    ("trials", True, "'trials' must be int"), ("rounds", -5, r"rounds \(--rounds\) must be between 1"),
    ("trials", 10 ** 12, r"trials \(--trials\) must be between 1 and 10,000"),
    ("seed", 2 ** 64, "seed"), ("queries", 10 ** 9, "queries"), ("impressions", 0, "impressions"),
    ("eta", "1", "'eta' must be float"), ("models", "lambdamart", "'models' must be tuple"),
    ("tune", 10 ** 9, r"tune \(--tune\) must be between 0 and 1,000")])
def test_a_configuration_built_by_hand_is_typed_and_bounded(cfg, field, value, match):
    with pytest.raises(UsageError, match=match):
        dataclasses.replace(cfg, **{field: value})


def test_lists_become_tuples_and_ints_stay_for_float_fields(cfg):
    c = dataclasses.replace(cfg, models=["lambdamart", "xendcg"], eta=1)
    assert c.models == ("lambdamart", "xendcg") and c.to_dict() == dataclasses.replace(cfg, models=(
        "lambdamart", "xendcg"), eta=1).to_dict()


def test_xia_rounds_per_system_are_bounded():
    cfg = experiments.configure("split_principles", queries=40, trials=1)
    with pytest.raises(UsageError, match="rounds"):
        dataclasses.replace(cfg, rounds=(("mcrank", -5), ("lambdamart", 10)))


@pytest.mark.parametrize("field,value", [("trials", "3"), ("rounds", -5), ("trials", 10 ** 9), ("seed", 1.5)])
def test_a_manifest_gets_the_same_checks(tmp_path, capsys, cfg, field, value):
    man = tmp_path / "manifest.json"
    man.write_text(json.dumps({"config": {**cfg.to_dict(), field: value}}))
    assert quality.main(["--config", str(man), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --config") and err.count("\n") == 1 and field in err


@pytest.mark.parametrize("argv,match", [
    (["--trials", "auto", "--looks", "1000000000"], "more than 100"),
    (["--trials", "auto", "--max-trials", "1000000000000"], "more than 10,000"),
    (["--trials", "1000000000", "--estimate"], "more than 10,000"),
    (["--trials", "auto", "--looks", "10", "--max-trials", "3"], "fit 2 look"),
    (["--trials", "auto", "--max-trials", "2", "--looks", "2"], "one look only"),
    (["--trials", "auto", "--max-trials", "10", "--looks", "9"], "give --looks"),
    (["--rounds", "-5"], "at least 1"), (["--seed", "1.5"], "not an integer"),
    (["--seed", str(2 ** 64)], "more than"), (["--queries", "100000000"], "more than"),
    (["--tune", "1000000000"], "more than 1,000, the most a run takes"), (["--tune", "0"], "at least 1")])
def test_huge_or_inconsistent_designs_are_one_line_at_once(tmp_path, capsys, argv, match):
    t0 = time.perf_counter()
    try:
        code = robustness.main([*argv, "--out", str(tmp_path / "o"), "--quiet"])
    except SystemExit as exit_:                      # argparse's own error path
        code = exit_.code
    assert code == 2 and time.perf_counter() - t0 < 5
    err = capsys.readouterr().err
    assert err.count("error:") == 1 and match in err and "Traceback" not in err
    assert not (tmp_path / "o").exists()


def test_every_tuning_budget_is_bounded(tmp_path, capsys):
    """``--tune 1000000000`` started a search that could not end (issue 48): every study that
    takes ``--tune`` refuses it in one line naming the maximum, before any work, and so does a
    configuration built by hand or read from a manifest."""
    from experiments import registry
    from experiments.__main__ import main
    from experiments.values import MAX_TUNE

    tuned = [name for name, exp in registry.experiments().items() if "tune" in exp.flags]
    assert tuned
    for name in tuned:
        with pytest.raises(SystemExit) as exit_:
            main([name, "--tune", str(MAX_TUNE + 1), "--out", str(tmp_path / name), "--quiet"])
        err = capsys.readouterr().err
        assert exit_.value.code == 2 and err.count("\n") == 1 and f"more than {MAX_TUNE:,}" in err, (name, err)
        assert not (tmp_path / name).exists()
        cfg = registry.get(name).default()
        with pytest.raises(UsageError, match=f"between 0 and {MAX_TUNE:,}"):
            dataclasses.replace(cfg, tune=MAX_TUNE + 1)
        assert dataclasses.replace(cfg, tune=MAX_TUNE).tune == MAX_TUNE


def test_the_default_looks_fit_a_small_maximum():
    from experiments.cli import parse_command

    cfg = parse_command("robustness", ["--queries", "40", "--trials", "auto", "--max-trials", "3"])[0]
    from ltrrepro.inference.sequential import look_sizes
    assert cfg.looks == 2 and look_sizes(cfg.trials, cfg.looks) == [2, 3]


@pytest.mark.parametrize("stored,match", [
    ({"effects": ["ndcg=0.01"]}, "not a mapping"), ({"effects": {"ndcg": -1}}, "positive"),
    ({"effects": {"nope": 1}}, "FAMILY"), ({"test": "z"}, "--test"), ({"test": 3}, "not a name"),
    ([1], "not a mapping")])
def test_stored_statistics_are_checked_as_the_flags(stored, match):
    with pytest.raises(UsageError, match=match):
        Execution().inference(stored)


@pytest.mark.parametrize("effect,match", [(["ndcg=0.01"], "field 'effect' must be str or null"), ("ndcg=0.01,ndcg=0.02", "twice")])
def test_effect_lists_and_repeated_families_are_refused(effect, match):
    with pytest.raises(UsageError, match=match):
        Execution(effect=effect)


def test_split_principles_parse_is_bounded_too(tmp_path, capsys):
    try:
        code = split_principles.main(["--rounds", "1000000", "--out", str(tmp_path / "o")])
    except SystemExit as exit_:
        code = exit_.code
    assert code == 2 and "more than 100,000" in capsys.readouterr().err


def test_an_error_without_a_message_is_never_an_empty_line():
    from experiments.cli import cli

    @cli
    def main(argv):
        raise MemoryError()

    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stderr(buf):
        assert main([]) == 2
    line = buf.getvalue().strip()
    assert line.startswith("error: out of memory") and line.count("\n") == 0

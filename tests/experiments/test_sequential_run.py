"""``--trials auto`` end to end on tiny data: the run stops at a look and says why, records
its design, looks and decisions, and an interrupted run resumes from its stored units to the
same result."""
import json

import numpy as np
import pytest

from experiments import study
from experiments.quality import main
from ltrrepro.inference import sequential as sq

TINY = ["--queries", "40", "--preset", "tiny", "--rounds", "3", "--models", "listnet,xendcg", "--jobs", "1",
        "--quiet"]


def _run(out, *more, max_trials=6, looks=3):
    return main(["--trials", "auto", "--max-trials", str(max_trials), "--looks", str(looks), *TINY, "--out", str(out),
                 *more])


def _no_futility(monkeypatch):
    """Claims stay open until an efficacy bound or the maximum (every look is taken)."""
    monkeypatch.setattr(sq.Monitor, "futility", lambda self, c, c_all:
                        np.where(np.arange(len(self.sizes)) == len(self.sizes) - 1, c_all[-1], -np.inf))


@pytest.mark.slow
def test_auto_stops_at_a_look_and_says_why(tmp_path, capsys):
    assert _run(tmp_path / "a") == 0
    err = capsys.readouterr().err
    assert "stopped at look" in err and ("every claim crossed a bound" in err or "the maximum reached" in err)
    man = json.loads((tmp_path / "a" / "manifest.json").read_text())
    seq = man["sequential"]
    assert man["config"]["looks"] == 3 and man["config"]["trials"] == 6 and man["trials"] == "auto"
    assert seq["sizes"] == [2, 4, 6] and seq["stop"].startswith("stopped at look")
    claims = json.loads((tmp_path / "a" / "claims.json").read_text())
    assert claims["sequential"]["sizes"] == [2, 4, 6]
    tested = [c for c in claims["claims"] if "sequential" in c]
    assert tested and all(c["sequential"]["stop"] in (sq.EFFICACY, sq.CONTRADICTED, sq.FUTILITY, sq.MAXIMUM)
                          for c in tested)
    assert set(seq["claims"]) == {c["claim"] for c in tested}
    assert (tmp_path / "a" / "tables" / "sequential.csv").exists()
    # python -m experiments.report takes the looks again over the stored units: the same claims
    from experiments.report import main as report
    before = (tmp_path / "a" / "claims.json").read_text()
    assert report([str(tmp_path / "a"), "--quiet"]) == 0
    assert (tmp_path / "a" / "claims.json").read_text() == before


@pytest.mark.slow
def test_auto_resumes_from_its_last_look_to_the_same_result(tmp_path, monkeypatch, capsys):
    _no_futility(monkeypatch)
    assert _run(tmp_path / "whole", max_trials=4, looks=2) == 0
    whole = json.loads((tmp_path / "whole" / "claims.json").read_text())
    assert whole["sequential"]["stop"].startswith("stopped at look 2 of 2")     # every look taken

    real, calls = study.run_units, []

    def interrupted(units, *a, **k):                      # Ctrl-C during the second wave, after its first unit
        calls.append(len(units))
        if len(calls) == 2:
            real(units[:5], *a, **k)
            raise KeyboardInterrupt
        return real(units, *a, **k)
    monkeypatch.setattr(study, "run_units", interrupted)
    assert _run(tmp_path / "cut", max_trials=4, looks=2) == 130
    assert json.loads((tmp_path / "cut" / "manifest.json").read_text())["status"] == "interrupted"
    monkeypatch.setattr(study, "run_units", real)
    capsys.readouterr()
    assert _run(tmp_path / "cut", max_trials=4, looks=2) == 0
    man = json.loads((tmp_path / "cut" / "manifest.json").read_text())
    assert man["status"] == "ok" and man["n_done"] == 8 - 5 and man["n_skipped"] == 5
    cut = json.loads((tmp_path / "cut" / "claims.json").read_text())
    assert cut == whole
    assert (tmp_path / "cut" / "tables" / "sequential.csv").read_text() == \
        (tmp_path / "whole" / "tables" / "sequential.csv").read_text()


@pytest.mark.parametrize("argv,match", [(["--looks", "3"], "with --trials auto"),
                                        (["--trials", "auto", "--looks", "1"], "at least 2"),
                                        (["--trials", "auto", "--max-trials", "1"], "at least 2"),
                                        (["--trials", "auto", "--no-report"], "decides at each look")])
def test_design_flags_are_checked(argv, match, tmp_path, capsys):
    assert main([*argv, *TINY, "--out", str(tmp_path / "x")]) == 2
    assert match in capsys.readouterr().err


@pytest.mark.slow
def test_config_of_an_auto_run_reruns_it(tmp_path, capsys):
    assert _run(tmp_path / "c", max_trials=4, looks=2) == 0
    before = (tmp_path / "c" / "claims.json").read_text()
    assert main(["--config", str(tmp_path / "c" / "manifest.json"), "--out", str(tmp_path / "c"), "--quiet"]) == 0
    man = json.loads((tmp_path / "c" / "manifest.json").read_text())
    assert man["config"]["looks"] == 2 and man["n_done"] == 0
    assert (tmp_path / "c" / "claims.json").read_text() == before


def test_estimate_prints_the_expected_and_the_maximum_cost(tmp_path, capsys):
    assert _run(tmp_path / "e", "--estimate") == 0
    out = capsys.readouterr().out
    assert "maximum: 6 trials" in out and "expected (t law) for a claim powered 90% at the maximum" in out

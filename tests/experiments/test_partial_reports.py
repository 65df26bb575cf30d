"""Reports of incomplete runs name what is missing (issue #39): the units of the configuration
that are not stored, and the trials a cross-dataset report rests on. Inputs built here."""
from __future__ import annotations

import pandas as pd


def test_the_cross_report_gives_the_trials_stored():
    from experiments.bruch2021.report_across import stored_trials
    from types import SimpleNamespace

    df = pd.DataFrame({"trial": [0, 0, 1, 1]})
    assert stored_trials(SimpleNamespace(trials=2), df) == "2 trials"
    assert stored_trials(SimpleNamespace(trials=3), df) == "2 trials stored of 3"


def test_missing_notes_name_absent_units():
    from experiments import analysis as an

    df = pd.DataFrame({"m": [0.5, 0.4]})
    df.attrs["absent"] = [f"d/t00{i}/base/x" for i in range(14)]
    notes = an.missing_notes(df, ["m"])
    assert notes[0].startswith("14 unit(s) of the configuration are not stored") and "and 2 more" in notes[0]
    df.attrs["absent"] = []
    assert an.missing_notes(df, ["m"]) == []


"""Every command line of the corpus (:mod:`config_corpus`: each study's flags and values, the
README's and the docs' commands, the command lines of the CLI tests) gives the configuration it
gave when the corpus was recorded — the same ``to_dict`` and the same hash, so stored runs keep
resuming — or is refused as it was (the message may improve; a refusal stays a refusal)."""
from __future__ import annotations

import json

import pytest

from tests.experiments import config_corpus

RECORDED = json.loads(config_corpus.OUT.read_text())


def test_the_corpus_covers_every_study_and_the_docs():
    studies = {r["study"] for r in RECORDED}
    assert {"quality", "convergence", "robustness", "clicks", "jensen_gap", "qbrank", "split_principles",
            "debiasing"} <= studies
    assert len(RECORDED) > 250


@pytest.mark.parametrize("study", sorted({r["study"] for r in RECORDED}))
def test_every_command_line_gives_the_recorded_configuration(study):
    wrong = []
    for rec in (r for r in RECORDED if r["study"] == study):
        now = config_corpus._record(study, rec["argv"])
        if "error" in rec:
            if "error" not in now:
                wrong.append((rec["argv"], "was refused", now.get("config")))
        elif now.get("config") != rec["config"] or now.get("hash") != rec["hash"]:
            wrong.append((rec["argv"], rec["config"], now.get("config") or now.get("error")))
    assert wrong == []

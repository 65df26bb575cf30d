"""Each experiment's protocol notes — as the paper / the paper is silent (we chose) / deviations —
checked against its configuration: every setting in the right column, moving when the
configuration moves it, and the committed runs' notes (``notes.md``) saying the same."""
import json
import re
from pathlib import Path

import pytest

import experiments
from conftest import AWAITING_REGENERATION
from experiments import registry
from ltrrepro.report import NOTE_HEADINGS, protocol_notes

ROOT = Path(__file__).resolve().parents[2]
COLUMNS = ("as_paper", "choices", "deviations")


def columns(name, **flags):
    return experiments.configure(name, **flags).protocol_notes()


def where(notes, pattern):
    """The columns holding an entry matching ``pattern``."""
    return {k for k in COLUMNS if any(re.search(pattern, x) for x in notes[k])}


@pytest.mark.parametrize("name", list(registry.experiments()))
def test_every_experiment_has_three_columns_of_distinct_sentences(name):
    notes = columns(name)
    assert set(notes) == set(COLUMNS)
    entries = [x for k in COLUMNS for x in notes[k]]
    assert all(isinstance(x, str) and x.strip() for x in entries)
    assert len(entries) == len(set(entries)), "an entry in two columns"
    assert notes["as_paper"] and notes["choices"], f"{name}: nothing said as the paper or where it is silent"


def test_bruch_epsilon_is_a_deviation_gamma_and_neumann_as_the_paper():
    notes = columns("quality")
    assert where(notes, "ε = 0") == {"deviations"}
    assert where(notes, "γ ~ U") == {"as_paper"} and where(notes, "Neumann series to order 2") == {"as_paper"}
    assert where(notes, "validation metric .* drops queries without a relevant") == {"choices"}
    # without XE_NDCG or ListNet there is no ε and no γ to speak of
    bare = columns("quality", models=("lambdamart",))
    assert not where(bare, "ε = 0") and not where(bare, "γ ~ U")


def test_bruch_clean_validation_set_is_a_choice_of_the_noise_studies_only():
    assert where(columns("robustness"), "validation set stays clean") == {"choices"}
    assert where(columns("robustness"), "test set untouched") == {"as_paper"}
    assert not where(columns("quality"), "validation set stays clean")
    assert where(columns("clicks"), "training and validation lists turned into cascade clicks") == {"as_paper"}


def test_bruch_early_stopping_moves_with_the_study():
    assert where(columns("quality"), "no early stopping") == set()
    assert where(columns("convergence"), "no early stopping") == {"choices"}


def test_zheng_shared_eta_and_leaves_move_with_shared_params():
    paper = columns("qbrank")
    assert where(paper, r"η 0\.05 and 20-leaf") == {"as_paper"}
    tuned = columns("qbrank", shared_params="tuned")
    assert where(tuned, r"η 0\.05 and 20-leaf") == set() and where(tuned, "tuned once per trial") == {"deviations"}
    assert where(paper, "tree learner") == {"choices"} and where(paper, "starting scores") == {"choices"}
    assert where(paper, r"s ∈ \[0, 10\]") == {"choices"}
    assert where(paper, "line search on R") == {"as_paper"}
    xgb = columns("qbrank", library="xgboost")              # no line search there: a deviation, no bracket
    assert where(xgb, "without the per-round line search") == {"deviations"} and not where(xgb, r"s ∈ \[0, 10\]")


def test_xia_conventions_and_rules_in_their_columns():
    notes = columns("split_principles")
    assert where(notes, "metric conventions") == {"choices"}
    assert where(notes, r"\(K − 1\)/K") == {"choices"}
    assert where(notes, "width-first") >= {"as_paper"}
    assert where(notes, "OLE only chooses each split") == {"as_paper"}
    assert where(notes, "released split plus two more") == {"deviations"}
    moved = columns("split_principles", split_rule="positive-gain", leaf_rule="exact", growth="best-first")
    assert not where(moved, "OLE only chooses each split") and where(moved, "positive-gain splits") == {"deviations"}
    assert not where(moved, "Eq. 8 .* after the tree") and where(moved, "exact leaves in every arm") == {"deviations"}
    assert where(moved, "best-first tree growth") == {"deviations"}


NON_DEFAULT = [("clicks", {"impressions": 3}), ("clicks", {"click_model": "pbm"}), ("quality", {"preset": "tiny"}),
               ("qbrank", {"tied_pairs": "contradicting"}), ("qbrank", {"library": "xgboost"}),
               ("qbrank", {"shared_params": "tuned"}), ("convergence", {}),
               ("split_principles", {"leaf_rule": "own", "split_rule": "positive-gain"})]


@pytest.mark.parametrize("name,flags", NON_DEFAULT)
def test_no_setting_is_in_two_columns_whatever_the_configuration(name, flags):
    notes = columns(name, **flags)
    words = [x.split(":")[0].split("(")[0].strip().lower() for k in COLUMNS for x in notes[k]]
    entries = [x for k in COLUMNS for x in notes[k]]
    assert len(entries) == len(set(entries))
    for pattern in ("impressions per list", "position-based", "tied pair", "ε = 0"):
        assert len(where(notes, pattern)) <= 1, (pattern, where(notes, pattern))
    assert words


def test_settings_that_leave_the_paper_leave_its_column():
    assert where(columns("clicks", impressions=3), "impressions per list") == {"deviations"}
    assert where(columns("clicks"), r"10 impressions per list") == {"as_paper"}
    pbm = columns("clicks", click_model="pbm")
    assert where(pbm, "position-based") == {"deviations"} and not where(pbm, "cascade clicks")
    from experiments.bruch2021.protocol_jensen_gap import JensenConfig
    rising = JensenConfig(probs=(0.1, 0.1, 0.2, 0.3, 0.3)).protocol_notes()
    assert where(rising, "do not decrease") == {"deviations"} and not where(rising, "smaller probabilities")
    import dataclasses
    w = dataclasses.replace(experiments.configure("qbrank"), w=0.9).protocol_notes()
    assert where(w, "w = 0.9") == {"deviations"} and not where(w, "w = 0.5")
    assert where(columns("qbrank", tied_pairs="contradicting"), "tied pair") == {"deviations"}


def test_notes_quote_the_code_they_describe():
    """The line search's bracket and the tree learner's settings are read from the code."""
    import inspect

    from ltrrepro.fit import Boosting
    from ltrrepro.objectives.pairwise import qbrank_step
    bracket = inspect.signature(qbrank_step).parameters["max_step"].default
    notes = columns("qbrank")
    assert where(notes, rf"s ∈ \[0, {bracket:g}\]") == {"choices"}
    b = Boosting()
    assert where(notes, rf"{b.max_bin} bins\) grown leaf-wise .* at least {b.min_data_in_leaf} documents per leaf")
    assert where(columns("qbrank", library="xgboost"), "no minimum leaf size") == {"choices"}


def test_legend_keeps_the_columns_apart():
    text = protocol_notes(["d1"], ["c1"], ["a1"])
    assert text.index(NOTE_HEADINGS["as_paper"]) < text.index(NOTE_HEADINGS["choices"]) < \
        text.index(NOTE_HEADINGS["deviations"])
    assert protocol_notes([], []) == f"{NOTE_HEADINGS['deviations']}: none."


def _notes_columns(run: Path) -> dict:
    """The three columns of a committed run's ``notes.md`` (a section each, an entry a line);
    a run awaiting its regeneration (conftest's ``AWAITING_REGENERATION``) has them in its
    ``claims.md`` legend still (:func:`_legend_columns`)."""
    if (run / "notes.md").exists():
        sections = dict(re.findall(r"^## (.+)\n\n((?:- .*\n)+)", (run / "notes.md").read_text(encoding="utf-8"), re.M))
        return {k: sections.get(NOTE_HEADINGS[k], "") for k in COLUMNS}
    assert run.relative_to(ROOT).as_posix() in AWAITING_REGENERATION, f"{run}: no notes.md (rebuild its report)"
    return _legend_columns((run / "claims.md").read_text(encoding="utf-8"))


def _legend_columns(md: str) -> dict:
    """The three columns of a ``claims.md`` legend written before ``notes.md``."""
    heads = {k: NOTE_HEADINGS[k] + ": " for k in COLUMNS}
    out = {}
    for k, h in heads.items():
        start = md.find(h)
        if start < 0:
            out[k] = ""
            continue
        start += len(h)
        ends = [md.find(other, start) for other in heads.values() if md.find(other, start) > 0]
        out[k] = md[start:min(ends)] if ends else md[start:]
    return out


CLAIMS = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "results").rglob("claims.md"))


@pytest.mark.parametrize("path", CLAIMS)
def test_committed_notes_say_each_setting_in_its_column(path):
    cols = _notes_columns((ROOT / path).parent)
    stored = json.loads((ROOT / path).with_suffix(".json").read_text(encoding="utf-8"))
    assert all(k in stored for k in COLUMNS), f"{path}: claims.json without the three columns (regenerate)"
    for k in COLUMNS:
        for entry in stored[k]:
            assert entry in cols[k], f"{path}: {entry[:60]!r} not under {NOTE_HEADINGS[k]!r}"
    manifest = (ROOT / path).with_name("manifest.json")
    if not manifest.exists():                     # a cross-dataset report: each run's notes, named by dataset
        assert (ROOT / path).with_name("sources.json").exists()
        assert "Web30K: " in cols["deviations"] and "Yahoo: " in cols["deviations"]
        return
    name = json.loads(manifest.read_text(encoding="utf-8"))["experiment"]
    if name in ("quality", "robustness", "clicks", "convergence"):
        assert "ε = 0" in cols["deviations"] and "ε = 0" not in cols["as_paper"] + cols["choices"]
        assert "γ ~ U" in cols["as_paper"]
    if name == "robustness":
        assert "validation set stays clean" in cols["choices"]
    if name == "split_principles":
        assert "metric conventions" in cols["choices"]

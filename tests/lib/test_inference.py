"""The report's statistics as one value (ltrrepro.inference, issue 37): built once, passed to
every builder, test and claim, α defined in one place; a claim judged in one place from its
evidence and the paper's expectation."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from ltrrepro.inference import (UNDERPOWERED, Evidence, Expectation, Inference, correct, judge, parse_effects,
                                smallest_effect)
from ltrrepro.inference.power import paired_power, tost_power, trials_for_tost_power
from ltrrepro.inference.rendering import claims_legend, claims_lines
from ltrrepro.inference.tests import tost
from ltrrepro.report import Report

ROOT = Path(__file__).resolve().parents[2]


def test_inference_round_trips_through_the_manifest_and_reads_old_ones():
    inf = Inference(test="permutation", correction="bh", effects=parse_effects("ndcg=0.005,dcg=2%"), alpha=0.05)
    assert Inference.from_dict(inf.to_dict()) == inf
    assert inf.to_dict()["alpha"] == 0.05 and inf.to_dict()["effects"] == {"ndcg": 0.005, "dcg": "2%"}
    old = {"test": "wilcoxon", "correction": "holm", "effects": {}}          # a manifest from before alpha
    assert Inference.from_dict(old) == Inference(test="wilcoxon") and Inference.from_dict(old).alpha == 0.01
    for bad in ({"test": "z"}, {"correction": "bonferroni"}, {"alpha": 0.0}, {"alpha": 1.5}):
        with pytest.raises(ValueError):
            Inference(**bad)


def test_alpha_is_the_values_in_the_verdict_the_correction_and_the_text():
    """The same evidence judged at α = 0.01 and at α = 0.05: p = 0.03 is significant only at
    0.05; the power, the family correction, the legend and the printed lines follow α."""
    ev = Evidence(0.01, 0.03, 20, "d", sd=0.02)
    strict, loose = Inference(), Inference(alpha=0.05)
    a, b = judge("x", ev, Expectation(effect=0.01), strict), judge("x", ev, Expectation(effect=0.01), loose)
    assert a.verdict == UNDERPOWERED and b.verdict == "supported"
    assert a.power == pytest.approx(paired_power(0.01, 0.02, 20, 0.01))
    assert b.power == pytest.approx(paired_power(0.01, 0.02, 20, 0.05)) and b.power > a.power
    fam = [judge(f"c{i}", Evidence(0.01, p, 20, "d"), Expectation(family="F"), loose) for i, p in
           enumerate((0.03, 0.04))]
    assert [c.p for c in correct(fam, loose)] == pytest.approx([0.06, 0.06])          # Holm: 2·0.03, max(0.04, 0.06)
    assert [c.verdict for c in correct(fam, loose)] == ["direction only", "direction only"]
    assert [c.verdict for c in correct(fam, Inference(correction="none", alpha=0.05))] == ["supported"] * 2
    assert "p < 0.05" in claims_legend(loose) and "p < 0.01" in claims_legend(strict)
    assert claims_lines([b], loose)[0] == "Claims check (α = 0.05):"
    rep = Report(title="t", claims=[b], inference=loose)
    assert "Claims check (α = 0.05):" in rep.text


def test_the_test_and_the_effects_are_the_values():
    d = np.array([0.3, 0.1, 0.4, 0.2, 0.5, 0.35, 0.25, 0.45])
    wil = judge("x", Evidence(d.mean(), 0.0078125, d.size, "d", sd=d.std(ddof=1)), Expectation(effect=0.1),
                Inference(test="wilcoxon"))
    assert wil.power == pytest.approx(paired_power(0.1, d.std(ddof=1), d.size, 0.01, "wilcoxon"))
    assert smallest_effect("ndcg@10", Inference(effects=parse_effects("ndcg=0.02")))[0] == 0.02
    assert smallest_effect("ndcg@10", Inference())[0] == 0.01


def test_an_equivalence_claim_is_judged_by_tost_in_the_same_place():
    """A claim of no change: supported when TOST rejects both sides at α, contradicted when the
    change lies beyond the margin, inconclusive when TOST's power at no change is short."""
    inf, m = Inference(), 0.01

    def claim(d):
        d = np.asarray(d, float)
        sd = float(d.std(ddof=1))
        p_eq, p_beyond = tost(d, m)
        power = {"power": tost_power(m, sd, d.size, inf.alpha), "trials_80": trials_for_tost_power(m, sd, inf.alpha),
                 "trials_80_range": None}
        return judge("no change", Evidence(float(d.mean()), p_eq, d.size, "d", sd=sd, p_beyond=p_beyond, power=power),
                     Expectation(effect=m, margin=m), inf)

    assert claim(np.tile([-0.002, 0.002], 10)).verdict == "supported (equivalent within ±0.01)"
    assert claim([0.03, 0.031, 0.029, 0.03, 0.032]).verdict == "contradicted (a change beyond ±0.01)"
    short = claim([0.02, -0.03, 0.01])
    assert short.verdict == UNDERPOWERED and short.power < 0.8 and short.trials_80 > 3
    assert not short.standard and correct([short.replace(family="F")], inf)[0].verdict == UNDERPOWERED


def test_no_ambient_statistics_and_alpha_set_once():
    """No ContextVar in the library or the reports, no module-level ALPHA, and the only default
    α of the code base is Inference's."""
    files = [*(ROOT / "ltrrepro").rglob("*.py"), *(ROOT / "experiments").rglob("*.py")]
    for f in files:
        text = f.read_text(encoding="utf-8")
        rel = f.relative_to(ROOT).as_posix()
        if rel != "experiments/cli.py":           # (the parser's error mode, not a statistic)
            assert "ContextVar" not in text, rel
        assert not re.search(r"^\s*(ESTIMATE_)?ALPHA\s*=", text, re.M), rel
        defaults = re.findall(r"alpha: float = ([0-9.]+)", text)
        assert not defaults or rel == "ltrrepro/inference/choices.py", (rel, defaults)
    choices = (ROOT / "ltrrepro/inference/choices.py").read_text(encoding="utf-8")
    assert re.findall(r"alpha: float = ([0-9.]+)", choices) == ["0.01"]


def test_the_library_never_imports_the_experiments():
    for f in (ROOT / "ltrrepro").rglob("*.py"):
        text = f.read_text(encoding="utf-8")
        assert not re.search(r"^\s*(from|import)\s+experiments\b", text, re.M), f

"""The one verdict rule (issue 50): :func:`ltrrepro.inference.claim.rule` decides every verdict;
:func:`~ltrrepro.inference.correct` and the sequential monitor hand a claim their level through
:meth:`~ltrrepro.inference.Claim.at`, which applies the claim's declared size rule
(``Expectation.sized``) and verdict text (``Expectation.verdict_text``) exactly as
:func:`~ltrrepro.inference.judge` does; equivalence verdicts stand."""
from __future__ import annotations

from experiments.sequential_report import settled_claim
from ltrrepro.inference import Evidence, Expectation, Inference, correct, judge
from ltrrepro.inference.claim import rule
from ltrrepro.inference.sequential import CONTRADICTED, EFFICACY, FUTILITY, MAXIMUM

INF = Inference()
OWN = "inconclusive (the split-principle effect is not separated from the leaf rule's)"


def _d(stop, power=0.9):
    """A monitor's settling record (the fields settled_claim reads)."""
    return {"stop": stop, "z": 3.0, "bound": 2.5, "futility_bound": 0.1, "look": 2, "trials": 10, "alpha": 0.01,
            "power": power, "ci": (0.0, 1.0), "p_stagewise": 0.004, "estimate": 0.5}


def _sized(v):
    return "supported" if 0.32 <= -v <= 1 else "lower, by more than the paper's"


def test_the_rule_by_hand():
    assert rule(0.02, +1, True) == "supported" and rule(-0.02, +1, True) == "contradicted"
    assert rule(0.02, +1, False, 0.5) == "inconclusive (underpowered)"
    assert rule(0.02, +1, False, 0.9) == "direction only" and rule(-0.02, +1, False, 0.9) == "not supported"
    assert rule(float("nan"), +1, False, 0.9) == "not supported"


def test_a_sized_claim_is_sized_wherever_the_rule_decides():
    """A paper's magnitude (Xia's 0.32%–1%): a significant result is sized at α, at a corrected
    level and at a sequential efficacy stop alike; a sequential stop without a rejection follows
    the design's power, as every monitored claim does."""
    c = judge("loss lower", Evidence(-2.5, 1e-5, 10, "d", sd=0.5), Expectation(sign=-1, paper_effect=-0.32,
                                                                           sized=_sized), INF)
    assert c.verdict == "lower, by more than the paper's" and c.standard
    assert settled_claim(c, _d(EFFICACY), 3, 0.01).verdict == "lower, by more than the paper's"
    assert settled_claim(c, _d(FUTILITY, power=0.3), 3, 0.01).verdict == "inconclusive (underpowered)"
    assert settled_claim(c, _d(MAXIMUM, power=0.95), 3, 0.01).verdict == "direction only"
    within = judge("loss lower", Evidence(-0.5, 1e-5, 10, "d", sd=0.2),
                   Expectation(sign=-1, paper_effect=-0.32, sized=_sized, family="f"), INF)
    other = judge("other", Evidence(0.5, 0.2, 10, "d", sd=0.2), Expectation(family="f"), INF)
    fixed = correct([within, other], INF)[0]
    assert fixed.p_raw is not None and fixed.verdict == "supported"      # still significant after Holm, within range


def test_a_verdict_text_is_applied_at_every_level_it_is_judged_at():
    """A claim whose text settles its verdict (Xia's leaf rule ``own``): the text where the rule
    is not inconclusive — at α, after a sequential efficacy stop — and inconclusive otherwise."""
    c = judge("own", Evidence(-0.05, 0.3, 5, "d", sd=0.2), Expectation(sign=-1, paper_effect=-0.32,
                                                                      verdict_text=OWN), INF)
    assert c.verdict == "inconclusive (underpowered)" and not c.standard
    assert settled_claim(c, _d(EFFICACY), 3, 0.01).verdict == OWN
    assert settled_claim(c, _d(CONTRADICTED), 3, 0.01).verdict == OWN
    assert settled_claim(c, _d(FUTILITY, power=0.2), 3, 0.01).verdict == "inconclusive (underpowered)"


def test_an_equivalence_verdict_stands():
    c = judge("no change", Evidence(0.001, 0.001, 20, "d", sd=0.01, p_beyond=0.9), Expectation(margin=0.01), INF)
    assert c.verdict.startswith("supported (equivalent")
    assert settled_claim(c, _d(FUTILITY, power=0.1), 3, 0.01).verdict == c.verdict

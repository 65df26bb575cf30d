"""The Claim object (ltrrepro.inference.claim, issue 26 item 3; judged from an Evidence and an Expectation, issue 37): the verdict rule on hand-made claims, why a
test has no p value, a claim from a paired comparison, and a claim's stored form."""
from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from ltrrepro.inference import UNDERPOWERED, Claim, Evidence, Expectation, Inference, judge, judge_comparison, verdict
from ltrrepro.inference.tests import paired_test

INF = Inference()


def check(text, value, p, trials, detail, sd=float("nan"), on="trial", missing=None, paper_effect=None,
          verdict_text=None, **extra) -> Claim:
    """A claim judged from its evidence and the paper's expectation (ltrrepro.inference.judge)."""
    return judge(text, Evidence(value, p, trials, detail, sd=sd, on=on, missing=missing),
                 Expectation(paper_effect=paper_effect, verdict_text=verdict_text), INF, **extra)


@pytest.mark.parametrize("value, p, sign, power, expected", [
    (0.02, 0.001, +1, np.nan, "supported"),                  # right direction, p < α
    (-0.02, 0.001, +1, np.nan, "contradicted"),              # wrong direction, p < α
    (-0.02, 0.001, -1, np.nan, "supported"),                 # an expected decrease
    (0.02, 0.001, +1, 0.1, "supported"),                     # significance stands whatever the power
    (0.02, 0.2, +1, 0.5, UNDERPOWERED),                      # p ≥ α below 80% power: cannot tell
    (0.02, 0.2, +1, 0.9, "direction only"),                  # well powered, right direction
    (-0.02, 0.2, +1, 0.9, "not supported"),                  # well powered, wrong direction
    (0.02, 0.2, +1, np.nan, "direction only"),               # no paper number: no power
    (0.02, 0.01, +1, np.nan, "direction only"),              # p = α is not below α
    (0.0, 0.5, +1, 0.3, UNDERPOWERED),                       # no difference, underpowered
    (0.0, 0.5, +1, 0.95, "not supported"),                   # no difference, well powered
])
def test_verdict_rule_on_hand_made_cases(value, p, sign, power, expected):
    assert verdict(value, p, sign, alpha=0.01, power=power) == expected

def test_claim_check_names_why_a_test_has_no_p_value():
    assert check("x", 0.01, np.nan, 1, "d").verdict == "inconclusive (one trial: no test)"
    assert check("x", 0.01, np.nan, 5, "d", sd=0.0).verdict == \
        "inconclusive (zero variance of the paired differences: no test)"
    assert check("x", np.nan, np.nan, 5, "d").verdict == "inconclusive (no trial with both results)"
    assert check("x", np.nan, np.nan, 5, "d", on="fold").verdict == "inconclusive (no fold with both results)"
    assert check("x", 0.01, 0.001, 5, "d", missing="no data").verdict == "inconclusive (no data)"
    # a verdict text settles a significant result, never an underpowered one
    assert check("x", 0.01, 0.001, 5, "d", verdict_text="lower").verdict == "lower"
    assert check("x", 0.001, 0.3, 5, "d", paper_effect=0.004, sd=0.01,
                       verdict_text="lower").verdict == UNDERPOWERED
    # no test at all (a count, a ratio): the verdict text decides
    assert check("x", 2.0, np.nan, 5, "d", verdict_text="supported").verdict == "supported"

def test_claim_from_a_paired_comparison():
    a, b = np.array([0.5, 0.6, 0.7, 0.65]), np.array([0.4, 0.55, 0.6, 0.6])
    c = judge_comparison("A > B", paired_test(a, b), ("A", "B"), "ndcg@5[gain=exp2,norel=drop]", INF,
                         Expectation(paper_effect=0.05))
    assert c.value == pytest.approx(0.075) and c.trials == 4 and c.detail.startswith("A − B on NDCG@5: +0.0750")
    assert c.paper_effect == 0.05 and 0 < c.power < 1 and c.trials_80 >= 2
    assert judge_comparison("A > B", None, ("A", "B"), "ndcg@5", INF) is None
    none = judge_comparison("A > B", paired_test([], []), ("A", "B"), "ndcg@5[gain=exp2,norel=drop]", INF)
    assert none.verdict == "inconclusive (no query with a relevant document in the test parts)"

def test_claim_dict_keeps_the_stored_order_and_room_for_new_fields():
    c = check("XE beats λ", 0.01, 0.001, 6, "d", noise="clicks", level=0.05)
    d = c.to_dict()
    assert list(d) == ["claim", "noise", "level", "value", "p", "trials", "paper_effect", "effect", "sd",
                       "power", "trials_80", "detail", "verdict"]
    back = Claim.from_dict(json.loads(json.dumps(d)))
    assert json.dumps(back.to_dict()) == json.dumps(d) and back.extra == {"noise": "clicks", "level": 0.05}

    @dataclasses.dataclass(frozen=True)
    class Later(Claim):                    # a field a later statistics issue adds: absent until set
        effect_size: float | None = None

    later = Later(text="x", value=0.01, p=0.001, trials=6, detail="d", verdict="supported")
    assert "effect_size" not in later.to_dict()
    assert list(later.replace(effect_size=0.3).to_dict())[-1] == "effect_size"
    with pytest.raises(AttributeError):
        c.verdict = "supported"                                  # a value object
    assert c.replace(verdict="contradicted").verdict == "contradicted" and c.verdict == "supported"

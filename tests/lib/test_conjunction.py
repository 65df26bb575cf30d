"""Intersection–union claims (issue 38, item 5): a conjunction over K is supported only when every
part is significant at α (no correction); its power is the Bonferroni lower bound."""
import pytest

from ltrrepro.inference import Evidence, Expectation, Inference, conjunction, correct, judge

INF = Inference()


def _part(text, value, p, n=10, sd=0.01, family="F"):
    return judge(text, Evidence(value, p, n, "d", sd=sd), Expectation(effect=0.01, family=family), INF)


def test_every_part_at_alpha_without_correction():
    """Raw p of 0.004, 0.006, 0.008: Holm over the three rejects none (0.012 > 0.01 at the first
    step), the conjunction — each at α — is supported with p 0.008."""
    parts = [_part(f"k{i}", 0.01, p) for i, p in enumerate((0.004, 0.006, 0.008))]
    assert not any(c.verdict == "supported" for c in correct(parts, INF))
    c = conjunction("all", parts, INF)
    assert c.verdict == "supported" and c.p == pytest.approx(0.008) and c.alpha_applied == 0.01


def test_one_part_short_and_the_power_bound():
    parts = [_part("a", 0.01, 0.001, n=40), _part("b", 0.002, 0.3, n=40)]
    c = conjunction("all", parts, INF)
    assert c.p == pytest.approx(0.3) and c.value == pytest.approx(0.002)
    assert c.power == pytest.approx(max(0.0, 1 - sum(1 - q.power for q in parts)))
    assert c.verdict == ("direction only" if c.power >= 0.8 else "inconclusive (underpowered)")
    few = conjunction("all", [_part("a", 0.01, 0.001, n=5), _part("b", 0.002, 0.3, n=5)], INF)
    assert few.verdict == "inconclusive (underpowered)"


def test_a_part_significant_against_the_claim_contradicts_it():
    parts = [_part("a", 0.01, 0.001), _part("b", -0.01, 0.001)]
    c = conjunction("all", parts, INF)
    assert c.verdict == "contradicted" and c.value == pytest.approx(-0.01)

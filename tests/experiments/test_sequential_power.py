"""An auto run's power column is the power its verdict used (issue 38): a claim settled for
futility or at the maximum reads the design's power at the level it was settled at."""
import pytest

from experiments.sequential_report import settled_claim
from ltrrepro.inference import Evidence, Expectation, Inference, judge
from ltrrepro.inference import sequential as sq
from ltrrepro.inference.power import trials_for_power


def _decision(stop, power, alpha=0.005):
    return {"look": 1, "trials": 5, "stop": stop, "z": -1.2, "bound": 6.0, "futility_bound": 0.3, "alpha": alpha,
            "p_stagewise": 0.4, "ci": (-0.01, 0.02), "estimate": 0.001, "power": power, "power_range": (0.1, 0.6),
            "law": "t"}


@pytest.mark.parametrize("power,verdict", [(0.14, "inconclusive (underpowered)"), (0.93, "direction only")])
def test_the_power_column_is_the_verdicts(power, verdict):
    c = judge("x", Evidence(0.004, 0.3, 5, "d", sd=0.01), Expectation(effect=0.01), Inference())
    s = settled_claim(c, _decision(sq.FUTILITY, power), 4, 0.01)
    assert s.power == power and s.verdict == verdict and s.alpha_applied == 0.005
    assert s.trials_80 == trials_for_power(0.01, 0.01, alpha=0.005)
    assert "(0.10–0.60 over the SD's 95% CI), t law" in s.detail


def test_estimate_names_the_futility_only_looks():
    """--estimate of --max-trials 20 --looks 4 at α = 0.01: look 1 (5 trials) cannot stop for efficacy."""
    from types import SimpleNamespace

    from experiments.sequential_report import estimate_lines
    store = SimpleNamespace(records=lambda: [])
    lines = estimate_lines(SimpleNamespace(trials=20, looks=4), store, [], [], 0.01)
    assert any(line.strip().startswith("futility-only look(s) at α = 0.01: 1 ") for line in lines)

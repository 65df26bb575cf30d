"""The identical-models guard end to end (issue 52, slow): two arms that differ only in a
parameter their loss ignores (``plugin_losses:IgnoresItsKnob``, a parameter dropped on purpose)
train the same model in every trial; the run's report names both and the parameter in one line
first, and the claim between them reads "identical models"; λMART beside them is not named."""
from __future__ import annotations

import json

import pytest

import experiments
from ltrrepro.fit.plugins import plugin_key

pytestmark = pytest.mark.slow


def test_a_parameter_that_never_reaches_the_model_is_named(tmp_path):
    a, b = "plugin_losses:IgnoresItsKnob(knob=1)", "plugin_losses:IgnoresItsKnob(knob=2)"
    ka, kb = plugin_key(a), plugin_key(b)
    out = tmp_path / "q"
    res = experiments.run("quality", out=str(out), models=(a, b, "lambdamart"), baseline=ka, queries=40, trials=2,
                          preset="tiny", rounds=5, jobs=1, threads=1, quiet=True)
    assert res.exit_code == 0
    records = [json.loads(p.read_text()) for p in (out / "units").rglob("*.json")]
    prints = {(r["unit"]["trial"], r["unit"]["model"]): r["test_fingerprint"] for r in records}
    assert all(prints[(t, ka)] == prints[(t, kb)] != prints[(t, "lambdamart")] for t in (0, 1))
    notes = (out / "notes.md").read_text()
    warning = next(ln for ln in notes.splitlines() if ln.startswith("- identical models:"))
    assert ka in warning and kb in warning and "knob" in warning and "lambdamart" not in warning
    claims = json.loads((out / "claims.json").read_text())["claims"]
    between = [c for c in claims if "knob=2" in c["claim"] and "knob=1" in c["claim"]]
    assert between and all(c["verdict"] == "identical models" for c in between)
    assert not any(c["verdict"] == "identical models" for c in claims if c not in between)

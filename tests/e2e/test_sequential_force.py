"""``--force --trials auto`` recomputes each unit once (issue #39): at a later look only the new
trials' units run — not every earlier look's again — and the resumed count is never negative."""
import json

import numpy as np
import pytest

from experiments.quality import main
from ltrrepro.inference import sequential as sq

pytestmark = pytest.mark.slow

TINY = ["--queries", "40", "--preset", "tiny", "--rounds", "3", "--models", "listnet,xendcg", "--jobs", "1",
        "--quiet", "--trials", "auto", "--max-trials", "6", "--looks", "3"]


@pytest.mark.slow
def test_force_computes_each_unit_once(tmp_path, monkeypatch):
    real = sq.futility_bounds                       # claims stay open: every look is taken
    monkeypatch.setattr(sq, "futility_bounds", lambda t, c, drift, spending="obf", final=True:
                        (np.where(np.arange(len(t)) == len(t) - 1, real(t, c, drift, spending)[0], -np.inf), 0.0))
    out = tmp_path / "a"
    assert main([*TINY, "--out", str(out)]) == 0
    first = json.loads((out / "manifest.json").read_text())
    assert main([*TINY, "--out", str(out), "--force"]) == 0
    man = json.loads((out / "manifest.json").read_text())
    looks = man["sequential"]["stop"]
    assert man["n_done"] == first["n_done"] == 2 * int(looks.split("(")[1].split(" of")[0])   # 2 models per trial
    assert man["n_skipped"] == 0

"""The identical-models guard (issue 52): every unit records a fingerprint of its test scores
(:func:`ltrrepro.runner.fingerprint`); two arms whose fingerprints agree in every trial trained
the same model, and the report says so first, naming both and what differs between them, while
a claim between them reads "identical models" instead of being judged. Built on stores written
here (no training); the end-to-end case, a parameter dropped on purpose, is in
tests/e2e/test_identical_models.py."""
from __future__ import annotations

import json

import numpy as np
import pytest

from experiments.analysis import canonical, identical_pairs
from experiments.report import rebuild
from ltrrepro.fit import SYSTEMS
from ltrrepro.runner import FINGERPRINT, UnitRecord, fingerprint
from ltrrepro.store import ResultStore

NDCG = [canonical(m) for m in ("ndcg@1", "ndcg@3", "ndcg@5", "ndcg@10")]
BRUCH = {"dataset": "svmlight", "library": "lightgbm", "preset": "tiny", "deviations": [], "choices": [],
         "baseline": "lambdamart", "plugins": []}


def _run(root, same: bool, trials: int = 4):
    """A finished quality run: XE_NDCG MART's units score the test part exactly as λMART's
    (``same``) or not; the metrics differ a little per trial either way."""
    store = ResultStore(root, {"experiment": "quality", **BRUCH, "models": ["listnet", "lambdamart", "xendcg"]})
    store.start("quality", argv=[])
    rng = np.random.default_rng(0)
    for t in range(trials):
        base = rng.random(20)
        for i, m in enumerate(("listnet", "lambdamart", "xendcg")):
            scores = base if (m == "xendcg" and same) or m == "lambdamart" else base + 0.01 * (i + 1)
            v = 0.4 + 0.01 * i + 0.003 * t * (i % 2)
            rec = UnitRecord.of(SYSTEMS[m], {k: v for k, v in zip(NDCG, [v] * 4)}, scores=scores,
                                fit={"best_iteration": 3}, timings={"train_s": 0.1}).to_dict()
            key = f"d/t{t:03d}/noise=none/{m}"
            rec["unit"] = {"experiment": "quality", "dataset": "d", "trial": t, "model": m,
                           "setting": {"noise": "none"}, "seed": 0}
            store.write(key, rec, {**{f"test:{k}": np.full(4, v) for k in NDCG}, "test:qid": np.arange(4)})
    store.finish("ok")
    return store


def test_a_fingerprint_is_the_scores_bit_for_bit():
    a = np.random.default_rng(1).random(50)
    assert fingerprint(a) == fingerprint(a.copy()) == fingerprint(list(a))
    b = a.copy()
    b[17] = np.nextafter(b[17], 2.0)             # one score, one ulp
    assert fingerprint(b) != fingerprint(a) and len(fingerprint(a)) == 16
    assert UnitRecord(means={}, scores=a).to_dict()[FINGERPRINT] == fingerprint(a)
    assert FINGERPRINT not in UnitRecord(means={}).to_dict()
    with pytest.raises(ValueError, match="common names"):
        UnitRecord(means={}, fields={FINGERPRINT: "x"}).to_dict()


def test_two_arms_that_trained_one_model_are_named_and_not_judged(tmp_path):
    _run(tmp_path / "same", same=True)
    rep = rebuild(tmp_path / "same", quiet=True)
    text = (tmp_path / "same" / "notes.md").read_text()
    assert "## Warnings" in text and "identical models: lambdamart and xendcg" in text
    assert rep.text.splitlines()[1].startswith("Warning: identical models: lambdamart and xendcg")
    assert "family 'lambdamart' → 'xendcg'" in rep.text or "objective" in rep.text      # what differs, named
    claims = json.loads((tmp_path / "same" / "claims.json").read_text())["claims"]
    between = [c for c in claims if c["claim"].startswith("XE_NDCG MART > λMART")]
    assert between and all(c["verdict"] == "identical models" for c in between)
    others = [c for c in claims if "ListNet" in c["claim"]]
    assert others and not any(c["verdict"] == "identical models" for c in others)
    assert "Warning:" in (tmp_path / "same" / "index.html").read_text()


def test_the_guard_is_silent_when_the_arms_differ(tmp_path):
    _run(tmp_path / "differ", same=False)
    rep = rebuild(tmp_path / "differ", quiet=True)
    assert "Warning" not in rep.text and "Warnings" not in (tmp_path / "differ" / "notes.md").read_text()
    claims = json.loads((tmp_path / "differ" / "claims.json").read_text())["claims"]
    assert not any(c["verdict"] == "identical models" for c in claims)


def test_a_pair_identical_in_some_trials_only_is_not_identical():
    import pandas as pd

    df = pd.DataFrame({"trial": [0, 0, 1, 1], "model": ["a", "b", "a", "b"], FINGERPRINT: ["x", "x", "y", "z"],
                       "setting_key": ["s"] * 4})
    assert identical_pairs(df) == []
    df.loc[3, FINGERPRINT] = "y"
    assert identical_pairs(df) == [("a", "b", 2)]
    df.loc[3, "setting_key"] = "other"            # another setting: not a pair of that trial
    assert identical_pairs(df) == [("a", "b", 1)]

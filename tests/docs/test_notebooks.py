"""The committed notebooks are executed companions: every code cell has its outputs, none is
an error, the figures are embedded, and they point at the in-repository results."""
import json
from pathlib import Path

import pytest

from experiments.notebook import png_count

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_one_notebook_per_paper():
    assert {p.stem for p in NOTEBOOKS} == {p.name for p in (ROOT / "results").iterdir() if p.is_dir()}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_notebook_is_executed(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert code and all(c["outputs"] and c["execution_count"] for c in code), "run python -m experiments.notebook"
    assert [c["execution_count"] for c in code] == list(range(1, len(code) + 1))     # one clean run, in order
    assert not [o for c in code for o in c["outputs"] if o["output_type"] == "error"]
    assert png_count(path) >= 1
    text = json.dumps(nb)
    assert "/tmp/" not in text and "ltrrepro-nb-" not in text       # no temporary path leaked into outputs

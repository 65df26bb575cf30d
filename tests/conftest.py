from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
MQ2008 = SHARED / "data" / "mq2008-sample"


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path, monkeypatch):
    """Never write the user's cache from tests."""
    monkeypatch.setenv("LTRREPRO_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("LTRREPRO_DATA_DIR", raising=False)


@pytest.fixture
def rng():
    return np.random.default_rng(20261122)


@pytest.fixture
def mq2008_dir():
    if not (MQ2008 / "vali.txt").exists():
        pytest.skip("../shared/data/mq2008-sample is not available")
    return MQ2008


def random_lists(rng, n_queries=40, max_size=25, max_label=4, distinct=True):
    """Flat scores/labels/offsets of random lists (sizes 1..max_size)."""
    sizes = rng.integers(1, max_size + 1, size=n_queries)
    n = int(sizes.sum())
    labels = rng.integers(0, max_label + 1, size=n)
    scores = rng.permutation(n).astype(float) / n if distinct else rng.integers(0, 4, n).astype(float)
    offsets = np.r_[0, np.cumsum(sizes)]
    return scores, labels, offsets


def execute_notebook(name: str, results) -> str:
    """Run ``notebooks/NAME`` on the results directory ``results`` (through
    ``LTRREPRO_RESULTS``) and return the text of its last cell's first output."""
    import os
    from unittest import mock

    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    with mock.patch.dict(os.environ, {"LTRREPRO_RESULTS": str(results)}):
        nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                resources={"metadata": {"path": str(ROOT / "notebooks")}}).execute()
    out = nb.cells[-1].outputs
    return str(out[0].get("data", {}).get("text/plain", "")) if out else ""

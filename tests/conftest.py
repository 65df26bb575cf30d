from pathlib import Path

import numpy as np
import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
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

"""Random query splits (ltrrepro.splits): reproducible, disjoint, independent of the trial count."""
import numpy as np
import pytest

from ltrrepro.splits import random_query_split, trial_split


def test_splits_reproducible_disjoint_and_independent_of_trial_count():
    a = trial_split(1000, seed=7, trial=3)
    b = trial_split(1000, seed=7, trial=3)
    c = trial_split(1000, seed=7, trial=4)
    for part in ("train", "valid", "test"):
        np.testing.assert_array_equal(a.parts()[part], b.parts()[part])
    assert not np.array_equal(a.train, c.train)
    allq = np.concatenate([a.train, a.valid, a.test])
    assert np.unique(allq).size == allq.size == 1000
    assert (a.train.size, a.valid.size, a.test.size) == (600, 200, 200)
    s = random_query_split(10, np.random.default_rng(0), fractions=(0.5, 0.3, 0.2))
    assert (s.train.size, s.valid.size, s.test.size) == (5, 3, 2)
    with pytest.raises(ValueError):
        random_query_split(10, np.random.default_rng(0), fractions=(0.5, 0.6, 0.2))

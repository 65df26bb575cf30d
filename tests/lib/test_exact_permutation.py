"""The sign-flip permutation test enumerates every sign pattern up to 20 trials (issue 38)."""
import numpy as np
import pytest
from scipy import stats

from ltrrepro.inference.tests import EXACT_MAX, one_sample_p, sign_flip_exact_p


@pytest.mark.parametrize("n", [5, 9, 16])
def test_enumeration_equals_scipys_exact_permutation_test(n):
    rng = np.random.default_rng(n)
    for _ in range(3):
        d = rng.normal(0.3, 1.0, n)
        ref = stats.permutation_test((d, np.zeros(n)), lambda x, y, axis=-1: np.mean(x - y, axis=axis),
                                     permutation_type="samples", vectorized=True, n_resamples=np.inf).pvalue
        assert sign_flip_exact_p(d) == pytest.approx(min(1.0, ref), abs=1e-12)


def test_up_to_twenty_trials_the_permutation_p_is_exact():
    """At 14–20 trials the p is a multiple of 2/2^n (enumerated), not a resampled 1/10,000 grid."""
    assert EXACT_MAX == 20
    d = np.r_[np.arange(1.0, 20.0), -0.5]                     # 20 differences, one negative
    p = one_sample_p(d, "permutation")
    assert p == pytest.approx(2 * 2 / 2 ** 20)                 # all positive, or only −0.5's sign flipped
    assert one_sample_p(np.arange(1.0, 15.0), "permutation") == pytest.approx(2 / 2 ** 14)

"""Xia's paper means are taken over the grid the run used (issue 38): a run of one configuration
compares with the paper's numbers at that configuration, not the paper's whole grid."""
import numpy as np
import pytest

from experiments.xia.paper import paper_differences, paper_table
from experiments.xia.paper import paper_means


def test_paper_differences_and_means_follow_the_runs_grid():
    cells = [(k, v) for key in ("yahoo", "web10k") for k, v in paper_table(key)[1].items() if k[0] == "mcrank"]
    one = [(10, 0.06)]
    want = [ole - se for k, v in cells if k[1:] == (10, 0.06) for se, ole in v]
    np.testing.assert_allclose(paper_differences("mcrank", None, one), want)
    assert len(paper_differences("mcrank", None, one)) < len(paper_differences("mcrank"))
    se, ole = paper_means("mcrank", None, one)
    assert se == pytest.approx(np.mean([c[0] for k, v in cells if k[1:] == (10, 0.06) for c in v]))
    assert ole - se == pytest.approx(np.mean(want))
    assert paper_means("mcrank", None) == paper_means("mcrank", None, [(999, 9.0)])   # none in the paper: all

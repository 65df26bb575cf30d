import numpy as np
import pytest

from ltrrepro.data import QueryOrderError, RankingDataset, offsets_from_qids, query_index


def _tiny():
    X = np.arange(12, dtype=np.float32).reshape(6, 2)
    return RankingDataset(X=X, y=[0, 1, 2, 0, 0, 3], qid=[5, 5, 9, 9, 9, 1])


def test_offsets_and_query_ops():
    ds = _tiny()
    assert ds.offsets.tolist() == [0, 2, 5, 6]
    assert ds.query_ids.tolist() == [5, 9, 1]
    assert query_index(ds.offsets).tolist() == [0, 0, 1, 1, 1, 2]
    sub = ds.subset([2, 0])
    assert sub.qid.tolist() == [1, 5, 5]
    assert sub.offsets.tolist() == [0, 1, 3]
    np.testing.assert_array_equal(sub.X, ds.X[[5, 0, 1]])
    both = RankingDataset.concat([ds.subset([0]), ds.subset([1, 2])])
    np.testing.assert_array_equal(both.X, ds.X)
    assert both.offsets.tolist() == ds.offsets.tolist()
    assert [q for q, _, _ in ds.iter_queries()] == [5, 9, 1]
    assert ds.queries_without_relevant().tolist() == [False, False, False]


def test_non_contiguous_query_is_an_error():
    with pytest.raises(QueryOrderError, match="query 5 is not contiguous.*row 3"):
        offsets_from_qids(np.array([5, 5, 9, 5]))


def test_bad_construction():
    X = np.zeros((3, 2), np.float32)
    with pytest.raises(ValueError, match="non-negative integers"):
        RankingDataset(X=X, y=[0, -1, 2], qid=[1, 1, 1])
    with pytest.raises(ValueError, match="non-negative integers"):
        RankingDataset(X=X, y=[0, 1.5, 2], qid=[1, 1, 1])
    ds = RankingDataset(X=X, y=[0, 1, 2], qid=[1, 1, 2])
    with pytest.raises(ValueError, match="selected twice"):
        ds.subset([0, 0])
    with pytest.raises(ValueError, match="more than one part"):
        RankingDataset.concat([ds, ds])

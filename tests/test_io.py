import time

import numpy as np
import pytest
from sklearn.datasets import load_svmlight_file

from ltrrepro.data import RankingDataset
from ltrrepro.io_svmlight import SVMLightFormatError, read_svmlight, scan_svmlight, write_svmlight


def _random_dataset(rng, n_queries=30, d=17, with_docid=True):
    sizes = rng.integers(1, 12, size=n_queries)
    n = int(sizes.sum())
    X = rng.standard_normal((n, d)).astype(np.float32) * (10.0 ** rng.integers(-6, 7, size=d))
    X[rng.random((n, d)) < 0.3] = 0.0          # sparse entries are left out when written
    X[:, 3] = 0.0                               # an all-zero column
    y = rng.integers(0, 5, size=n)
    qid = np.repeat(rng.permutation(10_000)[:n_queries] + 1, sizes)  # not sorted by value
    docid = np.array([f"GX{i:03d}-{r}".encode() for i, r in enumerate(rng.integers(0, 99, n))])
    return RankingDataset(X=X, y=y, qid=qid, docid=docid if with_docid else None)


@pytest.mark.parametrize("suffix", [".txt", ".txt.gz", ".txt.bz2"])
def test_write_read_round_trip_is_exact(tmp_path, rng, suffix):
    ds = _random_dataset(rng)
    path = tmp_path / f"data{suffix}"
    write_svmlight(ds, path)
    back = read_svmlight(path, n_features=ds.n_features, use_cache=False)
    np.testing.assert_array_equal(back.X, ds.X)   # bit-exact float32
    np.testing.assert_array_equal(back.y, ds.y)
    np.testing.assert_array_equal(back.qid, ds.qid)
    np.testing.assert_array_equal(back.offsets, ds.offsets)
    np.testing.assert_array_equal(back.docid, ds.docid)


def test_agrees_with_sklearn_and_missing_as_nan(tmp_path, rng):
    ds = _random_dataset(rng, with_docid=False)
    path = tmp_path / "d.txt"
    write_svmlight(ds, path)
    Xs, ys, qs = load_svmlight_file(str(path), query_id=True, n_features=ds.n_features, dtype=np.float32)
    back = read_svmlight(path, n_features=ds.n_features, use_cache=False)
    np.testing.assert_array_equal(back.X, Xs.toarray())
    np.testing.assert_array_equal(back.y, ys)
    np.testing.assert_array_equal(back.qid, qs)
    nan = read_svmlight(path, n_features=ds.n_features, missing="nan", use_cache=False)
    np.testing.assert_array_equal(np.isnan(nan.X), ds.X == 0)
    # largest index decides the width when not declared (column 17 may be absent)
    assert read_svmlight(path, use_cache=False).n_features == scan_svmlight(path, use_cache=False)["max_index"]


def test_comments_blank_lines_and_windows_newlines(tmp_path):
    path = tmp_path / "c.txt"
    path.write_bytes(b"# header comment\r\n\r\n2 qid:7 1:0.5 3:-1e-3 # docid = D1 inc = 1\r\n"
                     b"0 qid:7 2:4 #docid=D2\r\n   \n1.0 qid:8\n")
    ds = read_svmlight(path, use_cache=False)
    assert ds.y.tolist() == [2, 0, 1]
    assert ds.qid.tolist() == [7, 7, 8]
    np.testing.assert_array_equal(ds.X, np.array([[0.5, 0, -1e-3], [0, 4, 0], [0, 0, 0]], np.float32))
    assert ds.docid.tolist() == [b"D1", b"D2", b""]


BAD = [
    ("1 1:0.5 2:1\n", 1, "missing 'qid:", "1:0.5"),
    ("1 qid:3 1:0.5\n0 qid:3 1:abc\n", 2, "not a number", "1:abc"),
    ("1 qid:3 0:0.5\n", 1, "index 0", "0:0.5"),
    ("1 qid:3 1:0.5 2:1 1:3\n", 1, "repeated", "1:3"),
    ("1 qid:3 1:nan\n", 1, "NaN or infinite", "1:nan"),
    ("1 qid:3 1:inf\n", 1, "NaN or infinite", "1:inf"),
    ("1 qid:3 1:1e999\n", 1, "NaN or infinite", "1:1e999"),
    ("1.5 qid:3 1:1\n", 1, "not a non-negative integer", "1.5"),
    ("-1 qid:3 1:1\n", 1, "not a non-negative integer", "-1"),
    ("1 qid:x 1:1\n", 1, "not an integer", "qid:x"),
    ("1 qid:3 1:1\n1 qid:3 1:1 junk\n", 2, "not of the form", "junk"),
]


@pytest.mark.parametrize("text,line,what,token", BAD)
def test_bad_input_names_file_line_and_text(tmp_path, text, line, what, token):
    path = tmp_path / "bad.txt"
    path.write_text(text)
    with pytest.raises(SVMLightFormatError) as exc:
        read_svmlight(path, use_cache=False)
    msg = str(exc.value)
    assert str(path) in msg and f"line {line}:" in msg and what in msg and token in msg


def test_non_contiguous_query_and_empty_file_and_dimension(tmp_path):
    path = tmp_path / "order.txt"
    path.write_text("1 qid:1 1:1\n0 qid:2 1:1\n\n2 qid:1 1:3\n")
    with pytest.raises(SVMLightFormatError, match=r"line 4: the rows of query qid:1 are not contiguous.*line 1"):
        read_svmlight(path, use_cache=False)
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    with pytest.raises(SVMLightFormatError, match="empty"):
        read_svmlight(empty, use_cache=False)
    only_comments = tmp_path / "comments.txt"
    only_comments.write_text("# nothing\n\n")
    with pytest.raises(SVMLightFormatError, match="no data line"):
        read_svmlight(only_comments, use_cache=False)
    wide = tmp_path / "wide.txt"
    wide.write_text("1 qid:1 1:1\n0 qid:1 5:2\n")
    with pytest.raises(SVMLightFormatError, match=r"line 2: .*exceeds the declared number of features \(4\).*5:2"):
        read_svmlight(wide, n_features=4, use_cache=False)


def test_cache_reused_and_rebuilt_when_file_changes(tmp_path, rng):
    ds = _random_dataset(rng)
    path = tmp_path / "c.txt"
    cache = tmp_path / "cache"
    write_svmlight(ds, path)
    first = read_svmlight(path, cache_dir=cache)
    assert "cache" not in first.meta                      # parsed
    second = read_svmlight(path, cache_dir=cache)
    assert "cache" in second.meta and isinstance(second.X, np.memmap)
    np.testing.assert_array_equal(second.X, ds.X)
    # change the file: same size is not enough to fool the cache (mtime_ns changes too)
    changed = ds.with_labels(np.where(ds.y == 4, 3, ds.y))
    time.sleep(0.01)
    write_svmlight(changed, path)
    third = read_svmlight(path, cache_dir=cache)
    assert "cache" not in third.meta
    np.testing.assert_array_equal(third.y, changed.y)
    assert "cache" in read_svmlight(path, cache_dir=cache).meta


def test_mq2008_sample(mq2008_dir):
    vali = read_svmlight(mq2008_dir / "vali.txt", n_features=46)
    test = read_svmlight(mq2008_dir / "test.txt", n_features=46)
    both = RankingDataset.concat([vali, test])
    assert (both.n_queries, both.n_docs, both.n_features) == (313, 5581, 46)
    assert set(np.unique(both.y)) == {0, 1, 2}
    # the first document's id, read from the raw first line's "#docid = ..." comment
    first_line = (mq2008_dir / "vali.txt").read_bytes().split(b"\n", 1)[0]
    assert both.docid[0] == first_line.split(b"#", 1)[1].split(b"=", 1)[1].split()[0]
    assert all(len(d) > 0 for d in both.docid)
    Xs, ys, qs = load_svmlight_file(str(mq2008_dir / "vali.txt"), query_id=True, n_features=46, dtype=np.float32)
    np.testing.assert_array_equal(vali.X, Xs.toarray())
    np.testing.assert_array_equal(vali.qid, qs)

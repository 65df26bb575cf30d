"""The SVMlight/LETOR reader and writer (ltrrepro.svmlight): round trips, the formats' corner
cases against scikit-learn's reader, and the reader's bounds — it never writes past its arrays,
never wraps an integer, never lets a tiny file demand gigabytes, and names the file and line of
every problem."""
import bz2
import gzip
import json
import re
import time
import tracemalloc

import numpy as np
import pytest
from sklearn.datasets import load_svmlight_file

import ltrrepro.svmlight.reader as io
from ltrrepro.data import RankingDataset
from ltrrepro.metrics import evaluate
from ltrrepro.svmlight import SVMLightFormatError, read_svmlight, scan_svmlight, write_svmlight


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
    # the sample's counts (tests/data/README.md): 25 + 25 queries, 341 + 364 documents
    assert (vali.n_queries, test.n_queries, both.n_docs, both.n_features) == (25, 25, 705, 46)
    assert np.bincount(both.y).tolist() == [257 + 266, 57 + 83, 27 + 15]
    # the first document's id, read from the raw first line's "#docid = ..." comment
    first_line = (mq2008_dir / "vali.txt").read_bytes().split(b"\n", 1)[0]
    assert both.docid[0] == first_line.split(b"#", 1)[1].split(b"=", 1)[1].split()[0]
    assert all(len(d) > 0 for d in both.docid)
    Xs, ys, qs = load_svmlight_file(str(mq2008_dir / "vali.txt"), query_id=True, n_features=46, dtype=np.float32)
    np.testing.assert_array_equal(vali.X, Xs.toarray())
    np.testing.assert_array_equal(vali.qid, qs)


def _strict_parse(text: bytes, d: int, missing: str = "zero"):
    """Reference: the strict line parser alone over the whole text (no fast path, no parts)."""
    from ltrrepro.svmlight.strict import _parse_chunk
    buf = np.frombuffer(bytearray(text), np.uint8)   # writable, as the reader's: no second compiled signature
    n = text.count(b"\n") + 1
    X = np.full((n, d), np.nan if missing == "nan" else 0.0, np.float32)
    y, qid, ln = np.zeros(n, np.int32), np.zeros(n, np.int64), np.zeros(n, np.int64)
    lo, hi = np.full(n, -1, np.int64), np.full(n, -1, np.int64)
    rows, code, _, _ = _parse_chunk(buf, d, X, y, qid, ln, lo, hi, np.zeros(d, np.int64), 0, 1, 31, False)
    assert code == 0
    docid = [text[a:b] for a, b in zip(lo[:rows], hi[:rows])]
    return X[:rows], y[:rows], qid[:rows], docid


def _mixed_text(rng, n_lines=400, d=12):
    """Regular lines (fast path, CRLF and doc-id comments included) mixed with everything
    the fast path hands over: exponents, tabs, double spaces, CR inside a line, unsorted
    indices, long mantissas, '+' signs, '.5' and '5.', blank and comment lines; queries
    contiguous."""
    out, q = [], 1
    for i in range(n_lines):
        if rng.random() < 0.1:
            q += 1
        kind = rng.integers(0, 12)
        if kind == 0:
            out.append(b"" if rng.random() < 0.5 else b"# a comment line")
            continue
        feats = np.sort(rng.choice(np.arange(1, d + 1), size=rng.integers(0, d + 1), replace=False))
        toks = []
        for j in feats:
            style = rng.integers(0, 10) if kind != 1 else 9
            v = rng.standard_normal() * 10.0 ** rng.integers(-7, 8)
            if style <= 4:
                s = f"{v:.{rng.integers(0, 8)}f}"
            elif style == 5:
                s = f"{v:.6e}"
            elif style == 6:
                s = f"{v:.17g}"               # 17 significant digits: handed over
            elif style == 7:
                s = rng.choice(["+0.5", ".5", "5.", "-0", "0", "123456789012345", "1234567890123456"])
            else:
                s = f"{abs(v):.15g}"
            toks.append(f"{j}:{s}")
        if kind == 2 and len(toks) > 1:
            toks = toks[::-1]                 # unsorted indices
        sep = {3: "\t", 4: "  ", 7: "\r"}.get(int(kind), " ")
        line = f"{rng.integers(0, 5)} qid:{q}" + "".join(sep + t for t in toks)
        if kind == 5:
            line += f" #docid = D{i} inc = 1"
        if kind == 6:
            line += "\r"
        out.append(line.encode())
    return b"\n".join(out) + (b"\n" if rng.random() < 0.5 else b"")


@pytest.mark.parametrize("chunk", [None, 97, 300])
@pytest.mark.parametrize("missing", ["zero", "nan"])
def test_fast_path_equals_strict_parser(tmp_path, monkeypatch, chunk, missing):
    """Same arrays, bit for bit, as the strict parser alone, whatever mix of regular and
    irregular lines, chunk size (tiny chunks: lines longer than the buffer, many parts,
    rows moved down after blank lines) and fill value."""
    import ltrrepro.svmlight.source as source
    if chunk is not None:
        monkeypatch.setattr(source, "CHUNK_BYTES", chunk)
    rng = np.random.default_rng(5 if chunk is None else chunk)
    for rep in range(3):
        text = _mixed_text(rng)
        path = tmp_path / f"mixed{rep}.txt"
        path.write_bytes(text)
        X, y, qid, docid = _strict_parse(text, 12, missing)
        for n_features in (12, None):
            ds = read_svmlight(path, n_features=n_features, missing=missing, use_cache=False)
            w = ds.n_features
            np.testing.assert_array_equal(ds.X, X[:, :w])
            np.testing.assert_array_equal(ds.y, y)
            np.testing.assert_array_equal(ds.qid, qid)
            assert [bytes(b) for b in ds.docid] == docid
        present = ~np.isnan(_strict_parse(text, 12, "nan")[0])
        max_index = int(np.flatnonzero(present.any(axis=0)).max(initial=-1)) + 1
        assert scan_svmlight(path, use_cache=False) == {"n_rows": len(y), "max_index": max_index}


def test_fast_path_values_are_correctly_rounded(tmp_path, rng):
    """Plain decimals of up to 15 digits (the fast path) give the float32 of the correctly
    rounded float64, as Python's float() does."""
    vals = [f"{v:.{p}f}" for v, p in zip(rng.standard_normal(3000) * 10.0 ** rng.integers(-6, 9, 3000),
                                          rng.integers(0, 9, 3000))]
    vals = [s for s in vals if len(s.lstrip("-").replace(".", "")) <= 15]
    lines = [f"0 qid:1 1:{s}" for s in vals]
    path = tmp_path / "v.txt"
    path.write_text("\n".join(lines) + "\n")
    ds = read_svmlight(path, n_features=1, use_cache=False)
    np.testing.assert_array_equal(ds.X[:, 0], np.array([float(s) for s in vals]).astype(np.float32))


def test_swar_kernels_match_byte_loops(rng):
    """The eight-bytes-at-a-time kernels against plain byte loops on adversarial bytes
    (every value, newlines next to 0x8A/0x0B/0xFF, runs at every alignment)."""
    from ltrrepro.svmlight.bits import _digits, _digits_swar
    from ltrrepro.svmlight.fast import _token_end
    from ltrrepro.svmlight.parallel import _newlines
    alphabet = np.array([10, 0x8A, 0x0B, 0xFF, 0x09, 32, 35, 48, 57, 58, 46, 0x2F, 0x3A, 0x80, 0],
                        np.uint8)
    for rep in range(200):
        n = int(rng.integers(1, 80))
        buf = (rng.choice(alphabet, n) if rep % 2 else rng.integers(0, 256, n)).astype(np.uint8)
        lo, hi = sorted(int(v) for v in rng.integers(0, n + 1, 2))
        assert _newlines(buf, lo, hi) == int(np.count_nonzero(buf[lo:hi] == 10))
    for rep in range(300):
        digits = rng.integers(0, 10, int(rng.integers(0, 20))).astype(np.uint8) + 48
        tail = rng.choice(alphabet, 12).astype(np.uint8)
        tail[-1] = 10
        buf = np.concatenate([rng.integers(0, 256, int(rng.integers(0, 9))).astype(np.uint8),
                              digits, tail])
        k = buf.shape[0] - digits.shape[0] - tail.shape[0]
        assert _digits_swar(buf, k, buf.shape[0], np.int64(7)) == _digits(buf, k, np.int64(7))
        ref = k
        while buf[ref] > 32 and buf[ref] != 35:
            ref += 1
        assert _token_end(buf, k, buf.shape[0]) == ref


def test_inferred_width_when_the_largest_index_comes_late(tmp_path, monkeypatch):
    """The width is guessed from the first chunk; a larger index later sends the file
    through the full first pass, so the width is always the file's largest index."""
    import ltrrepro.svmlight.reader as io
    import ltrrepro.svmlight.source as source
    monkeypatch.setattr(source, "CHUNK_BYTES", 64)
    lines = [f"{i % 3} qid:{i // 10} 1:{i} 2:0.5" for i in range(40)] + ["1 qid:9 7:2.5 3:1"]
    path = tmp_path / "late.txt"
    path.write_text("\n".join(lines) + "\n")
    cache = tmp_path / "cache"
    ds = read_svmlight(path, cache_dir=cache)
    assert ds.n_features == 7 and ds.X[-1].tolist() == [0, 0, 1, 0, 0, 0, 2.5]
    assert scan_svmlight(path, cache_dir=cache) == {"n_rows": 41, "max_index": 7}
    again = read_svmlight(path, cache_dir=cache)                 # cached, same width
    assert "cache" in again.meta and again.n_features == 7
    early = tmp_path / "early.txt"                                # the guess holds: one parse
    early.write_text("\n".join(lines[-1:] + lines[:-1]) + "\n")
    calls = []
    real = io.scan_svmlight
    monkeypatch.setattr(io, "scan_svmlight", lambda *a, **k: calls.append(1) or real(*a, **k))
    assert read_svmlight(early, use_cache=False).n_features == 7 and calls == []


@pytest.mark.parametrize("suffix", [".txt", ".txt.gz"])
def test_line_count_over_read_windows_and_chunks(tmp_path, monkeypatch, rng, suffix):
    """The physical line count (the row allocation of a declared-width read) is exact across
    read windows and chunks, with and without a final newline."""
    import gzip
    import ltrrepro.svmlight.source as io
    monkeypatch.setattr(io, "CHUNK_BYTES", 1000)
    for rep in range(4):
        text = b"".join(b"x" * int(rng.integers(0, 300)) + b"\n"
                        for _ in range(int(rng.integers(1, 400))))
        if rep % 2:
            text += b"tail without newline"
        path = tmp_path / f"lines{rep}{suffix}"
        path.write_bytes(gzip.compress(text) if suffix.endswith(".gz") else text)
        expected = text.count(b"\n") + (0 if text.endswith(b"\n") else 1)
        assert io._count_physical_lines(path) == expected


def test_mq2008_sample_compressed_copies_read_identically(mq2008_dir):
    """``vali.txt.gz`` and ``vali.txt.bz2`` in tests/data hold the bytes of ``vali.txt`` (CRLF line
    ends and ``#docid`` comments included): the reader gives the same arrays and doc ids."""
    plain = read_svmlight(mq2008_dir / "vali.txt", n_features=46, use_cache=False)
    for ext in (".gz", ".bz2"):
        packed = read_svmlight(mq2008_dir / f"vali.txt{ext}", n_features=46, use_cache=False)
        np.testing.assert_array_equal(packed.X, plain.X)
        np.testing.assert_array_equal(packed.y, plain.y)
        np.testing.assert_array_equal(packed.qid, plain.qid)
        assert list(packed.docid) == list(plain.docid)
    assert plain.docid[0] == b"GX015-44-4118282"


def _lines(n_queries=30, per_query=5, d=6, rng=None, start_q=1):
    rng = rng or np.random.default_rng(0)
    out = []
    for q in range(start_q, start_q + n_queries):
        for _ in range(per_query):
            feats = " ".join(f"{j}:{rng.random():.4f}" for j in range(1, d + 1))
            out.append(f"{rng.integers(0, 5)} qid:{q} {feats}")
    return "\n".join(out) + "\n"

@pytest.mark.parametrize("declared", [None, 6])
def test_a_file_that_grows_while_it_is_read_is_an_error_not_a_crash(tmp_path, monkeypatch, declared):
    path = tmp_path / "growing.txt"
    path.write_text(_lines(20))
    count = io._count_physical_lines

    def count_then_grow(p):                  # the download goes on after the lines were counted
        n = count(p)
        with open(p, "a") as fh:
            fh.write(_lines(40, start_q=100))
        return n

    monkeypatch.setattr(io, "_count_physical_lines", count_then_grow)
    with pytest.raises(SVMLightFormatError, match=r"growing\.txt: the file changed while it was read"):
        read_svmlight(path, n_features=declared, use_cache=False)

def test_a_stale_row_count_in_the_scan_cache_is_recounted(tmp_path):
    path, cache = tmp_path / "s.txt", tmp_path / "cache"
    path.write_text(_lines(20))
    first = read_svmlight(path, cache_dir=cache)                 # writes the scan cache (rows, width)
    scans = list(cache.glob("scan-*.json"))
    assert len(scans) == 1
    for entry in cache.iterdir():                                # keep the scan, drop the parsed arrays
        if entry.is_dir():
            for f in entry.iterdir():
                f.unlink()
            entry.rmdir()
    forged = json.loads(scans[0].read_text())
    forged["n_rows"] = 7                                         # same signature, far fewer rows
    scans[0].write_text(json.dumps(forged))
    again = read_svmlight(path, cache_dir=cache)
    np.testing.assert_array_equal(again.X, first.X)
    np.testing.assert_array_equal(again.qid, first.qid)

def test_a_rewritten_file_with_the_same_size_and_mtime_is_not_served_from_the_cache(tmp_path):
    import os
    path, cache = tmp_path / "m.txt", tmp_path / "cache"
    path.write_text(_lines(10))
    st = path.stat()
    read_svmlight(path, cache_dir=cache)
    text = path.read_text()
    path.write_text(("4" if text[0] != "4" else "3") + text[1:])   # another first label, same length
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))      # size and mtime as before
    assert path.stat().st_size == st.st_size and path.stat().st_mtime_ns == st.st_mtime_ns
    got = read_svmlight(path, cache_dir=cache)
    ref = read_svmlight(path, use_cache=False)
    np.testing.assert_array_equal(got.y, ref.y)

@pytest.mark.parametrize("line,what", [
    ("0 qid:1 18446744073709551618:1", "more than 18 digits"),      # 2^64 + 2 would read as feature 2
    ("0 qid:18446744073709551617 1:1", "more than 18 digits"),      # 2^64 + 1 would merge into query 1
    ("4294967297 qid:1 1:1", r"exceeds the largest label read \(31\)"),   # 2^32 + 1 would be label 1
    ("99999999999999999999 qid:1 1:1", "more than 18 digits"),
    ("32 qid:1 1:1", r"exceeds the largest label read \(31\).*max_label"),
])
def test_integers_never_wrap(tmp_path, line, what):
    path = tmp_path / "big.txt"
    path.write_text("1 qid:1 1:0.5\n" + line + "\n")
    with pytest.raises(SVMLightFormatError, match=rf"big\.txt, line 2: .*{what}"):
        read_svmlight(path, use_cache=False)

def test_max_label_can_be_raised(tmp_path):
    path = tmp_path / "labels.txt"
    path.write_text("40 qid:1 1:0.5\n0 qid:1 1:0.25\n")
    assert read_svmlight(path, max_label=40, use_cache=False).y.tolist() == [40, 0]
    with pytest.raises(ValueError, match="max_label"):
        read_svmlight(path, max_label=-1, use_cache=False)

def test_exp2_gain_overflow_is_an_error_not_a_silent_drop():
    with pytest.raises(ValueError, match=r"labels reach 1100.*2\^y − 1 overflows"):
        evaluate([1.0, 0.5], [1100, 0], [0, 2], ["ndcg@5"])
    r = evaluate([1.0, 0.5], [1100, 0], [0, 2], ["ndcg@5"], gain="linear")
    assert r["ndcg@5[gain=linear,norel=drop]"].per_query.tolist() == [1.0]

def test_one_huge_index_is_refused_before_allocating(tmp_path):
    path = tmp_path / "wide.txt"
    path.write_text("1 qid:1 1:1\n0 qid:1 50000000:1\n")
    tracemalloc.start()
    try:
        with pytest.raises(SVMLightFormatError, match=r"wide\.txt, line 2: .*50,000,000.*n_features"):
            read_svmlight(path, use_cache=False)
        assert tracemalloc.get_traced_memory()[1] < 50 * 2**20      # peak far below the 200 MB a row costs
    finally:
        tracemalloc.stop()

def test_an_impossible_allocation_names_the_file():
    with pytest.raises(MemoryError, match=r"data\.txt: 1,000,000 rows x 10,000,000 features"):
        io._allocate(io.Path("data.txt"), 10**6, 10**7, "zero")

def test_a_long_document_id_is_an_error_and_costs_no_matrix(tmp_path):
    rows = [f"{i % 3} qid:{i // 10} 1:{i}.5 #docid = D{i}" for i in range(5000)]
    rows[4321] = f"1 qid:432 1:2.5 #docid = {'x' * 50_000} inc = 1"
    path = tmp_path / "ids.txt"
    path.write_text("\n".join(rows) + "\n")
    tracemalloc.start()
    try:
        with pytest.raises(SVMLightFormatError, match=r"ids\.txt, line 4322: the document id .* 50,000 bytes"):
            read_svmlight(path, use_cache=False)
        assert tracemalloc.get_traced_memory()[1] < 64 * 2**20       # not 5,000 x 50,000 bytes
    finally:
        tracemalloc.stop()

def test_document_ids_of_every_length_are_gathered_exactly(tmp_path, rng):
    ids = [("".join(rng.choice(list("ABCDEFGH-0123"), size=rng.integers(1, 200)))) for _ in range(300)]
    lines = [f"{i % 3} qid:{i // 7} 1:0.5" + (f" #docid = {d} inc = 1" if i % 5 else "") for i, d in enumerate(ids)]
    path = tmp_path / "ids.txt"
    path.write_text("\n".join(lines) + "\n")
    got = read_svmlight(path, use_cache=False)
    assert [x.decode() for x in got.docid] == [d if i % 5 else "" for i, d in enumerate(ids)]

@pytest.mark.parametrize("kind", ["gz", "bz2"])
def test_truncated_or_corrupt_compressed_files_name_the_file(tmp_path, kind):
    ds = RankingDataset(X=np.random.default_rng(1).random((3000, 8)).astype(np.float32),
                        y=np.zeros(3000, int), qid=np.repeat(np.arange(300), 10))
    full = tmp_path / f"full.txt.{kind}"
    write_svmlight(ds, full)
    data = full.read_bytes()
    cut = tmp_path / f"cut.txt.{kind}"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(SVMLightFormatError, match=rf"cut\.txt\.{kind}: the {kind} stream is damaged or truncated"):
        read_svmlight(cut, use_cache=False)
    bad = tmp_path / f"bad.txt.{kind}"
    opener = gzip if kind == "gz" else bz2
    raw = bytearray(opener.compress(b"1 qid:1 1:0.5\n" * 5000))
    raw[len(raw) // 2: len(raw) // 2 + 16] = b"\x00" * 16
    bad.write_bytes(bytes(raw))
    with pytest.raises(SVMLightFormatError, match=rf"bad\.txt\.{kind}: the {kind} stream is damaged"):
        read_svmlight(bad, use_cache=False)

def test_a_file_truncated_while_its_lines_are_counted_is_an_error_not_sigbus(tmp_path):
    """Counting used memory maps: a file truncated while mapped killed the process with SIGBUS.
    Run in a subprocess, so that a SIGBUS fails this test instead of the whole run."""
    import subprocess
    import sys
    import textwrap
    path = tmp_path / "shrinking.txt"
    path.write_text(_lines(400, d=40))
    script = textwrap.dedent(f"""
        import os, sys
        import ltrrepro.svmlight.source as src
        import ltrrepro.svmlight.reader as io
        from ltrrepro.svmlight import SVMLightFormatError, read_svmlight
        src.CHUNK_BYTES = 1 << 16                       # several windows: the cut falls inside the count
        real = src._count_newlines
        calls = []

        def count_then_cut(buf, n_parts):               # the file shrinks while it is being counted
            calls.append(1)
            if len(calls) == 1:
                os.truncate({str(path)!r}, 100)
            return real(buf, n_parts)

        src._count_newlines = count_then_cut
        try:
            read_svmlight({str(path)!r}, n_features=40, use_cache=False)
        except SVMLightFormatError as err:
            print(err)
            sys.exit(0)
        sys.exit("no error")
    """)
    got = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert got.returncode == 0, f"exit {got.returncode} (-7 is SIGBUS): {got.stderr[-2000:]}"
    assert "shrinking.txt: the file changed while it was read" in got.stdout

@pytest.mark.parametrize("declared", [None, 6])
@pytest.mark.parametrize("mid_line", [False, True])
def test_a_file_truncated_between_counting_and_parsing_is_an_error(tmp_path, monkeypatch, declared, mid_line):
    """Fewer lines, or a last line cut in the middle (which would read as a malformed line):
    either way the message says the file changed."""
    path = tmp_path / "cut.txt"
    path.write_text(_lines(40))
    count = io._count_physical_lines

    def count_then_cut(p):
        n = count(p)
        with open(p, "r+") as fh:
            fh.truncate(len(_lines(10)) - (7 if mid_line else 0))    # _lines(10) is _lines(40)'s start
        return n

    monkeypatch.setattr(io, "_count_physical_lines", count_then_cut)
    with pytest.raises(SVMLightFormatError, match=r"cut\.txt: the file changed while it was read.*truncated"):
        read_svmlight(path, n_features=declared, use_cache=False)

@pytest.mark.parametrize("kind", ["fifo", "directory", "loop"])
def test_a_data_path_that_is_not_a_regular_file_says_so(tmp_path, kind):
    import os
    path = tmp_path / "data.txt"
    if kind == "fifo":
        os.mkfifo(path)                    # read today as "the file is empty"
        err, what = SVMLightFormatError, "not a regular file (a FIFO"
    elif kind == "directory":
        path.mkdir()
        err, what = IsADirectoryError, "is a directory"
    else:
        os.symlink(path, path)
        err, what = SVMLightFormatError, "cannot be opened (Too many levels of symbolic links"
    with pytest.raises(err, match=r"data\.txt: " + re.escape(what)):
        read_svmlight(path, use_cache=False)

"""The reader never writes past its arrays, never wraps an integer, never lets a tiny file
demand gigabytes, and names the file and line of every problem."""
import bz2
import gzip
import json
import re
import tracemalloc

import numpy as np
import pytest

import ltrrepro.svmlight.reader as io
from ltrrepro.data import RankingDataset
from ltrrepro.svmlight import SVMLightFormatError, read_svmlight, write_svmlight
from ltrrepro.metrics import evaluate


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


# --- issue #31 -------------------------------------------------------------------------------

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

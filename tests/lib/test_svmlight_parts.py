"""The reader's parallel drivers (ltrrepro.svmlight.parallel): a chunk cut into line-aligned
parts, each part parsed by a serial nogil kernel on a thread pool. The arrays are the strict
parser's, bit for bit, whatever the number of parts and threads; rows move down over blank and
comment lines; nothing is written past the arrays; the first error in file order is the one
reported; a forked child gets its own pool."""
import multiprocessing

import numpy as np
import pytest

import ltrrepro.svmlight.parallel as par
from ltrrepro.svmlight import read_svmlight
from ltrrepro.svmlight.strict import E_GROWN, E_VALUE, _parse_chunk

D = 9


def _text(rng, n_lines=300) -> bytes:
    """Regular lines (the fast path), lines the fast path hands over (exponents, tabs,
    unsorted indices, CRLF), doc-id comments, and runs of blank and comment lines."""
    out, q = [], 1
    for i in range(n_lines):
        q += rng.random() < 0.1
        kind = int(rng.integers(0, 8))
        if kind == 0:
            out += [b"", b"# comment"][: int(rng.integers(1, 3))]
            continue
        feats = np.sort(rng.choice(np.arange(1, D + 1), size=int(rng.integers(0, D + 1)), replace=False))
        toks = [f"{j}:{rng.standard_normal() * 10.0 ** rng.integers(-4, 5):.{rng.integers(0, 7)}f}" for j in feats]
        if kind == 1 and toks:
            toks[0] = toks[0].split(":")[0] + ":1.5e-3"
        if kind == 2:
            toks = toks[::-1]
        sep = "\t" if kind == 3 else " "
        line = f"{rng.integers(0, 5)} qid:{q}" + "".join(sep + t for t in toks)
        line += f" #docid = D{i}" if kind == 4 else "\r" if kind == 5 else ""
        out.append(line.encode())
    return b"\n".join(out) + b"\n"


def _arrays(n_rows):
    return (np.zeros((n_rows, D), np.float32), np.zeros(n_rows, np.int32), np.zeros(n_rows, np.int64),
            np.zeros(n_rows, np.int64), np.full(n_rows, -1, np.int64), np.full(n_rows, -1, np.int64))


def _strict(buf):
    X, y, qid, ln, lo, hi = _arrays(buf.shape[0])
    rows, code, _, _ = _parse_chunk(buf, D, X, y, qid, ln, lo, hi, np.zeros(D, np.int64), 0, 1, 31, False)
    assert code == 0
    return rows, [a[:rows] for a in (X, y, qid, ln, lo, hi)]


def _parts(buf, n_parts, n_threads, n_rows=None, row0=0):
    n_rows = buf.shape[0] if n_rows is None else n_rows
    arrays = _arrays(row0 + n_rows)
    X, y, qid, ln, lo, hi = arrays
    seen = np.zeros((n_parts, D), np.int64)
    got = par._parse_parallel(buf, par._line_cuts(buf, n_parts), D, X, y, qid, ln, lo[row0:], hi[row0:], seen,
                              row0, 1, np.float32(0), 31, False, n_threads=n_threads)
    return got, arrays


@pytest.mark.parametrize("n_threads", [1, 2, 3, 8])
def test_parts_and_threads_give_the_strict_parsers_arrays(rng, n_threads):
    """Bit for bit, whatever the parts (1..11) and threads: the same rows, labels, qids, line
    numbers and doc-id spans as the strict parser over the whole text."""
    for rep in range(3):
        buf = np.frombuffer(bytearray(_text(rng)), np.uint8)
        rows, ref = _strict(buf)
        for n_parts in (1, 2, 5, 11):
            (total, code, line_after, _), arrays = _parts(buf, n_parts, n_threads)
            assert (total, code, line_after) == (rows, 0, int(np.count_nonzero(buf == 10)) + 1)
            for got, want in zip(arrays, ref):
                np.testing.assert_array_equal(got[:rows], want)
            np.testing.assert_array_equal(arrays[0][rows:], 0.0)      # vacated slots as allocated
            assert (arrays[4][rows:] == -1).all() and (arrays[5][rows:] == -1).all()


def test_exact_counts_when_the_slots_do_not_fit_and_nothing_written_past_the_arrays(rng):
    """With room for the data rows but not one slot per line the parts count their rows
    exactly; with room for one row fewer nothing is written and the code is E_GROWN."""
    buf = np.frombuffer(bytearray(b"1 qid:1 1:1\n\n# c\n2 qid:1 2:2\n\n3 qid:2 3:3 #docid = x\n"), np.uint8)
    rows, ref = _strict(buf)
    assert rows == 3
    (total, code, _, _), arrays = _parts(buf, 3, 2, n_rows=3, row0=2)
    assert (total, code) == (3, 0)
    for got, want in zip(arrays, ref):
        np.testing.assert_array_equal(got[2:], want)
    (total, code, _, _), arrays = _parts(buf, 3, 2, n_rows=2, row0=2)
    assert (total, code) == (0, E_GROWN)
    assert not arrays[0].any() and not arrays[1].any() and (arrays[4] == -1).all()


def test_the_first_error_in_file_order_is_reported(rng):
    """Errors in two parts: the earlier line's, with the rows of the parts before it."""
    good = b"".join(b"1 qid:1 %d:0.5\n" % (1 + i % D) for i in range(40))
    buf = np.frombuffer(bytearray(good + b"0 qid:1 1:x\n" + good + b"0 qid:1 2:y\n"), np.uint8)
    for n_threads in (1, 2, 4):
        (rows, code, line, pos), _ = _parts(buf, 4, n_threads)
        assert (code, line) == (E_VALUE, 41)
        assert bytes(buf[pos:pos + 3]) == b"1:x"
        assert rows <= 40


@pytest.mark.allowed_skip(reason="numba has a single thread on a one-core machine")
def test_reader_threads_follow_numba_and_the_arrays_do_not(tmp_path, rng, monkeypatch):
    """read_svmlight runs its parts on numba.get_num_threads() threads (what --threads sets
    through numba.set_num_threads): none beside the caller for 1, a pool of 2 for 2; small
    chunks; identical arrays."""
    import numba

    import ltrrepro.svmlight.source as source
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("numba has a single thread here")
    monkeypatch.setattr(source, "CHUNK_BYTES", 1 << 10)
    path = tmp_path / "m.txt"
    path.write_bytes(_text(rng, 600))
    pools = []
    real = par._pool
    monkeypatch.setattr(par, "_pool", lambda n: pools.append(n) or real(n))
    before = numba.get_num_threads()
    got = []
    try:
        for t in (1, 2):
            numba.set_num_threads(t)
            pools.clear()
            ds = read_svmlight(path, use_cache=False)
            got.append((ds.X, ds.y, ds.qid, ds.docid))
            assert set(pools) == (set() if t == 1 else {2})
    finally:
        numba.set_num_threads(before)
    for a, b in zip(*got):
        np.testing.assert_array_equal(a, b)


def _read_in_child(path, out):
    out.put(float(read_svmlight(path, n_features=D, use_cache=False).X.sum()))


def test_a_forked_child_gets_its_own_pool(tmp_path, rng):
    """The pool is kept per process: a child forked after the parent used it (the runner's
    zygote) reads with its own threads instead of waiting on the parent's."""
    path = tmp_path / "f.txt"
    path.write_bytes(_text(rng))
    want = float(read_svmlight(path, n_features=D, use_cache=False).X.sum())
    par._pool(2)
    ctx = multiprocessing.get_context("fork")
    out = ctx.Queue()
    child = ctx.Process(target=_read_in_child, args=(path, out))
    child.start()
    child.join(60)
    if child.exitcode is None:          # waiting on the parent's threads, which a fork does not copy
        child.kill()
        child.join()
    assert child.exitcode == 0
    assert out.get(timeout=5) == want

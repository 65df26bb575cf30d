"""Fast, strict reader and writer for SVMlight / LETOR ranking files, with a binary cache.

Format, one document per line::

    <label> qid:<query id> <index>:<value> <index>:<value> ... [# comment]

Indices are 1-based (feature ``i`` is column ``i - 1``); absent features are 0 (the
Yahoo! convention) or, with ``missing="nan"``, NaN. LETOR 4.0 comments of the form
``#docid = GX008-86-4444840 inc = 1 ...`` keep the document id. Plain, ``.gz`` and
``.bz2`` files are read in chunks by a numba kernel, in two passes (count rows,
then validate and fill a preallocated array), so peak memory is the final arrays plus one chunk.

Nothing is silently dropped or reordered: a blank or comment-only line is the only line
that is skipped, and every malformed line raises :class:`SVMLightFormatError` naming the
file, the line number, the offending text and what to do.
"""
from __future__ import annotations

import bz2
import gzip
import hashlib
import json
import os
import tempfile
from pathlib import Path

import numba
import numpy as np

from .data import QueryOrderError, RankingDataset, load_npy_dir, offsets_from_qids, save_npy_dir

__all__ = ["read_svmlight", "write_svmlight", "scan_svmlight", "SVMLightFormatError",
           "default_cache_dir"]

CHUNK_BYTES = 1 << 23  # 8 MiB of text per kernel call

# error codes returned by the kernel
_OK, _E_LABEL, _E_QID, _E_QIDVAL, _E_TOKEN, _E_INDEX0, _E_VALUE, _E_NONFINITE, _E_DUP, _E_DIM = range(10)
_MESSAGES = {
    _E_LABEL: "the label is not a non-negative integer (graded relevance 0, 1, 2, ...)",
    _E_QID: "missing 'qid:<id>' after the label (ranking data needs a query id on every line)",
    _E_QIDVAL: "the query id after 'qid:' is not an integer",
    _E_TOKEN: "a feature token is not of the form '<index>:<value>'",
    _E_INDEX0: "feature index 0 found: indices are 1-based in SVMlight/LETOR files "
               "(shift the indices by one)",
    _E_VALUE: "a feature value is not a number",
    _E_NONFINITE: "a feature value is NaN or infinite: write missing features by leaving them "
                  "out of the line (read them as NaN with missing='nan')",
    _E_DUP: "a feature index is repeated on the line",
    _E_DIM: "a feature index exceeds the declared number of features",
}


class SVMLightFormatError(ValueError):
    """A malformed line in an SVMlight/LETOR file (message names file, line and text)."""


_POW10 = np.array([10.0 ** i for i in range(23)])


@numba.njit(cache=True, nogil=True)
def _is_space(c):
    return c == 32 or c == 9 or c == 13 or c == 11 or c == 12


@numba.njit(cache=True, nogil=True)
def _parse_number(buf, i, end):
    """Parse a decimal number at buf[i:end]. Returns (value, next_i, status).

    status 0 ok, 1 not a number, 2 nan/inf literal. The value is correctly rounded to
    float64 for up to 17 significant digits and decimal exponents within 10^+-22.
    """
    n = end
    neg = False
    if i < n and (buf[i] == 45 or buf[i] == 43):  # - +
        neg = buf[i] == 45
        i += 1
    if i < n:
        c = buf[i] | 32  # lower case
        if c == 110 or c == 105:  # 'n' or 'i': nan / inf / infinity
            return 0.0, i, 2
    mant = np.int64(0)
    exp10 = 0
    start = i
    # up to 17 significant digits are kept exactly; further digits only move the exponent
    while i < n and 48 <= buf[i] <= 57:
        if mant < 10000000000000000:
            mant = mant * 10 + (buf[i] - 48)
        else:
            exp10 += 1
        i += 1
    any_digit = i > start
    if i < n and buf[i] == 46:  # '.'
        i += 1
        frac = i
        while i < n and 48 <= buf[i] <= 57:
            if mant < 10000000000000000:
                mant = mant * 10 + (buf[i] - 48)
                exp10 -= 1
            i += 1
        any_digit = any_digit or i > frac
    if not any_digit:
        return 0.0, i, 1
    if i < n and (buf[i] == 101 or buf[i] == 69):  # e E
        i += 1
        eneg = False
        if i < n and (buf[i] == 45 or buf[i] == 43):
            eneg = buf[i] == 45
            i += 1
        if not (i < n and 48 <= buf[i] <= 57):
            return 0.0, i, 1
        e = 0
        while i < n and 48 <= buf[i] <= 57:
            if e < 100000:
                e = e * 10 + (buf[i] - 48)
            i += 1
        exp10 += -e if eneg else e
    v = float(mant)
    if mant == 0:
        v = 0.0
    elif 0 <= exp10 <= 22:
        v = v * _POW10[exp10]
    elif -22 <= exp10 < 0:
        v = v / _POW10[-exp10]
    else:
        v = v * 10.0 ** exp10
    if neg:
        v = -v
    return v, i, 0


@numba.njit(cache=True, nogil=True)
def _parse_int(buf, i, end):
    """Parse an optionally signed integer. Returns (value, next_i, ok)."""
    neg = False
    if i < end and (buf[i] == 45 or buf[i] == 43):
        neg = buf[i] == 45
        i += 1
    v = np.int64(0)
    start = i
    while i < end and 48 <= buf[i] <= 57:
        v = v * 10 + (buf[i] - 48)
        i += 1
    if i == start:
        return np.int64(0), i, False
    return (-v if neg else v), i, True


@numba.njit(cache=True, nogil=True)
def _parse_chunk(buf, d_limit, X, y, qid, linenos, doc_lo, doc_hi, seen, row0, line0):
    """Parse the complete lines of ``buf`` (uint8).

    The rows are validated and written to X/y/qid from ``row0`` on; ``d_limit`` > 0 bounds
    the feature index. Returns (rows, err_code, err_line, err_pos), positions into ``buf``.
    """
    n = buf.shape[0]
    i = 0
    row = row0
    line = line0
    while i < n:
        # find end of line
        j = i
        while j < n and buf[j] != 10:
            j += 1
        eol = j
        k = i
        while k < eol and _is_space(buf[k]):
            k += 1
        if k == eol or buf[k] == 35:  # blank or comment-only line
            i = eol + 1
            line += 1
            continue
        # ---- label
        tok = k
        while k < eol and not _is_space(buf[k]) and buf[k] != 35:
            k += 1
        lab, p, ok = _parse_int(buf, tok, k)
        if ok and p < k and buf[p] == 46:  # accept "3.0", "3.00"
            p += 1
            while p < k and buf[p] == 48:
                p += 1
        if (not ok) or p != k or lab < 0 or buf[tok] == 45 or buf[tok] == 43:
            return row - row0, 1, line, tok
        # ---- qid
        while k < eol and _is_space(buf[k]):
            k += 1
        if not (k + 4 <= eol and (buf[k] | 32) == 113 and (buf[k + 1] | 32) == 105
                and (buf[k + 2] | 32) == 100 and buf[k + 3] == 58):
            return row - row0, 2, line, k
        tok = k
        k += 4
        q, p, ok = _parse_int(buf, k, eol)
        if (not ok) or (p < eol and not _is_space(buf[p]) and buf[p] != 35):
            return row - row0, 3, line, tok
        k = p
        y[row] = lab
        qid[row] = q
        linenos[row] = line
        # ---- features
        while True:
            while k < eol and _is_space(buf[k]):
                k += 1
            if k >= eol:
                break
            if buf[k] == 35:  # comment: look for "docid"
                c = k + 1
                while c + 5 <= eol:
                    if (buf[c] == 100 and buf[c + 1] == 111 and buf[c + 2] == 99
                            and buf[c + 3] == 105 and buf[c + 4] == 100):
                        c += 5
                        while c < eol and (_is_space(buf[c]) or buf[c] == 61):
                            c += 1
                        s = c
                        while c < eol and not _is_space(buf[c]):
                            c += 1
                        doc_lo[row - row0] = s
                        doc_hi[row - row0] = c
                        break
                    c += 1
                break
            tok = k
            idx, p, ok = _parse_int(buf, k, eol)
            if (not ok) or p >= eol or buf[p] != 58 or buf[tok] == 45 or buf[tok] == 43:
                return row - row0, 4, line, tok
            if idx == 0:
                return row - row0, 5, line, tok
            if d_limit > 0 and idx > d_limit:
                return row - row0, 9, line, tok
            v, p2, st = _parse_number(buf, p + 1, eol)
            if st == 2:
                return row - row0, 7, line, tok
            if st != 0 or (p2 < eol and not _is_space(buf[p2]) and buf[p2] != 35):
                return row - row0, 6, line, tok
            if not np.isfinite(v) or abs(v) > 3.4028234663852886e38:
                return row - row0, 7, line, tok
            if seen[idx - 1] == line:
                return row - row0, 8, line, tok
            seen[idx - 1] = line
            X[row, idx - 1] = v
            k = p2
        row += 1
        line += 1
        i = eol + 1
    return row - row0, 0, line, 0


@numba.njit(cache=True, nogil=True)
def _scan_part(buf, lo, hi):
    """Data rows and largest feature index in buf[lo:hi], without parsing values (the
    filling pass validates everything). Token by token: label, qid, then index:value."""
    rows = 0
    max_idx = 0
    i = lo
    while i < hi:
        k = i
        while k < hi and _is_space(buf[k]):
            k += 1
        if k >= hi or buf[k] == 10 or buf[k] == 35:
            while k < hi and buf[k] != 10:
                k += 1
            i = k + 1
            continue
        rows += 1
        # label and qid tokens
        for _ in range(2):
            while k < hi and buf[k] != 10 and not _is_space(buf[k]):
                k += 1
            while k < hi and _is_space(buf[k]):
                k += 1
        while k < hi and buf[k] != 10 and buf[k] != 35:
            v = 0
            while k < hi and 48 <= buf[k] <= 57:
                v = v * 10 + (buf[k] - 48)
                k += 1
            if v > max_idx and k < hi and buf[k] == 58:
                max_idx = v
            while k < hi and buf[k] != 10 and not _is_space(buf[k]):
                k += 1
            while k < hi and _is_space(buf[k]):
                k += 1
        while k < hi and buf[k] != 10:
            k += 1
        i = k + 1
    return rows, max_idx


@numba.njit(parallel=True, cache=True)
def _scan_light(buf, bounds):
    n_parts = bounds.shape[0] - 1
    rows = np.zeros(n_parts, np.int64)
    mx = np.zeros(n_parts, np.int64)
    for p in numba.prange(n_parts):
        r, m = _scan_part(buf, bounds[p], bounds[p + 1])
        rows[p] = r
        mx[p] = m
    return rows.sum(), mx.max()


@numba.njit(cache=True, nogil=True)
def _count_lines(buf, lo, hi):
    """Data rows and physical lines in buf[lo:hi] (whole lines)."""
    rows = 0
    lines = 0
    i = lo
    while i < hi:
        k = i
        while k < hi and buf[k] != 10 and _is_space(buf[k]):
            k += 1
        if k < hi and buf[k] != 10 and buf[k] != 35:
            rows += 1
        while k < hi and buf[k] != 10:
            k += 1
        lines += 1
        i = k + 1
    return rows, lines


@numba.njit(parallel=True, cache=True)
def _parse_parallel(buf, bounds, d_limit, X, y, qid, linenos, doc_lo, doc_hi, seen, row0, line0):
    """Fill rows from line-aligned parts ``buf[bounds[p]:bounds[p+1]]`` in parallel."""
    n_parts = bounds.shape[0] - 1
    rows = np.zeros(n_parts, np.int64)
    lines = np.zeros(n_parts, np.int64)
    for p in numba.prange(n_parts):
        r, l = _count_lines(buf, bounds[p], bounds[p + 1])
        rows[p] = r
        lines[p] = l
    rstart = np.zeros(n_parts, np.int64)
    lstart = np.zeros(n_parts, np.int64)
    for p in range(1, n_parts):
        rstart[p] = rstart[p - 1] + rows[p - 1]
        lstart[p] = lstart[p - 1] + lines[p - 1]
    codes = np.zeros(n_parts, np.int64)
    elines = np.zeros(n_parts, np.int64)
    epos = np.zeros(n_parts, np.int64)
    for p in numba.prange(n_parts):
        sub = buf[bounds[p]:bounds[p + 1]]
        r0 = row0 + rstart[p]
        _, code, eline, pos = _parse_chunk(sub, d_limit, X, y, qid, linenos,
                                              doc_lo[rstart[p]:], doc_hi[rstart[p]:],
                                              seen[p], r0, line0 + lstart[p])
        codes[p] = code
        elines[p] = eline
        epos[p] = pos + bounds[p]
        if code == 0:
            # doc positions are relative to the part: make them relative to buf
            for t in range(rows[p]):
                if doc_lo[rstart[p] + t] >= 0:
                    doc_lo[rstart[p] + t] += bounds[p]
                    doc_hi[rstart[p] + t] += bounds[p]
    total = 0
    for p in range(n_parts):
        total += rows[p]
    last_line = line0
    for p in range(n_parts):
        last_line += lines[p]
    for p in range(n_parts):
        if codes[p] != 0:
            return total, codes[p], elines[p], epos[p]
    return total, 0, last_line, 0


def _part_bounds(buf: np.ndarray, n_parts: int) -> np.ndarray:
    n = buf.shape[0]
    bounds = [0]
    for p in range(1, n_parts):
        cut = int(n * p / n_parts)
        nl = np.flatnonzero(buf[cut:cut + 1_000_000] == 10)
        if nl.size == 0:
            continue
        pos = cut + int(nl[0]) + 1
        if pos > bounds[-1] and pos < n:
            bounds.append(pos)
    bounds.append(n)
    return np.asarray(bounds, dtype=np.int64)


def _open(path: Path):
    name = path.name.lower()
    if name.endswith(".gz"):
        return gzip.open(path, "rb")
    if name.endswith(".bz2"):
        return bz2.open(path, "rb")
    return open(path, "rb")


def _chunks(path: Path):
    """Yield uint8 arrays of whole lines (the last line may lack its newline)."""
    rest = b""
    with _open(path) as fh:
        while True:
            data = fh.read(CHUNK_BYTES)
            if not data:
                break
            data = rest + data if rest else data
            cut = data.rfind(b"\n")
            if cut < 0:
                rest = data
                continue
            rest = data[cut + 1:]
            yield np.frombuffer(data, dtype=np.uint8, count=cut + 1)
    if rest:
        yield np.frombuffer(rest, dtype=np.uint8)


def _line_text(buf: np.ndarray, pos: int) -> str:
    lo = int(pos)
    while lo > 0 and buf[lo - 1] != 10:
        lo -= 1
    hi = int(pos)
    while hi < buf.shape[0] and buf[hi] != 10:
        hi += 1
    text = bytes(buf[lo:hi]).decode("latin-1").rstrip("\r")
    return text if len(text) <= 160 else text[:157] + "..."


def _raise(path, code, line, buf, pos, d_limit=0):
    text = _line_text(buf, pos)
    tok = bytes(buf[pos:pos + 40]).split(None, 1)[0].decode("latin-1") if pos < len(buf) else ""
    msg = _MESSAGES[code]
    if code == _E_DIM:
        msg += f" ({d_limit}); raise n_features or leave it unset to use the maximum index"
    raise SVMLightFormatError(f"{path}, line {line}: {msg}; offending text {tok!r} in: {text!r}")


def _count_physical_lines(path: Path) -> int:
    """Upper bound on the data rows: the number of lines."""
    total = 0
    for buf in _chunks(path):
        total += int(np.count_nonzero(buf == 10)) + (1 if buf.size and buf[-1] != 10 else 0)
    return total


def _file_signature(path: Path) -> dict:
    st = path.stat()
    return {"path": str(path.resolve()), "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def default_cache_dir() -> Path:
    """``$LTRREPRO_CACHE`` or ``~/.cache/ltrrepro``."""
    return Path(os.environ.get("LTRREPRO_CACHE", Path.home() / ".cache" / "ltrrepro"))


def _cache_key(sig: dict, extra: dict) -> str:
    blob = json.dumps({"path": sig["path"], **extra}, sort_keys=True).encode()
    return hashlib.sha1(blob).hexdigest()[:20]


def scan_svmlight(path, cache_dir=None, use_cache: bool = True) -> dict:
    """First pass only: ``{"n_rows", "max_index"}`` of a file, validating its syntax.

    The result is cached (a small JSON keyed by the file's path, size and mtime).
    """
    path = Path(path)
    _check_file(path)
    sig = _file_signature(path)
    cfile = None
    if use_cache:
        cdir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
        cfile = cdir / f"scan-{_cache_key(sig, {'kind': 'scan'})}.json"
        if cfile.exists():
            try:
                got = json.loads(cfile.read_text())
                if got.get("signature") == sig:
                    return {"n_rows": got["n_rows"], "max_index": got["max_index"]}
            except (OSError, ValueError):
                pass
    n_rows, max_index = 0, 0
    for buf in _chunks(path):
        rows, mx = _scan_light(buf, _part_bounds(buf, 4 * max(1, numba.get_num_threads())))
        n_rows += rows
        max_index = max(max_index, int(mx))
    if n_rows == 0:
        raise SVMLightFormatError(
            f"{path}: the file holds no data line (empty or only comments); "
            "check the path or regenerate the file")
    out = {"n_rows": int(n_rows), "max_index": int(max_index)}
    if cfile is not None:
        _atomic_write_text(cfile, json.dumps({"signature": sig, **out}))
    return out


def _check_file(path: Path) -> None:
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file")
    if path.stat().st_size == 0:
        raise SVMLightFormatError(f"{path}: the file is empty; check the path or regenerate the file")


def _atomic_write_text(target: Path, text: str) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=target.suffix)
    with os.fdopen(fd, "w") as fh:
        fh.write(text)
    os.replace(tmp, target)


def _parse_file(path: Path, n_rows: int, d: int, missing: str):
    fill_value = np.nan if missing == "nan" else 0.0
    X = np.full((n_rows, d), fill_value, dtype=np.float32) if missing == "nan" else np.zeros((n_rows, d), np.float32)
    y = np.zeros(n_rows, np.int32)
    qid = np.zeros(n_rows, np.int64)
    linenos = np.zeros(n_rows, np.int64)
    n_parts = max(1, numba.get_num_threads()) * 4
    seen = np.zeros((n_parts, max(d, 1)), np.int64)
    doc_parts: list[np.ndarray] = []
    any_doc = False
    row, line = 0, 1
    for buf in _chunks(path):
        cap = n_rows - row
        lo = np.full(cap, -1, np.int64)
        hi = np.full(cap, -1, np.int64)
        bounds = _part_bounds(buf, n_parts)
        seen[:] = 0
        rows, code, line_after, pos = _parse_parallel(buf, bounds, d, X, y, qid, linenos,
                                                      lo, hi, seen, row, line)
        if code:
            _raise(path, code, line_after, buf, pos, d)
        lo, hi = lo[:rows], hi[:rows]
        has = lo >= 0
        if has.any():
            any_doc = True
            width = int((hi - lo)[has].max()) if has.any() else 0
            width = max(width, 1)
            idx = lo[:, None] + np.arange(width)[None, :]
            valid = has[:, None] & (idx < hi[:, None])
            mat = np.where(valid, buf[np.where(valid, idx, 0)], 0).astype(np.uint8)
            doc_parts.append(np.ascontiguousarray(mat).view(f"S{width}").ravel())
        else:
            doc_parts.append(np.zeros(rows, dtype="S1"))
        row += rows
        line = line_after
    docid = None
    if any_doc:
        docid = np.concatenate(doc_parts)
    if row < n_rows:  # blank or comment lines were counted: keep views of the filled rows
        X, y, qid, linenos = X[:row], y[:row], qid[:row], linenos[:row]
    return X, y, qid, linenos, docid


def _raise_order(path: Path, linenos: np.ndarray, qid: np.ndarray, err: QueryOrderError):
    # locate the reappearing row again to report its line
    starts = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1]])
    seen: dict[int, int] = {}
    for s in starts:
        q = int(qid[s])
        if q in seen:
            first_line = int(linenos[seen[q]])
            line = int(linenos[s])
            with _open(path) as fh:
                for k, raw in enumerate(fh, start=1):
                    if k == line:
                        text = raw.decode("latin-1").rstrip("\r\n")[:160]
                        break
                else:  # pragma: no cover
                    text = ""
            raise SVMLightFormatError(
                f"{path}, line {line}: the rows of query qid:{q} are not contiguous (it first "
                f"appears on line {first_line} and again here after other queries); sort the "
                f"file by query, keeping the document order, e.g. a stable sort on qid; "
                f"offending text {text!r}") from err
        seen[q] = int(s)
    raise err  # pragma: no cover


def read_svmlight(path, n_features: int | None = None, missing: str = "zero",
                  cache_dir=None, use_cache: bool = True, name: str | None = None) -> RankingDataset:
    """Read an SVMlight/LETOR ranking file into a :class:`RankingDataset`.

    Parameters
    ----------
    path : a plain, ``.gz`` or ``.bz2`` file.
    n_features : the feature count (columns); ``None`` uses the file's largest index.
        A larger index in the file is an error.
    missing : ``"zero"`` (absent features are 0, the Yahoo! convention) or ``"nan"``.
    cache_dir : where the parsed arrays are cached as ``.npy`` files (default
        :func:`default_cache_dir`); a cached file is reused only while the source's path,
        size and modification time are unchanged, and is then memory-mapped read-only.
    use_cache : set False to always parse and never write a cache.

    Rows keep the file order; queries must be contiguous.
    """
    if missing not in ("zero", "nan"):
        raise ValueError("missing must be 'zero' or 'nan'")
    path = Path(path)
    _check_file(path)
    sig = _file_signature(path)
    if n_features is None:
        # a first pass finds the width (and is cached)
        scan = scan_svmlight(path, cache_dir=cache_dir, use_cache=use_cache)
        d, n_alloc = scan["max_index"], scan["n_rows"]
    else:
        # declared width: one pass, rows allocated for every physical line, trimmed after
        d, n_alloc = int(n_features), None
    cdir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    entry = cdir / _cache_key(sig, {"d": d, "missing": missing, "v": 1})
    label = name or path.name
    if use_cache and (entry / "meta.json").exists():
        try:
            meta = json.loads((entry / "meta.json").read_text())
            if meta["signature"] == sig:
                return _load_entry(entry, meta, label)
        except (OSError, ValueError, KeyError):
            pass
    if n_alloc is None:
        n_alloc = _count_physical_lines(path)
    X, y, qid, linenos, docid = _parse_file(path, n_alloc, d, missing)
    if X.shape[0] == 0:
        raise SVMLightFormatError(
            f"{path}: the file holds no data line (empty or only comments); "
            "check the path or regenerate the file")
    try:
        offsets = offsets_from_qids(qid)
    except QueryOrderError as err:
        _raise_order(path, linenos, qid, err)
    del linenos
    ds = RankingDataset(X=X, y=y, qid=qid, offsets=offsets, docid=docid, name=label,
                        meta={"source": str(path), "missing": missing})
    if use_cache:
        _write_entry(entry, ds, sig, d, missing)
    return ds


def _write_entry(entry: Path, ds: RankingDataset, sig: dict, d: int, missing: str) -> None:
    try:
        save_npy_dir(ds, entry, {"signature": sig, "n_features": d, "missing": missing})
    except OSError:
        pass      # an unwritable cache only costs the next parse


def _load_entry(entry: Path, meta: dict, name: str) -> RankingDataset:
    ds = load_npy_dir(entry, name=name, meta=meta)
    ds.meta.update({"source": meta["signature"]["path"], "missing": meta["missing"]})
    return ds


def write_svmlight(ds: RankingDataset, path, comment_docid: bool = True) -> None:
    """Write a dataset as SVMlight/LETOR text, 1-based indices, ``%.9g`` values.

    Zeros (and NaNs) are left out, so reading back with the matching ``missing`` rule
    gives the same float32 array bit for bit. ``.gz``/``.bz2`` suffixes compress.
    The file is written to a temporary name and renamed when complete.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".tmp-{os.getpid()}-{path.name}")
    X = np.asarray(ds.X)
    with _open_write(tmp) as fh:
        for start in range(0, ds.n_docs, 4096):
            stop = min(start + 4096, ds.n_docs)
            lines = []
            for r in range(start, stop):
                row = X[r]
                nz = np.flatnonzero((row != 0) & ~np.isnan(row))
                feats = " ".join(f"{j + 1}:{float(row[j]):.9g}" for j in nz)
                line = f"{int(ds.y[r])} qid:{int(ds.qid[r])}"
                if feats:
                    line += " " + feats
                if comment_docid and ds.docid is not None:
                    line += " #docid = " + ds.docid[r].decode("latin-1")
                lines.append(line)
            fh.write(("\n".join(lines) + "\n").encode())
    os.replace(tmp, path)


def _open_write(path: Path):
    name = path.name.lower()
    if name.endswith(".gz"):
        return gzip.open(path, "wb", compresslevel=3)
    if name.endswith(".bz2"):
        return bz2.open(path, "wb")
    return open(path, "wb")

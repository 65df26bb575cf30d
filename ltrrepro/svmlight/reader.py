"""The public reader: two passes (count, then validate and fill a preallocated array) over
chunks, a binary cache of parsed files, and the bounds that keep a damaged file from taking a
machine down (labels, widths, doc ids, memory)."""
from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from pathlib import Path

import numba
import numpy as np

from ..data import QueryOrderError, RankingDataset, load_npy_dir, npy_dir_ok, offsets_from_qids, save_npy_dir
from ..fileio import atomic_write_text, default_cache_dir
from .parallel import _line_cuts, _parse_parallel, _scan_light
from .source import _chunks, _count_physical_lines, _file_signature, _line_text, _open
from .strict import E_DIM, E_GROWN, E_LABELMAX, MAX_LABEL, MESSAGES, NO_QID, SVMLightFormatError, _RowsExceeded

#: the widest dataset inferred from its largest feature index (LETOR/MSLR: 46-136, Yahoo 700,
#: Istella 220); a wider one is refused unless ``n_features`` is declared
MAX_INFERRED_FEATURES = 100_000
#: the longest ``#docid`` kept (LETOR ids are ~20 bytes)
MAX_DOCID_BYTES = 256


def _raise(path, code, line, buf, pos, d_limit=0, max_label=MAX_LABEL):
    text = _line_text(buf, pos)
    tok = bytes(buf[pos:pos + 40]).split(None, 1)[0].decode("latin-1") if pos < len(buf) else ""
    msg = MESSAGES[code]
    if code == E_DIM:
        msg += f" ({d_limit}); raise n_features or leave it unset to use the maximum index"
    if code == E_LABELMAX:
        msg += (f" ({max_label}); relevance grades are small integers: check the column order, "
                f"or pass max_label=N if the labels are meant")
    raise SVMLightFormatError(f"{path}, line {line}: {msg}; offending text {tok!r} in: {text!r}")


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
    if use_cache:
        got = _cached_scan(sig, cache_dir)
        if got is not None:
            return got
    n_rows, max_index = 0, 0
    for buf in _chunks(path):
        rows, mx = _scan_light(buf, _line_cuts(buf, 4 * max(1, numba.get_num_threads())))
        n_rows += rows
        max_index = max(max_index, int(mx))
    if n_rows == 0:
        raise SVMLightFormatError(
            f"{path}: the file holds no data line (empty or only comments); "
            "check the path or regenerate the file")
    out = {"n_rows": int(n_rows), "max_index": int(max_index)}
    if use_cache:
        _store_scan(sig, cache_dir, out)
    return out


def _scan_file(sig: dict, cache_dir) -> Path:
    cdir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    # v2: first passes before it skipped the first feature of lines without 'qid:'
    return cdir / f"scan-{_cache_key(sig, {'kind': 'scan', 'v': 2})}.json"


def _cached_scan(sig: dict, cache_dir):
    """The cached first-pass result of an unchanged file, else None."""
    cfile = _scan_file(sig, cache_dir)
    try:
        got = json.loads(cfile.read_text())
        if got.get("signature") == sig:
            return {"n_rows": int(got["n_rows"]), "max_index": int(got["max_index"])}
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


def _store_scan(sig: dict, cache_dir, out: dict) -> None:
    try:
        atomic_write_text(_scan_file(sig, cache_dir), json.dumps({"signature": sig, **out}))
    except OSError:
        pass      # an unwritable cache only costs the next first pass


def _first_chunk_max_index(path: Path) -> int:
    """Largest feature index in the file's first chunk (a lower bound of the width)."""
    for buf in _chunks(path):
        _, mx = _scan_light(buf, _line_cuts(buf, max(1, numba.get_num_threads())))
        return int(mx)
    return 0


def _check_file(path: Path, what: str = "file") -> None:
    """A data file must be a regular file (through symbolic links) and not empty: it is read
    twice (count, then parse), which a FIFO, socket or device cannot give. Missing is a
    :class:`FileNotFoundError`, a directory an :class:`IsADirectoryError`, anything else
    (a FIFO, a device, a symbolic-link loop) or an empty file an :class:`SVMLightFormatError`."""
    try:
        st = path.stat()
    except FileNotFoundError:
        broken = " (a symbolic link to a missing file)" if path.is_symlink() else ""
        raise FileNotFoundError(f"{path}: no such {what}{broken}") from None
    except OSError as err:               # ELOOP, ENAMETOOLONG, EACCES on a parent...
        raise SVMLightFormatError(f"{path}: cannot be opened ({err.strerror or err}); "
                                  f"give the path of a regular {what}") from None
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(f"{path}: is a directory, not a data {what}; give the path of a regular {what}")
    if not stat.S_ISREG(st.st_mode):
        raise SVMLightFormatError(f"{path}: not a regular file ({_file_kind(st.st_mode)}); it is read twice "
                                  f"(count, then parse), so save the data to a regular {what} and give that")
    if st.st_size == 0:
        raise SVMLightFormatError(f"{path}: the {what} is empty; check the path or regenerate the file")


def _file_kind(mode: int) -> str:
    """What a non-regular file is, in words."""
    for test, name in ((stat.S_ISFIFO, "a FIFO / named pipe"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISDIR, "a directory")):
        if test(mode):
            return name
    return "not a regular file"


def _allocate(path: Path, n_rows: int, d: int, missing: str) -> np.ndarray:
    try:
        if missing == "nan":
            return np.full((n_rows, d), np.nan, dtype=np.float32)
        return np.zeros((n_rows, d), np.float32)
    except MemoryError:
        raise MemoryError(f"{path}: {n_rows:,} rows x {d:,} features need {n_rows * d * 4 / 2**30:.1f} GiB "
                          f"as float32, more than this machine can allocate; check n_features (the widest "
                          f"LETOR-style datasets have a few hundred) or use a machine with more memory") from None


def _parse_file(path: Path, n_rows: int, d: int, missing: str, dim_retry: bool = False,
                max_label: int = MAX_LABEL, qid_optional: bool = False):
    """Arrays of a file; with ``dim_retry``, None when an index exceeds ``d`` (a guess).
    Raises :class:`_RowsExceeded` when the file holds more rows than ``n_rows``."""
    fill_value = np.nan if missing == "nan" else 0.0
    X = _allocate(path, n_rows, d, missing)
    y = np.zeros(n_rows, np.int32)
    qid = np.zeros(n_rows, np.int64)
    linenos = np.zeros(n_rows, np.int64)
    n_parts = max(1, numba.get_num_threads()) * 4
    seen = np.zeros((n_parts, max(d, 1)), np.int64)
    doc_parts: list[np.ndarray] = []
    any_doc = False
    row, line = 0, 1
    doc_lo = np.full(n_rows, -1, np.int64)   # document-id span of each row in its chunk
    doc_hi = np.full(n_rows, -1, np.int64)
    fill = np.float32(fill_value)
    for buf in _chunks(path):
        lo, hi = doc_lo[row:], doc_hi[row:]
        bounds = _line_cuts(buf, n_parts)
        seen[:] = 0
        rows, code, line_after, pos = _parse_parallel(buf, bounds, d, X, y, qid, linenos,
                                                      lo, hi, seen, row, line, fill, max_label, qid_optional)
        if code == E_GROWN:
            raise _RowsExceeded(n_rows)
        if code:
            if dim_retry and code == E_DIM:
                return None
            _raise(path, code, line_after, buf, pos, d, max_label)
        doc_parts.append(_gather_docids(path, buf, lo[:rows], hi[:rows], linenos[row:row + rows]))
        any_doc = any_doc or doc_parts[-1].itemsize > 1 or bool(doc_parts[-1].any())
        row += rows
        line = line_after
    docid = None
    if any_doc:
        docid = np.concatenate(doc_parts)
        if docid.shape[0] != row:  # pragma: no cover - a bookkeeping error, never user data
            raise AssertionError("document ids out of step with rows")
    del doc_lo, doc_hi
    if row < n_rows:  # blank or comment lines were counted: keep views of the filled rows
        X, y, qid, linenos = X[:row], y[:row], qid[:row], linenos[:row]
    return X, y, qid, linenos, docid


def _gather_docids(path: Path, buf: np.ndarray, lo: np.ndarray, hi: np.ndarray, linenos: np.ndarray) -> np.ndarray:
    """The document ids of one chunk's rows as a fixed-width bytes array (``b""`` where a row
    has none), gathered through the flat spans: memory is the ids' total length, never
    rows x longest id. An id over :data:`MAX_DOCID_BYTES` is an error naming its line."""
    has = lo >= 0
    if not has.any():
        return np.zeros(lo.shape[0], dtype="S1")
    lengths = np.where(has, hi - lo, 0)
    longest = int(lengths.max())
    if longest > MAX_DOCID_BYTES:
        r = int(np.argmax(lengths))
        raise SVMLightFormatError(
            f"{path}, line {int(linenos[r])}: the document id in the comment is {longest:,} bytes long (at most "
            f"{MAX_DOCID_BYTES} are read); LETOR ids look like 'docid = GX008-86-4444840': check the comment; "
            f"offending text {_line_text(buf, int(lo[r]))!r}")
    width = max(longest, 1)
    out = np.zeros(lo.shape[0], dtype=f"S{width}")
    flat = out.view(np.uint8).reshape(-1, width)          # the output itself, rows x width <= 256
    rows = np.repeat(np.arange(lo.shape[0]), lengths)
    within = np.arange(rows.size) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    flat[rows, within] = buf[np.repeat(lo, lengths) + within]
    return out


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
                  cache_dir=None, use_cache: bool = True, name: str | None = None,
                  max_label: int = MAX_LABEL, groups="auto") -> RankingDataset:
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
    max_label : the largest label accepted (default :data:`MAX_LABEL` = 31); a larger one is
        an error naming its line (labels are stored as int32 and never wrap).
    groups : LightGBM's layout — lines without ``qid:`` and the query sizes, one integer per
        line, in a sidecar file. ``"auto"`` (default) uses ``FILE.query`` or ``FILE.group``
        when one is beside the file (for ``x.txt.gz`` also ``x.txt.query``); a path names it;
        ``None`` ignores sidecars. With a sidecar, lines may omit ``qid:`` (queries are
        numbered 0, 1, … in file order); lines that have one must agree with the sizes and
        keep their ids as written, negative ones included (a line without ``qid:`` is told
        apart by a marker no ``qid:`` can spell, never by a sign). A sidecar line is one
        query size in ASCII digits; anything else is an error naming the sidecar and line.
        A sidecar name that exists but is not a regular file is an error, never skipped.

    Rows keep the file order; queries must be contiguous. Integers of more than 18 digits
    are errors (never read modulo 2^64); without ``n_features`` a width beyond
    :data:`MAX_INFERRED_FEATURES` is refused, naming the line with the largest index. A file
    that changes while it is read (a download or ``gunzip`` still running) is an error.
    """
    if missing not in ("zero", "nan"):
        raise ValueError("missing must be 'zero' or 'nan'")
    if not isinstance(max_label, (int, np.integer)) or not 0 <= max_label < 2**31:
        raise ValueError("max_label must be an integer in [0, 2^31)")
    path = Path(path)
    _check_file(path)
    sidecar = _sidecar(path, groups)
    sig = _file_signature(path)
    if sidecar is not None:
        sig = {**sig, "groups": _file_signature(sidecar)}
    for attempt in range(2):
        try:
            return _read(path, sig, n_features, missing, cache_dir, use_cache, name, int(max_label),
                         trust_scan=attempt == 0, sidecar=sidecar)
        except _RowsExceeded:
            if _file_signature(path) != {k: v for k, v in sig.items() if k != "groups"}:
                break
            # same file, more rows than a cached count said: the count was stale; count again
    raise SVMLightFormatError(f"{path}: the file changed while it was read (its size, time or lines differ from "
                              f"when it was counted: grown, truncated or rewritten, e.g. by a download or "
                              f"decompression still running); read it again once it is complete")


def source_signature(path, groups="auto") -> dict:
    """What identifies what :func:`read_svmlight` reads from ``path``: the file's signature
    plus its group-size sidecar's (LightGBM's layout), or ``groups: None`` when there is none
    — editing, adding or deleting a sidecar changes the queries, so it changes this too."""
    path = Path(path)
    side = _sidecar(path, groups)
    return {**_file_signature(path), "groups": _file_signature(side) if side is not None else None}


def _sidecar(path: Path, groups) -> Path | None:
    """The group-size file of LightGBM's layout for ``path`` (see :func:`read_svmlight`)."""
    if groups is None:
        return None
    if groups != "auto":
        side = Path(groups)
        _check_file(side, "group-size file")
        return side
    stems = [path.name] + [path.name[: -len(ext)] for ext in (".gz", ".bz2") if path.name.endswith(ext)]
    for stem in stems:
        for ext in (".query", ".group"):
            side = path.with_name(stem + ext)
            if os.path.lexists(side):      # there, so it must be readable: never skipped silently
                _check_file(side, "group-size file")
                return side
    return None


def _group_sizes(side: Path, n_rows: int) -> np.ndarray:
    """The query sizes of a sidecar: one positive integer per line, ASCII digits only (at
    most 18, each no larger than ``n_rows``, the data file's rows), blank lines ignored; any
    other line is an error naming the sidecar and the line."""
    lines = side.read_bytes().splitlines()          # \n, \r\n or \r: the line numbers an editor shows
    if not lines:
        raise SVMLightFormatError(f"{side}: the group-size file is empty")
    text = np.char.strip(np.array(lines, dtype=bytes))
    blank = np.char.str_len(text) == 0
    ok = blank | (np.char.isdigit(text) & (np.char.str_len(text) <= 18))   # bytes: ASCII digits only
    sizes = np.zeros(text.shape[0], np.int64)
    sizes[ok & ~blank] = text[ok & ~blank].astype(np.int64)
    ok &= blank | ((sizes > 0) & (sizes <= n_rows))
    if not ok.all():
        k = int(np.flatnonzero(~ok)[0])
        got = lines[k].decode("utf-8", "replace").strip()[:40]
        raise SVMLightFormatError(f"{side}, line {k + 1}: a query size must be a positive integer (ASCII digits, "
                                  f"at most the data file's {n_rows:,} lines), got {got!r}; write one query size "
                                  f"per line")
    sizes = sizes[~blank]
    if not sizes.size:
        raise SVMLightFormatError(f"{side}: the group-size file is empty")
    return sizes


def _apply_groups(path: Path, side: Path, qid: np.ndarray, linenos: np.ndarray) -> np.ndarray:
    """Query ids from the sidecar's sizes: lines without ``qid:`` (read as :data:`NO_QID`)
    are numbered 0, 1, … by query; lines with one keep it as written (negative ids too) and
    must agree with the sizes."""
    n = qid.shape[0]
    sizes = _group_sizes(side, n)
    total = int(sizes.sum())                     # each size <= n rows: no int64 wrap
    if total != n:
        raise SVMLightFormatError(f"{side}: the query sizes add up to {total:,} documents but {path} "
                                  f"holds {n:,} data lines; the two files do not belong together")
    given = qid != NO_QID
    numbered = np.repeat(np.arange(sizes.shape[0], dtype=np.int64), sizes)
    if not given.any():
        return numbered
    if not given.all():
        first = int(np.flatnonzero(~given if given[0] else given)[0])
        raise SVMLightFormatError(f"{path}, line {int(linenos[first])}: some lines have 'qid:' and some do not; "
                                  f"with the group-size file {side.name} write none (or all, agreeing with it)")
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    bad = qid != np.repeat(qid[starts], sizes)                  # a query's lines disagree
    bad[starts[1:]] |= qid[starts[1:]] == qid[starts[1:] - 1]   # or two queries share a qid
    if bad.any():
        r = int(np.flatnonzero(bad)[0])
        raise SVMLightFormatError(f"{path}, line {int(linenos[r])}: the qid: values do not match the query sizes "
                                  f"in {side.name} (qid:{int(qid[r])} here, in its query "
                                  f"{int(np.searchsorted(starts, r, 'right'))}); give each query its own qid, or "
                                  f"leave qid: out and let {side.name} group the lines")
    return qid


def _read(path: Path, sig: dict, n_features, missing: str, cache_dir, use_cache: bool, name, max_label: int,
          trust_scan: bool, sidecar: Path | None = None) -> RankingDataset:
    cdir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    label = name or path.name
    n_alloc = None
    if n_features is None:
        # the width is the largest index: known from a cached first pass, or guessed below
        scan = _cached_scan(sig, cache_dir) if use_cache and trust_scan else None
        d = scan["max_index"] if scan else None
        n_alloc = scan["n_rows"] if scan else None
    else:
        # declared width: one pass, rows allocated for every physical line, trimmed after
        d = int(n_features)
    if d is not None and use_cache:
        entry = cdir / _cache_key(sig, {"d": d, "missing": missing, "max_label": max_label, "v": 2})
        if (entry / "meta.json").exists():
            try:
                meta = json.loads((entry / "meta.json").read_text())
                if meta["signature"] == sig and npy_dir_ok(entry, verify=True):   # damaged or edited: parse again
                    return _load_entry(entry, meta, label)
            except (OSError, ValueError, KeyError):
                pass
    file_sig = {k: v for k, v in sig.items() if k != "groups"}
    try:
        if n_alloc is None:
            n_alloc = _count_physical_lines(path)
        got = None
        if d is None:
            # guess the width from the first chunk and parse; an index beyond the guess sends
            # the file through the full first pass and a second parse (sparse files only), so
            # the width is always the file's largest index
            guess = _first_chunk_max_index(path)
            _check_width(path, guess)
            got = _parse_file(path, n_alloc, guess, missing, dim_retry=True, max_label=max_label,
                              qid_optional=sidecar is not None)
            if got is not None:
                d = guess
                if use_cache:
                    _store_scan(sig, cache_dir, {"n_rows": int(got[0].shape[0]), "max_index": d})
            else:
                d = scan_svmlight(path, cache_dir=cache_dir, use_cache=use_cache and trust_scan)["max_index"]
        if n_features is None:
            _check_width(path, d)
        if got is None:
            got = _parse_file(path, n_alloc, d, missing, max_label=max_label, qid_optional=sidecar is not None)
    except SVMLightFormatError:
        if _file_signature(path) != file_sig:   # a line broken by a cut or rewrite mid-read: say so
            raise _RowsExceeded(n_alloc or 0) from None
        raise
    if _file_signature(path) != file_sig:
        raise _RowsExceeded(n_alloc)
    X, y, qid, linenos, docid = got
    entry = cdir / _cache_key(sig, {"d": d, "missing": missing, "max_label": max_label, "v": 2})
    if X.shape[0] == 0:
        raise SVMLightFormatError(
            f"{path}: the file holds no data line (empty or only comments); "
            "check the path or regenerate the file")
    if sidecar is not None:
        qid = _apply_groups(path, sidecar, qid, linenos)
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


def check_inferred_width(path, d: int) -> None:
    """Refuse a width ``d`` inferred from ``path``'s largest feature index (not declared) beyond
    :data:`MAX_INFERRED_FEATURES`, with an :class:`SVMLightFormatError` naming the line with
    that index (one index typed wrong would otherwise allocate rows x index floats).

    >>> check_inferred_width("any.txt", MAX_INFERRED_FEATURES)   # at the bound: accepted
    """
    _check_width(Path(path), int(d))


def _check_width(path: Path, d: int) -> None:
    """:func:`check_inferred_width`."""
    if d <= MAX_INFERRED_FEATURES:
        return
    pattern = re.compile(rb"(?:^|\s)0*%d:" % d)
    where = ""
    with _open(path) as fh:
        for k, raw in enumerate(fh, start=1):
            if pattern.search(raw.split(b"#", 1)[0]):
                where = f", line {k}: offending text {raw.decode('latin-1').rstrip()[:160]!r}"
                break
    raise SVMLightFormatError(
        f"{path}{where}: feature index {d:,} would make the inferred width {d:,} columns ({d * 4:,} bytes per row); "
        f"more than {MAX_INFERRED_FEATURES:,} features is refused unless declared: fix the line, or, if the index "
        f"is meant, load the data from Python with n_features=... (load_dataset, read_svmlight)")


def _write_entry(entry: Path, ds: RankingDataset, sig: dict, d: int, missing: str) -> None:
    try:
        save_npy_dir(ds, entry, {"signature": sig, "n_features": d, "missing": missing})
    except OSError:
        pass      # an unwritable cache only costs the next parse


def _load_entry(entry: Path, meta: dict, name: str) -> RankingDataset:
    ds = load_npy_dir(entry, name=name, meta=meta)
    ds.meta.update({"source": meta["signature"]["path"], "missing": meta["missing"]})
    return ds



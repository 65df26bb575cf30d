"""Fast, strict reader and writer for SVMlight / LETOR ranking files, with a binary cache.

Format, one document per line::

    <label> qid:<query id> <index>:<value> <index>:<value> ... [# comment]

Indices are 1-based (feature ``i`` is column ``i - 1``); absent features are 0 (the
Yahoo! convention) or, with ``missing="nan"``, NaN. LETOR 4.0 comments of the form
``#docid = GX008-86-4444840 inc = 1 ...`` keep the document id. Plain, ``.gz`` and
``.bz2`` files are read in chunks by a numba kernel, in two passes (count rows,
then validate and fill a preallocated array), so peak memory is the final arrays plus one chunk.

Each chunk is cut into line-aligned parts parsed in parallel. Regular lines (single spaces,
rising indices, plain decimals) take a fast path: no end-of-line search, the newline as
sentinel, digit runs read eight bytes at a time (SWAR); every other line, and every error,
goes through the strict line parser, so results and messages do not depend on the path.

Nothing is silently dropped or reordered: a blank or comment-only line is the only line
that is skipped, and every malformed line raises :class:`SVMLightFormatError` naming the
file, the line number, the offending text and what to do.
"""
from __future__ import annotations

import bz2
import gzip
import hashlib
import json
import mmap
import os
import re
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numba
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

from .store import atomic_write_text
from .data import QueryOrderError, RankingDataset, load_npy_dir, npy_dir_ok, offsets_from_qids, save_npy_dir

__all__ = ["read_svmlight", "write_svmlight", "scan_svmlight", "SVMLightFormatError",
           "default_cache_dir"]

CHUNK_BYTES = 1 << 23  # 8 MiB of text per kernel call
MAP_WINDOW = 1 << 25   # line counting maps 32 MiB at a time (a multiple of mmap.ALLOCATIONGRANULARITY)

#: the largest label read by default (graded relevance; the exp2 gain table of the metrics
#: goes to 31): a larger one is an error unless ``max_label`` is raised
MAX_LABEL = 31
#: the widest dataset inferred from its largest feature index (LETOR/MSLR: 46-136, Yahoo 700,
#: Istella 220); a wider one is refused unless ``n_features`` is declared
MAX_INFERRED_FEATURES = 100_000
#: the longest ``#docid`` kept (LETOR ids are ~20 bytes)
MAX_DOCID_BYTES = 256

# error codes returned by the kernel
(_OK, _E_LABEL, _E_QID, _E_QIDVAL, _E_TOKEN, _E_INDEX0, _E_VALUE, _E_NONFINITE, _E_DUP, _E_DIM, _E_BIGINT,
 _E_LABELMAX, _E_GROWN) = range(13)
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
    _E_BIGINT: "an integer (label, qid or feature index) has more than 18 digits and would overflow",
    _E_LABELMAX: "the label exceeds the largest label read",
}


class _RowsExceeded(Exception):
    """The file holds more data rows than were allocated (it changed, or a count was stale)."""


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
    """Parse an optionally signed integer. Returns (value, next_i, status): 1 ok, 0 no digits,
    2 more than 18 digits (it would wrap in int64: nothing is read modulo 2^64)."""
    neg = False
    if i < end and (buf[i] == 45 or buf[i] == 43):
        neg = buf[i] == 45
        i += 1
    v = np.int64(0)
    start = i
    while i < end and 48 <= buf[i] <= 57:
        if i - start < 18:
            v = v * 10 + (buf[i] - 48)
        i += 1
    if i == start:
        return np.int64(0), i, 0
    if i - start > 18:
        return np.int64(0), i, 2
    return (-v if neg else v), i, 1


@numba.njit(cache=True, nogil=True)
def _comment_docid(buf, k, eol):
    """Span of the document id in the comment ``buf[k:eol]`` (``# ... docid = ID ...``, the
    LETOR 4.0 form; '=' and blanks after "docid" skipped, the id runs to the next blank), or
    (-1, -1) when the comment has none."""
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
            return s, c
        c += 1
    return -1, -1


@numba.njit(cache=True, nogil=True)
def _parse_chunk(buf, d_limit, X, y, qid, linenos, doc_lo, doc_hi, seen, row0, line0, max_label):
    """Parse the complete lines of ``buf`` (uint8).

    The rows are validated and written to X/y/qid from ``row0`` on; ``d_limit`` (the width
    of X) bounds the feature index, ``max_label`` the label. Returns (rows, err_code, err_line, err_pos), positions
    into ``buf``. This is the strict reference parser: :func:`_parse_lines` handles the
    regular lines itself and hands every other line to it.
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
        lab, p, st = _parse_int(buf, tok, k)
        if st == 2:
            return row - row0, 10, line, tok
        ok = st == 1
        if ok and p < k and buf[p] == 46:  # accept "3.0", "3.00"
            p += 1
            while p < k and buf[p] == 48:
                p += 1
        if (not ok) or p != k or lab < 0 or buf[tok] == 45 or buf[tok] == 43:
            return row - row0, 1, line, tok
        if lab > max_label:
            return row - row0, 11, line, tok
        # ---- qid
        while k < eol and _is_space(buf[k]):
            k += 1
        if not (k + 4 <= eol and (buf[k] | 32) == 113 and (buf[k + 1] | 32) == 105
                and (buf[k + 2] | 32) == 100 and buf[k + 3] == 58):
            return row - row0, 2, line, k
        tok = k
        k += 4
        q, p, st = _parse_int(buf, k, eol)
        if st == 2:
            return row - row0, 10, line, tok
        if st != 1 or (p < eol and not _is_space(buf[p]) and buf[p] != 35):
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
                lo_, hi_ = _comment_docid(buf, k, eol)
                if lo_ >= 0:
                    doc_lo[row - row0] = lo_
                    doc_hi[row - row0] = hi_
                break
            tok = k
            idx, p, st = _parse_int(buf, k, eol)
            if st == 2 and p < eol and buf[p] == 58:
                return row - row0, 10, line, tok
            if st != 1 or p >= eol or buf[p] != 58 or buf[tok] == 45 or buf[tok] == 43:
                return row - row0, 4, line, tok
            if idx == 0:
                return row - row0, 5, line, tok
            if idx > d_limit:
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


@numba.njit(cache=True, nogil=True, inline="always")
def _digits(buf, k, v):
    """``v`` extended by the run of decimal digits at ``buf[k:]``, and the run's end (needs a
    non-digit sentinel; overflows wrap, so callers bound the run's length)."""
    while True:
        c = np.int64(buf[k]) - 48
        if c < 0 or c > 9:
            return v, k
        v = v * 10 + c
        k += 1


@intrinsic
def _load_u64(typingctx, arr, idx):
    """Eight bytes of a uint8 array from ``idx`` as one little-endian uint64 (unaligned load;
    the caller guarantees ``idx + 8 <= len``)."""
    sig = types.uint64(arr, types.intp)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        ptr = builder.bitcast(builder.gep(ary.data, [args[1]]), ir.IntType(64).as_pointer())
        return builder.load(ptr, align=1)
    return sig, codegen


def _bit_intrinsic(llvm_name: str, zero_is_poison: bool | None):
    """A numba intrinsic ``uint64 -> uint64`` calling the LLVM bit-counting intrinsic
    ``llvm_name`` (``llvm.cttz``/``llvm.ctpop``); ``zero_is_poison`` is cttz's flag."""
    @intrinsic
    def bit_op(typingctx, x):
        sig = types.uint64(types.uint64)

        def codegen(context, builder, signature, args):
            i64, i1 = ir.IntType(64), ir.IntType(1)
            extra = [] if zero_is_poison is None else [ir.Constant(i1, int(zero_is_poison))]
            fnty = ir.FunctionType(i64, [i64] + [i1] * len(extra))
            fn = cgutils.get_or_insert_function(builder.module, fnty, llvm_name + ".i64")
            return builder.call(fn, [args[0]] + extra)
        return sig, codegen
    return bit_op


_cttz64 = _bit_intrinsic("llvm.cttz", zero_is_poison=False)    # trailing zeros, 64 for 0
_popcount64 = _bit_intrinsic("llvm.ctpop", zero_is_poison=None)  # set bits


_P10_INT = np.array([10 ** i for i in range(9)], dtype=np.int64)


@numba.njit(cache=True, nogil=True, inline="always")
def _digits8(buf, k):
    """Value and length of the run of at most 8 digits at ``buf[k:k+8]``, branch-free
    (SWAR: flag non-digit bytes, count the leading digits, combine pairs, quads, octets)."""
    x = _load_u64(buf, k) ^ np.uint64(0x3030303030303030)
    bad = (x & np.uint64(0xF0F0F0F0F0F0F0F0)) | (((x & np.uint64(0x0F0F0F0F0F0F0F0F))
                                                 + np.uint64(0x0606060606060606))
                                                & np.uint64(0xF0F0F0F0F0F0F0F0))
    n = _cttz64(bad) >> np.uint64(3)
    if n == 0:
        return np.int64(0), np.int64(0)
    if n < 8:
        x = x << (np.uint64(64) - (n << np.uint64(3)))
    x = x * np.uint64(10) + (x >> np.uint64(8))
    x = (((x & np.uint64(0x000000FF000000FF)) * np.uint64(100 + (1000000 << 32)))
         + (((x >> np.uint64(16)) & np.uint64(0x000000FF000000FF)) * np.uint64(1 + (10000 << 32)))
         ) >> np.uint64(32)
    return np.int64(x), np.int64(n)


@numba.njit(cache=True, nogil=True, inline="always")
def _digits_swar(buf, k, hi, v):
    """:func:`_digits` eight bytes at a time while ``k + 8 <= hi``."""
    while k + 8 <= hi:
        x, n = _digits8(buf, k)
        v = v * _P10_INT[n] + x
        k += n
        if n < 8:
            return v, k
    return _digits(buf, k, v)


@numba.njit(cache=True, nogil=True, inline="always")
def _token_end(buf, k, hi):
    """First position from ``k`` holding a byte <= 32 (space, tab, CR, newline) or '#',
    eight bytes at a time while ``k + 8 <= hi`` (SWAR: flag bytes below 0x21 and bytes
    equal to 0x23; the first flag is exact)."""
    lo7 = np.uint64(0x0101010101010101)
    hi1 = np.uint64(0x8080808080808080)
    while k + 8 <= hi:
        w = _load_u64(buf, k)
        small = (w - lo7 * np.uint64(0x21)) & ~w & hi1
        x = w ^ (lo7 * np.uint64(0x23))
        hash_ = (x - lo7) & ~x & hi1
        f = small | hash_
        if f != 0:
            return k + np.int64(_cttz64(f) >> np.uint64(3))
        k += 8
    while buf[k] > 32 and buf[k] != 35:
        k += 1
    return k


@numba.njit(cache=True, nogil=True, inline="always")
def _line_head(buf, i):
    """(label, position after ``'qid:'``, ok) for a line at ``i`` that starts with at most
    nine digits, one space and ``qid:``; the short-circuit order never reads past the line's
    newline."""
    lab, k = _digits(buf, i, np.int64(0))
    ok = (i < k <= i + 9 and buf[k] == 32 and buf[k + 1] == 113 and buf[k + 2] == 105
          and buf[k + 3] == 100 and buf[k + 4] == 58)
    return lab, k + 5, ok


@numba.njit(cache=True, nogil=True, inline="always")
def _line_end(buf, i):
    """Position of the newline ending the line at ``i`` (the buffer ends with one)."""
    while buf[i] != 10:
        i += 1
    return i


@numba.njit(cache=True, nogil=True)
def _parse_lines(buf, lo, hi, d_limit, X, y, qid, linenos, doc_lo, doc_hi, doc_base, seen, row0, line0,
                 max_label):
    """:func:`_parse_chunk` on ``buf[lo:hi]`` with a fast path; same results and errors.

    Positions (error, document ids) are into ``buf``; row ``r``'s document id goes to
    ``doc_lo/doc_hi[r - doc_base]``. Taking bounds rather than a slice keeps ``buf`` a
    contiguous array for numba (a slice made inside a parallel loop is compiled as a strided
    array, measured 40% slower).

    A *regular* line, ``<label> qid:<id>( <index>:<value>)*[ #comment][\r]\n`` with single
    spaces, rising indices and plain decimal values of at most 15 digits (no exponent), is
    parsed here in one forward pass with no end-of-line search and no per-digit bounds checks
    (the final newline is the sentinel), giving the same float64 (then float32) values as
    :func:`_parse_number`: a mantissa below 10^15 divided by an exact power of ten is
    correctly rounded. Any other line (comment-only lines, CR inside a line, tabs, double
    spaces, exponents, long numbers, unsorted indices, and every malformed line) is handed
    whole to :func:`_parse_chunk`, which parses it or reports the error. ``buf[lo:hi]`` must
    end with a newline; otherwise the whole range goes to :func:`_parse_chunk`.
    """
    if hi <= lo or buf[hi - 1] != 10:
        return _parse_slow(buf, lo, hi, d_limit, X, y, qid, linenos, doc_lo, doc_hi, doc_base,
                           seen, row0, line0, max_label)
    i = lo
    row = row0
    line = line0
    while i < hi:
        lab, k, ok = _line_head(buf, i)
        ok = ok and lab <= max_label
        q = np.int64(0)
        if ok:
            s = k
            q, k = _digits(buf, s, np.int64(0))
            ok = s < k <= s + 18 and (buf[k] == 32 or buf[k] == 10 or buf[k] == 13)
        if ok:
            prev = 0                          # indices rising: no repeat, no need for `seen`
            while buf[k] == 32:
                s = k + 1
                if buf[s] == 35:              # a comment ends the line: keep its doc id
                    e = _line_end(buf, s)
                    dlo, dhi = _comment_docid(buf, s, e)
                    if dlo >= 0:
                        doc_lo[row - doc_base] = dlo
                        doc_hi[row - doc_base] = dhi
                    k = e
                    break
                idx, k = _digits_swar(buf, s, hi, np.int64(0))
                if k == s or k > s + 9 or buf[k] != 58 or idx <= prev or idx > d_limit:
                    ok = False
                    break
                k += 1
                neg = buf[k] == 45
                if neg:
                    k += 1
                s = k
                m, k = _digits_swar(buf, s, hi, np.int64(0))
                nd = k - s
                nf = 0
                if buf[k] == 46:
                    s = k + 1
                    m, k = _digits_swar(buf, s, hi, m)
                    nf = k - s
                    nd += nf
                if nd == 0 or nd > 15 or (buf[k] != 32 and buf[k] != 10 and buf[k] != 13):
                    ok = False
                    break
                prev = idx
                v = np.float64(m) / _POW10[nf]
                X[row, idx - 1] = -v if neg else v
            if ok and buf[k] == 13:           # CRLF line end
                k += 1
                ok = buf[k] == 10
        if ok:
            y[row] = lab
            qid[row] = q
            linenos[row] = line
            row += 1
            line += 1
            i = k + 1
            continue
        e = _line_end(buf, i)
        r, code, eline, pos = _parse_slow(buf, i, e + 1, d_limit, X, y, qid, linenos,
                                          doc_lo, doc_hi, doc_base, seen, row, line, max_label)
        if code != 0:
            return row - row0, code, eline, pos
        row += r
        line += 1
        i = e + 1
    return row - row0, 0, line, 0


@numba.njit(cache=True, nogil=True)
def _parse_slow(buf, lo, hi, d_limit, X, y, qid, linenos, doc_lo, doc_hi, doc_base, seen, row0, line0,
                max_label):
    """:func:`_parse_chunk` on ``buf[lo:hi]`` with :func:`_parse_lines`'s conventions."""
    dl = doc_lo[row0 - doc_base:]
    dh = doc_hi[row0 - doc_base:]
    r, code, eline, pos = _parse_chunk(buf[lo:hi], d_limit, X, y, qid, linenos, dl, dh, seen,
                                       row0, line0, max_label)
    if code != 0:
        return r, code, eline, pos + lo
    for t in range(r):
        if dl[t] >= 0:
            dl[t] += lo
            dh[t] += lo
    return r, 0, eline, 0


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


@numba.njit(cache=True, nogil=True)
def _scan_lines(buf, lo, hi):
    """:func:`_scan_part` with a fast path for regular lines (digits, ``' qid:'``, then
    ``index:value`` tokens separated by single spaces, ending in a newline); any other line
    goes to :func:`_scan_part`. ``buf[lo:hi]`` must be whole lines."""
    if hi <= lo or buf[hi - 1] != 10:
        return _scan_part(buf, lo, hi)
    rows = 0
    max_idx = 0
    i = lo
    while i < hi:
        _, k, ok = _line_head(buf, i)
        if ok:
            while buf[k] > 32:
                k += 1
            while buf[k] == 32:
                s = k + 1
                idx, k = _digits_swar(buf, s, hi, np.int64(0))
                if k == s or k > s + 9 or buf[k] != 58:
                    ok = False
                    break
                if idx > max_idx:
                    max_idx = idx
                k = _token_end(buf, k + 1, hi)
            ok = ok and buf[k] == 10
        if ok:
            rows += 1
            i = k + 1
            continue
        e = _line_end(buf, i)
        r, m = _scan_part(buf, i, e + 1)
        rows += r
        if m > max_idx:
            max_idx = m
        i = e + 1
    return rows, max_idx


@numba.njit(parallel=True, cache=True, nogil=True)
def _scan_light(buf, bounds):
    n_parts = bounds.shape[0] - 1
    rows = np.zeros(n_parts, np.int64)
    mx = np.zeros(n_parts, np.int64)
    for p in numba.prange(n_parts):
        r, m = _scan_lines(buf, bounds[p], bounds[p + 1])
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


@numba.njit(cache=True, nogil=True)
def _newlines(buf, lo, hi):
    """Number of newline bytes in buf[lo:hi], eight at a time: ``x = word ^ 0x0A..0A`` has a
    zero byte exactly where a newline is; ``~(((x & 0x7F..) + 0x7F..) | x | 0x7F..)`` sets
    the high bit of exactly those bytes (no borrow between bytes); popcount. Measured 16x
    faster than the byte loop, which LLVM does not vectorize."""
    m7 = np.uint64(0x7F7F7F7F7F7F7F7F)
    nl = np.uint64(0x0A0A0A0A0A0A0A0A)
    total = 0
    k = lo
    while k + 8 <= hi:
        x = _load_u64(buf, k) ^ nl
        total += np.int64(_popcount64(~(((x & m7) + m7) | x | m7)))
        k += 8
    for j in range(k, hi):
        total += buf[j] == 10
    return total


@numba.njit(parallel=True, cache=True, nogil=True)
def _count_newlines(buf, n_parts):
    n = buf.shape[0]
    counts = np.zeros(n_parts, np.int64)
    for p in numba.prange(n_parts):
        counts[p] = _newlines(buf, n * p // n_parts, n * (p + 1) // n_parts)
    return counts.sum()


@numba.njit(cache=True)
def _line_cuts(buf, n_parts):
    """Part boundaries: ``n_parts`` near-equal, each just after a newline (fewer parts when
    lines are long)."""
    n = buf.shape[0]
    bounds = np.empty(n_parts + 1, np.int64)
    bounds[0] = 0
    m = 1
    for p in range(1, n_parts):
        j = max(n * p // n_parts, bounds[m - 1])
        while j < n and buf[j] != 10:
            j += 1
        if j + 1 < n and j + 1 > bounds[m - 1]:
            bounds[m] = j + 1
            m += 1
    bounds[m] = n
    return bounds[:m + 1]


@numba.njit(parallel=True, cache=True, nogil=True)
def _parse_parallel(buf, bounds, d_limit, X, y, qid, linenos, doc_lo, doc_hi, seen, row0, line0,
                    fill, max_label):
    """Fill rows from line-aligned parts ``buf[bounds[p]:bounds[p+1]]`` in parallel.

    Each part gets one row slot per line (a vectorized newline count), or, when the slots
    would not fit in X, its exact data-row count; rows of parts that held blank or comment
    lines are then moved down so that the rows stay contiguous and in file order. When even
    the exact rows do not fit (the file grew since it was counted, or a cached count is
    stale) nothing is written and the code is ``_E_GROWN``: no write past the arrays.
    """
    n_parts = bounds.shape[0] - 1
    lines = np.zeros(n_parts, np.int64)
    for p in numba.prange(n_parts):
        lo = bounds[p]
        hi = bounds[p + 1]
        lines[p] = _newlines(buf, lo, hi) + (1 if hi > lo and buf[hi - 1] != 10 else 0)
    slots = lines.copy()
    if row0 + lines.sum() > X.shape[0]:
        for p in numba.prange(n_parts):
            slots[p], _ = _count_lines(buf, bounds[p], bounds[p + 1])
        if row0 + slots.sum() > X.shape[0] or row0 + slots.sum() > doc_lo.shape[0] + row0:
            return 0, 12, line0, 0
    sstart = np.zeros(n_parts, np.int64)
    lstart = np.zeros(n_parts, np.int64)
    for p in range(1, n_parts):
        sstart[p] = sstart[p - 1] + slots[p - 1]
        lstart[p] = lstart[p - 1] + lines[p - 1]
    rows = np.zeros(n_parts, np.int64)
    codes = np.zeros(n_parts, np.int64)
    elines = np.zeros(n_parts, np.int64)
    epos = np.zeros(n_parts, np.int64)
    for p in numba.prange(n_parts):
        r, code, eline, pos = _parse_lines(buf, bounds[p], bounds[p + 1], d_limit, X, y, qid,
                                           linenos, doc_lo, doc_hi, row0, seen[p],
                                           row0 + sstart[p], line0 + lstart[p], max_label)
        rows[p] = r
        codes[p] = code
        elines[p] = eline
        epos[p] = pos
    for p in range(n_parts):
        if codes[p] != 0:
            return rows[:p].sum(), codes[p], elines[p], epos[p]
    total = 0
    for p in range(n_parts):
        src = row0 + sstart[p]
        dst = row0 + total
        if dst != src:              # compact (only after blank or comment lines)
            for t in range(rows[p]):
                X[dst + t] = X[src + t]
                y[dst + t] = y[src + t]
                qid[dst + t] = qid[src + t]
                linenos[dst + t] = linenos[src + t]
                doc_lo[dst + t - row0] = doc_lo[src + t - row0]
                doc_hi[dst + t - row0] = doc_hi[src + t - row0]
        total += rows[p]
    for r in range(row0 + total, row0 + slots.sum()):   # vacated slots: as allocated again
        X[r] = fill
        doc_lo[r - row0] = -1
        doc_hi[r - row0] = -1
    return total, 0, line0 + lines.sum(), 0


def _open_kind(path: Path) -> str:
    name = path.name.lower()
    return "gz" if name.endswith(".gz") else "bz2" if name.endswith(".bz2") else "plain"


def _open(path: Path):
    kind = _open_kind(path)
    if kind == "gz":
        return gzip.open(path, "rb")
    if kind == "bz2":
        return bz2.open(path, "rb")
    return open(path, "rb")


def _chunks(path: Path):
    """Yield uint8 arrays of whole lines, each ending with a newline (one is added to an
    unterminated last line).

    Two buffers alternate: while the consumer parses one chunk, a thread reads the next
    into the other buffer (the kernels release the GIL). A yielded array is a view of one
    of them, valid until the consumer asks for the chunk after next -- consumers here are
    done with a chunk before asking for the next.
    """
    bufs = [np.empty(CHUNK_BYTES + 1, np.uint8), np.empty(CHUNK_BYTES + 1, np.uint8)]

    def fill(b, start):
        """Read into bufs[b][start:] until full or EOF (growing it for a line longer than
        the buffer); return (bytes held, position of the last newline or -1)."""
        end = start
        while True:
            buf = bufs[b]
            got = fh.readinto(memoryview(buf)[end:buf.shape[0] - 1])   # one byte kept spare
            if not got:
                return end, _last_newline(buf, start, end) if end > start else -1
            end += got
            cut = _last_newline(buf, start, end)
            if cut >= 0 or end < buf.shape[0] - 1:
                if cut >= 0:
                    return end, cut
                continue
            bufs[b] = np.concatenate([buf, np.empty(buf.shape[0], np.uint8)])

    try:
        with _open(path) as fh, ThreadPoolExecutor(max_workers=1) as pool:
            cur = 0
            end, cut = fill(cur, 0)
            while True:
                if cut < 0:                      # no newline left: the unterminated last line
                    if end:
                        bufs[cur][end] = 10
                        yield bufs[cur][:end + 1]
                    return
                rest = end - cut - 1
                nxt = 1 - cur
                if bufs[nxt].shape[0] < rest + 2:
                    bufs[nxt] = np.empty(bufs[cur].shape[0], np.uint8)
                bufs[nxt][:rest] = bufs[cur][cut + 1:end]
                pending = pool.submit(fill, nxt, rest)
                yield bufs[cur][:cut + 1]
                end, cut = pending.result()
                cur = nxt
    except (EOFError, OSError, zlib.error) as err:
        if _open_kind(path) == "plain" or isinstance(err, (FileNotFoundError, PermissionError)):
            raise
        raise SVMLightFormatError(f"{path}: the {_open_kind(path)} stream is damaged or truncated ({err}); "
                                  f"download or decompress the file again") from None


@numba.njit(cache=True)
def _last_newline(buf, lo, hi):
    for j in range(hi - 1, lo - 1, -1):
        if buf[j] == 10:
            return j
    return -1


def _line_text(buf: np.ndarray, pos: int) -> str:
    lo = int(pos)
    while lo > 0 and buf[lo - 1] != 10:
        lo -= 1
    hi = int(pos)
    while hi < buf.shape[0] and buf[hi] != 10:
        hi += 1
    text = bytes(buf[lo:hi]).decode("latin-1").rstrip("\r")
    return text if len(text) <= 160 else text[:157] + "..."


def _raise(path, code, line, buf, pos, d_limit=0, max_label=MAX_LABEL):
    text = _line_text(buf, pos)
    tok = bytes(buf[pos:pos + 40]).split(None, 1)[0].decode("latin-1") if pos < len(buf) else ""
    msg = _MESSAGES[code]
    if code == _E_DIM:
        msg += f" ({d_limit}); raise n_features or leave it unset to use the maximum index"
    if code == _E_LABELMAX:
        msg += (f" ({max_label}); relevance grades are small integers: check the column order, "
                f"or pass max_label=N if the labels are meant")
    raise SVMLightFormatError(f"{path}, line {line}: {msg}; offending text {tok!r} in: {text!r}")


def _count_physical_lines(path: Path) -> int:
    """Upper bound on the data rows: the number of lines.

    A plain file is counted through read-only memory maps of ``MAP_WINDOW`` bytes (32 MiB,
    prefaulted, no copy: 5x faster than reading it here; at most one window of the file is
    mapped at a time, and this happens before the arrays are allocated); a compressed one
    through :func:`_chunks`."""
    n_parts = max(1, numba.get_num_threads())
    if _open_kind(path) == "plain" and hasattr(mmap, "MAP_POPULATE"):
        size = path.stat().st_size
        window = MAP_WINDOW
        total = 0
        with open(path, "rb") as fh:
            for off in range(0, size, window):
                length = min(window, size - off)
                with mmap.mmap(fh.fileno(), length, offset=off, prot=mmap.PROT_READ,
                               flags=mmap.MAP_SHARED | mmap.MAP_POPULATE) as mm:
                    arr = np.frombuffer(mm, np.uint8)
                    total += int(_count_newlines(arr, n_parts))
                    del arr
        last = b""
        if size:
            with open(path, "rb") as fh:
                fh.seek(size - 1)
                last = fh.read(1)
        return total + (1 if last != b"\n" else 0)
    return sum(int(_count_newlines(buf, n_parts)) for buf in _chunks(path))


def _file_signature(path: Path) -> dict:
    """What identifies a file's content for the caches: path, size, modification and change
    times, inode (a file replaced by another of the same size and mtime has a new inode or
    ctime)."""
    st = path.stat()
    return {"path": str(path.resolve()), "size": st.st_size, "mtime_ns": st.st_mtime_ns,
            "ctime_ns": st.st_ctime_ns, "inode": st.st_ino}


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
    return cdir / f"scan-{_cache_key(sig, {'kind': 'scan'})}.json"


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


def _check_file(path: Path) -> None:
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file")
    if path.stat().st_size == 0:
        raise SVMLightFormatError(f"{path}: the file is empty; check the path or regenerate the file")


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
                max_label: int = MAX_LABEL):
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
                                                      lo, hi, seen, row, line, fill, max_label)
        if code == _E_GROWN:
            raise _RowsExceeded(n_rows)
        if code:
            if dim_retry and code == _E_DIM:
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
                  max_label: int = MAX_LABEL) -> RankingDataset:
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
    sig = _file_signature(path)
    for attempt in range(2):
        try:
            return _read(path, sig, n_features, missing, cache_dir, use_cache, name, int(max_label),
                         trust_scan=attempt == 0)
        except _RowsExceeded:
            if _file_signature(path) != sig:
                break
            # same file, more rows than a cached count said: the count was stale; count again
    raise SVMLightFormatError(f"{path}: the file changed while it was read (it holds more lines than when "
                              f"it was counted: a download or decompression still running?); read it again "
                              f"once it is complete")


def _read(path: Path, sig: dict, n_features, missing: str, cache_dir, use_cache: bool, name, max_label: int,
          trust_scan: bool) -> RankingDataset:
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
                if meta["signature"] == sig and npy_dir_ok(entry):     # a damaged entry is parsed again
                    return _load_entry(entry, meta, label)
            except (OSError, ValueError, KeyError):
                pass
    if n_alloc is None:
        n_alloc = _count_physical_lines(path)
    got = None
    if d is None:
        # guess the width from the first chunk and parse; an index beyond the guess sends
        # the file through the full first pass and a second parse (sparse files only), so
        # the width is always the file's largest index
        guess = _first_chunk_max_index(path)
        _check_width(path, guess)
        got = _parse_file(path, n_alloc, guess, missing, dim_retry=True, max_label=max_label)
        if got is not None:
            d = guess
            if use_cache:
                _store_scan(sig, cache_dir, {"n_rows": int(got[0].shape[0]), "max_index": d})
        else:
            d = scan_svmlight(path, cache_dir=cache_dir, use_cache=use_cache and trust_scan)["max_index"]
    if n_features is None:
        _check_width(path, d)
    if got is None:
        got = _parse_file(path, n_alloc, d, missing, max_label=max_label)
    if _file_signature(path) != sig:
        raise _RowsExceeded(n_alloc)
    X, y, qid, linenos, docid = got
    entry = cdir / _cache_key(sig, {"d": d, "missing": missing, "max_label": max_label, "v": 2})
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


def _check_width(path: Path, d: int) -> None:
    """Refuse an inferred width beyond :data:`MAX_INFERRED_FEATURES`, naming the line with the
    largest index (one index typed wrong would otherwise allocate rows x index floats)."""
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
        f"more than {MAX_INFERRED_FEATURES:,} features is refused unless declared: pass n_features=... if the "
        f"index is meant, else fix the line")


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

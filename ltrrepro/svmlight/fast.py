"""The fast line grammar: regular lines (single spaces, rising indices, plain decimals)
parsed without an end-of-line search, the newline as sentinel, digit runs read eight bytes at
a time. Any other line goes to the strict parser (:mod:`.strict`)."""
from __future__ import annotations

import numba
import numpy as np

from .bits import _cttz64, _digits, _digits_swar, _load_u64
from .strict import _POW10, _comment_docid, _parse_chunk

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
                 max_label, qid_optional):
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
                           seen, row0, line0, max_label, qid_optional)
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
                                          doc_lo, doc_hi, doc_base, seen, row, line, max_label, qid_optional)
        if code != 0:
            return row - row0, code, eline, pos
        row += r
        line += 1
        i = e + 1
    return row - row0, 0, line, 0


@numba.njit(cache=True, nogil=True)
def _parse_slow(buf, lo, hi, d_limit, X, y, qid, linenos, doc_lo, doc_hi, doc_base, seen, row0, line0,
                max_label, qid_optional):
    """:func:`_parse_chunk` on ``buf[lo:hi]`` with :func:`_parse_lines`'s conventions (a line
    without ``qid:`` in LightGBM's layout gets :data:`.strict.NO_QID`). Editing this file also
    renews numba's on-disk cache of these kernels, which is keyed by each file's own stamp: a
    change to :mod:`.strict` alone would leave the compiled copy here stale."""
    dl = doc_lo[row0 - doc_base:]
    dh = doc_hi[row0 - doc_base:]
    r, code, eline, pos = _parse_chunk(buf[lo:hi], d_limit, X, y, qid, linenos, dl, dh, seen,
                                       row0, line0, max_label, qid_optional)
    if code != 0:
        return r, code, eline, pos + lo
    for t in range(r):
        if dl[t] >= 0:
            dl[t] += lo
            dh[t] += lo
    return r, 0, eline, 0



"""The strict line grammar: every line that is not a plain regular one, and every error.

A line is ``<label> qid:<id> (<index>:<value>)* [# comment]``; the parser validates each
token, fills one row and returns a **named error code** (``E_*`` below, with its message in
:data:`MESSAGES`) at the first fault. The fast path (:mod:`.fast`) falls back to this parser
for any line it does not recognize, so results and messages never depend on the path.
"""
from __future__ import annotations

import numba
import numpy as np

#: the largest label read by default: a larger one is an error unless ``max_label`` is raised
#: (the datasets' own bound, :data:`ltrrepro.data.MAX_LABEL`, re-exported here)
from ..data import MAX_LABEL  # noqa: F401

#: the query id of a line without 'qid:' (LightGBM's layout): int64's minimum, which no
#: 'qid:' can spell (more than 18 digits is an error), so every written qid, negative ones
#: included, is read as it is
NO_QID = np.int64(-2**63)

# error codes returned by the kernel
(OK, E_LABEL, E_QID, E_QIDVAL, E_TOKEN, E_INDEX0, E_VALUE, E_NONFINITE, E_DUP, E_DIM, E_BIGINT,
 E_LABELMAX, E_GROWN) = range(13)
MESSAGES = {
    E_LABEL: "the label is not a non-negative integer (graded relevance 0, 1, 2, ...)",
    E_QID: "missing 'qid:<id>' after the label (ranking data needs a query id on every line; in LightGBM's "
           "layout the query sizes go in a FILE.query file beside it)",
    E_QIDVAL: "the query id after 'qid:' is not an integer",
    E_TOKEN: "a feature token is not of the form '<index>:<value>'",
    E_INDEX0: "feature index 0 found: indices are 1-based in SVMlight/LETOR files "
               "(shift the indices by one)",
    E_VALUE: "a feature value is not a number",
    E_NONFINITE: "a feature value is NaN or infinite: write missing features by leaving them "
                  "out of the line (read them as NaN with missing='nan')",
    E_DUP: "a feature index is repeated on the line",
    E_DIM: "a feature index exceeds the declared number of features",
    E_BIGINT: "an integer (label, qid or feature index) has more than 18 digits and would overflow",
    E_LABELMAX: "the label exceeds the largest label read",
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
def _parse_chunk(buf, d_limit, X, y, qid, linenos, doc_lo, doc_hi, seen, row0, line0, max_label, qid_optional):
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
            if not qid_optional:
                return row - row0, 2, line, k
            q = NO_QID                        # LightGBM's layout: the groups come from a sidecar file
        else:
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



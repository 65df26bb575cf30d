"""Parallel drivers: count and scan lines, cut a chunk into line-aligned parts, and parse
the parts in parallel (numba ``prange``), each part through the fast and strict grammars."""
from __future__ import annotations

import numba
import numpy as np

from .bits import _digits_swar, _load_u64, _popcount64
from .fast import _line_end, _line_head, _parse_lines, _token_end
from .strict import _is_space

@numba.njit(cache=True, nogil=True)
def _scan_part(buf, lo, hi):
    """Data rows and largest feature index in buf[lo:hi], without parsing values (the
    filling pass validates everything). Token by token: label, ``qid:`` (case as the strict
    parser reads it) if present, then index:value."""
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
        # the label token, then the 'qid:' token when there is one (LightGBM's layout has
        # none: its first feature follows the label and counts toward the width)
        while k < hi and buf[k] != 10 and not _is_space(buf[k]):
            k += 1
        while k < hi and _is_space(buf[k]):
            k += 1
        if (k + 4 <= hi and (buf[k] | 32) == 113 and (buf[k + 1] | 32) == 105
                and (buf[k + 2] | 32) == 100 and buf[k + 3] == 58):
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
                    fill, max_label, qid_optional):
    """Fill rows from line-aligned parts ``buf[bounds[p]:bounds[p+1]]`` in parallel.

    Each part gets one row slot per line (a vectorized newline count), or, when the slots
    would not fit in X, its exact data-row count; rows of parts that held blank or comment
    lines are then moved down so that the rows stay contiguous and in file order. When even
    the exact rows do not fit (the file grew since it was counted, or a cached count is
    stale) nothing is written and the code is ``E_GROWN``: no write past the arrays.
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
                                           row0 + sstart[p], line0 + lstart[p], max_label, qid_optional)
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



"""Parallel drivers: count and scan lines, cut a chunk into line-aligned parts, and parse
the parts in parallel, each part through the fast and strict grammars.

The kernels are serial ``nogil`` numba functions, one call per part; a thread pool of
``numba.get_num_threads()`` threads (what ``--threads`` sets) runs the parts at once. The
drivers were ``parallel=True`` / ``prange`` kernels before: same parts, same results, but
numba's parfor pass made a cold compile of the reader take ~35 s of CPU (measured: 22-34 s
for the first read of a 4-line file in a fresh process, ~8 s now).
"""
from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np

from .bits import _digits_swar, _load_u64, _popcount64
from .fast import _line_end, _line_head, _parse_lines, _token_end
from .strict import E_GROWN, _is_space

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


_POOLS: dict = {}
_POOLS_LOCK = threading.Lock()


def _forget_pools() -> None:
    """In a forked child (the runner's zygote forks its units): the parent's pool threads
    are not copied, so its pools are dropped (the child makes its own) and the lock renewed."""
    global _POOLS_LOCK
    _POOLS_LOCK = threading.Lock()
    _POOLS.clear()


if hasattr(os, "register_at_fork"):      # POSIX
    os.register_at_fork(after_in_child=_forget_pools)


def _pool(n_threads: int) -> ThreadPoolExecutor:
    """This process's pool of ``n_threads`` threads, made on first use and kept (a pool per
    call measured 1-4 ms, a reused one ~0.1 ms)."""
    with _POOLS_LOCK:
        pool = _POOLS.get(n_threads)
        if pool is None:
            pool = _POOLS[n_threads] = ThreadPoolExecutor(max_workers=n_threads,
                                                          thread_name_prefix="ltrrepro-svmlight")
    return pool


def _run_parts(kernel, calls, n_threads=None) -> list:
    """``[kernel(*args) for args in calls]``, the calls spread over ``n_threads`` threads
    (default ``numba.get_num_threads()``, which ``--threads`` sets); the kernels release the
    GIL. Results in the order of ``calls`` whatever the thread count."""
    n_threads = max(1, numba.get_num_threads() if n_threads is None else int(n_threads))
    if n_threads == 1 or len(calls) <= 1:
        return [kernel(*args) for args in calls]
    return list(_pool(n_threads).map(lambda args: kernel(*args), calls))


def _scan_light(buf, bounds, n_threads=None):
    """(data rows, largest feature index) of the line-aligned parts ``buf[bounds[p]:bounds[p+1]]``."""
    bounds = [int(b) for b in bounds]
    got = _run_parts(_scan_lines, [(buf, lo, hi) for lo, hi in zip(bounds[:-1], bounds[1:])], n_threads)
    return sum(int(r) for r, _ in got), max(int(m) for _, m in got)


def _count_newlines(buf, n_parts, n_threads=None):
    """Newline bytes in ``buf``, counted in ``n_parts`` near-equal parts."""
    n = buf.shape[0]
    cuts = [n * p // n_parts for p in range(n_parts + 1)]
    return sum(int(c) for c in _run_parts(_newlines, [(buf, lo, hi) for lo, hi in zip(cuts[:-1], cuts[1:])],
                                          n_threads))


def _parse_parallel(buf, bounds, d_limit, X, y, qid, linenos, doc_lo, doc_hi, seen, row0, line0,
                    fill, max_label, qid_optional, n_threads=None):
    """Fill rows from line-aligned parts ``buf[bounds[p]:bounds[p+1]]`` in parallel; returns
    (rows, code, line after the chunk or of the error, error position).

    Each part gets one row slot per line (a vectorized newline count), or, when the slots
    would not fit in X, its exact data-row count; rows of parts that held blank or comment
    lines are then moved down so that the rows stay contiguous and in file order. When even
    the exact rows do not fit (the file grew since it was counted, or a cached count is
    stale) nothing is written and the code is ``E_GROWN``: no write past the arrays.
    Part ``p`` uses ``seen[p]``; the first part with an error (in file order) is reported,
    with the rows of the parts before it.
    """
    bounds = [int(b) for b in bounds]
    parts = list(zip(bounds[:-1], bounds[1:]))
    row0, line0 = int(row0), int(line0)
    lines = np.array(_run_parts(_newlines, [(buf, lo, hi) for lo, hi in parts], n_threads), np.int64)
    lines += [1 if hi > lo and buf[hi - 1] != 10 else 0 for lo, hi in parts]
    slots = lines
    if row0 + int(lines.sum()) > X.shape[0]:
        slots = np.array([r for r, _ in _run_parts(_count_lines, [(buf, lo, hi) for lo, hi in parts],
                                                   n_threads)], np.int64)
        if row0 + int(slots.sum()) > X.shape[0] or int(slots.sum()) > doc_lo.shape[0]:
            return 0, E_GROWN, line0, 0
    sstart = np.concatenate([[0], np.cumsum(slots)[:-1]]).astype(np.int64)
    lstart = np.concatenate([[0], np.cumsum(lines)[:-1]]).astype(np.int64)
    calls = [(buf, lo, hi, d_limit, X, y, qid, linenos, doc_lo, doc_hi, row0, seen[p],
              row0 + int(sstart[p]), line0 + int(lstart[p]), max_label, qid_optional)
             for p, (lo, hi) in enumerate(parts)]
    got = _run_parts(_parse_lines, calls, n_threads)
    rows = [int(r) for r, _, _, _ in got]
    for p, (_, code, eline, pos) in enumerate(got):
        if code != 0:
            return sum(rows[:p]), int(code), int(eline), int(pos)
    total = 0
    for p, r in enumerate(rows):
        src, dst = row0 + int(sstart[p]), row0 + total
        if dst != src and r:        # compact (only after blank or comment lines); numpy copies overlaps safely
            for a in (X, y, qid, linenos):
                a[dst:dst + r] = a[src:src + r]
            for a in (doc_lo, doc_hi):
                a[dst - row0:dst - row0 + r] = a[src - row0:src - row0 + r]
        total += r
    end = row0 + int(slots.sum())
    X[row0 + total:end] = fill      # vacated slots: as allocated again
    doc_lo[total:end - row0] = -1
    doc_hi[total:end - row0] = -1
    return total, 0, line0 + int(lines.sum()), 0

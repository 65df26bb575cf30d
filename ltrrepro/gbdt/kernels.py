"""Numba kernels of the histogram tree learner (see :mod:`ltrrepro.gbdt.tree` for the maths).

Documents of a node are the segment ``order[s:e]`` of a permutation of the rows; the pairs
of a node (both documents inside it) are the segment ``[s, e)`` of the pair arrays, which
are permuted in place as nodes split. Histograms are float64 arrays indexed by
(feature, bin). The document histogram kernel is parallel over ``nblk`` blocks of features
(one per thread), so that no two threads write the same cell; the pair histogram kernel over
slices of the pairs, each thread into its own partial histograms, summed at the end.
"""
from __future__ import annotations

import numba
import numpy as np

SE, RWSE, OLE = 0, 1, 2
CRITERIA = {"se": SE, "rwse": RWSE, "ole": OLE}

#: A child whose exact second derivative is below this fraction of its diagonal one is flat
#: (all its pairs lie inside it: L' and L'' are 0 up to rounding); its term counts as 0.
DEGENERATE = 1e-9

#: :func:`hist_pairs` splits a range of pairs over threads from this many pairs on.
MIN_PARALLEL_PAIRS = 20000


@numba.njit(parallel=True, cache=True)
def hist_docs(bins, order, s, e, grad, hess, out, nblk):
    """out[f, b] = (Σ grad, Σ hess, count) over documents order[s:e] with bins[d, f] == b."""
    F = bins.shape[1]
    for blk in numba.prange(nblk):
        f0 = blk * F // nblk
        f1 = (blk + 1) * F // nblk
        out[f0:f1] = 0.0
        for k in range(s, e):
            d = order[k]
            g = grad[d]
            h = hess[d]
            for f in range(f0, f1):
                b = bins[d, f]
                out[f, b, 0] += g
                out[f, b, 1] += h
                out[f, b, 2] += 1.0


@numba.njit(cache=True, nogil=True)
def _flush_window(bins, base, acc, hsum, touched, nt, mark, hist, dhist):
    """For the touched rows r of a window: hist[f, b] += acc[r, f] and dhist[f, b] += hsum[r]
    at b = bins[base + r, f]; the rows, sums and marks are reset."""
    F = bins.shape[1]
    for t in range(nt):
        r = touched[t]
        row = bins[base + r]
        a = acc[r]
        h = hsum[r]
        for f in range(F):
            b = row[f]
            hist[f, b] += a[f]
            dhist[f, b] += h
            a[f] = 0.0
        hsum[r] = 0.0
        mark[r] = False


@numba.njit(parallel=True, cache=True)
def hist_pairs(bins, pi, pj, prho, s, e, out, dout, acc, min_parallel):
    """The two pair histograms of the pairs [s, e), both additive over pair ranges (so a
    child's come from its parent's by subtraction):

    * ``out[f, b]`` = Σ rho over pairs whose larger bin on feature f is b — its cumulative
      sum over b ≤ t is the weight of the pairs lying wholly left of "bin ≤ t";
    * ``dout[f, b]`` = Σ over pairs of rho·([b_if = b] + [b_jf = b]) — for the node's inner
      pairs, the histogram of each document's inner pair weight h_in (left cumulative sum =
      2·inner-left weight + weight across the threshold).

    Computed through the documents rather than pair by pair: a pair's weight goes to the
    document holding its larger bin (the first document on a tie: same bin), feature by
    feature — ``acc[i, f] += rho·[b_if ≥ b_jf]``, ``acc[j, f] += rho·[b_if < b_jf]``, a
    dense loop over features that vectorizes — and each document then adds ``acc[d, f]``
    to ``out[f, b_df]`` and its pair weight to ``dout[f, b_df]``: scattered updates per
    (document, feature) instead of per (pair, feature). ``acc`` is a zeroed scratch of
    shape (threads, W, features), left zeroed: each thread takes a slice of the pairs and
    accumulates over a window of W consecutive rows (pairs come grouped by query and a
    query's rows are consecutive), flushed when a pair leaves it; a pair whose rows are W or
    more apart is added directly. Ranges of fewer than ``min_parallel`` pairs use one thread
    (the learner passes :data:`MIN_PARALLEL_PAIRS`; no default: an omitted argument is
    another signature, compiled again).
    """
    F = bins.shape[1]
    B = out.shape[1]
    W = acc.shape[1]
    nthr = acc.shape[0] if e - s >= min_parallel else 1
    parts = np.zeros((nthr, 2, F, B))
    for t in numba.prange(nthr):
        k0 = s + (e - s) * t // nthr
        k1 = s + (e - s) * (t + 1) // nthr
        hist = parts[t, 0]
        dhist = parts[t, 1]
        win = acc[t]
        hsum = np.zeros(W)
        mark = np.zeros(W, np.bool_)
        touched = np.empty(W, np.int64)
        nt = 0
        base = 0
        for k in range(k0, k1):
            a = pi[k]
            b = pj[k]
            lo = min(a, b)
            hi = max(a, b)
            w = prho[k]
            ra = bins[a]
            rb = bins[b]
            if hi - lo >= W:                          # too far apart for a window
                for f in range(F):
                    hist[f, max(ra[f], rb[f])] += w
                    dhist[f, ra[f]] += w
                    dhist[f, rb[f]] += w
                continue
            if nt == 0 or lo < base or hi >= base + W:
                _flush_window(bins, base, win, hsum, touched, nt, mark, hist, dhist)
                nt = 0
                base = lo
            la = a - base
            lb = b - base
            if not mark[la]:
                mark[la] = True
                touched[nt] = la
                nt += 1
            if not mark[lb]:
                mark[lb] = True
                touched[nt] = lb
                nt += 1
            hsum[la] += w
            hsum[lb] += w
            A = win[la]
            C = win[lb]
            for f in range(F):
                cw = w * np.float64(ra[f] >= rb[f])
                A[f] += cw
                C[f] += w - cw
        _flush_window(bins, base, win, hsum, touched, nt, mark, hist, dhist)
    for f in numba.prange(F):
        for b in range(B):
            v = 0.0
            u = 0.0
            for t in range(nthr):
                v += parts[t, 0, f, b]
                u += parts[t, 1, f, b]
            out[f, b] = v
            dout[f, b] = u


@numba.njit(cache=True, nogil=True)
def max_pair_span(pi, pj, s, e):
    """Largest |pi − pj| + 1 over pairs [s, e) (0 when there is none)."""
    m = 0
    for k in range(s, e):
        d = abs(pi[k] - pj[k]) + 1
        if d > m:
            m = d
    return m


@numba.njit(cache=True, nogil=True, inline="always")
def _term(g, d, ref):
    if d <= DEGENERATE * ref or d <= 0.0:
        return 0.0
    return g * g / d


@numba.njit(parallel=True, cache=True)
def best_splits(hist, ahist, inhist, nbins, criterion, G, H, N, T, lam, min_data, min_hess,
                out_gain, out_bin):
    """Best threshold of every feature under ``criterion``; gains are
    score(left) + score(right) − score(node), score = Σg² / denominator:

    * SE    denominator = count + λ           (least squares on r = −g, unit weights)
    * RWSE  denominator = Σ hess + λ          (Newton gain, the libraries' criterion)
    * OLE   denominator = Σ hess − 2·(pairs inside the child) + λ   (exact L'' of the child)
    """
    F = hist.shape[0]
    if criterion == SE:
        parent = _term(G, N + lam, N + lam)
    elif criterion == RWSE:
        parent = _term(G, H + lam, H + lam)
    else:
        parent = _term(G, H - 2.0 * T + lam, H + lam)
    for f in numba.prange(F):
        best = -np.inf
        bbin = -1
        gl = 0.0
        hl = 0.0
        nl = 0.0
        al = 0.0
        il = 0.0
        for t in range(nbins[f] - 1):
            gl += hist[f, t, 0]
            hl += hist[f, t, 1]
            nl += hist[f, t, 2]
            if criterion == OLE:
                al += ahist[f, t]
                il += inhist[f, t]
            nr = N - nl
            hr = H - hl
            if nl < min_data or nr < min_data or hl < min_hess or hr < min_hess:
                continue
            gr = G - gl
            if criterion == SE:
                gain = _term(gl, nl + lam, nl + lam) + _term(gr, nr + lam, nr + lam) - parent
            elif criterion == RWSE:
                gain = _term(gl, hl + lam, hl + lam) + _term(gr, hr + lam, hr + lam) - parent
            else:
                cr = T - il + al          # pairs wholly right: min bin > t
                gain = (_term(gl, hl - 2.0 * al + lam, hl + lam) + _term(gr, hr - 2.0 * cr + lam, hr + lam)
                        - parent)
            if gain > best:
                best = gain
                bbin = t
        out_gain[f] = best
        out_bin[f] = bbin


@numba.njit(cache=True, nogil=True)
def partition_docs(bins, order, s, e, f, t, side, buf):
    """Stable in-place partition of order[s:e] into bins[d, f] ≤ t (left) and the rest;
    side[d] = 1 for left documents, 0 for right ones. Returns the left count."""
    nl = 0
    nr = 0
    for k in range(s, e):
        d = order[k]
        if bins[d, f] <= t:
            side[d] = 1
            order[s + nl] = d
            nl += 1
        else:
            side[d] = 0
            buf[nr] = d
            nr += 1
    for k in range(nr):
        order[s + nl + k] = buf[k]
    return nl


@numba.njit(cache=True, nogil=True)
def partition_pairs(pi, pj, prho, s, e, side, bi, bj, br):
    """Stable in-place partition of the pairs [s, e): both documents left, then both right,
    then the pairs split across the children (they lie in no descendant; kept last for the
    histogram subtraction). Returns the left and right counts."""
    nl = 0
    nr = 0
    nx = 0
    m = e - s
    for k in range(s, e):
        a = side[pi[k]]
        b = side[pj[k]]
        if a == 1 and b == 1:
            pi[s + nl] = pi[k]
            pj[s + nl] = pj[k]
            prho[s + nl] = prho[k]
            nl += 1
        elif a == 0 and b == 0:
            bi[nr] = pi[k]
            bj[nr] = pj[k]
            br[nr] = prho[k]
            nr += 1
        else:
            bi[m - 1 - nx] = pi[k]
            bj[m - 1 - nx] = pj[k]
            br[m - 1 - nx] = prho[k]
            nx += 1
    for k in range(nr):
        pi[s + nl + k] = bi[k]
        pj[s + nl + k] = bj[k]
        prho[s + nl + k] = br[k]
    for k in range(nx):
        pi[s + nl + nr + k] = bi[m - 1 - k]
        pj[s + nl + nr + k] = bj[m - 1 - k]
        prho[s + nl + nr + k] = br[m - 1 - k]
    return nl, nr


@numba.njit(cache=True, nogil=True)
def leaf_pair_weight(leaf_of_row, pi, pj, prho, n_leaves):
    """Σ rho over the pairs whose two documents share a leaf, per leaf."""
    out = np.zeros(n_leaves)
    for k in range(pi.shape[0]):
        a = leaf_of_row[pi[k]]
        if a == leaf_of_row[pj[k]]:
            out[a] += prho[k]
    return out


@numba.njit(parallel=True, cache=True)
def predict_raw(X, feature, threshold, left, right, value, node_start, leaf_start, tree_class, out):
    """out[i, class] += Σ over trees of the leaf value reached by row i (x ≤ threshold: left;
    a child < 0 is leaf ~child)."""
    n = X.shape[0]
    ntrees = node_start.shape[0] - 1
    for i in numba.prange(n):
        for t in range(ntrees):
            ns = node_start[t]
            leaf = 0
            if node_start[t + 1] > ns:
                node = 0
                while True:
                    k = ns + node
                    nxt = left[k] if X[i, feature[k]] <= threshold[k] else right[k]
                    if nxt < 0:
                        leaf = ~nxt
                        break
                    node = nxt
            out[i, tree_class[t]] += value[leaf_start[t] + leaf]


@numba.njit(parallel=True, cache=True)
def predict_binned_tree(bins, feature, threshold_bin, left, right, value, out):
    """out[i] += the leaf value of one tree for binned rows."""
    n = bins.shape[0]
    if feature.shape[0] == 0:
        for i in numba.prange(n):
            out[i] += value[0]
        return
    for i in numba.prange(n):
        node = 0
        while True:
            nxt = left[node] if bins[i, feature[node]] <= threshold_bin[node] else right[node]
            if nxt < 0:
                out[i] += value[~nxt]
                break
            node = nxt

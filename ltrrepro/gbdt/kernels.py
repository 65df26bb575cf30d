"""Numba kernels of the histogram tree learner (see :mod:`ltrrepro.gbdt.tree` for the maths).

Documents of a node are the segment ``order[s:e]`` of a permutation of the rows; the pairs
of a node (both documents inside it) are the segment ``[s, e)`` of the pair arrays, which
are permuted in place as nodes split. Histograms are float64 arrays indexed by
(feature, bin); the histogram kernels are parallel over ``nblk`` blocks of features (one per
thread), so that no two threads write the same cell.
"""
from __future__ import annotations

import numba
import numpy as np

SE, RWSE, OLE = 0, 1, 2
CRITERIA = {"se": SE, "rwse": RWSE, "ole": OLE}

#: A child whose exact second derivative is below this fraction of its diagonal one is flat
#: (all its pairs lie inside it: L' and L'' are 0 up to rounding); its term counts as 0.
DEGENERATE = 1e-9


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


@numba.njit(parallel=True, cache=True)
def hist_values(bins, order, s, e, vals, out, nblk):
    """out[f, b] = Σ vals[d] over documents order[s:e] with bins[d, f] == b."""
    F = bins.shape[1]
    for blk in numba.prange(nblk):
        f0 = blk * F // nblk
        f1 = (blk + 1) * F // nblk
        out[f0:f1] = 0.0
        for k in range(s, e):
            d = order[k]
            v = vals[d]
            for f in range(f0, f1):
                out[f, bins[d, f]] += v


@numba.njit(parallel=True, cache=True)
def hist_pairs_max(bins, pi, pj, prho, s, e, out, nblk):
    """out[f, b] = Σ rho over pairs [s, e) whose larger bin on feature f is b, so that the
    cumulative sum over b ≤ t is the weight of the pairs lying wholly left of "bin ≤ t"."""
    F = bins.shape[1]
    B = out.shape[1]
    flat = out.reshape(-1)
    for blk in numba.prange(nblk):
        f0 = blk * F // nblk
        f1 = (blk + 1) * F // nblk
        flat[f0 * B:f1 * B] = 0.0
        for k in range(s, e):
            ri = bins[pi[k]]
            rj = bins[pj[k]]
            r = prho[k]
            base = f0 * B
            for f in range(f0, f1):
                bi = ri[f]
                bj = rj[f]
                flat[base + (bi if bi > bj else bj)] += r
                base += B


@numba.njit(cache=True, nogil=True)
def inner_hessian(order, s, e, pi, pj, prho, ps, pe, hin):
    """hin[d] = Σ rho over the node's pairs containing d, for the node's documents."""
    for k in range(s, e):
        hin[order[k]] = 0.0
    for k in range(ps, pe):
        r = prho[k]
        hin[pi[k]] += r
        hin[pj[k]] += r


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

"""Histogram regression trees with three split principles (Xia et al.; docs/protocols/xia.md §1),
grown width-first or best-first.

For a node D split by a threshold into children D_l, D_r, each child gets one output o and
the objective is expanded to second order in o (Xia Eq. 10–13). With per-document first and
second derivatives g_d, h_d of the objective and r = −g:

* **SE** (Eq. 3): minimise Σ_l (r − r̄_l)² + Σ_r (r − r̄_r)²; gain
  G_l²/n_l + G_r²/n_r − G²/n.
* **RWSE** (Eq. 9; LightGBM's and XGBoost's Newton gain): G_l²/H_l + G_r²/H_r − G²/H.
* **OLE** (Eq. 13), exact: G_l²/L″_l + G_r²/L″_r − G²/L″_D, with L″_C the true second
  derivative of the objective in the output of child C. For a derivative-additive loss
  L″_C = H_C (OLE = RWSE, Theorem 1). For a pairwise loss L = Σ_pairs ℓ_ij(f_i − f_j), a
  pair with both documents in C does not move with o_C, so
  L″_C = Σ_{d∈C} h_d − 2 Σ_{pairs ⊂ C} ρ_ij, ρ_ij the pair's term in h_i and h_j
  (Xia §3.2, Example 3); L′_C = G_C exactly (the pair's two gradient terms cancel).

The pairs inside a child "bin ≤ t" are those whose larger bin is ≤ t; those inside the
other child have their smaller bin > t. One histogram of pair weights by larger bin (A) and
one of each document's inner pair weight h_in(d) (I) give both for every threshold by
cumulative sums: pairs left = A(≤t), pairs right = T − I(≤t) + A(≤t), T the node's pair
weight — the incremental left-to-right update of Xia §3.3, with no recomputation of the
objective per threshold. Both histograms are additive over sets of pairs, so a child's
come from its parent's minus its sibling's minus those of the pairs split across (the
cheaper two of three groups are computed). Cost: O(pairs in node × features) per node,
against O(documents in node × features) for SE and RWSE; the kernel
(:func:`kernels.hist_pairs`) moves each pair's weight to the document holding the larger
bin in a dense, vectorized loop over features and scatters once per (document, feature).

Leaves (all principles, Xia Eq. 8/11): one Newton step −G/(L″ + λ), with L″ exact
(``leaf_hessian="exact"``, the default) or the diagonal Σh (``"diagonal"``, the libraries'
rule). Gains carry no factor ½ (LightGBM's convention); the OLE loss decrease is half the
gain.

Growth (``growth``), to ``num_leaves`` leaves:

* ``"width-first"`` — Xia et al. §4 ("we thus adopted the width-first search and limits the
  number of leaves"): a breadth-first search over the nodes. Nodes split in the order they
  were created — the root, then its children left to right, then theirs — so a tree is
  complete level by level; when the leaf limit falls inside a level, the leftmost nodes of
  that level have split and the rest stay leaves. A node that cannot split (no feasible
  threshold or gain ≤ ``min_gain_to_split``) stays a leaf and the search goes on.
* ``"best-first"`` — LightGBM's leaf-wise growth: the leaf of largest gain splits next.

A leaf splits only with children of at least ``min_data_in_leaf`` documents and
``min_sum_hessian_in_leaf`` diagonal Hessian (the same feasible set for every principle), and
(``split_rule``):

* ``"leaf-limit"`` (default; Xia et al.: the tree grows to the leaf limit, OLE only chooses the
  split) — an exact-OLE node (``criterion="ole"`` with pairs) splits at its best feasible
  threshold whatever the sign of the gain (an exact-OLE gain can be negative: the pairs
  crossing the children); SE and RWSE (and OLE without pairs, = RWSE) keep gain >
  ``min_gain_to_split``, their gains being ≥ 0;
* ``"positive-gain"`` — every node needs gain > ``min_gain_to_split`` (an exact-OLE tree can
  then stop short of the leaf limit).

Ties between thresholds go to the lower feature and bin.

Deviation from the paper: thresholds are histogram bins (≤ 256 per feature, as LightGBM),
not every distinct value.
"""
from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from . import kernels as K

__all__ = ["Tree", "TreeGrower", "SPLIT_RULES"]

#: when a node may split: any feasible threshold for exact OLE (the paper's) or gain > min gain
SPLIT_RULES = ("leaf-limit", "positive-gain")


@dataclass
class Tree:
    """One regression tree. Internal node k: ``feature[k]``, ``threshold_bin[k]`` (bin ≤ → left),
    ``threshold[k]`` (raw value ≤ → left), children ``left[k]``/``right[k]`` (≥ 0: node,
    < 0: leaf ~child), ``gain[k]``. Leaves: ``value`` (learning rate applied), ``count``.
    A tree with no internal node is a single leaf."""

    feature: np.ndarray
    threshold_bin: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    gain: np.ndarray
    value: np.ndarray
    count: np.ndarray

    @property
    def num_leaves(self) -> int:
        return int(self.value.shape[0])

    def predict_binned(self, bins: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        out = np.zeros(bins.shape[0]) if out is None else out
        K.predict_binned_tree(bins, self.feature, self.threshold_bin, self.left, self.right, self.value, out)
        return out


class _Leaf:
    __slots__ = ("s", "e", "ps", "pe", "G", "H", "N", "T", "hist", "ahist", "ihist", "gain", "feature", "bin", "parent",
                 "is_left", "seq")

    def __init__(self, s, e, ps, pe, parent, is_left, seq=0):
        self.s, self.e, self.ps, self.pe, self.seq = s, e, ps, pe, seq
        self.parent, self.is_left = parent, is_left
        self.hist = self.ahist = self.ihist = None
        self.gain = -np.inf
        self.feature = -1
        self.bin = -1


class TreeGrower:
    """Grows trees on fixed binned features; one grower serves every boosting iteration.

    Parameters
    ----------
    bins : uint8 (n, F) bin codes; ``n_bins`` : bins per feature; ``thresholds`` : the
        :class:`~ltrrepro.gbdt.binning.BinMapper` bounds (for raw-value thresholds).
    criterion : "se", "rwse" or "ole".
    leaf_hessian : "exact" (−G / L″, L″ excluding the leaf's inner pairs) or "diagonal"
        (−ΣL′/ΣL″ over the leaf's documents: Xia Eq. 8, the standard LambdaMART leaf).
    growth : "width-first" (Xia et al.) or "best-first" (LightGBM's leaf-wise order).
    split_rule : "leaf-limit" (exact-OLE nodes split whatever their gain's sign) or
        "positive-gain" (gain > ``min_gain_to_split`` for every node), see :data:`SPLIT_RULES`.
    """

    GROWTH = ("width-first", "best-first")

    def __init__(self, bins, n_bins, thresholds, criterion="ole", num_leaves=20, min_data_in_leaf=20,
                 min_sum_hessian_in_leaf=1e-3, lambda_l2=0.0, min_gain_to_split=0.0, leaf_hessian="exact",
                 growth="best-first", split_rule="leaf-limit"):
        if split_rule not in SPLIT_RULES:
            raise ValueError(f"split_rule must be one of {SPLIT_RULES}, got {split_rule!r}")
        self.split_rule = split_rule
        if criterion not in K.CRITERIA:
            raise ValueError(f"criterion must be one of {sorted(K.CRITERIA)}, got {criterion!r}")
        if leaf_hessian not in ("exact", "diagonal"):
            raise ValueError("leaf_hessian must be 'exact' or 'diagonal'")
        if growth not in self.GROWTH:
            raise ValueError(f"growth must be one of {self.GROWTH}, got {growth!r}")
        self.growth = growth
        if num_leaves < 1:
            raise ValueError("num_leaves must be >= 1")
        self.bins = np.ascontiguousarray(bins, dtype=np.uint8)
        self.n_bins = np.asarray(n_bins, dtype=np.int64)
        self.thresholds = thresholds
        self.criterion = criterion
        self._crit = K.CRITERIA[criterion]
        self.num_leaves = int(num_leaves)
        self.min_data = float(min_data_in_leaf)
        self.min_hess = float(min_sum_hessian_in_leaf)
        self.lam = float(lambda_l2)
        self.min_gain = float(min_gain_to_split)
        self.leaf_hessian = leaf_hessian
        n, F = self.bins.shape
        self.B = int(max(self.n_bins.max(initial=1), 1))
        self.order = np.empty(n, dtype=np.int64)
        self.side = np.zeros(n, dtype=np.uint8)
        self.buf = np.empty(n, dtype=np.int64)
        self._zeros = np.zeros((F, self.B))
        self._gain = np.empty(F)
        self._bin = np.empty(F, dtype=np.int64)
        self._pair_scratch = None        # per-thread windows of hist_pairs, see _scratch

    # ------------------------------------------------------------------ helpers
    def _nblk(self) -> int:
        return max(1, min(self.bins.shape[1], numba.get_num_threads()))

    def _scratch(self, span: int) -> np.ndarray:
        """Zeroed per-thread windows for :func:`kernels.hist_pairs`, wide enough for the
        pairs' largest row span (capped at 4,096 rows; wider pairs are added directly), kept
        between trees (the kernel leaves them zeroed)."""
        W = int(min(max(span, 1), 4096))
        shape = (numba.get_num_threads(), W, self.bins.shape[1])
        if self._pair_scratch is None or self._pair_scratch.shape[0] != shape[0] \
                or self._pair_scratch.shape[1] < W:
            return np.zeros(shape)
        return self._pair_scratch

    def _doc_hist(self, leaf, grad, hess):
        h = np.empty((self.bins.shape[1], self.B, 3))
        K.hist_docs(self.bins, self.order, leaf.s, leaf.e, grad, hess, h, self._nblk())
        return h

    def _pair_hists(self, leaf, pairs):
        """The node's histograms of its inner pairs: weight by larger bin (``ahist``) and each
        document's inner pair weight h_in by its bin (``ihist``), one pass over the pairs."""
        leaf.ahist, leaf.ihist = self._pair_range_hists(pairs, leaf.ps, leaf.pe)

    def _pair_range_hists(self, pairs, ps, pe):
        F = self.bins.shape[1]
        ahist = np.empty((F, self.B))
        ihist = np.empty((F, self.B))
        K.hist_pairs(self.bins, pairs[0], pairs[1], pairs[2], ps, pe, ahist, ihist, self._pair_scratch,
                     K.MIN_PARALLEL_PAIRS)
        return ahist, ihist

    def _find(self, leaf):
        if leaf.e - leaf.s < 2 * self.min_data or leaf.e - leaf.s < 2:
            leaf.gain = -np.inf
            return
        ahist = leaf.ahist if leaf.ahist is not None else self._zeros
        ihist = leaf.ihist if leaf.ihist is not None else self._zeros
        K.best_splits(leaf.hist, ahist, ihist, self.n_bins, self._crit, leaf.G, leaf.H, leaf.N, leaf.T, self.lam,
                      self.min_data, self.min_hess, self._gain, self._bin)
        f = int(np.argmax(self._gain))
        leaf.gain = float(self._gain[f])
        leaf.feature = f
        leaf.bin = int(self._bin[f])

    def _totals(self, leaf, pairs):
        h0 = leaf.hist[0]
        leaf.G = float(h0[:, 0].sum())
        leaf.H = float(h0[:, 1].sum())
        leaf.N = float(h0[:, 2].sum())
        leaf.T = float(pairs[2][leaf.ps:leaf.pe].sum()) if pairs is not None else 0.0

    def leaf_value(self, G, H, T) -> float:
        """−G / (L″ + λ), L″ = H − 2T (exact) or H; 0 for a flat leaf (L″ ≈ 0)."""
        d = (H - 2.0 * T if self.leaf_hessian == "exact" else H) + self.lam
        if d <= K.DEGENERATE * (H + self.lam) or d <= 0.0:
            return 0.0
        return -G / d

    # ------------------------------------------------------------------ growth
    def grow(self, grad, hess, pairs=None, learning_rate: float = 1.0):
        """Grow one tree on per-document ``grad``/``hess`` (float64, length n). ``pairs``:
        ``(i, j, rho)`` of a pairwise objective (copied; needed for OLE and exact leaves), or
        None for a derivative-additive loss. Returns ``(tree, leaf_of_row)``."""
        grad = np.ascontiguousarray(grad, dtype=np.float64)
        hess = np.ascontiguousarray(hess, dtype=np.float64)
        n = self.bins.shape[0]
        if grad.shape != (n,) or hess.shape != (n,):
            raise ValueError(f"grad/hess must have shape ({n},)")
        self.order[:] = np.arange(n)
        ole = self._crit == K.OLE and pairs is not None
        npairs = 0
        if ole:
            # the pairs are partitioned along with the documents: copy them
            pi, pj, prho = pairs
            pairs = (np.array(pi, dtype=np.int64), np.array(pj, dtype=np.int64), np.array(prho, dtype=np.float64))
            npairs = pairs[0].shape[0]
            pbuf = (np.empty(npairs, dtype=np.int64), np.empty(npairs, dtype=np.int64), np.empty(npairs))
            self._pair_scratch = self._scratch(K.max_pair_span(pairs[0], pairs[1], 0, npairs))
        inner = pairs if ole else None
        # exact OLE under the paper's rule: any feasible split (gain > −inf) until the leaf limit
        self._floor = -np.inf if ole and self.split_rule == "leaf-limit" else self.min_gain
        root = _Leaf(0, n, 0, npairs, -1, False)
        root.hist = self._doc_hist(root, grad, hess)
        self._totals(root, inner)
        if ole:
            self._pair_hists(root, pairs)
        self._find(root)
        leaves = [root]
        nodes = []                       # [feature, bin, left, right, gain]
        created = 1
        while len(leaves) < self.num_leaves:
            k = self._next(leaves)
            if k < 0:
                break
            best = leaves[k]
            nid = len(nodes)
            nodes.append([best.feature, best.bin, 0, 0, best.gain])
            if best.parent >= 0:
                nodes[best.parent][2 if best.is_left else 3] = nid
            nl = K.partition_docs(self.bins, self.order, best.s, best.e, best.feature, best.bin, self.side, self.buf)
            pl = pr = 0
            if ole and best.pe > best.ps:
                pl, pr = K.partition_pairs(pairs[0], pairs[1], pairs[2], best.ps, best.pe, self.side, *pbuf)
            left = _Leaf(best.s, best.s + nl, best.ps, best.ps + pl, nid, True, created)
            right = _Leaf(best.s + nl, best.e, best.ps + pl, best.ps + pl + pr, nid, False, created + 1)
            created += 2
            small, large = (left, right) if nl <= best.e - best.s - nl else (right, left)
            small.hist = self._doc_hist(small, grad, hess)
            large.hist = best.hist - small.hist          # LightGBM's histogram subtraction
            best.hist = None
            if ole:
                # inner pairs of the parent = those of the children + the cross pairs, so the
                # child with more pairs gets parent − other − cross when that is cheaper
                small, large = (left, right) if pl <= pr else (right, left)
                nx = best.pe - best.ps - pl - pr
                self._pair_hists(small, pairs)
                if nx < large.pe - large.ps:   # both histograms are additive over pair sets
                    cross_a, cross_i = self._pair_range_hists(pairs, best.pe - nx, best.pe)
                    large.ahist = best.ahist - small.ahist - cross_a
                    large.ihist = best.ihist - small.ihist - cross_i
                else:
                    self._pair_hists(large, pairs)
                best.ahist = best.ihist = None
            for child in (left, right):
                self._totals(child, inner)
                self._find(child)
            leaves[k:k + 1] = [left, right]
        return self._finish(leaves, nodes, learning_rate, n, None if ole else pairs)

    def _next(self, leaves) -> int:
        """Index of the leaf to split next, −1 when none can: the oldest splittable leaf
        (width-first: creation order is breadth-first order) or the one of largest gain."""
        ok = [i for i, lf in enumerate(leaves) if lf.gain > self._floor]
        if not ok:
            return -1
        if self.growth == "width-first":
            return min(ok, key=lambda i: leaves[i].seq)
        return max(ok, key=lambda i: leaves[i].gain)       # first of equal gains, as np.argmax

    def _finish(self, leaves, nodes, learning_rate, n, pairs):
        L = len(leaves)
        value = np.empty(L)
        count = np.empty(L, dtype=np.int64)
        leaf_of_row = np.empty(n, dtype=np.int64)
        for idx, lf in enumerate(leaves):
            leaf_of_row[self.order[lf.s:lf.e]] = idx
        if pairs is not None and self.leaf_hessian == "exact":   # SE, RWSE: inner pair weight per leaf
            T = K.leaf_pair_weight(leaf_of_row, np.asarray(pairs[0], dtype=np.int64),
                                   np.asarray(pairs[1], dtype=np.int64), np.asarray(pairs[2], dtype=np.float64), L)
            for idx, lf in enumerate(leaves):
                lf.T = float(T[idx])
        for idx, lf in enumerate(leaves):
            value[idx] = learning_rate * self.leaf_value(lf.G, lf.H, lf.T)
            count[idx] = lf.e - lf.s
            if lf.parent >= 0:
                nodes[lf.parent][2 if lf.is_left else 3] = ~idx
            lf.hist = lf.ahist = lf.ihist = None
        m = len(nodes)
        feature = np.array([nd[0] for nd in nodes], dtype=np.int64).reshape(m)
        tbin = np.array([nd[1] for nd in nodes], dtype=np.int64).reshape(m)
        thr = np.array([self.thresholds[f][b] for f, b in zip(feature, tbin)], dtype=np.float64).reshape(m)
        tree = Tree(feature=feature, threshold_bin=tbin, threshold=thr,
                    left=np.array([nd[2] for nd in nodes], dtype=np.int64).reshape(m),
                    right=np.array([nd[3] for nd in nodes], dtype=np.int64).reshape(m),
                    gain=np.array([nd[4] for nd in nodes], dtype=np.float64).reshape(m),
                    value=value, count=count)
        return tree, leaf_of_row

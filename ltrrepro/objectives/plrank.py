"""PL-Rank-3 with Kang et al.'s sampled Hessian: the expected DCG@K of a Plackett–Luce policy.

The policy ranks a list of m documents with scores f by drawing without replacement, each
step in proportion to e^{f}. For one sampled ranking y (y_k the document at 0-based rank k,
K' = min(K, m)), with rank weights θ_k = 1 / log2(k + 2), gains r_d = 2^{label_d} − 1
(Oosterhuis 2022; Kang et al. 2024)::

    D_k  = Σ_{d ∉ y_{<k}} e^{f_d}                  the mass left at rank k
    G_k  = Σ_{x ≥ k} θ_x r_{y_x}   (G_{K'} = 0)     the reward from rank k on
    DR_k = Σ_{j ≤ k} θ_j / D_j,    RI_k = Σ_{j ≤ k} G_j / D_j
    DS_k = Σ_{j ≤ k} θ_j / D_j²,   RS_k = Σ_{j ≤ k} G_j / D_j²,   C_k = Σ_{j ≤ k} 1 / D_j

and for each document d, κ = its rank if it is in the top K', else K' − 1 (PR = G_{κ+1} if
it is ranked, else 0; 1[d ∈ y] whether it is)::

    g_d   = 1[d ∈ y] − e^{f_d} C_κ                   ∂ log π(y_{<K'}) / ∂f_d
    Φ_d   = PR + e^{f_d} (r_d DR_κ − RI_κ)            PL-Rank-3's one-sample gradient
    Ψ_d   = PR · g_d + (Φ_d − PR)(1 + g_d) − e^{2 f_d} (r_d DS_κ − RS_κ)

R(f) = E_y[Σ_k θ_k r_{y_k}] is the expected DCG@K. E[Φ_d] = ∂R/∂f_d (Oosterhuis 2022, PL-Rank-3),
and, differentiating that identity once more (∂/∂f_d E[Φ] = E[Φ g_d] + E[∂Φ/∂f_d]),
E[Ψ_d] = ∂²R/∂f_d² (Kang et al. 2024's diagonal Hessian estimator). Both are averaged over the
same ``n_samples`` rankings and returned negated — objectives here minimise, −R — as
``grad = −mean Φ`` and ``hess = −mean Ψ`` (what the authors' ``plrank3obj`` hands XGBoost).

The Hessian of −R is not sign-constrained; ``hessian_policy`` says what the library gets:
``"none"`` (the authors': the estimate as it is, negative entries included — XGBoost accepts
it; LightGBM's adapter refuses it, see :class:`PLRank`), ``"clip"`` (max(h, ``hess_floor``)) or
``"abs"`` (max(|h|, ``hess_floor``)).

Sampling is the Gumbel trick in its exponential-race form: d's key is E_d e^{−f_d} with
E_d = −log U_d ~ Exp(1), and the ranking sorts keys ascending — the order of f_d + G_d with
G_d = −log E_d Gumbel, one logarithm per draw instead of two. The logarithm is fdlibm's
(:func:`_neg_log`, written without branches so that the keys' loop vectorises; libm's is one
call per key): within 1 ulp of libm's, equal to it for ~95% of the uniforms; a last bit that
differs reorders two keys only where they are within an ulp of each other (probability ~m²·2⁻⁵²
a ranking, the order of the exact ties below), so the rankings — and the estimates — are libm's
(bit for bit on every case checked). The top K of a sample's keys are
found by counting, for each key, the keys below it (a branch-free loop the compiler vectorises;
ties, of probability ~m²·2⁻⁵³, are ranked again, the earlier document first); lists longer than
``_RANK_ALL`` count only among the keys under a per-list threshold t with
Σ_d (1 − e^{−t e^{f_d}}) = K + 3√K + 3 keys under it on average, all keys where fewer than K
fall under it. The uniforms come from SplitMix64 (Vigna's 64-bit mixer) keyed per list by one
integer the round's generator draws, so a list's rankings depend only on that key, never on
threads or the other lists (lists run in parallel over numba's threads). Per sampled ranking of a
list of m: m uniforms and logarithms, c² comparisons (c ≤ m candidates), then O(K) for Φ and Ψ
of the K ranked documents (the prefix sums DR … C over the ranking's first K places); the
documents below the top K get theirs once per list from the sums over samples, O(m).

What is vectorised: samples go 16 at a time (``_BATCH``), one per vector lane, for the race keys
(:func:`_race_batch`; sample s still takes SplitMix64's states z + (s·m + i + 1)·γ, as one
sample after the other would) and for Φ and Ψ (:func:`_accumulate`, each sample's own
arithmetic; the scatter into the gradient and Hessian and the sums over samples in sample
order), so the numbers are those of one sample at a time, bit for bit; the selection goes one
sample at a time, its counting vectorised over the keys. The kernels use numba's
``error_model="numpy"`` (no check for a zero divisor, which kept loops with a division from
vectorising; no divisor here is 0), and those called once per sample or batch ``_nrt=False``
(no reference counting: they allocate nothing, and the counts' atomic updates cost ~25 ns a
call). Where the time goes, and the speed against a NumPy version in the authors' form:
``benchmarks/bench_plrank.py`` (docs/benchmarks.md).
Scores more than 300 below a list's maximum are raised to it (their probability, < e^{−300},
is below any sample's resolution) so that 1/D_k² stays finite. Lists of one document get 0.
References: [Oosterhuis 2022] (arXiv 2204.10872, PL-Rank-3), [Kang et al. 2024] (arXiv
2404.12190; code ``jkang98/2024-SIGIR-XGBoost-PL-Rank``, read, not copied), in docs/references.md.
"""
from __future__ import annotations

import math

import numba
import numpy as np
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

from .base import HESS_FLOOR, Objective, as_arrays

__all__ = ["PLRank", "plrank3_kernel", "HESSIAN_POLICIES"]

#: what the library receives of the sampled Hessian (see the module docstring)
HESSIAN_POLICIES = ("none", "clip", "abs")

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)
_FLOOR_GAP = 300.0
#: lists up to this long rank every key of a sample; longer ones the keys under a threshold
_RANK_ALL = 32
#: key buffers are padded with +inf to a multiple of this (8 doubles: one 512-bit vector)
_LANES = 8


@numba.njit(cache=True, nogil=True, inline="always", error_model="numpy")
def _mix_uniform(x):
    """SplitMix64's output for state x as a uniform in (0, 1]: (k + 0.5) / 2^53 for its top 53 bits
    k, never 0; k = 2^53 − 1 rounds to exactly 1 (probability 2^-53 a key), whose race key −log 1 =
    0 puts that document first — a bias of 2^-53 per key, left as it is so the stream stays the same."""
    x = (x ^ (x >> _S30)) * _M1
    x = (x ^ (x >> _S27)) * _M2
    x = x ^ (x >> _S31)
    return ((x >> _S11) + 0.5) * (1.0 / 9007199254740992.0)


@intrinsic
def _f64_bits(typingctx, x):
    """The bits of a float64 as an int64 (LLVM bitcast)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))
    return types.int64(types.float64), codegen


@intrinsic
def _bits_f64(typingctx, x):
    """The float64 of an int64's bits (LLVM bitcast)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())
    return types.float64(types.int64), codegen


# fdlibm's e_log.c (Sun Microsystems 1993): ln 2 in two parts, the minimax coefficients of
# log(1 + f) = 2 atanh(s), s = f / (2 + f), in s²
_LN2_HI, _LN2_LO = 6.93147180369123816490e-01, 1.90821492927058770002e-10
_LG1, _LG2, _LG3 = 6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01
_LG4, _LG5 = 2.222219843214978396e-01, 1.818357216161805012e-01
_LG6, _LG7 = 1.531383769920937332e-01, 1.479819860511658591e-01


@numba.njit(cache=True, nogil=True, inline="always", error_model="numpy")
def _neg_log(x):
    """−log x for a positive normal float64 x: fdlibm's ``__ieee754_log`` (e_log.c; error below
    1 ulp by its analysis) without its branches, so that loops of it vectorise. x = 2^k (1 + f),
    √2/2 ≤ 1 + f < √2; s = f / (2 + f); log x = k ln2 + f − (f²/2 − s (f²/2 + R(s²))), the form
    fdlibm takes for f in its middle range, f − s (f − R) elsewhere (both computed, one kept;
    k = 0 is the general formula with k ln 2 = 0 exactly). No fused multiply–adds (numba does
    not contract without fastmath), so every build gives the same bits; within 1 ulp of libm's
    ``log`` (they differ in the last bit for about 5% of the uniforms)."""
    b = _f64_bits(x)
    hx = b >> 32
    k = (hx >> 20) - 1023
    hx &= 0xFFFFF
    t = (hx + 0x95F64) & 0x100000
    f = _bits_f64(((hx | (t ^ 0x3FF00000)) << 32) | (b & 0xFFFFFFFF)) - 1.0
    dk = np.float64(k + (t >> 20))
    mid = ((hx - 0x6147A) | (0x6B851 - hx)) > 0
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    r = z * (_LG1 + w * (_LG3 + w * (_LG5 + w * _LG7))) + w * (_LG2 + w * (_LG4 + w * _LG6))
    hfsq = 0.5 * f * f
    lm = dk * _LN2_HI - ((hfsq - (s * (hfsq + r) + dk * _LN2_LO)) - f)
    lo = dk * _LN2_HI - ((s * (f - r) - dk * _LN2_LO) - f)
    return -(lm if mid else lo)


@numba.njit(cache=True, nogil=True, error_model="numpy")
def _threshold(a, b, ex, want):
    """A race key t with Σ_d P(E_d / e^{f_d} < t) = Σ_d (1 − e^{−t e^{f_d}}) ≈ ``want`` (bisection
    on log t; e^{f} ≤ 1 here, the largest is 1): the keys under t are the candidates for the top K.
    Any t gives the same top K (fewer than K under it: all keys are ranked), so 16 halvings of
    [−60, 60] (log t within 0.002; 40 cost 6% of the kernel's time) are enough."""
    lo, hi = -60.0, 60.0
    for _ in range(16):
        mid = 0.5 * (lo + hi)
        t = math.exp(mid)
        n = 0.0
        for i in range(a, b):
            n -= math.expm1(-t * ex[i])
        if n < want:
            lo = mid
        else:
            hi = mid
    return math.exp(hi)


# _nrt=False: numba's reference counting off in the functions called once per sample or batch
# (they allocate nothing; the atomic increments and decrements on their array arguments cost
# about 25 ns a call, a sixth of a sample's work)
@numba.njit(cache=True, nogil=True, error_model="numpy", _nrt=False)
def _rank_into(keys, idx, c, cp, K, top, tkey):
    """The K smallest of ``keys[:c]`` (ties: the earlier first) into ``top[:K]`` in order, as
    their ``idx``. Each one's rank is the count of keys below it over ``keys[:cp]`` (padded with
    +inf to a multiple of the vector width): no data-dependent branch, so nothing for the
    processor to mispredict (``top[K]`` takes the rest). Equal keys — which would share a rank
    and leave a slot empty, or put the later at rank K − 1 — are caught after and ranked again
    with the tie rule."""
    for k in range(K):
        top[k] = -1
    for i in range(c):
        ki = keys[i]
        r = 0
        for j in range(cp):
            r += keys[j] < ki
        r = min(r, K)
        top[r] = idx[i]
        tkey[r] = ki
    tie = False
    for k in range(K):
        tie |= top[k] < 0
    if not tie:
        last = tkey[K - 1]
        n = 0
        for j in range(cp):
            n += keys[j] == last
        tie = n > 1
    if tie:
        for i in range(c):
            ki = keys[i]
            r = 0
            for j in range(c):
                r += keys[j] < ki or (keys[j] == ki and j < i)
            top[min(r, K)] = idx[i]


#: samples whose Φ and Ψ are computed together, one per vector lane (the last batch is padded)
_BATCH = 16
# a batch's work array W holds, for each rank row r and field, _BATCH lanes: W[_w(r) + field + s];
# rank k is row k + 1, row 0 holds the prefix sums' zeros and row K + 1 what follows
# rank K − 1 (D: the tail mass, G: 0). With one array and constant distances between fields and
# rows, the compiler sees that a loop over s touches no lane twice and vectorises it.
_FIELDS = 14
# the fields' offsets within a row
_E, _R, _D, _G, _DR, _RI, _DS, _RS, _CC, _X, _Y, _H1, _H2, _T = range(0, _FIELDS * _BATCH, _BATCH)


@numba.njit(cache=True, nogil=True, inline="always")
def _w(r):
    """Where row r of a batch's work array starts."""
    return r * (_FIELDS * _BATCH)


@numba.njit(cache=True, nogil=True, inline="always")
def _u(i):
    """An index as unsigned: numba then adds no branch for negative indices (which kept the
    compiler from vectorising loops whose index it could not prove non-negative)."""
    return np.uint64(i)


@numba.njit(cache=True, nogil=True, error_model="numpy", _nrt=False)
def _accumulate(TOP, nb, K, a, b, total, ex, gains, theta, grad, hess, mark, stamp, W, S):
    """Φ and Ψ of ``nb`` sampled rankings (``TOP[k·_BATCH + s]``, the document at rank k of
    sample s; lanes nb … _BATCH − 1 hold copies of lane 0), added to ``grad``/``hess`` for their
    K ranked documents less the terms at κ = K − 1 that every document gets at the end; each
    sample's DR, RI, DS, RS, C at K − 1 into ``S[j·_BATCH + s]`` (j = 0 … 4). Each step is a loop
    over the batch's samples (one per vector lane) inside a loop over ranks, with the one
    sample's arithmetic; the scatter into ``grad``/``hess`` takes the samples in order, so the
    numbers are those of one sample at a time."""
    for k in range(K):
        o = _w(k + 1)
        for s in range(_BATCH):
            d = TOP[_u(k * _BATCH + s)]
            W[_u(o + _E + s)] = ex[d]
            W[_u(o + _R + s)] = gains[d]
    # the mass left after the top K (T, by rank): by difference, or summed afresh where that
    # loses more than three digits
    for s in range(_BATCH):
        W[_u(_w(0) + _T + s)] = total
    for r in range(1, K + 1):
        o, p = _w(r), _w(r - 1)
        for s in range(_BATCH):
            W[_u(o + _T + s)] = W[_u(p + _T + s)] - W[_u(o + _E + s)]
    o, p = _w(K + 1), _w(K)
    for s in range(_BATCH):
        W[_u(o + _D + s)] = W[_u(p + _T + s)]
        W[_u(o + _G + s)] = 0.0
    for s in range(nb):
        if W[_u(o + _D + s)] < 1e-3 * total:
            for k in range(K):
                mark[TOP[_u(k * _BATCH + s)]] = stamp + s
            t = 0.0
            for i in range(a, b):
                t += ex[i] if mark[i] != stamp + s else 0.0
            W[_u(o + _D + s)] = t
    for r in range(K, 0, -1):
        o, p = _w(r), _w(r + 1)
        th = theta[r - 1]
        for s in range(_BATCH):
            W[_u(o + _D + s)] = W[_u(p + _D + s)] + W[_u(o + _E + s)]
            W[_u(o + _G + s)] = W[_u(p + _G + s)] + th * W[_u(o + _R + s)]
    for r in range(1, K + 1):
        o, p = _w(r), _w(r - 1)
        th = theta[r - 1]
        for s in range(_BATCH):
            inv = 1.0 / W[_u(o + _D + s)]
            inv2 = inv * inv
            gk = W[_u(o + _G + s)]
            W[_u(o + _DR + s)] = W[_u(p + _DR + s)] + th * inv
            W[_u(o + _RI + s)] = W[_u(p + _RI + s)] + gk * inv
            W[_u(o + _DS + s)] = W[_u(p + _DS + s)] + th * inv2
            W[_u(o + _RS + s)] = W[_u(p + _RS + s)] + gk * inv2
            W[_u(o + _CC + s)] = W[_u(p + _CC + s)] + inv
    o = _w(K)
    for j in range(5):
        for s in range(_BATCH):
            S[_u(j * _BATCH + s)] = W[_u(o + _DR + j * _BATCH + s)]
    # each ranked document once: its terms at its rank, less its share of the terms at
    # κ = K − 1 that are added for every document below from the sums over samples
    for r in range(1, K + 1):
        o, p = _w(r), _w(r + 1)
        for s in range(_BATCH):
            e = W[_u(o + _E + s)]
            rr = W[_u(o + _R + s)]
            dr, ri, ds = S[_u(s)], S[_u(_BATCH + s)], S[_u(2 * _BATCH + s)]
            rs, cc = S[_u(3 * _BATCH + s)], S[_u(4 * _BATCH + s)]
            g = 1.0 - e * W[_u(o + _CC + s)]
            sp = e * (rr * W[_u(o + _DR + s)] - W[_u(o + _RI + s)])
            spk = e * (rr * dr - ri)
            gn = W[_u(p + _G + s)]
            W[_u(o + _X + s)] = gn + sp
            W[_u(o + _Y + s)] = spk
            W[_u(o + _H1 + s)] = (gn * g + sp * (1.0 + g)
                                  - e * e * (rr * W[_u(o + _DS + s)] - W[_u(o + _RS + s)]))
            W[_u(o + _H2 + s)] = spk * (1.0 - e * cc) - e * e * (rr * ds - rs)
    for s in range(nb):
        for k in range(K):
            d = TOP[_u(k * _BATCH + s)]
            o = _w(k + 1)
            grad[d] = (grad[d] + W[_u(o + _X + s)]) - W[_u(o + _Y + s)]
            hess[d] = (hess[d] + W[_u(o + _H1 + s)]) - W[_u(o + _H2 + s)]


@numba.njit(cache=True, nogil=True, error_model="numpy", _nrt=False)
def _race_batch(z, a, m, inv_ex, KB):
    """The race keys of _BATCH samples of the list at ``a`` (m documents) at once, sample s in lane
    s: ``KB[i·_BATCH + s]`` is document i's key E / e^{f_i} in sample s, E = −log U, U from
    SplitMix64's state z + (s·m + i + 1)·γ — the uniforms one sample after the other would take
    (its i-th next state is z + i·γ). Loops of constant length over the lanes, which the
    compiler vectorises whatever m (a loop over a short list's m documents ran mostly scalar);
    the uniforms in one pass, the logarithms in a second (0.9 ns a key, 1.25 in one pass)."""
    for i in range(m):
        for s in range(_BATCH):
            KB[_u(i * _BATCH + s)] = _mix_uniform(z + np.uint64(s * m + i + 1) * _GOLDEN)
    for i in range(m):
        e = inv_ex[_u(a + i)]
        for s in range(_BATCH):
            KB[_u(i * _BATCH + s)] = _neg_log(KB[_u(i * _BATCH + s)]) * e


@numba.njit(cache=True, nogil=True, error_model="numpy")
def _one_list(q, scores, gains, offsets, theta, n_samples, keys, grad, hess, ex, inv_ex, mark,
              top, tkey, TOP, W, S, KB, kbuf, ibuf, cbuf, cidx):
    """The sample means of Φ and Ψ of list q into ``grad``/``hess`` (see :func:`plrank3_kernel`)."""
    a, b = offsets[q], offsets[q + 1]
    m = b - a
    for i in range(a, b):
        grad[i] = 0.0
        hess[i] = 0.0
    if m <= 1:
        return
    K = min(theta.shape[0], m)
    c = scores[a]
    for i in range(a + 1, b):
        if scores[i] > c:
            c = scores[i]
    total = 0.0
    for i in range(a, b):
        ex[i] = math.exp(max(scores[i] - c, -_FLOOR_GAP))
        inv_ex[i] = 1.0 / ex[i]
        total += ex[i]
        mark[i] = -1
    mp = (m + _LANES - 1) // _LANES * _LANES
    for i in range(m):
        ibuf[i] = a + i
    for i in range(m, mp):
        kbuf[i] = np.inf
    # long lists: only the keys under a threshold with about K + 3√K + 3 keys under it on
    # average are ranked (all of them, should fewer than K fall under it)
    want = K + 3.0 * math.sqrt(K) + 3.0
    cut = _threshold(a, b, ex, want) if m > _RANK_ALL and m > want else np.inf
    sdr = sri = sdrc = sric = sds = srs = 0.0
    z = keys[q]
    for s0 in range(0, n_samples, _BATCH):
        nb = min(_BATCH, n_samples - s0)
        _race_batch(z, a, m, inv_ex, KB)
        z = z + np.uint64(nb * m) * _GOLDEN
        for s in range(nb):
            if cut == np.inf:
                for i in range(m):
                    kbuf[i] = KB[i * _BATCH + s]
                _rank_into(kbuf, ibuf, m, mp, K, top, tkey)
            else:
                n = 0
                for i in range(m):
                    ki = KB[i * _BATCH + s]
                    cbuf[n] = ki
                    cidx[n] = a + i
                    n += ki < cut
                if n >= K:
                    npad = (n + _LANES - 1) // _LANES * _LANES
                    for i in range(n, npad):
                        cbuf[i] = np.inf
                    _rank_into(cbuf, cidx, n, npad, K, top, tkey)
                else:
                    for i in range(m):
                        kbuf[i] = KB[i * _BATCH + s]
                    _rank_into(kbuf, ibuf, m, mp, K, top, tkey)
            for k in range(K):
                TOP[k * _BATCH + s] = top[k]
        for s in range(nb, _BATCH):
            for k in range(K):
                TOP[k * _BATCH + s] = TOP[k * _BATCH]
        _accumulate(TOP, nb, K, a, b, total, ex, gains, theta, grad, hess, mark, s0, W, S)
        for s in range(nb):
            dr, ri, ds, rs, cc = S[s], S[_BATCH + s], S[2 * _BATCH + s], S[3 * _BATCH + s], S[4 * _BATCH + s]
            sdr += dr
            sri += ri
            sdrc += dr * cc
            sric += ri * cc
            sds += ds
            srs += rs
    inv_n = 1.0 / n_samples
    for i in range(a, b):
        e = ex[i]
        r = gains[i]
        sp = e * (r * sdr - sri)
        grad[i] = (grad[i] + sp) * inv_n
        hess[i] = (hess[i] + sp - e * e * (r * sdrc - sric) - e * e * (r * sds - srs)) * inv_n


@numba.njit(cache=True, nogil=True, error_model="numpy")
def _run_lists(q0, q1, scores, gains, offsets, theta, n_samples, keys, grad, hess, ex, inv_ex, mark):
    """Lists q0 … q1 − 1, with work arrays of their own."""
    K = theta.shape[0]
    longest = 1
    for q in range(q0, q1):
        longest = max(longest, offsets[q + 1] - offsets[q])
    padded = (longest + _LANES - 1) // _LANES * _LANES
    top, tkey = np.empty(K + 1, np.int64), np.empty(K + 1)
    TOP = np.zeros(K * _BATCH, np.int64)
    KB = np.empty(padded * _BATCH)
    W, S = np.zeros((K + 2) * _FIELDS * _BATCH), np.zeros(5 * _BATCH)
    kbuf, cbuf = np.empty(padded), np.empty(padded)
    ibuf, cidx = np.empty(padded, np.int64), np.empty(padded, np.int64)
    for q in range(q0, q1):
        _one_list(q, scores, gains, offsets, theta, n_samples, keys, grad, hess, ex, inv_ex, mark,
                  top, tkey, TOP, W, S, KB, kbuf, ibuf, cbuf, cidx)


@numba.njit(cache=True, nogil=True, error_model="numpy")
def _all_lists_serial(scores, gains, offsets, theta, n_samples, keys, grad, hess, ex, inv_ex, mark):
    _run_lists(0, offsets.shape[0] - 1, scores, gains, offsets, theta, n_samples, keys, grad, hess, ex, inv_ex,
               mark)


@numba.njit(cache=True, parallel=True, error_model="numpy")
def _all_lists_parallel(scores, gains, offsets, theta, n_samples, keys, grad, hess, ex, inv_ex, mark, n_runs):
    # contiguous runs of lists over the threads; a list's numbers depend only on its key, never
    # on the run it falls in
    nq = offsets.shape[0] - 1
    for run in numba.prange(n_runs):
        _run_lists(run * nq // n_runs, (run + 1) * nq // n_runs, scores, gains, offsets, theta, n_samples, keys,
                   grad, hess, ex, inv_ex, mark)


def plrank3_kernel(scores, gains, offsets, theta, n_samples, keys, grad, hess, threads=None):
    """Fill ``grad``/``hess`` with the sample means of Φ and Ψ (the module docstring: ∂R and
    ∂²R, not yet negated) over ``n_samples`` rankings per list; ``keys[q]`` (uint64) seeds list
    q; ``theta`` the K rank weights, ``gains`` one per document. Lists run in parallel over
    numba's threads (``threads``, default numba's current count; 1: no thread pool), with the
    same numbers whatever the count."""
    n = scores.shape[0]
    nq = offsets.shape[0] - 1
    threads = numba.get_num_threads() if threads is None else int(threads)
    args = (scores, gains, offsets, theta, n_samples, keys, grad, hess, np.empty(n), np.empty(n),
            np.empty(n, np.int64))
    if threads <= 1 or nq < 2:
        _all_lists_serial(*args)
    else:
        # a few runs per thread, so that one run of long lists holds up no thread for long
        _all_lists_parallel(*args, min(nq, 4 * threads))


class PLRank(Objective):
    """PL-Rank-3 (Oosterhuis 2022) with Kang et al. 2024's sampled diagonal Hessian: gradient
    and Hessian of −E[DCG@``cutoff``] under the Plackett–Luce policy of the scores, from
    ``n_samples`` rankings per list per round (the same rankings for both), the rankings drawn
    from the round's ``rng`` (one key per list). See the module docstring for the formulas.

    ``hessian_policy``: ``"none"`` (default, the authors' — XGBoost receives the raw estimate,
    negative entries included), ``"clip"`` or ``"abs"`` (floored at ``hess_floor``).
    :attr:`negative_hessians` tells the adapters that ``"none"`` may hand negative values:
    XGBoost takes them (its leaves with a Hessian sum ≤ 0 or below ``min_child_weight`` are not
    split / get weight 0); LightGBM's adapter refuses them with one error line.

    Two documents, labels (1, 0), equal scores, K = 2: the policy puts either first with
    probability ½, R = ½ (1 + 1/log2 3); ∂R/∂f_1 = ½ · ½ · (1 − 1/log2 3) = 0.0923, so
    ``grad`` ≈ (−0.092, +0.092) (a sampled estimate: exact only as N grows):

    >>> g, h = PLRank(n_samples=100000, cutoff=2).grad_hess([0.0, 0.0], [1, 0], [0, 2],
    ...                                                     rng=np.random.default_rng(0))
    >>> g.round(2).tolist()
    [-0.09, 0.09]
    """

    name = "plrank"
    stochastic = True

    def __init__(self, n_samples: int = 200, cutoff: int = 10, hessian_policy: str = "none",
                 hess_floor: float = HESS_FLOOR):
        if not isinstance(n_samples, (int, np.integer)) or n_samples < 1:
            raise ValueError("n_samples must be an integer >= 1")
        if not isinstance(cutoff, (int, np.integer)) or cutoff < 1:
            raise ValueError("cutoff must be an integer >= 1")
        if hessian_policy not in HESSIAN_POLICIES:
            raise ValueError(f"hessian_policy: one of {', '.join(HESSIAN_POLICIES)}, not {hessian_policy!r}")
        if not hess_floor > 0:
            raise ValueError("hess_floor must be > 0")
        self.n_samples = int(n_samples)
        self.cutoff = int(cutoff)
        self.hessian_policy = hessian_policy
        self.hess_floor = float(hess_floor)

    @property
    def negative_hessians(self) -> bool:
        """Whether :meth:`grad_hess` may return negative Hessians (``hessian_policy="none"``)."""
        return self.hessian_policy == "none"

    def expected(self, scores, labels, offsets, rng, keys=None):
        """(∂R, ∂²R): the sample means of Φ and Ψ, not negated and with no policy applied."""
        scores, labels, offsets = as_arrays(scores, labels, offsets)
        nq = offsets.shape[0] - 1
        if keys is None:
            if rng is None:
                raise ValueError("PL-Rank samples rankings at every iteration: pass a seeded np.random.Generator")
            keys = rng.integers(0, np.iinfo(np.int64).max, size=nq, dtype=np.int64)
        keys = np.asarray(keys, np.int64).view(np.uint64)
        gains = 2.0 ** np.arange(int(labels.max(initial=0)) + 1, dtype=np.float64) - 1.0
        theta = 1.0 / np.log2(np.arange(self.cutoff, dtype=np.float64) + 2.0)
        n = scores.shape[0]
        grad, hess = np.empty(n), np.empty(n)
        plrank3_kernel(scores, gains[labels], offsets, theta, self.n_samples, keys, grad, hess)
        return grad, hess

    def grad_hess(self, scores, labels, offsets, iteration=0, rng=None, keys=None):
        """(−∂R, policy(−∂²R)) from the rankings of this round; ``keys`` (one int64 per list)
        replaces the draw from ``rng`` (tests, benchmarks)."""
        d1, d2 = self.expected(scores, labels, offsets, rng, keys)
        grad, hess = -d1, -d2
        if self.hessian_policy == "clip":
            np.maximum(hess, self.hess_floor, out=hess)
        elif self.hessian_policy == "abs":
            np.maximum(np.abs(hess, out=hess), self.hess_floor, out=hess)
        return grad, hess

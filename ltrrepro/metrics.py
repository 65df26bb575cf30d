"""Ranking metrics as per-query vectors, over flat arrays and query offsets.

Conventions (each carried in the metric's name, e.g. ``ndcg@5[gain=exp2,norel=drop]``):

* **gain** — ``exp2``: 2^y − 1 (LightGBM, XGBoost, Bruch; the default), ``linear``: y
  (trec_eval), or an explicit table ``gain[y]``.
* **discount** — 1 / log2(1 + rank), rank 1-based.
* **norel** — rule for a query with no relevant document (all labels 0): ``drop`` (value
  NaN, left out of the mean, count reported; Bruch §5.1, the default), ``one`` (LightGBM,
  XGBoost ``ndcg``) or ``zero`` (trec_eval, RankLib).
* **ties** — documents with equal scores are ranked in input order (a stable sort on the
  descending score), as LightGBM and XGBoost do. trec_eval breaks ties by docid instead,
  so equality with ir_measures holds for distinct scores.
* **relevance** for binary measures (MRR, AP, P@k, R@k): label >= ``rel`` (default 1).
* **ERR** — Chapelle et al. (2009): R = (2^g − 1) / 2^g_max with g_max = 4 unless set;
  ERR = Σ_r (1/r) R_r Π_{i<r} (1 − R_i).

All kernels are numba functions parallel over queries; the documents of each query are
sorted once per :func:`evaluate` call and shared by every metric asked for.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numba
import numpy as np

__all__ = ["Metric", "MetricResult", "canonical", "evaluate", "ndcg", "dcg", "err", "parse_metric",
           "pairwise_precision_at", "gain_table", "label", "metric_family"]

_NORELS = ("drop", "one", "zero")
_KINDS = ("ndcg", "dcg", "err", "mrr", "ap", "p", "recall")


def gain_table(gain="exp2", max_label: int = 31) -> np.ndarray:
    """Gain per label as float64: ``exp2`` 2^y − 1, ``linear`` y, or a given sequence."""
    if isinstance(gain, str):
        ys = np.arange(max_label + 1, dtype=np.float64)
        if gain == "exp2":
            with np.errstate(over="ignore"):       # inf beyond label 1023: evaluate refuses those labels
                return np.exp2(ys) - 1.0
        if gain == "linear":
            return ys
        raise ValueError(f"unknown gain {gain!r}: use 'exp2', 'linear' or a table")
    table = np.asarray(gain, dtype=np.float64)
    if table.ndim != 1 or np.any(table < 0):
        raise ValueError("a gain table must be a 1-D array of non-negative gains")
    return table


@dataclass(frozen=True)
class Metric:
    """A metric with its conventions; ``str(m)`` is its canonical name.

    kind: one of ndcg, dcg, err, mrr, ap, p, recall. k: cutoff (None = whole list).
    """

    kind: str
    k: int | None = None
    gain: str | tuple = "exp2"
    norel: str = "drop"
    rel: int = 1
    max_grade: int = 4

    def __post_init__(self):
        if self.kind not in _KINDS:
            raise ValueError(f"unknown metric {self.kind!r}; known: {', '.join(_KINDS)}")
        if self.norel not in _NORELS:
            raise ValueError(f"norel must be one of {_NORELS}")
        if self.k is not None and self.k < 1:
            raise ValueError("cutoff k must be >= 1")
        if self.kind in ("p", "recall") and self.k is None:
            raise ValueError(f"{self.kind} needs a cutoff, e.g. {self.kind}@10")

    def __str__(self) -> str:
        base = self.kind + (f"@{self.k}" if self.k is not None else "")
        conv = []
        if self.kind in ("ndcg", "dcg"):
            g = self.gain if isinstance(self.gain, str) else "table(" + ",".join(
                np.format_float_positional(float(v), trim="-") for v in self.gain) + ")"
            conv.append(f"gain={g}")
        if self.kind == "err":
            conv.append(f"gmax={self.max_grade}")
        if self.kind in ("mrr", "ap", "p", "recall"):
            conv.append(f"rel>={self.rel}")
        conv.append(f"norel={self.norel}")
        return f"{base}[{','.join(conv)}]"


_NAME_RE = re.compile(r"^(?P<kind>[a-z]+)(@(?P<k>\d+))?(\[(?P<opts>[^\]]*)\])?$")


def parse_metric(spec, gain="exp2", norel="drop") -> Metric:
    """``"ndcg@5"``, ``"err"``, ``"ndcg@10[gain=linear,norel=one]"``, ``"map"`` -> Metric.

    ``str(Metric)`` parses back to the same metric, gain tables included:

    >>> str(parse_metric("ndcg@5")), str(parse_metric("ndcg@10[gain=linear,norel=one]"))
    ('ndcg@5[gain=exp2,norel=drop]', 'ndcg@10[gain=linear,norel=one]')
    >>> str(parse_metric("dcg@3[gain=table(0,1,3,7.5),norel=zero]"))
    'dcg@3[gain=table(0,1,3,7.5),norel=zero]'
    """
    if isinstance(spec, Metric):
        return spec
    s = spec.strip().lower().replace("precision", "p").replace("map", "ap")
    m = _NAME_RE.match(s)
    if not m:
        raise ValueError(f"cannot parse metric {spec!r}; e.g. 'ndcg@5', 'err@10', 'ap', 'p@10'")
    kw = {"gain": gain, "norel": norel}
    if m.group("opts"):
        for part in re.split(r",(?![^()]*\))", m.group("opts")):      # commas outside table(...)
            key, _, val = part.partition("=")
            key = key.strip()
            if key == "gain" and val.startswith("table(") and val.endswith(")"):
                try:
                    kw["gain"] = tuple(float(v) for v in val[6:-1].split(","))
                except ValueError:
                    raise ValueError(f"cannot parse the gain table {val!r} in {spec!r}") from None
            elif key == "gain":
                kw["gain"] = val
            elif key == "norel":
                kw["norel"] = val
            elif key.startswith("rel>"):
                kw["rel"] = int(part.split(">=")[1])
            elif key == "gmax":
                kw["max_grade"] = int(val)
            else:
                raise ValueError(f"unknown option {part!r} in {spec!r}")
    k = int(m.group("k")) if m.group("k") else None
    kind = m.group("kind")
    if kind in ("rr", "recip_rank"):
        kind = "mrr"
    return Metric(kind=kind, k=k, **kw)


def label(name: str) -> str:
    """The display name of a canonical metric name, as tables and claims show it: ``NDCG@5``,
    ``DCG@5``, ``ERR`` (other names, such as ``prec@10%``, as they are).

    >>> label("ndcg@5[gain=exp2,norel=drop]"), label("prec@10%")
    ('NDCG@5', 'prec@10%')
    """
    return name.split("[")[0].upper() if "[" in name else name


def metric_family(name: str) -> str:
    """The family of a canonical metric name or display name, lower case, without cutoff or
    parameters (what an effect of interest is set for).

    >>> metric_family("ndcg@5[gain=exp2,norel=drop]"), metric_family("DCG@5"), metric_family("prec@10%")
    ('ndcg', 'dcg', 'prec')
    """
    return label(name).split("@")[0].lower()


@dataclass
class MetricResult:
    """Per-query values (NaN where dropped), their mean and the number dropped."""

    metric: Metric
    per_query: np.ndarray
    n_dropped: int = 0

    @property
    def name(self) -> str:
        return str(self.metric)

    @property
    def mean(self) -> float:
        v = self.per_query[~np.isnan(self.per_query)]
        return float(v.mean()) if v.size else float("nan")

    def __float__(self) -> float:
        return self.mean


# --------------------------------------------------------------------------- kernels
@numba.njit(parallel=True, cache=True)
def _rank_kernel(scores, labels, offsets):
    """Labels in score order (stable, descending) and in ideal order, per query."""
    nq = offsets.shape[0] - 1
    ranked = np.empty_like(labels)
    ideal = np.empty_like(labels)
    for q in numba.prange(nq):
        a, b = offsets[q], offsets[q + 1]
        s = scores[a:b]
        order = np.argsort(-s, kind="mergesort")
        lab = labels[a:b]
        for r in range(b - a):
            ranked[a + r] = lab[order[r]]
        srt = np.sort(lab)
        for r in range(b - a):
            ideal[a + r] = srt[b - a - 1 - r]
    return ranked, ideal


@numba.njit(parallel=True, cache=True)
def _dcg_kernel(gains, offsets, k):
    nq = offsets.shape[0] - 1
    out = np.zeros(nq)
    for q in numba.prange(nq):
        a, b = offsets[q], offsets[q + 1]
        m = b - a if k <= 0 else min(k, b - a)
        acc = 0.0
        for r in range(m):
            acc += gains[a + r] / math.log2(r + 2.0)
        out[q] = acc
    return out


@numba.njit(parallel=True, cache=True)
def _err_kernel(ranked_labels, offsets, k, max_grade):
    nq = offsets.shape[0] - 1
    out = np.zeros(nq)
    denom = 2.0 ** max_grade
    for q in numba.prange(nq):
        a, b = offsets[q], offsets[q + 1]
        m = b - a if k <= 0 else min(k, b - a)
        p_continue = 1.0
        acc = 0.0
        for r in range(m):
            R = (2.0 ** ranked_labels[a + r] - 1.0) / denom
            acc += p_continue * R / (r + 1.0)
            p_continue *= 1.0 - R
        out[q] = acc
    return out


@numba.njit(parallel=True, cache=True)
def _binary_kernel(ranked_labels, offsets, k, rel, kind):
    """kind 0: RR, 1: AP, 2: P@k, 3: R@k. Also returns the number of relevant docs."""
    nq = offsets.shape[0] - 1
    out = np.zeros(nq)
    nrel = np.zeros(nq, np.int64)
    for q in numba.prange(nq):
        a, b = offsets[q], offsets[q + 1]
        total = 0
        for r in range(b - a):
            if ranked_labels[a + r] >= rel:
                total += 1
        nrel[q] = total
        m = b - a if k <= 0 else min(k, b - a)
        hits = 0
        acc = 0.0
        first = 0.0
        for r in range(m):
            if ranked_labels[a + r] >= rel:
                hits += 1
                acc += hits / (r + 1.0)
                if hits == 1:
                    first = 1.0 / (r + 1.0)
        if kind == 0:
            out[q] = first
        elif kind == 1:
            out[q] = acc / total if total > 0 else 0.0
        elif kind == 2:
            out[q] = hits / k
        else:
            out[q] = hits / total if total > 0 else 0.0
    return out, nrel


def _check(scores, labels, offsets):
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    labels = np.ascontiguousarray(labels, dtype=np.int64)
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    if scores.shape != labels.shape:
        raise ValueError(f"scores {scores.shape} and labels {labels.shape} differ in shape")
    if offsets[0] != 0 or offsets[-1] != scores.shape[0]:
        raise ValueError("offsets must start at 0 and end at the number of documents")
    if np.isnan(scores).any():
        raise ValueError("scores contain NaN")
    if labels.size and labels.min() < 0:
        raise ValueError("labels must be non-negative")
    return scores, labels, offsets


def _apply_norel(values: np.ndarray, norel_mask: np.ndarray, rule: str):
    v = values.copy()
    if rule == "drop":
        v[norel_mask] = np.nan
    elif rule == "one":
        v[norel_mask] = 1.0
    else:
        v[norel_mask] = 0.0
    return v, int(norel_mask.sum()) if rule == "drop" else 0


def canonical(name: str) -> str:
    """``"ndcg@5"`` -> ``"ndcg@5[gain=exp2,norel=drop]"``: the name records are keyed by.

    >>> canonical("ndcg@5")
    'ndcg@5[gain=exp2,norel=drop]'
    """
    return str(parse_metric(name))


def evaluate(scores, labels, offsets, metrics=("ndcg@5",), gain="exp2", norel="drop") -> dict[str, MetricResult]:
    """Evaluate several metrics at once; returns ``{canonical name: MetricResult}``.

    >>> r = evaluate([3., 2., 1.], [0, 1, 2], [0, 3], ["ndcg@3"])
    >>> round(r["ndcg@3[gain=exp2,norel=drop]"].mean, 6)
    0.586883
    """
    scores, labels, offsets = _check(scores, labels, offsets)
    ranked, ideal = _rank_kernel(scores, labels, offsets)
    max_label = int(labels.max(initial=0))
    out: dict[str, MetricResult] = {}
    for spec in metrics:
        m = parse_metric(spec, gain=gain, norel=norel)
        k = m.k or 0
        if m.kind in ("ndcg", "dcg"):
            table = gain_table(m.gain, max_label=max(max_label, 1))
            if table.shape[0] <= max_label:
                raise ValueError(f"gain table has {table.shape[0]} entries but labels reach {max_label}")
            if not np.isfinite(table[:max_label + 1]).all():
                raise ValueError(f"labels reach {max_label}: the gain 2^y − 1 overflows float64 beyond label 1023 "
                                 f"(every such query would be dropped); use gain='linear' or a gain table")
            d = _dcg_kernel(table[ranked], offsets, k)
            idcg = _dcg_kernel(table[ideal], offsets, k)
            mask = idcg <= 0
            if m.kind == "ndcg":
                vals = np.divide(d, idcg, out=np.zeros_like(d), where=~mask)
            else:
                vals = d
        elif m.kind == "err":
            if max_label > m.max_grade:
                raise ValueError(f"ERR with g_max={m.max_grade} but labels reach {max_label}")
            vals = _err_kernel(ranked, offsets, k, m.max_grade)
            mask = np.maximum.reduceat(labels, offsets[:-1]) == 0 if labels.size else np.zeros(0, bool)
        else:
            kind = {"mrr": 0, "ap": 1, "p": 2, "recall": 3}[m.kind]
            vals, nrel = _binary_kernel(ranked, offsets, k, m.rel, kind)
            mask = nrel == 0
        vals, dropped = _apply_norel(vals, mask, m.norel)
        out[str(m)] = MetricResult(metric=m, per_query=vals, n_dropped=dropped)
    return out


def ndcg(scores, labels, offsets, k=None, gain="exp2", norel="drop") -> np.ndarray:
    """Per-query NDCG@k (NaN for dropped queries under ``norel="drop"``).

    Labels in score order 1, 0, 3, 2: DCG = 1 + 7/2 + 3/log2(5) = 5.7920, ideal (3, 2, 1, 0)
    7 + 3/log2(3) + 1/2 = 9.3928; the second query has no relevant document (dropped):

    >>> ndcg([0.9, 0.7, 0.4, 0.1, 0.5, 0.2], [1, 0, 3, 2, 0, 0], [0, 4, 6]).round(4).tolist()
    [0.6166, nan]
    """
    m = Metric("ndcg", k=k, gain=gain, norel=norel)
    return evaluate(scores, labels, offsets, [m])[str(m)].per_query


def dcg(scores, labels, offsets, k=None, gain="exp2", norel="drop") -> np.ndarray:
    """Per-query DCG@k = Σ_{r<=k} gain(y_r) / log2(1 + r).

    >>> dcg([0.9, 0.1], [3, 2], [0, 2]).round(4).tolist()     # 7/1 + 3/log2(3)
    [8.8928]
    """
    m = Metric("dcg", k=k, gain=gain, norel=norel)
    return evaluate(scores, labels, offsets, [m])[str(m)].per_query


def err(scores, labels, offsets, k=None, max_grade=4, norel="drop") -> np.ndarray:
    """Per-query ERR@k (Chapelle et al. 2009).

    One document of grade 4 stops the user with probability (2^4 − 1)/2^4:

    >>> err([1.0], [4], [0, 1]).tolist()
    [0.9375]
    """
    m = Metric("err", k=k, max_grade=max_grade, norel=norel)
    return evaluate(scores, labels, offsets, [m])[str(m)].per_query


# ------------------------------------------------------------ Zheng et al. precision
@numba.njit(cache=True)
def _pair_count(labels, offsets):
    nq = offsets.shape[0] - 1
    counts = np.zeros(nq, np.int64)
    for q in range(nq):
        a, b = offsets[q], offsets[q + 1]
        c = 0
        for i in range(a, b):
            for j in range(i + 1, b):
                if labels[i] != labels[j]:
                    c += 1
        counts[q] = c
    return counts


@numba.njit(parallel=True, cache=True)
def _pair_fill(scores, labels, offsets, starts, margin, correct):
    nq = offsets.shape[0] - 1
    for q in numba.prange(nq):
        a, b = offsets[q], offsets[q + 1]
        p = starts[q]
        for i in range(a, b):
            for j in range(i + 1, b):
                if labels[i] != labels[j]:
                    d = scores[i] - scores[j]
                    margin[p] = abs(d)
                    correct[p] = (d > 0) if labels[i] > labels[j] else (d < 0)
                    p += 1


TIED_PAIRS = ("contradicting", "non-contradicting")


def pairwise_precision_at(scores, labels, offsets, percents=range(10, 101, 10),
                          ties: str = "contradicting") -> dict[int, float]:
    """Zheng et al. (2007) precision at K%: over all within-query pairs with different
    labels, sort by |h(x) − h(y)| (descending; equal margins keep pair order) and report
    the share of pairs among the top K% that the model does not contradict. ``ties``: a pair
    with equal scores counts as ``"contradicting"`` (default: only correctly ordered pairs
    count) or ``"non-contradicting"`` (the paper's word: a tie does not contradict the
    preference). Returns ``{K: precision}``; the top K% holds ``ceil(K/100 · n_pairs)`` pairs.

    Labels 2, 1, 0 scored 1, 1, 0: pairs (d0, d1) tied, (d0, d2) and (d1, d2) right, so
    precision at 100% is 2/3 or 1:

    >>> pairwise_precision_at([1.0, 1.0, 0.0], [2, 1, 0], [0, 3], [100])
    {100: 0.6666666666666666}
    >>> pairwise_precision_at([1.0, 1.0, 0.0], [2, 1, 0], [0, 3], [100], ties="non-contradicting")
    {100: 1.0}
    """
    if ties not in TIED_PAIRS:
        raise ValueError(f"ties must be one of {TIED_PAIRS}, got {ties!r}")
    scores, labels, offsets = _check(scores, labels, offsets)
    counts = _pair_count(labels, offsets)
    starts = np.r_[0, np.cumsum(counts)[:-1]].astype(np.int64)
    n = int(counts.sum())
    if n == 0:
        raise ValueError("no pair of documents with different labels")
    margin = np.empty(n)
    correct = np.empty(n, np.bool_)
    _pair_fill(scores, labels, offsets, starts, margin, correct)
    if ties == "non-contradicting":
        correct |= margin == 0
    order = np.argsort(-margin, kind="stable")
    cum = np.cumsum(correct[order])
    out = {}
    for K in percents:
        top = max(1, int(math.ceil(K / 100.0 * n - 1e-9)))
        out[int(K)] = float(cum[top - 1] / top)
    return out

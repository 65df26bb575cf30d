"""Training-data transforms of Bruch §5.4 and appendix E (docs/protocols/bruch2021.md §6). Test data is never
passed through these: each takes a training :class:`RankingDataset` and returns a new one,
leaving the input untouched. All are vectorized over documents and take an explicit
``np.random.Generator``.

* :func:`add_negatives` — Figure 3a/b: grow every list by ``percent`` % with documents
  sampled uniformly from *other* lists of the same dataset, labelled 0.
* :func:`label_noise` — Figure 3c/d: in every list, choose ``percent`` % of the documents and
  set each chosen label independently to 0..4 with probabilities (.5, .2, .15, .1, .05).
* :func:`cascade_clicks` — Figure 4: per list and impression, shuffle the list (a random base
  ranker), scan from the top, click each document with the probability of its label; the
  user is persistent (scans on until a click or the end) and stops at the first click; the
  scanned prefix is one impression (clicked = 1, the others 0). A scan with no click gives no
  impression (the paper is silent; this harness's choice).
* :func:`position_based_clicks` — an option: the position-based model (Craswell et al.
  2008; Joachims et al. 2017), examination probability (1/r)^η at rank r, independent
  clicks, several clicks per impression possible.

Per-list counts ``percent/100 · m`` are rounded stochastically (floor, plus one with the
fractional part's probability), so the realized share matches ``percent`` in expectation
even for short lists.
"""
from __future__ import annotations

import numpy as np

from .data import RankingDataset, query_index

__all__ = ["add_negatives", "label_noise", "cascade_clicks", "position_based_clicks", "pbm_clicks", "cascade_session_clicks",
           "BRUCH_NOISE_PROBS",
           "BRUCH_CLICK_PROBS"]

BRUCH_NOISE_PROBS = (0.5, 0.2, 0.15, 0.1, 0.05)
BRUCH_CLICK_PROBS = (0.05, 0.3, 0.5, 0.7, 0.95)


def _stochastic_round(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    base = np.floor(x)
    return (base + (rng.random(x.shape) < (x - base))).astype(np.int64)


def add_negatives(ds: RankingDataset, percent: float, rng: np.random.Generator) -> RankingDataset:
    """Each list of m documents gains ≈ percent/100·m documents drawn uniformly (with
    replacement) from the rows of the other lists, labelled 0, appended after its own
    documents. Copies ``X`` (the grown dataset is new data)."""
    if percent < 0:
        raise ValueError("percent must be >= 0")
    if ds.n_queries < 2 and percent > 0:
        raise ValueError("need at least two lists to borrow documents from other lists")
    sizes = ds.query_sizes
    k = _stochastic_round(sizes * (percent / 100.0), rng)
    q_new = np.repeat(np.arange(ds.n_queries), k)
    # uniform over rows outside the list: draw in [0, n - m) and skip the list's own block
    r = (rng.random(q_new.size) * (ds.n_docs - sizes[q_new])).astype(np.int64)
    r = np.where(r >= ds.offsets[q_new], r + sizes[q_new], r)
    rows = np.concatenate([np.arange(ds.n_docs), r])
    keys = np.concatenate([query_index(ds.offsets), q_new])
    order = np.argsort(keys, kind="stable")          # each list: own documents first, then the added
    rows = rows[order]
    added = np.concatenate([np.zeros(ds.n_docs, bool), np.ones(r.size, bool)])[order]
    y = np.where(added, 0, ds.y[rows]).astype(np.int32)
    new_sizes = sizes + k
    out = RankingDataset(X=ds.X[rows], y=y, qid=np.repeat(ds.query_ids, new_sizes),
                         offsets=np.r_[0, np.cumsum(new_sizes)].astype(np.int64),
                         name=f"{ds.name}+neg{percent:g}%", meta={**ds.meta, "added_negatives": int(r.size)})
    return out


def label_noise(ds: RankingDataset, percent: float, rng: np.random.Generator,
                probs=BRUCH_NOISE_PROBS) -> RankingDataset:
    """Relabel ≈ percent % of each list's documents (chosen without replacement) with labels
    drawn independently from ``probs`` over 0..len(probs)-1. ``X`` is shared, not copied."""
    if not 0 <= percent <= 100:
        raise ValueError("percent must be in [0, 100]")
    probs = np.asarray(probs, dtype=float)
    if np.any(probs < 0) or not np.isclose(probs.sum(), 1.0):
        raise ValueError("probs must be non-negative and sum to 1")
    sizes = ds.query_sizes
    k = np.minimum(_stochastic_round(sizes * (percent / 100.0), rng), sizes)
    qidx = query_index(ds.offsets)
    u = rng.random(ds.n_docs)
    order = np.lexsort((u, qidx))                       # a random order inside each list
    rank = np.empty(ds.n_docs, np.int64)
    rank[order] = np.arange(ds.n_docs) - np.repeat(ds.offsets[:-1], sizes)
    chosen = rank < k[qidx]
    y = ds.y.copy()
    y[chosen] = rng.choice(probs.size, size=int(chosen.sum()), p=probs)
    out = ds.with_labels(y, name=f"{ds.name}+labelnoise{percent:g}%")
    out.meta["relabelled"] = int(chosen.sum())
    return out


def cascade_clicks(ds: RankingDataset, rng: np.random.Generator, click_probs=BRUCH_CLICK_PROBS,
                   impressions: int = 10) -> RankingDataset:
    """Simulated clicks of a persistent cascade user (see module docstring).

    Returns a dataset with one list per impression that ended in a click, in the order
    (list, impression); its qids are 0..n_impressions-1 and ``meta["source_query"]`` gives
    the query number each impression came from. Copies the rows of ``X`` it keeps.
    """
    c = np.asarray(click_probs, dtype=float)
    if ds.y.max(initial=0) >= c.size:
        raise ValueError(f"labels reach {ds.y.max()} but click_probs has {c.size} entries")
    rows, block, boffs, q_of_block, _ = _shuffled_blocks(ds, rng, impressions)
    n_blocks = q_of_block.size
    bsizes = np.diff(boffs)
    click = rng.random(rows.size) < c[ds.y[rows]]
    csum = np.cumsum(click)
    before = csum - click - np.repeat(np.r_[0, csum[boffs[1:-1] - 1]], bsizes)   # clicks before, same block
    total = np.add.reduceat(click.astype(np.int64), boffs[:-1]) if rows.size else np.zeros(0, int)
    keep = (before == 0) & np.repeat(total > 0, bsizes)
    kept_block = block[keep]
    new_sizes = np.bincount(kept_block, minlength=n_blocks)
    nonempty = new_sizes > 0
    out = RankingDataset(X=ds.X[rows[keep]], y=click[keep].astype(np.int32),
                         qid=np.repeat(np.arange(int(nonempty.sum())), new_sizes[nonempty]),
                         offsets=np.r_[0, np.cumsum(new_sizes[nonempty])].astype(np.int64),
                         name=f"{ds.name}+clicks", meta={**ds.meta, "click_probs": c.tolist(),
                                                          "impressions_per_list": impressions})
    out.meta["source_query"] = q_of_block[nonempty]
    out.meta["source_rows"] = rows[keep]
    return out


def _shuffled_blocks(ds: RankingDataset, rng: np.random.Generator, impressions: int):
    """Rows of ``impressions`` copies of every list, each copy shuffled; with block ids,
    block offsets, the query of each block and the 0-based position inside the block."""
    sizes = ds.query_sizes
    n_blocks = ds.n_queries * impressions
    bsizes = np.repeat(sizes, impressions)
    boffs = np.r_[0, np.cumsum(bsizes)]
    block = np.repeat(np.arange(n_blocks), bsizes)
    q_of_block = np.repeat(np.arange(ds.n_queries), impressions)
    rows = ds.offsets[q_of_block][block] + (np.arange(block.size) - boffs[block])
    order = np.lexsort((rng.random(block.size), block))
    return rows[order], block, boffs, q_of_block, np.arange(block.size) - boffs[block]


def pbm_clicks(labels: np.ndarray, positions: np.ndarray, rng: np.random.Generator, click_probs,
               eta: float = 1.0) -> np.ndarray:
    """Clicks of the position-based model for documents with ``labels`` shown at 0-based
    ``positions``: examined with probability (1/(position+1))^η, then clicked with
    ``click_probs[label]``, all independent."""
    c = np.asarray(click_probs, dtype=float)
    examined = rng.random(labels.size) < (1.0 / (positions + 1.0)) ** eta
    return examined & (rng.random(labels.size) < c[labels])


def position_based_clicks(ds: RankingDataset, rng: np.random.Generator, click_probs=BRUCH_CLICK_PROBS,
                          eta: float = 1.0, impressions: int = 10, cutoff: int | None = None) -> RankingDataset:
    """Position-based click model over a random base ranker.

    Per list and impression: shuffle the list; the document at rank r (1-based) is examined
    with probability (1/r)^η and, if examined, clicked with the probability of its label,
    independently of the other ranks. The impression is the top ``cutoff`` documents
    (default: all) with labels clicked = 1, not clicked = 0; an impression without a click
    is dropped. Same output layout as :func:`cascade_clicks`.
    """
    c = np.asarray(click_probs, dtype=float)
    if ds.y.max(initial=0) >= c.size:
        raise ValueError(f"labels reach {ds.y.max()} but click_probs has {c.size} entries")
    if eta < 0:
        raise ValueError("eta must be >= 0")
    rows, block, boffs, q_of_block, pos = _shuffled_blocks(ds, rng, impressions)
    click = pbm_clicks(ds.y[rows], pos, rng, c, eta)
    shown = pos < (cutoff if cutoff is not None else np.iinfo(np.int64).max)
    n_blocks = q_of_block.size
    clicks_per_block = np.bincount(block[shown & click], minlength=n_blocks)
    keep = shown & (clicks_per_block[block] > 0)
    new_sizes = np.bincount(block[keep], minlength=n_blocks)
    nonempty = new_sizes > 0
    out = RankingDataset(X=ds.X[rows[keep]], y=click[keep].astype(np.int32),
                         qid=np.repeat(np.arange(int(nonempty.sum())), new_sizes[nonempty]),
                         offsets=np.r_[0, np.cumsum(new_sizes[nonempty])].astype(np.int64),
                         name=f"{ds.name}+pbm-clicks", meta={**ds.meta, "click_probs": c.tolist(), "eta": eta,
                                                             "impressions_per_list": impressions})
    out.meta["source_query"] = q_of_block[nonempty]
    out.meta["source_rows"] = rows[keep]
    out.meta["source_position"] = pos[keep]
    return out


def cascade_session_clicks(click_probs: np.ndarray, session_offsets: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The persistent cascade user of :func:`cascade_clicks` over lists already in displayed
    order (sessions ``session_offsets``, each row's click probability ``click_probs``): the
    same draw (one uniform per row, click candidate iff u < c), and the user stops at the first
    click, so a session holds at most one click; rows after it are not examined.

    >>> cascade_session_clicks(np.array([0.0, 1.0, 1.0, 1.0]), np.array([0, 3, 4]),
    ...                        np.random.default_rng(0)).astype(int).tolist()
    [0, 1, 0, 1]
    """
    p = np.asarray(click_probs, dtype=float)
    cand = rng.random(p.size) < p
    csum = np.cumsum(cand)
    sizes = np.diff(session_offsets)
    before = csum - cand - np.repeat(np.r_[0, csum][session_offsets[:-1]], sizes)     # candidates above, same session
    return cand & (before == 0)

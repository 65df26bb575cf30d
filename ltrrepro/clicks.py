"""Simulated click logs of a logging ranker (Hu et al. 2019 §5; Ai et al. 2018; docs/protocols/debiasing.md).

A logging ranker scores every list; users see its top ``k`` documents (:func:`shown_lists`) in
``sessions`` sessions per query, and click (:func:`simulate`):

* ``pbm`` — the position-based model (Craswell et al. 2008; Joachims et al. 2017): the document at
  rank r (1-based) is examined with probability θ_r = (1/r)^η (``curve="inverse"``; or Ai et
  al.'s eye-tracking table ρ_r^η, ``curve="eyetracking"``) and, once examined, clicked with the
  probability of its grade; ranks are independent.
* ``cascade`` — :func:`ltrrepro.noise.cascade_session_clicks`, the persistent cascade user of
  Bruch's Figure 4: scan from the top, click with the grade's probability, stop at the first click.

Click probabilities per grade y follow Ai et al.'s noisy setting (:func:`click_probabilities`):
c(y) = ε⁻ + (ε⁺ − ε⁻)(2^y − 1)/(2^{y_max} − 1), ε⁺ for the top grade and ε⁻ (click noise) for 0.

Every draw comes from one ``np.random.Generator`` in a fixed order, vectorized over all sessions
of all queries (no per-query loop). The log keeps, per shown (query, document, position), the
impressions and clicks over the sessions (:attr:`ClickLog.clicks`), and the sessions with at
least one click as training lists (:meth:`ClickLog.sessions_dataset`: one list per session, its
documents in displayed order, label 1 if clicked): a session without a click gives no pair to a
pairwise learner and no target to a listwise one, so it is either re-drawn until it has one
(Hu et al.'s generator; ``no_click="redraw"``) or dropped.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .data import RankingDataset, query_index
from .noise import cascade_session_clicks

__all__ = ["click_probabilities", "examination", "shown_lists", "simulate", "ClickLog", "CLICK_MODELS",
           "EYETRACKING", "NO_CLICK"]

CLICK_MODELS = ("pbm", "cascade")
#: what becomes of a session without a click (:func:`simulate`)
NO_CLICK = ("redraw", "drop")
#: Ai et al. (2018)'s examination probabilities of ranks 1–10 (from Joachims et al.'s eye tracking),
#: raised to η in their generator; beyond rank 10 the last value
EYETRACKING = (0.68, 0.61, 0.48, 0.34, 0.28, 0.20, 0.11, 0.10, 0.08, 0.06)


def click_probabilities(eps_minus: float, eps_plus: float, max_grade: int) -> np.ndarray:
    """c(y) = ε⁻ + (ε⁺ − ε⁻)(2^y − 1)/(2^{y_max} − 1) for y = 0..y_max (Ai et al. 2018, as Hu et
    al. 2019 §5.1): the click probability of an examined document of grade y.

    >>> click_probabilities(0.1, 1.0, 4).round(2).tolist()
    [0.1, 0.16, 0.28, 0.52, 1.0]
    """
    if not 0 <= eps_minus <= eps_plus <= 1:
        raise ValueError(f"need 0 <= eps- <= eps+ <= 1, got eps- {eps_minus}, eps+ {eps_plus}")
    if max_grade < 1:
        return np.array([eps_plus], dtype=float)
    y = np.arange(max_grade + 1, dtype=float)
    return eps_minus + (eps_plus - eps_minus) * (2.0 ** y - 1.0) / (2.0 ** max_grade - 1.0)


def examination(k: int, eta: float, curve: str = "inverse") -> np.ndarray:
    """θ_r of ranks r = 1..k: (1/r)^η (``inverse``) or Ai et al.'s eye-tracking ρ_r^η.

    >>> examination(3, 1.0).round(4).tolist(), examination(2, 2.0).tolist()
    ([1.0, 0.5, 0.3333], [1.0, 0.25])
    """
    if eta < 0:
        raise ValueError(f"eta must be >= 0, got {eta}")
    r = np.arange(1, k + 1, dtype=float)
    if curve == "inverse":
        return (1.0 / r) ** eta
    if curve == "eyetracking":
        table = np.asarray(EYETRACKING, dtype=float)
        return table[np.minimum(np.arange(k), table.size - 1)] ** eta
    raise ValueError(f"examination curve: inverse or eyetracking, not {curve!r}")


def shown_lists(scores: np.ndarray, offsets: np.ndarray, k: int | None):
    """``(rows, sizes)``: per query, the rows of its top ``k`` documents by the logging ranker's
    ``scores`` in displayed order (ties in input order), and how many each query shows;
    ``k=None`` shows every document (Hu et al.'s generator: ``rank_cut = 100000``).

    >>> shown_lists(np.array([0.1, 0.9, 0.5, 2.0, 1.0]), np.array([0, 3, 5]), 2)
    (array([1, 2, 3, 4]), array([2, 2]))
    >>> shown_lists(np.array([0.1, 0.9, 0.5, 2.0, 1.0]), np.array([0, 3, 5]), None)[0].tolist()
    [1, 2, 0, 3, 4]
    """
    q = query_index(offsets)
    order = np.lexsort((np.arange(q.size), -np.asarray(scores, dtype=float), q))
    if k is None:
        return order, np.diff(offsets).astype(np.int64)
    rank = np.arange(q.size) - offsets[q[order]]
    keep = rank < k
    return order[keep], np.minimum(np.diff(offsets), k).astype(np.int64)


@dataclass
class ClickLog:
    """The click log of one logging ranking: ``rows`` (shown documents, rows of the source
    dataset, per query in displayed order), ``sizes`` (documents shown per query), ``position``
    (0-based rank of each shown row), ``clicks`` (clicks of each shown row over the
    ``n_sessions`` sessions of its query), ``propensity`` (the true probability that the shown
    row is examined: θ of its rank under the PBM, the chance that no document above it was
    clicked under the cascade), and the sessions with a click: ``session_query`` (the query of
    each), ``session_clicks`` (flat, per session its shown rows' clicks, 0/1); ``p_click``: the
    probability that a session has a click, mean over queries (before any re-draw), and
    ``no_click``: what became of the sessions without one (``drop`` or ``redraw``)."""

    rows: np.ndarray
    sizes: np.ndarray
    position: np.ndarray
    clicks: np.ndarray
    propensity: np.ndarray
    n_sessions: int
    session_query: np.ndarray
    session_clicks: np.ndarray
    p_click: float = float("nan")
    no_click: str = "drop"

    @property
    def offsets(self) -> np.ndarray:
        return np.r_[0, np.cumsum(self.sizes)].astype(np.int64)

    def sessions_dataset(self, ds: RankingDataset, name: str = "") -> tuple[RankingDataset, dict]:
        """``(dataset, side)``: one list per session with a click (rows of ``ds`` in displayed
        order, label = clicked) and its per-row ``position`` (0-based) and true ``propensity``."""
        offs = self.offsets
        starts, sizes = offs[self.session_query], self.sizes[self.session_query]
        shown = np.repeat(starts - np.r_[0, np.cumsum(sizes)[:-1]], sizes) + np.arange(int(sizes.sum()))
        out = RankingDataset(X=ds.X[self.rows[shown]], y=self.session_clicks.astype(np.int32),
                             qid=np.repeat(np.arange(self.session_query.size), sizes),
                             offsets=np.r_[0, np.cumsum(sizes)].astype(np.int64), name=name or f"{ds.name}+sessions",
                             meta={"source_query": self.session_query})
        return out, {"position": self.position[shown].astype(np.int64), "propensity": self.propensity[shown]}

    def stats(self, k: int) -> dict:
        """Click-log statistics: clicks per session, the share of sessions with a click, the share
        of clicks and the click-through rate at each position 1..k."""
        n_sess = self.n_sessions * self.sizes.size
        by_pos = np.bincount(self.position, weights=self.clicks, minlength=k)[:k]
        shown = np.bincount(self.position, minlength=k)[:k] * self.n_sessions
        total = float(self.clicks.sum())
        return {"sessions": int(n_sess), "sessions_with_click": int(self.session_query.size),
                "clicks_per_session": total / max(n_sess, 1),
                "share_with_click": self.session_query.size / max(n_sess, 1),
                "p_click": self.p_click, "no_click": self.no_click,
                "click_share_by_position": (by_pos / max(total, 1.0)).tolist(),
                "ctr_by_position": (by_pos / np.maximum(shown, 1)).tolist()}


def _first_click_draw(p: np.ndarray, sizes: np.ndarray, rng: np.random.Generator, then_independent: bool):
    """Clicks of sessions drawn *given that each has at least one*: per session (rows ``p``,
    each row's click probability, sessions of ``sizes`` rows) the first click at r with
    probability p_r Π_{s<r}(1 − p_s) / (1 − Π_s (1 − p_s)) — one uniform per session, inverted
    on the cumulative (1 − Π_{s≤r}(1 − p_s)) — then, for the position-based model, every later
    row clicked independently with its p (one uniform per row); for the cascade nothing after.
    This is the distribution of re-drawing a session until it has a click (Hu et al.'s
    generator), in a bounded number of draws, up to floating point (the cumulative sums run over
    all sessions' rows: a probability below about 1e-12 of the running sum is lost). Every
    session must have some p > 0; a row of p = 0 is never the first click.

    >>> _first_click_draw(np.array([0.0, 1.0, 0.5, 0.5]), np.array([2, 2]), np.random.default_rng(0), False).astype(int).tolist()
    [0, 1, 1, 0]
    """
    start = np.r_[0, np.cumsum(sizes)[:-1]].astype(np.int64)
    sess = np.repeat(np.arange(sizes.size), sizes)
    log_miss = np.log1p(-np.minimum(p, 1.0 - 1e-12))
    cum = np.cumsum(log_miss)
    base = np.r_[0.0, cum][start]                                       # Σ log(1 − p) before each session
    within = cum - base[sess]                                           # log Π_{s≤r}(1 − p_s), same session
    last = within[start + sizes - 1]
    target = rng.random(sizes.size) * -np.expm1(last)                   # u · P(at least one click)
    below = -np.expm1(within) <= target[sess]                           # rows before the first click
    first = np.add.reduceat(below.astype(np.int64), start) if sizes.size else np.zeros(0, np.int64)
    local = np.arange(p.size) - start[sess]
    click = local == first[sess]
    if then_independent:
        click |= (local > first[sess]) & (rng.random(p.size) < p)
    return click


def simulate(labels: np.ndarray, rows: np.ndarray, sizes: np.ndarray, sessions: int, rng: np.random.Generator, *,
             model: str = "pbm", click_probs, eta: float = 1.0, curve: str = "inverse",
             no_click: str = "drop") -> ClickLog:
    """``sessions`` sessions per query over the shown lists (``rows``, ``sizes`` of
    :func:`shown_lists`; ``labels`` the source dataset's grades), clicks from ``model``.

    The draws: one uniform per (session, shown row) in the order query, session, rank — the
    examination and the click of a PBM row share it (click iff u < θ_r c(y)); the cascade draws
    u < c(y) and keeps the first. ``no_click``: a session without a click is dropped
    (``"drop"``), or re-drawn until it has one (``"redraw"``, Hu et al.'s generator: every query
    keeps its ``sessions`` sessions): sessions with a click keep the draws above, and each empty
    one is replaced by a draw from the click distribution given at least one click
    (:func:`_first_click_draw`, after all the draws above) — the same distribution as
    re-drawing, in bounded time. A query none of whose rows can be clicked (every θ_r c(y) = 0)
    keeps no session either way."""
    if model not in CLICK_MODELS:
        raise ValueError(f"click model: one of {', '.join(CLICK_MODELS)}, not {model!r}")
    if no_click not in NO_CLICK:
        raise ValueError(f"no_click: one of {', '.join(NO_CLICK)}, not {no_click!r}")
    if sessions < 1:
        raise ValueError(f"sessions must be >= 1, got {sessions}")
    c = np.asarray(click_probs, dtype=float)
    y = np.asarray(labels)[rows]
    if y.size and int(y.max()) >= c.size:
        raise ValueError(f"grades reach {int(y.max())} but click_probs has {c.size} entries")
    offs = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    q = np.repeat(np.arange(sizes.size), sizes)
    position = np.arange(rows.size) - offs[q]
    k = int(sizes.max(initial=1))
    # every session of a query: its shown rows, session-major within the query
    ssize = np.repeat(sizes, sessions)                                  # per session, its length
    sq = np.repeat(np.arange(sizes.size), sessions)                     # per session, its query
    sstart = np.r_[0, np.cumsum(ssize)[:-1]]
    local = np.arange(int(ssize.sum())) - np.repeat(sstart, ssize)      # rank inside the session
    shown = np.repeat(offs[sq], ssize) + local                          # index into the shown rows
    if model == "pbm":
        theta = examination(k, eta, curve)
        prob = theta[local] * c[y[shown]]
        click = rng.random(shown.size) < prob
        propensity = theta[position]
    else:
        prob = c[y[shown]]
        click = cascade_session_clicks(prob, np.r_[0, np.cumsum(ssize)], rng)
        miss = np.log1p(-np.minimum(c[y], 1 - 1e-12))                  # log P(no click) of each shown row
        cum = np.cumsum(miss)
        above = cum - miss - np.r_[0.0, cum][offs[:-1]][q]                # Σ over the rows above, same query
        propensity = np.exp(above)                                        # P(examined) = Π_{above} (1 − c)
    per_session = np.add.reduceat(click.astype(np.int64), sstart) if sstart.size else np.zeros(0, np.int64)
    clickable = (np.add.reduceat(prob, sstart) > 0) if sstart.size else np.zeros(0, bool)
    p_click = float(np.mean(-np.expm1(np.add.reduceat(np.log1p(-np.minimum(prob, 1 - 1e-12)), sstart)))) \
        if sstart.size else 0.0                                         # P(a session has a click), exact
    if no_click == "redraw":
        empty = (per_session == 0) & clickable
        if empty.any():
            rows_empty = np.repeat(empty, ssize)
            click[rows_empty] = _first_click_draw(prob[rows_empty], ssize[empty], rng, model == "pbm")
            per_session = np.add.reduceat(click.astype(np.int64), sstart)
    kept = per_session > 0
    clicks = np.bincount(shown, weights=click, minlength=rows.size).astype(np.int64)
    keep_rows = np.repeat(kept, ssize)
    return ClickLog(rows=rows, sizes=sizes, position=position, clicks=clicks, propensity=propensity,
                    n_sessions=int(sessions), session_query=sq[kept], session_clicks=click[keep_rows].astype(np.int8),
                    p_click=p_click, no_click=no_click)

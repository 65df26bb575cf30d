"""Gradient boosting around :class:`~ltrrepro.gbdt.tree.TreeGrower` for any ltrrepro objective.

``train`` runs f_{t+1} = f_t + η·g_t (Xia Eq. 1) from zero scores: each iteration asks the
objective for (grad, hess) — and, for a pairwise objective, its pairs' Hessian terms
(``grad_hess_pairs``) — grows one tree per output (K trees per round for McRank's K
classes), and adds η times the leaf values. The validation metric is computed after every
round on the binned validation set; ``early_stopping_rounds`` stops after that many rounds
without improvement and the model keeps every tree (``best_iteration`` says where the best
was). Per-round times are recorded split into objective and tree growth.

:class:`Model` predicts raw scores from raw features (``x ≤ threshold`` goes left) and saves
to / loads from one ``.npz`` file (atomically). Deviations from Xia et al.: histogram bins
instead of every distinct value; no line search (the leaf value is the Newton step, Eq. 8).
"""
from __future__ import annotations

import io
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import numba
import numpy as np

from ..data import RankingDataset
from ..metrics import evaluate
from ..objectives import check_grad_hess, mcrank_scores
from ..fileio import atomic_write_bytes
from . import kernels as K
from .binning import BinMapper
from .tree import Tree, TreeGrower

__all__ = ["Model", "train", "TrainLog"]


@dataclass
class TrainLog:
    """What happened in training: validation curve, training loss (where the objective has
    one), per-round seconds (objective / trees) and the best round."""

    valid_metric: str | None = None
    valid_curve: list = field(default_factory=list)
    train_loss: list = field(default_factory=list)
    objective_s: list = field(default_factory=list)
    tree_s: list = field(default_factory=list)
    leaves: list = field(default_factory=list)        # leaves of each tree, in order
    best_iteration: int = 0
    n_pairs: list = field(default_factory=list)


class Model:
    """A trained ensemble: trees as flat arrays, ``n_outputs`` raw scores per row."""

    def __init__(self, trees: list[Tree], tree_output: list[int], n_outputs: int, meta: dict | None = None):
        self.n_outputs = int(n_outputs)
        self.meta = dict(meta or {})
        self.tree_output = np.asarray(tree_output, dtype=np.int64)
        self.train_scores = None      # raw training scores after the last round (set by train; saved)
        self._pack(trees)

    def _pack(self, trees):
        self.node_start = np.zeros(len(trees) + 1, dtype=np.int64)
        self.leaf_start = np.zeros(len(trees) + 1, dtype=np.int64)
        np.cumsum([t.feature.shape[0] for t in trees], out=self.node_start[1:])
        np.cumsum([t.value.shape[0] for t in trees], out=self.leaf_start[1:])

        def cat(name, dtype):
            parts = [getattr(t, name) for t in trees]
            return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype)

        self.feature = cat("feature", np.int64)
        self.threshold_bin = cat("threshold_bin", np.int64)
        self.threshold = cat("threshold", np.float64)
        self.left = cat("left", np.int64)
        self.right = cat("right", np.int64)
        self.gain = cat("gain", np.float64)
        self.value = cat("value", np.float64)
        self.count = cat("count", np.int64)

    @property
    def num_trees(self) -> int:
        return int(self.node_start.shape[0] - 1)

    def predict(self, X, num_rounds: int | None = None, start_round: int = 0) -> np.ndarray:
        """Raw scores (n,) — or (n, K) for K outputs — summed over rounds
        ``[start_round, num_rounds)`` (default: all). Rank McRank's outputs by
        :func:`~ltrrepro.objectives.mcrank_scores`."""
        X = np.ascontiguousarray(X)
        if X.dtype not in (np.float32, np.float64):
            X = X.astype(np.float64)
        nt = self.num_trees if num_rounds is None else min(self.num_trees, num_rounds * self.n_outputs)
        st = min(start_round * self.n_outputs, nt)
        out = np.zeros((X.shape[0], self.n_outputs))
        K.predict_raw(X, self.feature, self.threshold, self.left, self.right, self.value,
                      self.node_start[st:nt + 1], self.leaf_start[st:nt + 1], self.tree_output[st:nt], out)
        return out[:, 0] if self.n_outputs == 1 else out

    _ARRAYS = ("node_start", "leaf_start", "feature", "threshold_bin", "threshold", "left", "right", "gain",
               "value", "count", "tree_output")

    def save(self, path) -> Path:
        """Write the model to ``path`` (.npz) atomically."""
        buf = io.BytesIO()
        extra = {} if getattr(self, "train_scores", None) is None else {"train_scores": self.train_scores}
        np.savez(buf, meta=np.frombuffer(json.dumps({"n_outputs": self.n_outputs, "meta": self.meta}).encode(),
                                         dtype=np.uint8), **{k: getattr(self, k) for k in self._ARRAYS}, **extra)
        path = Path(path)
        atomic_write_bytes(path, buf.getvalue())
        return path

    @classmethod
    def load(cls, path) -> "Model":
        with np.load(Path(path)) as z:
            head = json.loads(z["meta"].tobytes().decode())
            m = cls.__new__(cls)
            m.n_outputs = int(head["n_outputs"])
            m.meta = head["meta"]
            for k in cls._ARRAYS:
                setattr(m, k, np.array(z[k]))
            m.train_scores = np.array(z["train_scores"]) if "train_scores" in z.files else None
        return m


def _objective_step(objective, scores, y, offsets, it, rng, need_pairs):
    """``(grad, hess, pairs)`` of the objective at ``scores``, checked as the library adapters
    check theirs (:func:`~ltrrepro.objectives.check_grad_hess`: finite gradients, non-negative
    finite Hessians of one per document and output), so that every arm of every study refuses
    a negative Hessian alike."""
    g, h, pairs = _raw_step(objective, scores, y, offsets, it, rng, need_pairs)
    g, h = np.asarray(g), np.asarray(h)
    if g.shape != scores.shape or h.shape != scores.shape:
        raise ValueError(f"{objective.name}: grad_hess returned shapes {g.shape} and {h.shape} for scores of shape "
                         f"{scores.shape} at iteration {it} (one gradient and one Hessian per document and output)")
    check_grad_hess(g, h, _label(objective), it)
    return g, h, pairs


def _label(objective) -> str:
    cls = type(objective)
    name = getattr(objective, "name", cls.__name__)
    return name if cls.__module__.startswith("ltrrepro.") else f"{name} ({cls.__module__}:{cls.__qualname__})"


def _raw_step(objective, scores, y, offsets, it, rng, need_pairs):
    if need_pairs:
        if objective.derivative_additive:
            g, h = objective.grad_hess(scores, y, offsets, iteration=it, rng=rng)
            return g, h, None
        if not hasattr(objective, "grad_hess_pairs"):
            raise NotImplementedError(
                f"{objective.name}: exact OLE and exact leaf values need the pair structure of the objective's "
                "Hessian (grad_hess_pairs); it exists for pairwise objectives (LambdaMART, RankNet), ListNet "
                "and XE_NDCG with order=0, and derivative-additive ones (squared loss, McRank). Use "
                "criterion='rwse' with leaf_hessian='diagonal' otherwise.")
        return objective.grad_hess_pairs(scores, y, offsets, iteration=it, rng=rng)
    g, h = objective.grad_hess(scores, y, offsets, iteration=it, rng=rng)
    return g, h, None


def train(objective, train_set: RankingDataset, valid_set: RankingDataset | None = None, *,
          criterion: str = "ole", num_rounds: int = 100, learning_rate: float = 0.1, num_leaves: int = 20,
          max_bin: int = 255, min_data_in_leaf: int = 20, min_sum_hessian_in_leaf: float = 1e-3,
          lambda_l2: float = 0.0, leaf_hessian: str = "exact", growth: str = "best-first",
          split_rule: str = "leaf-limit", valid_metric: str = "ndcg@10",
          early_stopping_rounds: int | None = None, track_loss: bool = False, seed: int = 0,
          threads: int | None = None, bin_mapper: BinMapper | None = None, callback=None):
    """Boost ``num_rounds`` rounds of trees grown under ``criterion`` ("se", "rwse", "ole"),
    ``growth`` "best-first" (LightGBM's order) or "width-first" (Xia et al.'s), leaves set by
    ``leaf_hessian`` "exact" or "diagonal" (Xia Eq. 8; see :class:`~.tree.TreeGrower`), nodes
    split under ``split_rule`` "leaf-limit" (exact OLE splits whatever its gain's sign, the
    paper's) or "positive-gain". ``log.leaves``: the leaves of every tree, in order.

    ``objective``: an :class:`~ltrrepro.objectives.base.Objective` (McRank: one tree per
    class per round). Returns ``(model, log)``. ``callback(iteration, scores, log)`` runs
    after every round (return True to stop). Same inputs and ``seed``, same model.
    """
    previous = numba.get_num_threads()
    if threads is not None:
        numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))
    try:
        return _train(objective, train_set, valid_set, criterion, num_rounds, learning_rate, num_leaves, max_bin,
                      min_data_in_leaf, min_sum_hessian_in_leaf, lambda_l2, leaf_hessian, growth, valid_metric,
                      early_stopping_rounds, track_loss, seed, bin_mapper, callback, split_rule)
    finally:
        numba.set_num_threads(previous)      # the caller's thread count, as it was


def _train(objective, train_set, valid_set, criterion, num_rounds, learning_rate, num_leaves, max_bin,
           min_data_in_leaf, min_sum_hessian_in_leaf, lambda_l2, leaf_hessian, growth, valid_metric, early_stopping_rounds,
           track_loss, seed, bin_mapper, callback, split_rule="leaf-limit"):
    rng = np.random.default_rng(seed)
    mapper = bin_mapper or BinMapper(max_bin=max_bin).fit(train_set.X, rng=np.random.default_rng(seed))
    bins = mapper.transform(train_set.X)
    vbins = mapper.transform(valid_set.X) if valid_set is not None else None
    grower = TreeGrower(bins, mapper.n_bins, mapper.thresholds, criterion=criterion, num_leaves=num_leaves,
                        min_data_in_leaf=min_data_in_leaf, min_sum_hessian_in_leaf=min_sum_hessian_in_leaf,
                        lambda_l2=lambda_l2, leaf_hessian=leaf_hessian, growth=growth,
                        split_rule=split_rule)
    K_out = int(getattr(objective, "n_outputs", 1))
    n = train_set.n_docs
    y = train_set.y
    offsets = train_set.offsets
    scores = np.zeros((n, K_out)) if K_out > 1 else np.zeros(n)
    vscores = None if valid_set is None else (np.zeros((valid_set.n_docs, K_out)) if K_out > 1 else np.zeros(valid_set.n_docs))
    need_pairs = criterion == "ole" or leaf_hessian == "exact"
    trees: list[Tree] = []
    tree_output: list[int] = []
    log = TrainLog(valid_metric=valid_metric if valid_set is not None else None)
    best, since = -np.inf, 0
    for it in range(num_rounds):
        t0 = time.perf_counter()
        g, h, pairs = _objective_step(objective, scores, y, offsets, it, rng, need_pairs)
        t1 = time.perf_counter()
        log.n_pairs.append(0 if pairs is None else int(pairs[0].shape[0]))
        for k in range(K_out):
            gk = g[:, k] if K_out > 1 else g
            hk = h[:, k] if K_out > 1 else h
            tree, leaf_of_row = grower.grow(gk, hk, pairs, learning_rate=learning_rate)
            if K_out > 1:
                scores[:, k] += tree.value[leaf_of_row]
                if vbins is not None:
                    col = np.zeros(valid_set.n_docs)
                    tree.predict_binned(vbins, col)
                    vscores[:, k] += col
            else:
                scores += tree.value[leaf_of_row]
                if vbins is not None:
                    tree.predict_binned(vbins, vscores)
            trees.append(tree)
            log.leaves.append(tree.num_leaves)
            tree_output.append(k)
        t2 = time.perf_counter()
        log.objective_s.append(t1 - t0)
        log.tree_s.append(t2 - t1)
        if track_loss:
            try:
                log.train_loss.append(float(objective.loss(scores, y, offsets)))
            except NotImplementedError:
                log.train_loss.append(float("nan"))
        if valid_set is not None:
            vs = mcrank_scores(vscores) if K_out > 1 else vscores
            r = evaluate(vs, valid_set.y, valid_set.offsets, [valid_metric])
            v = float(next(iter(r.values())).mean)
            log.valid_curve.append(v)
            if v > best:
                best, since, log.best_iteration = v, 0, it + 1
            else:
                since += 1
        else:
            log.best_iteration = it + 1
        if callback is not None and callback(it, scores, log):
            break
        if early_stopping_rounds is not None and valid_set is not None and since >= early_stopping_rounds:
            break
    meta = {"criterion": criterion, "leaf_hessian": leaf_hessian, "growth": growth, "split_rule": split_rule, "objective": repr(objective),
            "learning_rate": learning_rate, "num_leaves": num_leaves, "max_bin": max_bin,
            "min_data_in_leaf": min_data_in_leaf, "min_sum_hessian_in_leaf": min_sum_hessian_in_leaf,
            "lambda_l2": lambda_l2, "seed": seed, "best_iteration": log.best_iteration}
    model = Model(trees, tree_output, K_out, meta)
    model.train_scores = scores
    return model, log

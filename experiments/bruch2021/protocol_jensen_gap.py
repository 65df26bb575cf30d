"""Bruch Figure 1's protocol (``python -m experiments.jensen_gap``): the effect of γ on the
Jensen gap of XE_NDCG's bound — its configuration, the gap and the unit (a part of the paper's
:mod:`.protocol`; its notes are :mod:`.notes`' ``jensen_*``, the report :mod:`.report_figure1`,
the study's record in :mod:`.studies`).

Each simulated training example has m documents with scores drawn from U[0, 1] and labels
0–4 drawn with decreasing probabilities (the paper gives none: ``--probs``, recorded). For
each example, ``--draws`` vectors γ ~ U[0,1]^m define φ_r = (2^{y_r} − γ_r)/Σ_j(2^{y_j} − γ_j);
with ρ = softmax(f) the Jensen gap is  log Σ_r φ_r ρ_r − Σ_r φ_r log ρ_r  (≥ 0 by Jensen).
One cloud per example; the gap at γ = 0 is marked. Each example is one unit (its own
seeded generator), so the figure can be rebuilt from stored results.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from experiments.bruch2021 import notes
from experiments.config import RunConfig
from experiments.errors import UsageError
from experiments.options import option
from experiments.values import MAX_TRIALS
from ltrrepro.runner import UnitRecord

def jensen_gap(scores: np.ndarray, labels: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    """Gap for each row of ``gamma`` (draws × m), one list of ``scores``/``labels`` (m,)."""
    z = scores - scores.max()
    log_rho = z - np.log(np.exp(z).sum())
    num = np.exp2(labels.astype(float))[None, :] - gamma
    phi = num / num.sum(axis=1, keepdims=True)
    return np.log(phi @ np.exp(log_rho)) - phi @ log_rho


def _probs(text: str) -> tuple:
    """``--probs``: comma-separated numbers."""
    try:
        return tuple(float(x) for x in text.split(","))
    except ValueError:
        raise UsageError(f"--probs must be comma-separated numbers, got {text!r}") from None


@dataclass(frozen=True)
class JensenConfig(RunConfig):
    """``trials`` simulated lists of ``docs`` documents, ``draws`` vectors γ each."""

    dataset: str = option("simulated")          # no --dataset, --data-dir, --queries: it simulates its lists
    data_dir: str | None = option(None)
    queries: int | None = option(None)
    trials: int = option(1, flag="--lists", bounds=(1, MAX_TRIALS), help="simulated training examples")
    draws: int = option(1000, flag="--draws", bounds=(1, 2 ** 31), help="draws of γ per example")
    docs: int = option(100, flag="--docs", bounds=(1, 2 ** 31), help="documents per example")
    probs: tuple = option((0.5, 0.25, 0.15, 0.07, 0.03), flag="--probs", parse=_probs,
                          help="label probabilities 0..4")

    def __post_init__(self):
        if self.dataset != "simulated":
            raise UsageError(f"Figure 1 simulates its own lists: dataset must be 'simulated', got {self.dataset!r}")
        super().__post_init__()
        if self.draws < 1 or self.docs < 1:
            raise UsageError("--draws and --docs must be >= 1")
        if any(p < 0 for p in self.probs) or not np.isclose(sum(self.probs), 1):
            raise UsageError("--probs must be non-negative and sum to 1")

    @property
    def decreasing(self) -> bool:
        """The label probabilities decrease with the label, as Figure 1's caption says."""
        return all(a > b for a, b in zip(self.probs, self.probs[1:]))

    def as_paper(self) -> list[str]:
        return notes.jensen_as_paper(self)

    def choices(self) -> list[str]:
        return notes.jensen_choices(self)

    def deviations(self) -> list[str]:
        return notes.jensen_deviations(self)


def unit_fn(unit, ctx):
    cfg = ctx.cfg
    rng = np.random.default_rng(unit.model_seed())
    m = int(cfg.docs)
    probs = np.asarray(cfg.probs, float)
    scores = rng.random(m)
    labels = rng.choice(probs.size, size=m, p=probs)
    gamma = rng.random((int(cfg.draws), m))
    gaps = jensen_gap(scores, labels, gamma)
    gap0 = float(jensen_gap(scores, labels, np.zeros((1, m)))[0])
    rec = UnitRecord(means={"gap_mean": float(gaps.mean()), "gap_min": float(gaps.min()), "gap_max": float(gaps.max())},
                     log=f"gap {gaps.mean():.2e} [{gaps.min():.2e}, {gaps.max():.2e}]",
                     fields={"gap_gamma0": gap0, "label_counts": np.bincount(labels, minlength=probs.size).tolist()})
    return rec, {"gaps": gaps, "scores": scores, "labels": labels}

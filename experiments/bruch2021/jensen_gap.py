"""Bruch Figure 1: the effect of γ on the Jensen gap of XE_NDCG's bound.

    python -m experiments.jensen_gap [--lists 10] [--draws 1000] [--docs 100] [--probs .5,.25,.15,.07,.03]

Each simulated training example has m documents with scores drawn from U[0, 1] and labels
0–4 drawn with decreasing probabilities (the paper gives none: ``--probs``, recorded). For
each example, ``--draws`` vectors γ ~ U[0,1]^m define φ_r = (2^{y_r} − γ_r)/Σ_j(2^{y_j} − γ_j);
with ρ = softmax(f) the Jensen gap is  log Σ_r φ_r ρ_r − Σ_r φ_r log ρ_r  (≥ 0 by Jensen).
One cloud per example; the gap at γ = 0 is marked. Each example is one unit (its own
seeded generator), so the figure can be rebuilt from stored results.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np

from experiments import analysis as an
from experiments.bruch2021.report import figure1
from experiments.cli import UsageError, cli, make_parser, positive_int
from experiments.config import RunConfig
from experiments.study import config_or_manifest, execute
from ltrrepro.report import Report
from ltrrepro.runner import Unit

EXPERIMENT = "jensen_gap"


def jensen_gap(scores: np.ndarray, labels: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    """Gap for each row of ``gamma`` (draws × m), one list of ``scores``/``labels`` (m,)."""
    z = scores - scores.max()
    log_rho = z - np.log(np.exp(z).sum())
    num = np.exp2(labels.astype(float))[None, :] - gamma
    phi = num / num.sum(axis=1, keepdims=True)
    return np.log(phi @ np.exp(log_rho)) - phi @ log_rho


@dataclass(frozen=True)
class JensenConfig(RunConfig):
    """``trials`` simulated lists of ``docs`` documents, ``draws`` vectors γ each."""

    dataset: str = "simulated"
    draws: int = 1000
    docs: int = 100
    probs: tuple = (0.5, 0.25, 0.15, 0.07, 0.03)

    def __post_init__(self):
        super().__post_init__()
        if self.draws < 1 or self.docs < 1:
            raise UsageError("--draws and --docs must be >= 1")
        if any(p < 0 for p in self.probs) or not np.isclose(sum(self.probs), 1):
            raise UsageError("--probs must be non-negative and sum to 1")

    def deviations(self) -> list[str]:
        return [f"label probabilities {list(self.probs)} (the paper gives none)"]


def unit_fn(unit, ctx):
    cfg = ctx["cfg"]
    rng = np.random.default_rng(unit.model_seed())
    m = int(cfg.docs)
    probs = np.asarray(cfg.probs, float)
    scores = rng.random(m)
    labels = rng.choice(probs.size, size=m, p=probs)
    gamma = rng.random((int(cfg.draws), m))
    gaps = jensen_gap(scores, labels, gamma)
    gap0 = float(jensen_gap(scores, labels, np.zeros((1, m)))[0])
    rec = {"means": {"gap_mean": float(gaps.mean()), "gap_min": float(gaps.min()), "gap_max": float(gaps.max())},
           "gap_gamma0": gap0, "label_counts": np.bincount(labels, minlength=probs.size).tolist(),
           "log": f"gap {gaps.mean():.2e} [{gaps.min():.2e}, {gaps.max():.2e}]"}
    return rec, {"gaps": gaps, "scores": scores, "labels": labels}


def report(store) -> Report:
    """Figure 1 of the run in ``store`` (:func:`experiments.bruch2021.report.figure1.build`), written."""
    cfg, deviations, choices = an.stored_config(store, JensenConfig)
    df = an.frame(store, fields=figure1.FIELDS, arrays=figure1.ARRAYS)
    return figure1.build(df, cfg, deviations, choices).write(store.root)


@cli
def main(argv=None) -> int:
    ap = make_parser(__doc__)
    ap.add_argument("--lists", type=positive_int, default=10, help="simulated training examples (default 10)")
    ap.add_argument("--draws", type=positive_int, default=1000, help="draws of γ per example (default 1000)")
    ap.add_argument("--docs", type=positive_int, default=100, help="documents per example (default 100)")
    ap.add_argument("--probs", default="0.5,0.25,0.15,0.07,0.03", help="label probabilities 0..4")
    args = ap.parse_args(argv)

    def build(a):
        try:
            probs = tuple(float(x) for x in a.probs.split(","))
        except ValueError:
            raise UsageError(f"--probs must be comma-separated numbers, got {a.probs!r}") from None
        return JensenConfig(experiment=EXPERIMENT, trials=a.lists, seed=a.seed, draws=a.draws, docs=a.docs,
                            probs=probs)

    cfg = config_or_manifest(args, argv, build, JensenConfig, EXPERIMENT)
    if args.out is None:
        args.out = "runs/jensen_gap"
    units = [Unit(EXPERIMENT, "simulated", i, "list", seed=cfg.seed) for i in range(cfg.trials)]
    return execute(cfg, args, units, unit_fn, report, data=False)


if __name__ == "__main__":
    sys.exit(main())

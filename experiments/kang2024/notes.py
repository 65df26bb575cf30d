"""The Hessian study's protocol notes in the three columns every report prints: as the paper, our
choices where it is silent, deviations; and the words of its tuned notes and table. Pure
functions of a :class:`~experiments.kang2024.protocol.HessianConfig`; docs/protocols/kang2024.md
gives the sources."""
from __future__ import annotations

from experiments import parts as split_parts
from experiments.kang2024 import paper
from experiments.tuning_report import Words
from ltrrepro.datasets import base_dataset
from ltrrepro.fit import BACKENDS, SYSTEMS
from ltrrepro.fit.boosting import PRESETS
from ltrrepro.fit.hessian import CONSTANT_RATE, NEWTON_RATE, PAPER_SYSTEMS

__all__ = ["as_paper", "choices", "deviations", "TUNING"]


def _raw_library() -> str:
    """The library the paper's column trains in: the one that takes the raw Hessian (the authors' XGBoost)."""
    return " or ".join(BACKENDS[n].label for n in SYSTEMS[PAPER_SYSTEMS[0]].libraries)


def _rate(r) -> str:
    return f"log-uniform [{r[0]:g}, {r[1]:g}]"


def as_paper(cfg) -> list[str]:
    out = [f"PL-Rank-3's gradient and Kang et al.'s sampled diagonal Hessian from the same {cfg.samples} "
           f"Plackett–Luce rankings per query and round (Gumbel sampling), gains 2^y − 1, rank weights 1/log2(rank + 1) "
           f"to K = {cfg.cutoff}, both negated for a minimising library" if cfg.samples == paper.SAMPLES else None,
           "the first-order arm hands the library a Hessian of ones, as the authors' run without the Hessian",
           "the PL-Rank Hessian handed over as the estimator gives it, negative entries included (the authors')"
           if cfg.hessian_policy == "none" else None,
           "XE_NDCG's Newton step by the Neumann series, order 2 among the arms (Bruch 2021 §4.4)",
           "Kang et al.'s metric recorded beside per-query NDCG: mean DCG@10 / mean IDCG@10 over the test queries"]
    if split_parts.official(cfg):
        out.append(f"{cfg.dataset}'s official training, validation and test parts (fold 1), as the authors' Yahoo! "
                   f"Set 1: one split, the trials differ in the model seed only"
                   + (f"; {split_parts.drawn_line(cfg)}" if split_parts.drawn_valid(cfg) else ""))
    if cfg.paper_column:
        w, wo = (", ".join(f"{k} {v:g}" for k, v in d.items()) for d in (paper.WITH_HESSIAN, paper.WITHOUT_HESSIAN))
        out.append(f"the paper's column: PL-Rank with the sampled Hessian ({w}) and with Hessian 1 ({wo}), the authors' "
                   f"reported values, {cfg.paper_rounds} rounds, XGBoost's {paper.MAX_BIN} bins, the raw Hessian "
                   f"(--hessian-policy none), in {_raw_library()}"
                   + (f"; under --tune each searched in the authors' space ({', '.join(paper.SEARCH_SPACE)}; "
                      f"{min(paper.SEARCH_ROUNDS, cfg.paper_rounds)} rounds a configuration, patience "
                      f"{paper.SEARCH_PATIENCE}, no pruning)" if cfg.tune else "")
                   + f"; N = {paper.SAMPLES} and K = {paper.CUTOFF} whatever --samples and --cutoff")
    return [x for x in out if x]


def choices(cfg) -> list[str]:
    lib = BACKENDS[cfg.library].label
    out = [
        "per loss, the arms differ only in the Hessian: the same gradient, the same data and split, the same seed "
        "(the arms of a loss share their model seed, so a stochastic loss draws the same sample where the scores agree)",
        "the constant treatment hands the library the loss's own gradient with Hessian 1: for XE_NDCG and ListNet "
        "ρ − φ (the Neumann orders hand a Newton-corrected gradient with the diagonal ρ(1 − ρ), so their leaf step is "
        "the Newton step of that order); the exact arm solves the Newton step on the range of the singular Hessian "
        "(Σ∇ = 0, so (H + 11ᵀ)x = ∇)",
        f"PL-Rank's sampled Hessian handed to {lib} as --hessian-policy {cfg.hessian_policy}: "
        + {"abs": "max(|h|, 1e-16) (default: every leaf's Hessian sum positive, in either library)",
           "clip": "max(h, 1e-16) (negative entries floored)",
           "none": "the estimate as it is (the authors')"}[cfg.hessian_policy],
        "λMART: the harness's lambdas (σ = 1, no normalization) with their λ-Hessian against Hessian 1; the library's "
        "own LambdaMART is the reference of Kang et al.'s second claim",
        "ListNet: the exact diagonal ρ(1 − ρ) (order 0) against Hessian 1",
        "every choice on validation: early stopping on the validation part's NDCG@10 (Kang et al.'s K, where the "
        "harness's other studies select on NDCG@5), the tuned configurations on it, the learning-rate figure on the validation part's NDCG@10; the test "
        "part only reported",
        f"the table's differences and the claims on {'per-query NDCG@10' if cfg.metric == 'ndcg' else 'Kang et al.s metric (mean DCG@10 / mean IDCG@10)'} "
        f"(--metric); the other reported beside it",
        f"Kang et al.'s two claims: sampled ≫ constant for PL-Rank (a paired test, one-sided in sign) and sampled "
        f"PL-Rank within ±{cfg.margin:g} of the library's λMART (TOST, --margin); Bruch's order-2 Neumann step within "
        f"±{cfg.margin:g} of the exact one (TOST); per loss, the best Hessian treatment beats the constant one",
        *(["the paper's column keeps the best round on the validation part (every round trained), where the authors "
           "read the test curve; its depth-wise trees are grown loss-guided to 2^depth leaves, the same trees "
           "(tests/lib/test_tree_limits.py); its λMART reference is the arms' library λMART on the same splits; a "
           "trial whose scores become NaN in training (a leaf's Σh + L2 near 0 under the raw Hessian) is recorded as "
           "diverged and left out of the claims; the table gives Σh at the first round: below twice min_child_weight "
           "no split is allowed (a min_child_weight of 6 is a Hessian mass chosen on Yahoo's 473K training documents)"]
          if cfg.paper_column else []),
        f"the learning-rate figure: the two PL-Rank arms at {', '.join(f'{v:g}' for v in cfg.lr_grid)}, the other "
        f"settings the run's (tuned with --tune); the N figure: the sampled arm at N = "
        f"{', '.join(str(n) for n in sorted({*cfg.sweep_samples, cfg.samples}))}, time per round = training time / rounds",
    ]
    return out


def deviations(cfg, base: list[str]) -> list[str]:
    out = list(base)
    lib = BACKENDS[cfg.library].label
    out.append(f"the arms trained in {lib} with '{cfg.preset}' {PRESETS[cfg.preset]} and {cfg.boosting.rounds} rounds at most, "
               f"early stopping on validation NDCG@10 — not the paper's XGBoost run of {paper.ROUNDS} rounds "
               f"(learning rate {paper.WITH_HESSIAN['learning_rate']:g}, depth {paper.WITH_HESSIAN['max_depth']}, "
               f"min_child_weight {paper.WITH_HESSIAN['min_child_weight']}; without the Hessian learning rate "
               f"{paper.WITHOUT_HESSIAN['learning_rate']:g}) read on the test part every round"
               + ("; the paper's column keeps the authors' settings" if cfg.paper_column else ""))
    if cfg.hessian_policy != "none":
        out.append(f"the sampled Hessian made positive (--hessian-policy {cfg.hessian_policy}); the authors hand "
                   f"XGBoost the raw estimate (--hessian-policy none, in a library that takes it; at the harness's "
                   f"settings it gave NaN scores within the first rounds, measured on the synthetic Yahoo profile)")
    if cfg.samples != paper.SAMPLES:
        out.append(f"{cfg.samples} rankings sampled per query, not the authors' {paper.SAMPLES}")
    if not split_parts.official(cfg):
        out.append(f"data {cfg.dataset} with random 60/20/20 query splits per trial, not Yahoo! Set 1's official parts")
    elif base_dataset(cfg.dataset) != "yahoo":
        out.append(f"data {cfg.dataset}'s official parts (fold 1), not Yahoo! Set 1's")
    if cfg.tune:
        out.append(f"the arms' search space is the harness's (learning rate, leaves, documents per leaf, feature and "
                   f"bagging fractions, L2), not the authors' ({', '.join(paper.SEARCH_SPACE)}): the learning rate "
                   f"{_rate(NEWTON_RATE)} for the arms with a Hessian (the authors' [1e-3, 1e-2]) and "
                   f"{_rate(CONSTANT_RATE)} for the constant ones, wide enough for their optimum"
                   + ("; the paper's column searches the authors' space" if cfg.paper_column else ""))
    if cfg.paper_column:
        out.append("the paper's column reads the features as dense values (a zero is a value); the authors built "
                   "their DMatrix from a sparse matrix, so a zero feature there is missing, with a learned default "
                   "direction; their XGBoost's version is not stated (hist with 256 bins is 2.0's default)")
    if not paper.PAPER_TABLE:
        out.append("the paper's results table is not transcribed (experiments/kang2024/paper.py says what was "
                   "searched): the claims are the abstract's, powered against the smallest effect of interest")
    return out


def _name(model: str, cfg) -> str:
    return SYSTEMS[model].label if model in SYSTEMS else model


#: the words of the tuned notes and table (experiments.tuning_report)
TUNING = Words(
    who="every arm", one="arm",
    detail=lambda cfg: (f", maximising the validation NDCG@10 of early stopping; the learning rate {_rate(NEWTON_RATE)} "
                        f"for the arms with a Hessian and {_rate(CONSTANT_RATE)} for the constant ones, the rest of "
                        f"the library's space shared"),
    replaces=" in place of the preset's settings",
    searched="Each arm's best configuration of its search (Optuna TPE, every configuration to its end: no pruning)",
    as_paper=lambda cfg: (f"every arm tuned, as the authors tuned each of their runs ({paper.SEARCH_TRIALS} Optuna "
                          f"configurations each)"),
    name_of=_name)

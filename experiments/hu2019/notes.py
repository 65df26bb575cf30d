"""The debiasing study's protocol notes in the three columns every report prints: as the paper,
our choices where it is silent, deviations. Pure functions of a
:class:`~experiments.hu2019.protocol.DebiasingConfig`; docs/protocols/debiasing.md gives the
sources."""
from __future__ import annotations

from experiments.hu2019 import paper
from ltrrepro.fit.boosting import PRESETS

__all__ = ["as_paper", "choices", "deviations"]


def as_paper(cfg) -> list[str]:
    out = [f"users see the logging ranker's top {paper.TOP_K}" if cfg.k == paper.TOP_K else None,
           "a click needs examination and attraction; an examined document of grade y is clicked with "
           "ε⁻ + (ε⁺ − ε⁻)(2^y − 1)/(2^{y_max} − 1) (Ai et al. 2018, as Hu et al.)"
           + (f", ε⁺ = {cfg.eps_plus:g}, ε⁻ = {cfg.eps_minus:g}" if (cfg.eps_plus, cfg.eps_minus) ==
              (paper.EPS_PLUS, paper.EPS_MINUS) else ""),
           "Unbiased LambdaMART: the biases at clicked (t⁺) and unclicked (t⁻) positions estimated jointly with "
           "the ranker, once per boosting round, each the ratio of the round's debiased pair costs at a position to "
           "those at position 1, to the power 1/(1 + p)"
           + (", p = 0 (the paper's table: no regularization)" if cfg.bias_p == paper.PAPER_P else ""),
           "the ranker's pair loss λMART's: |ΔNDCG| log(1 + e^{−σδ}) over (clicked, unclicked) pairs of a session, "
           "divided by t⁺ of the clicked position and t⁻ of the unclicked one",
           "every system evaluated on the test queries' expert labels (NDCG@1/3/5/10, gain 2^y − 1, queries "
           "without a relevant document dropped)"]
    if cfg.eta == paper.ETA and cfg.click_model == "pbm":
        out.append("position-based clicks with η = 1 at the default point")
    return [x for x in out if x]


def choices(cfg) -> list[str]:
    return [
        f"examination (1/r)^η (the issue's form; Ai et al.'s generator raises an eye-tracking table to η instead: "
        f"--curve eyetracking)" if cfg.curve == "inverse" else f"examination {paper.EYETRACKING_SOURCE}",
        f"the logging ranker: λMART in the run's library ({cfg.logger_rounds} rounds of the preset) on the expert labels of a "
        f"random share of the training queries (the paper's is a Ranking SVM); one logger per trial and share, "
        f"deterministic: every session of a query shows the same list",
        "N sessions per query over the shown top k; a session without a click is dropped (it holds no pair and no "
        "listwise target); each session with a click is one training list, its rows in displayed order",
        "no model selection: every system trains the preset's rounds with no early stopping (clicks give no "
        "unbiased validation metric without the debiasing under study); the validation queries are unused",
        "the skyline: λMART on the training queries' full lists with expert labels",
        "IPS with estimated propensities: the ltrrepro Unbiased LambdaMART's t⁺^{1+p} learned on the same "
        "sessions (a second fit), IPS weights 1/θ clipped at θ ≥ 0.01; true propensities: θ of the position "
        "(PBM) or the chance that no document above was clicked (cascade)",
        "IPS XE_NDCG: Bruch's φ with the gain 2^y − 1 replaced by its IPS estimate (2^y − 1)/θ",
        "position as a feature: the displayed position one more feature column, set to position 1 at inference",
        "the libraries' debiasing at their defaults: LightGBM lambdarank_position_bias_regularization 0, XGBoost "
        "lambdarank_bias_norm as the installed version sets it; λMART everywhere σ = 1 without lambda "
        "normalization (the harness's λMART)",
        "the cascade click model is the harness's persistent cascade user (Bruch's Figure 4): the first click "
        "ends the session; its 'true curve' is the mean examination probability by position over the shown lists",
        "propensity recovery: each method's t⁺^{1+p} (the unregularized ratio) against θ_r/θ_1; LightGBM keeps "
        "its position-bias term inside the objective, so it has no curve",
    ]


def deviations(cfg, base: list[str]) -> list[str]:
    out = list(base)
    if cfg.share != paper.LOGGER_SHARE:
        out.append(f"the logging ranker learns from {cfg.share:g} of the training queries, not the paper's "
                   f"{paper.LOGGER_SHARE:g} (too few queries on small data)")
    if cfg.preset not in ("bruch-yahoo",):
        out.append(f"hyperparameters '{cfg.preset}' {PRESETS[cfg.preset]} with {cfg.boosting.rounds} rounds, not "
                   f"the paper's LightGBM settings")
    if (cfg.eps_plus, cfg.eps_minus) != (paper.EPS_PLUS, paper.EPS_MINUS):
        out.append(f"click noise ε⁺ = {cfg.eps_plus:g}, ε⁻ = {cfg.eps_minus:g}, not the paper's 1 and 0.1")
    if cfg.bias_p != paper.PAPER_P:
        out.append(f"bias regularization p = {cfg.bias_p:g}, not the table's 0")
    if not paper.PAPER_TABLE:
        out.append("the paper's results table is not transcribed (the harness could not read it; "
                   "experiments/hu2019/paper.py says what was searched): the claims are powered against the smallest "
                   "effect of interest, not the paper's numbers")
    return out

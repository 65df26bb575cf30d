"""The debiasing study's protocol notes in the three columns every report prints: as the paper,
our choices where it is silent, deviations. Each choice of the authors' generator is named with the option
that changes it. Pure functions of a :class:`~experiments.hu2019.protocol.DebiasingConfig`;
docs/protocols/debiasing.md gives the sources."""
from __future__ import annotations

from experiments.hu2019 import paper
from ltrrepro.fit.boosting import PRESETS
from ltrrepro.objectives.debiasing import VARIANTS

__all__ = ["as_paper", "choices", "deviations"]


def _p(cfg) -> float:
    return cfg.ulm_kwargs()["p"]


def as_paper(cfg) -> list[str]:
    out = ["users see every document of the logging ranker's list, positions past 10 examined as the 10th (the "
           "authors' generator, rank_cut 100000; --k K shows the top K)" if not cfg.k else None,
           "examination ρ_r^η from Ai et al.'s eye-tracking table (0.68, 0.61, 0.48, 0.34, 0.28, 0.20, 0.11, 0.10, "
           "0.08, 0.06) (--curve inverse: (1/r)^η)" if cfg.curve == "eyetracking" else None,
           f"{cfg.sessions} sessions per training query (--sessions)" if cfg.sessions == paper.SESSIONS else None,
           "a session without a click re-drawn until it has one, so every query keeps its sessions (drawn exactly "
           "from the click law given a click; --no-click drop drops them)" if cfg.no_click == "redraw" else None,
           "the logging ranker a linear Ranking SVM on the expert labels of a share of the training queries "
           "(--logger lambdamart: λMART)" if cfg.logger == "svm" else None,
           "a click needs examination and attraction; an examined document of grade y is clicked with "
           "ε⁻ + (ε⁺ − ε⁻)(2^y − 1)/(2^{y_max} − 1) (Ai et al. 2018, as Hu et al.)"
           + (f", ε⁺ = {cfg.eps_plus:g}, ε⁻ = {cfg.eps_minus:g} (--eps-plus, --eps-minus)" if (cfg.eps_plus, cfg.eps_minus)
              == (paper.EPS_PLUS, paper.EPS_MINUS) else ""),
           "Unbiased LambdaMART: the biases at clicked (t⁺) and unclicked (t⁻) positions estimated jointly with "
           "the ranker, once per boosting round, each the ratio of the round's debiased pair costs at a position to "
           "those at position 1, to the power 1/(1 + p)",
           f"the harness's Unbiased LambdaMART as the authors' released code sets it: {VARIANTS['authors'][0]} "
           f"(--ulm lambdarank_unbiased: {VARIANTS['lambdarank_unbiased'][0]}; --ulm equations: {VARIANTS['equations'][0]})"
           if cfg.ulm == "authors" and cfg.bias_p is None else None,
           "every system evaluated on the test queries' expert labels (NDCG@1/3/5/10, gain 2^y − 1, queries "
           "without a relevant document dropped)"]
    if cfg.eta == paper.ETA and cfg.click_model == "pbm":
        out.append("position-based clicks with η = 1 at the default point (--eta, --click-model)")
    return [x for x in out if x]


def choices(cfg) -> list[str]:
    out = [
        f"users see the logger's top {cfg.k} (the authors' generator shows every document: --k all)" if cfg.k else None,
        "examination (1/r)^η (the authors' generator raises the eye-tracking table to η: --curve eyetracking)"
        if cfg.curve == "inverse" else None,
        "a session without a click is dropped (the authors' generator re-draws it: --no-click redraw)"
        if cfg.no_click == "drop" else None,
        f"the logging ranker: λMART in the run's library ({cfg.logger_rounds} rounds of the preset; the papers' is a "
        f"Ranking SVM: --logger svm)" if cfg.logger == "lambdamart" else
        "the Ranking SVM logger: squared hinge, C = 1, standardized features, every preference pair of the labelled "
        "queries (Ai et al. and Hu et al. give no C)",
        "one logger per trial and share, deterministic: every session of a query shows the same list; each session "
        "is one training list, its rows in displayed order",
        "the logger's test NDCG@10 reported beside the skyline's (the click-statistics table): a logger close to "
        "random leaves position with no relevance to carry, and debiasing little to correct",
        f"the harness's Unbiased LambdaMART set as --ulm {cfg.ulm}: {VARIANTS[cfg.ulm][0]}"
        + (f", p = {cfg.bias_p:g} (--bias-p)" if cfg.bias_p is not None else "") if cfg.ulm != "authors" or
        cfg.bias_p is not None else None,
        "ulm_off: the same Unbiased LambdaMART with every bias fixed at 1 — its λMART on the clicks, the arm that "
        "isolates what the bias update does",
        "no model selection: every system trains the preset's rounds with no early stopping (clicks give no "
        "unbiased validation metric without the debiasing under study); the validation queries are unused",
        "the skyline: λMART on the training queries' full lists with expert labels",
        "IPS with estimated propensities: the harness's Unbiased LambdaMART's t⁺^{1+p} learned on the same "
        "sessions (a second fit), IPS weights 1/θ clipped at θ ≥ 0.01; true propensities: θ of the position "
        "(PBM) or the chance that no document above was clicked (cascade)",
        "IPS XE_NDCG: Bruch's φ with the gain 2^y − 1 replaced by its IPS estimate (2^y − 1)/θ",
        "position as a feature: the displayed position one more feature column, set to position 1 at inference",
        "the libraries' debiasing at their defaults but one: LightGBM lambdarank_position_bias_regularization 0, "
        "XGBoost lambdarank_bias_norm as the installed version sets it (1 in XGBoost 2.0–3.2's code); every λMART "
        "(naive, skyline, LightGBM position, XGBoost lambdarank_unbiased, and --ulm lambdarank_unbiased) without "
        "lambda normalization as the preset sets it (XGBoost's lambdarank_normalization default is on), σ = 1",
        "the cascade click model is the harness's persistent cascade user (Bruch's Figure 4): the first click "
        "ends the session (the authors' cascade stops after a click only with probability 0.5·ε(y)); its 'true "
        "curve' is the mean examination probability by position over the shown lists",
        "propensity recovery over positions 1–10: each method's t⁺^{1+p} (the unregularized ratio) against θ_r/θ_1; "
        "LightGBM keeps its position-bias term inside the objective, so it has no curve",
    ]
    return [x for x in out if x]


def deviations(cfg, base: list[str]) -> list[str]:
    out = list(base)
    if cfg.share != paper.LOGGER_SHARE:
        out.append(f"the logging ranker learns from {cfg.share:g} of the training queries, not the paper's "
                   f"{paper.LOGGER_SHARE:g} (1% of Yahoo's 19,944 training queries is about 200; of a small dataset "
                   f"it is one or two, and the logger ranks nearly at random)")
    if cfg.sessions != paper.SESSIONS:
        out.append(f"{cfg.sessions} sessions per training query, not the authors' {paper.SESSIONS}")
    if cfg.preset not in ("bruch-yahoo",):
        out.append(f"hyperparameters '{cfg.preset}' {PRESETS[cfg.preset]} with {cfg.boosting.rounds} rounds, not "
                   f"the paper's LightGBM settings")
    if (cfg.eps_plus, cfg.eps_minus) != (paper.EPS_PLUS, paper.EPS_MINUS):
        out.append(f"click noise ε⁺ = {cfg.eps_plus:g}, ε⁻ = {cfg.eps_minus:g}, not the paper's 1 and 0.1")
    if _p(cfg) != paper.PAPER_P:
        out.append(f"bias regularization p = {_p(cfg):g}, not the table's 0 (the authors' released code: "
                   f"{paper.RELEASED_P:g}; --bias-p 0 for the table's)")
    if not paper.PAPER_TABLE:
        out.append("the paper's results table is not transcribed (the harness could not read it; "
                   "experiments/hu2019/paper.py says what was searched): the claims are powered against the smallest "
                   "effect of interest, not the paper's numbers")
    return out

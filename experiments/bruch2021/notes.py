"""Bruch (2021)'s protocol notes for a run, in the three columns every report prints
(:func:`ltrrepro.report.protocol_notes`): what the run takes from the paper where a reader
could doubt it, what it chose where the paper is silent, and where it deviates. Pure
functions of a :class:`~experiments.bruch2021.protocol.BruchConfig` (its ``as_paper``,
``choices`` and ``deviations`` call them), and of Figure 1's
:class:`~experiments.bruch2021.protocol_jensen_gap.JensenConfig` (``jensen_*``);
docs/protocols/bruch2021.md gives the sources."""
from __future__ import annotations

import dataclasses

from experiments.tuning_report import Words
from ltrrepro.datasets import base_dataset
from ltrrepro.fit import BACKENDS, SYSTEMS
from ltrrepro.fit.boosting import PRESETS

__all__ = ["as_paper", "choices", "deviations", "jensen_as_paper", "jensen_choices", "jensen_deviations", "TUNING",
           "TUNING_TABLE1"]

#: the words of a tuned run's notes and tuning table (:mod:`experiments.tuning_report`; the models' names:
#: the study record's, :func:`.report.model_name`)
TUNING = Words(
    who="every system", one="system", parts="training and validation parts",
    detail="; the space (ltrrepro.fit.space): learning rate log-uniform [0.01, 0.3], leaves [7, 255] and documents per "
           "leaf [10, 200] log-uniform, feature and bagging fractions [0.5, 1], L2 [0.001, 10] log-uniform, and a "
           "plug-in's own declared parameters; rounds and early stopping as the preset",
    replaces=", not the paper's fixed settings",
    as_paper="tuning selects on validation NDCG@5, the paper's model-selection metric; the test parts are never read "
             "by a search",
    value="valid NDCG@5",
    searched="Each system's best configuration of its search (Optuna TPE, median pruning) on validation NDCG@5")
#: Table 1's: reported at the paper's settings and tuned
TUNING_TABLE1 = dataclasses.replace(TUNING, replaces=", not the paper's fixed settings (Table 1 is reported at both)")

PAPER_IMPRESSIONS = 10                  # appendix E: 10 impressions per training list
XE_MODELS = {"xendcg", "listnet", "lgb_rank_xendcg"}
LAMBDA_MODELS = {"lambdamart", "xgb_rank_ndcg", "lambdamart_custom"}


def as_paper(cfg, paper_preset: str | None) -> list[str]:
    """Settings taken from the paper (§4.4, §5.1, §5.3, appendix E)."""
    out = []
    if set(cfg.models) & {"xendcg", "listnet"}:
        out.append("γ ~ U[0, 1]^m drawn afresh for every training list at every boosting iteration, and the inverse "
                   "Hessian by its Neumann series to order 2 (§4.4; ListNet through the same second-order step)")
    out.append("every model of a trial trained and tested on the trial's 60/20/20 query split (a paired design); "
               "paired tests at α = 0.01 (the paper's t-test unless --test says otherwise)")
    out.append("the test metric drops queries without a relevant document (NDCG's ideal DCG is 0 there); NDCG's "
               "gain 2^y − 1 (the paper's definition of DCG)")
    sigma = PRESETS[cfg.preset].get("sigmoid", 1.0)
    if set(cfg.models) & LAMBDA_MODELS and sigma == 1.0 and not PRESETS[cfg.preset].get("lambdarank_norm", False):
        out.append("λMART with σ = 1 and no lambda normalization (§5.2: 'σ is 1, and lambdamart_norm is set to "
                   "false')")
    if cfg.preset == paper_preset and cfg.early_stopping and cfg.rounds is None:
        out.append(f"the paper's hyperparameters for {base_dataset(cfg.dataset)} ('{cfg.preset}'): model "
                   "selection on validation NDCG@5, early stopping after 50 rounds, at most 500 trees")
    if set(cfg.noise) & {"documents", "labels"}:
        out.append("noise in the training lists only; the test set untouched")
    if "labels" in cfg.noise:
        out.append(f"a relabelled document takes grade 0–4 with probabilities {list(cfg.noise_probs)}")
    if "clicks" in cfg.noise and cfg.click_model == "cascade":
        out.append(f"training and validation lists turned into cascade clicks (appendix E), a persistent user "
                   f"stopping at the first click, click probabilities {list(cfg.click_probs)[1:]} for grades 1–4 and "
                   "the label-0 probability on the x-axis"
                   + (f", {cfg.impressions} impressions per list" if cfg.impressions == PAPER_IMPRESSIONS else ""))
    return out


def choices(cfg) -> list[str]:
    """Where Bruch is silent, what this run does."""
    models = set(cfg.models)
    out = []
    if models & LAMBDA_MODELS:
        out.append("λMART's lambdas as the library computes them: LightGBM lambdarank truncated at rank 30 (its "
                   "default), XGBoost rank:ndcg with its default top-k pair construction")
    libraries = (SYSTEMS[m].resolve_library(cfg.library) if m in SYSTEMS else cfg.library for m in cfg.models)
    for lib in dict.fromkeys(libraries):                # (a plug-in runs in --library: never imported here)
        if BACKENDS[lib].choice:                    # how the library selects and stops, where the paper is silent
            out.append(BACKENDS[lib].choice)
    if cfg.spec.full_curves and not cfg.early_stopping:
        out.append("every round trained (no early stopping) to draw Figure 2's whole validation curve; the paper "
                   "shows one representative trial and does not say how it stopped")
    out.append("tied scores ranked in input order (as LightGBM and XGBoost)")
    out.append("the validation metric (model selection, early stopping) also drops queries without a relevant "
               "document")
    if set(cfg.noise) & {"documents", "labels"}:
        out.append("the validation set stays clean (no extra documents, no label noise): the paper says only that "
                   "the test set is untouched; model selection on noisy validation lists would change the "
                   "robustness comparison")
    if "documents" in cfg.noise:
        out.append("extra negatives appended after a list's own documents (their position matters only for ties: "
                   "scores start equal); the count per list m·level/100 rounded stochastically; borrowed rows drawn "
                   "uniformly with replacement from all other training lists")
    if "labels" in cfg.noise:
        out.append("label noise: each list's count m·level/100 rounded stochastically, documents chosen without "
                   "replacement")
    if "clicks" in cfg.noise:
        if cfg.click_model == "cascade":
            out.append("cascade clicks: each impression a fresh random shuffle of the list; a scan that ends with no "
                       "click gives no impression (no all-zero list)")
    return out


def deviations(cfg, base: list[str], paper_preset: str | None) -> list[str]:
    """The run's deviations: the generic ones (``base``: data, trials) and Bruch's own."""
    out = list(base)
    if paper_preset is None and cfg.preset not in ("bruch-web30k", "bruch-yahoo"):
        out.insert(0, f"hyperparameters '{cfg.preset}' {PRESETS[cfg.preset]}, not one of the paper's "
                      f"('bruch-web30k', 'bruch-yahoo')")
    elif paper_preset is not None and cfg.preset != paper_preset:
        out.insert(1 if cfg.synthetic else 0, f"hyperparameters '{cfg.preset}' {PRESETS[cfg.preset]}, not the "
                                             f"paper's '{paper_preset}' {PRESETS.get(paper_preset)}")
    if cfg.rounds is not None:
        out.append(f"at most {cfg.rounds} trees")
    if not cfg.early_stopping and not cfg.spec.full_curves:
        out.append("no early stopping: every round trained (the paper stops after 50 rounds without a gain)")
    if set(cfg.models) & XE_MODELS:
        out.append("ε = 0 in XE_NDCG's ρ = e^f / (Σ e^f + ε), where Eq. 14 takes a negligible ε > 0 (as LightGBM's "
                   "rank_xendcg): the Hessian is then singular (its null direction, all ones, is orthogonal to the "
                   "gradient) and the order-2 Neumann series is used as is; the series itself converges only for "
                   "lists of three or more documents")
    if cfg.click_model == "pbm":
        out.append(f"position-based click model (eta {cfg.eta}, every impression kept), not the paper's cascade "
                   "model")
    if "clicks" in cfg.noise and cfg.impressions != PAPER_IMPRESSIONS:
        out.append(f"{cfg.impressions} impressions per list, not the paper's {PAPER_IMPRESSIONS}")
    return out


def jensen_as_paper(cfg) -> list[str]:
    """Figure 1's settings taken from its caption."""
    return ["scores drawn from U[0, 1], labels 0–4"
            + (" with smaller probabilities for larger labels" if cfg.decreasing else "")
            + ", γ ~ U[0, 1]^m per draw defining φ (Figure 1's caption)"]


def jensen_choices(cfg) -> list[str]:
    """Where Figure 1's caption is silent: the label probabilities, the numbers of examples and draws."""
    return [f"label probabilities {list(cfg.probs)} (the paper gives none, only that they decrease)"
            if cfg.decreasing else "label probabilities: the paper gives none, only that they decrease",
            f"{cfg.trials} examples of {cfg.draws} draws of γ each (the paper does not say how many)"]


def jensen_deviations(cfg) -> list[str]:
    """Figure 1's deviations: another list length, label probabilities that do not decrease."""
    out = [] if cfg.docs == 100 else [f"{cfg.docs} documents per example, not the paper's m = 100"]
    if not cfg.decreasing:
        out.append(f"label probabilities {list(cfg.probs)}: they do not decrease with the label, as Figure 1's "
                   "caption has them")
    return out

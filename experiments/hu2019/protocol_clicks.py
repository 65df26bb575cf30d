"""The debiasing study's click logs (docs/protocols/debiasing.md §2): the logging ranker of a
unit's trial and share (a linear Ranking SVM, or λMART, on the expert labels of a ``share`` of
the training queries; its stream depends on the trial and the share only), the click log it
draws over the training lists — users see the whole list (or its top ``k``); ``sessions``
sessions per query click under the setting's model (``pbm``: examination ρ_r^η from the
eye-tracking table, past 10 the 10th value, or (1/r)^η; click noise ε⁺/ε⁻; ``cascade``: the
harness's persistent cascade user), a session without a click re-drawn until it has one (or
dropped) — and the true examination curve the recovered propensities are compared with. A part
of :mod:`.protocol`, split off for length."""
from __future__ import annotations

import numpy as np

from ltrrepro.clicks import click_probabilities, shown_lists, simulate
from ltrrepro.fit import SYSTEMS
from ltrrepro.runner import unit_seed

__all__ = ["STREAM_LOGGER", "LOGGERS", "LOGGER_C", "CURVE_POSITIONS", "logging_ranker", "click_log", "true_curve"]

#: the stream of the logging ranker (its training queries and model): per trial and share
STREAM_LOGGER = 3
#: the logging rankers (``--logger``): Ai et al.'s and Hu et al.'s Ranking SVM, or λMART
LOGGERS = ("svm", "lambdamart")
#: the Ranking SVM logger's C (squared hinge on standardized features; the papers give none)
LOGGER_C = 1.0
#: positions of the click statistics and the examination curves (the eye-tracking table's 10)
CURVE_POSITIONS = 10

def logging_ranker(train, share: float, cfg, seed, threads: int):
    """The logging ranker, a function of a feature matrix: ``--logger svm`` a linear Ranking SVM
    (:func:`ltrrepro.fit.zheng.ranksvm_fit`, squared hinge, C = :data:`LOGGER_C`, on standardized
    features: the papers' kind of logger) or ``lambdamart`` λMART (``--library``,
    ``logger_rounds`` rounds of the preset), either on the expert labels of ⌈share · n⌉ training
    queries drawn at random."""
    pick, model = seed.spawn(2)
    n = max(1, int(np.ceil(share * train.n_queries)))
    labelled = train.subset(np.sort(np.random.default_rng(pick).permutation(train.n_queries)[:n]))
    if cfg.logger == "svm":
        from ltrrepro.fit.zheng import preference_pairs, ranksvm_fit
        mu = labelled.X.mean(0, dtype=np.float64)
        sd = labelled.X.std(0, dtype=np.float64)
        sd[sd == 0] = 1.0
        pairs = preference_pairs(labelled)
        if not len(pairs):                       # no labelled preference: the input order (a random logger)
            return lambda X: np.zeros(X.shape[0])
        Z = (labelled.X - mu) / sd
        w = ranksvm_fit(Z[pairs[:, 0]] - Z[pairs[:, 1]], LOGGER_C)
        return lambda X: ((X - mu) / sd) @ w
    trainer = SYSTEMS["click_lambdamart"].trainer(cfg.boosting.replace(rounds=cfg.logger_rounds), library=cfg.library,
                                                  seed=model, threads=threads)
    trainer.add_train(labelled)
    fitted = trainer.fit()
    return fitted.scores


def click_log(unit, train, cfg, max_grade: int, threads: int, logger=None):
    """The unit's click log over the training lists (its setting's sessions, η, share, model);
    ``logger``: the logging ranker when already trained (:func:`logging_ranker`)."""
    s = unit.settings
    if logger is None:
        logger = logging_ranker(train, float(s["share"]), cfg,
                                unit_seed(unit.seed, unit.trial, STREAM_LOGGER, f"share={s['share']}"), threads)
    rows, sizes = shown_lists(logger(train.X), train.offsets, cfg.shown)
    probs = click_probabilities(cfg.eps_minus, cfg.eps_plus, max_grade)
    return simulate(train.y, rows, sizes, int(s["sessions"]), np.random.default_rng(unit.transform_seed()),
                    model=s["click"], click_probs=probs, eta=float(s["eta"]), curve=cfg.curve, no_click=cfg.no_click)


def true_curve(log, k: int) -> list[float]:
    """The examination probability by position, relative to position 1: θ_r/θ_1 under the PBM;
    under the cascade the mean over the shown lists of P(examined at r), relative to position 1."""
    mean = np.bincount(log.position, weights=log.propensity, minlength=k)[:k] / np.maximum(
        np.bincount(log.position, minlength=k)[:k], 1)
    return (mean / mean[0]).tolist()

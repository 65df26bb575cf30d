"""The configuration fields several papers' configurations share, each declared once
(:func:`~experiments.options.option`): ``library: str = shared_fields.library()`` in a
configuration class gives the field its flag, help, choices and range wherever it is used."""
from __future__ import annotations

from experiments.options import option
from experiments.values import MAX_TUNE, bounded_int, models_flag, parse_levels
from ltrrepro.device import DEVICES
from ltrrepro.fit.backends import BACKENDS
from ltrrepro.fit.boosting import PRESETS

__all__ = ["library", "preset", "rounds", "models", "levels", "device", "every", "tune", "tune_on", "split", "ROUNDS"]

#: the range of a boosting length (``--rounds``, a curve's ``--every``)
ROUNDS = (1, 100_000)


def library(default: str = next(iter(BACKENDS))):
    """``--library``: the GBDT library of the models that run in several."""
    return option(default, flag="--library", choices=tuple(BACKENDS),
                  help="the GBDT library of the models that run in several ("
                       + ", ".join(n for n, b in BACKENDS.items() if not b.custom_objectives)
                       + ": its own losses only; a custom objective is refused)")


def preset(default: str = ""):
    """``--preset``: the hyperparameters ("" : the dataset's default)."""
    return option(default, flag="--preset", choices=sorted(PRESETS),
                  help="hyperparameters (default: the paper's for real data, 'fast' for synthetic data)")


def rounds(default=None, **kw):
    """``--rounds``: the boosting length."""
    return option(default, flag="--rounds", bounds=ROUNDS, **{"help": "boosting length (the maximum, with early "
                                                                      "stopping)", **kw})


def models(default, known, suffixes=(), what: str = "model"):
    """``--models``: built-in names and plug-in objectives, read by :func:`~experiments.values.models_flag`."""
    return option(default, flag="--models", parse=models_flag(known, suffixes, what),
                  help="comma-separated model (system) names and plug-in objectives package.module:Name(k=v, ...) "
                       "(Xia: SPEC-se / -rwse / -ole; see the README)")


def levels(default=(), help: str = "comma-separated levels"):
    """``--levels``: comma-separated numbers (integral ones as ints)."""
    return option(default, flag="--levels", parse=lambda text: tuple(parse_levels(text)), help=help)


def device(default: str = "cpu"):
    """``--device``: where the library grows trees."""
    return option(default, flag="--device", choices=DEVICES,
                  help="where the library grows trees: cpu or cuda (XGBoost's wheels; LightGBM built with CUDA); "
                       "refused with a clear error where unavailable")


def every(default, added: bool = False, help: str = "curve resolution in rounds", **kw):
    """``--every``: the curve's resolution in rounds."""
    return option(default, flag="--every", bounds=ROUNDS, help=help, added=added, **kw)


def tune():
    """``--tune N``: every system tuned with N configurations (0: fixed settings; added after runs were stored)."""
    return option(0, flag="--tune", parse=bounded_int(1, MAX_TUNE), bounds=(0, MAX_TUNE), metavar="N", added=True,
                  help="tune every system with the same budget of N configurations (Optuna TPE, pruned) on "
                       "validation NDCG, never test data (docs/tuning.md)")


def tune_on():
    """``--tune-on``: where ``--tune`` searches."""
    return option("first-split", flag="--tune-on", choices=("first-split", "per-trial"), added=True,
                  help="where --tune searches: trial 0's split, its best configuration shared by every trial "
                       "(default), or each trial's own validation part")


def split():
    """``--split``: the dataset's official parts or random query splits per trial (:mod:`experiments.parts`)."""
    return option("random", flag="--split", choices=("official", "random"), added=True,
                  help="official: the dataset's official train/validation/test parts, as the paper (Fold 1; a "
                       "validation part drawn from the training part where there is none), the default on a "
                       "registered dataset; random: 60/20/20 query splits of the pooled queries per trial, the default "
                       "on synthetic data and your files")

"""GBDT libraries behind one interface (:class:`~.base.Backend`), by library name.

``BACKENDS["lightgbm"]``, ``BACKENDS["xgboost"]``, ``BACKENDS["catboost"]`` (its own ranking
losses only, an optional dependency: ``pip install 'ltrrepro[catboost]'``): what the trainers of
:mod:`ltrrepro.fit` ask of a library — parameters, binned datasets, training with custom
objectives and per-round hooks, raw predictions on explicit threads. Every difference
between the libraries lives in these modules; a third library is one more module and one
more entry here.
"""
from __future__ import annotations

from .base import Backend, RawPredictor, Trained
from .catboost import CatBoostBackend, catboost_params
from .lightgbm import LightGBMBackend, lightgbm_params
from .xgboost import XGBoostBackend, xgboost_params

__all__ = ["BACKENDS", "Backend", "Trained", "RawPredictor", "backend", "lightgbm_params", "xgboost_params",
           "catboost_params"]

#: the GBDT libraries by name
BACKENDS: dict[str, Backend] = {b.name: b for b in (LightGBMBackend(), XGBoostBackend(), CatBoostBackend())}


def backend(library: str) -> Backend:
    """The backend of ``library``, or one clear error naming the known ones."""
    try:
        return BACKENDS[library]
    except KeyError:
        raise ValueError(f"no GBDT backend for {library!r}: known are {', '.join(BACKENDS)}") from None

"""Moved: :data:`PRESETS` and :func:`preset` live in :mod:`ltrrepro.fit.boosting` beside ``Boosting``; the library parameter presets in :mod:`ltrrepro.fit.backends` (their notes with them)."""
from .fit.backends import lightgbm_params, xgboost_params  # noqa: F401  (still imported by tests)
from .fit.boosting import PRESETS, preset  # noqa: F401

"""Moved (a re-export until the last importers switch): ``PRESETS``/``preset`` to :mod:`ltrrepro.fit.boosting`, the library parameter presets and their notes to :mod:`ltrrepro.fit.backends`."""
from .fit.backends import lightgbm_params, xgboost_params  # noqa: F401  (tests/test_docs.py, tests/test_objectives.py)
from .fit.boosting import PRESETS, preset  # noqa: F401  (experiments/cli.py, experiments/bruch2021/protocol.py)

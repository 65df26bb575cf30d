"""GBDT libraries behind one interface (:class:`~.base.Backend`), by library name.

``BACKENDS["lightgbm"]``, ``BACKENDS["xgboost"]``, ``BACKENDS["catboost"]`` (its own ranking
losses only, an optional dependency: ``pip install 'ltrrepro[catboost]'``): what the trainers of
:mod:`ltrrepro.fit` ask of a library — parameters, binned datasets, training with custom
objectives and per-round hooks, raw predictions on explicit threads, and every fact the rest of
the harness reads of a library: ``--library``'s choices (:data:`BACKENDS`), whether it takes
ltrrepro's objectives, its own ranking losses as baselines, its protocol note, its version in
the manifest, its GPU probe. Every difference between the libraries lives in these modules; a
fourth library is one more module, one more entry here (and its optional dependency in
``pyproject.toml``).
"""
from __future__ import annotations

from ... import device as _device
from .base import Backend, RawPredictor, Trained
from .catboost import CatBoostBackend, catboost_params
from .lightgbm import LightGBMBackend, lightgbm_params
from .xgboost import XGBoostBackend, xgboost_params

__all__ = ["BACKENDS", "custom_objective_libraries", "negative_hessian_libraries", "check_device", "library_versions",
           "Backend", "Trained", "RawPredictor", "backend", "lightgbm_params", "xgboost_params", "catboost_params"]

#: the GBDT libraries by name
BACKENDS: dict[str, Backend] = {b.name: b for b in (LightGBMBackend(), XGBoostBackend(), CatBoostBackend())}


def custom_objective_libraries() -> tuple:
    """The libraries that train ltrrepro's objectives (the default of a system's ``libraries``)."""
    return tuple(name for name, b in BACKENDS.items() if b.custom_objectives)


def negative_hessian_libraries() -> tuple:
    """The libraries that take a custom objective's negative Hessians as they are
    (:attr:`Backend.negative_hessians`): where PL-Rank's raw sampled Hessian (Kang et al.'s) trains."""
    return tuple(name for name in custom_objective_libraries() if BACKENDS[name].negative_hessians)


def backend(library: str) -> Backend:
    """The backend of ``library``, or one clear error naming the known ones."""
    try:
        return BACKENDS[library]
    except KeyError:
        raise ValueError(f"no GBDT backend for {library!r}: known are {', '.join(BACKENDS)}") from None


def check_device(device: str, library: str) -> None:
    """Raise :class:`ltrrepro.device.DeviceError` (one line: why, and what to do) unless
    ``library`` can train on ``device`` here: its backend's GPU probe, run once per process in
    a child process. ``cpu`` always can."""
    if device not in _device.DEVICES:
        raise _device.DeviceError(f"unknown device {device!r}: {' or '.join(_device.DEVICES)}")
    if device == "cpu":
        return
    b = BACKENDS.get(library)
    if b is None or b.gpu_probe is None:
        raise _device.DeviceError(f"--device cuda: {library} trains on the CPU only")
    if not _device._probe(b.gpu_probe):
        raise _device.DeviceError(f"--device cuda: {b.gpu_missing}; run without --device (CPU) or on a machine with a "
                                  f"GPU")


def library_versions() -> dict:
    """Each GBDT library's installed version by name (None where it is not installed)."""
    return {name: b.version() for name, b in BACKENDS.items()}

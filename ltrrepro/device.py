"""Where the trees are grown: ``cpu`` or ``cuda``, and whether this machine can honour it.

* XGBoost trains on a CUDA GPU with ``device="cuda"`` (built-in and custom objectives; its
  wheels carry CUDA). Without a visible GPU it silently falls back to the CPU, so
  :func:`check_device` probes it: a one-tree model must report ``cuda`` as its device.
* LightGBM trains on CUDA with ``device_type="cuda"`` only when it was built with
  ``-DUSE_CUDA=1`` (the PyPI wheels are not); the probe trains one tree.
* Custom objectives (ltrrepro's losses) receive the scores as host arrays and compute their
  gradients on the CPU with the numba kernels: XGBoost hands a Python objective host
  (numpy) predictions, and the per-list kernels take a few milliseconds per call on 2 cores
  (``benchmarks/bench_objectives.py``), against the tree growing they sit beside.

The parameters that put a library on a device are its backend's
(:meth:`ltrrepro.fit.backends.Backend.device_params`); here only whether it can.

The probes run in a child process (a library's fatal log line, or a GPU driver that hangs,
cannot touch the run) and are cached per process.
"""
from __future__ import annotations

import functools
import subprocess
import sys

__all__ = ["DEVICES", "DeviceError", "check_device"]

DEVICES = ("cpu", "cuda")

_PROBES = {
    "xgboost": ("import json, numpy as np, xgboost as xgb\n"
                "X = np.random.default_rng(0).random((64, 3)); y = X[:, 0]\n"
                "with xgb.config_context(verbosity=0):\n"
                "    b = xgb.train({'device': 'cuda', 'tree_method': 'hist'}, xgb.DMatrix(X, label=y), 1)\n"
                "dev = json.loads(b.save_config())['learner']['generic_param']['device']\n"
                "raise SystemExit(0 if dev.startswith('cuda') else 3)\n"),
    "lightgbm": ("import numpy as np, lightgbm as lgb\n"
                 "X = np.random.default_rng(0).random((64, 3)); y = X[:, 0]\n"
                 "lgb.train({'device_type': 'cuda', 'verbose': -1}, lgb.Dataset(X, y), 1)\n"),
}

_WHY = {
    "xgboost": "XGBoost finds no visible CUDA GPU on this machine (it would silently train on the CPU)",
    "lightgbm": "this LightGBM was built without CUDA (the PyPI wheels are CPU-only: build it with "
                "cmake -DUSE_CUDA=1, or use --library xgboost, whose wheels train on CUDA)",
}


class DeviceError(RuntimeError):
    """The requested device cannot be used by the library on this machine."""


@functools.lru_cache(maxsize=None)
def _probe(library: str, timeout: float = 120.0) -> bool:
    try:
        r = subprocess.run([sys.executable, "-c", _PROBES[library]], capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False
    return r.returncode == 0


def check_device(device: str, library: str) -> None:
    """Raise :class:`DeviceError` (one line: why, and what to do) unless ``library`` can train
    on ``device`` here. ``cpu`` always can."""
    if device not in DEVICES:
        raise DeviceError(f"unknown device {device!r}: cpu or cuda")
    if device == "cpu":
        return
    if library not in _PROBES:
        raise DeviceError(f"--device cuda: {library} trains on the CPU only")
    if not _probe(library):
        raise DeviceError(f"--device cuda: {_WHY[library]}; run without --device (CPU) or on a machine with a GPU")

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
(:meth:`ltrrepro.fit.backends.Backend.device_params`), and so is its GPU probe
(:attr:`~ltrrepro.fit.backends.Backend.gpu_probe`, run by
:func:`ltrrepro.fit.backends.check_device`); here the devices, the error, and the child process
that runs a probe.

The probes run in a child process (a library's fatal log line, or a GPU driver that hangs,
cannot touch the run) and are cached per process.
"""
from __future__ import annotations

import functools
import subprocess
import sys

__all__ = ["DEVICES", "DeviceError"]

DEVICES = ("cpu", "cuda")


class DeviceError(RuntimeError):
    """The requested device cannot be used by the library on this machine."""


@functools.lru_cache(maxsize=None)
def _probe(program: str, timeout: float = 120.0) -> bool:
    """Whether ``program`` (a backend's GPU probe) exits 0 in a child process, once per process."""
    try:
        r = subprocess.run([sys.executable, "-c", program], capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False
    return r.returncode == 0

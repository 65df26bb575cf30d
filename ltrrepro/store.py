"""Results store: one record per finished unit of work, written atomically; a run manifest.

Layout of a run directory::

    RUN/manifest.json            command line, config, versions, git commit, machine, start/end
    RUN/units/<key>.npz          per-query arrays of the unit (written first)
    RUN/units/<key>.json         the record (written last: its presence means "done")
    RUN/failures/<key>.json      a unit that raised: its traceback (removed once it succeeds)

Every file is written to a temporary name in the same directory and moved into place with
``os.replace``, so a run killed at any moment leaves either the old file or the new one,
never half of one. A record is *done* when its JSON exists and its ``config_hash`` equals
the current run's: re-running the same command skips it; a changed configuration
recomputes it (and says so).
"""
from __future__ import annotations

import getpass
import hashlib
import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

__all__ = ["ResultStore", "atomic_write_bytes", "atomic_write_text", "config_hash", "library_versions",
           "safe_key", "to_jsonable"]


def atomic_write_bytes(path: Path, data: bytes) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def to_jsonable(obj):
    """numpy scalars/arrays and tuples to plain JSON types (NaN kept as NaN)."""
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist())
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, Path):
        return str(obj)
    return obj


def config_hash(config: dict) -> str:
    blob = json.dumps(to_jsonable(config), sort_keys=True, separators=(",", ":"))
    return hashlib.sha1(blob.encode()).hexdigest()[:16]


def safe_key(key: str) -> str:
    """A unit key as a file name: ``/`` becomes ``__``; other characters must be plain."""
    name = key.replace("/", "__")
    bad = [c for c in name if not (c.isalnum() or c in "-_.=+@,")]
    if bad:
        raise ValueError(f"unit key {key!r} has characters not allowed in file names: {''.join(set(bad))!r}")
    return name


def library_versions() -> dict:
    out = {"python": sys.version.split()[0]}
    for mod in ("numpy", "scipy", "pandas", "lightgbm", "xgboost", "numba", "joblib", "ltrrepro"):
        try:
            m = __import__(mod)
            out[mod] = getattr(m, "__version__", "?")
        except Exception:           # an optional library that is absent
            out[mod] = None
    return out


def git_commit(path: Path | None = None) -> str | None:
    here = Path(path or Path(__file__).resolve().parent)
    try:
        rev = subprocess.run(["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True, text=True,
                             timeout=10)
        dirty = subprocess.run(["git", "-C", str(here), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    if rev.returncode != 0:
        return None
    return rev.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")


def machine_info() -> dict:
    return {"host": socket.gethostname(), "platform": platform.platform(), "cpus": os.cpu_count(),
            "user": getpass.getuser() if hasattr(os, "getuid") else None}


class ResultStore:
    """Records of one run directory (see module docstring)."""

    def __init__(self, run_dir, config: dict | None = None):
        self.root = Path(run_dir)
        self.units_dir = self.root / "units"
        self.failures_dir = self.root / "failures"
        self.config = to_jsonable(config or {})
        self.config_hash = config_hash(self.config)

    # ---------------------------------------------------------------- manifest
    @property
    def manifest_path(self) -> Path:
        return self.root / "manifest.json"

    def read_manifest(self) -> dict:
        if not self.manifest_path.exists():
            raise FileNotFoundError(f"{self.manifest_path}: no manifest; is {self.root} a results directory "
                                    f"written by an ltrrepro experiment?")
        return json.loads(self.manifest_path.read_text())

    def start(self, experiment: str, argv=None, extra: dict | None = None) -> dict:
        """Write (or update) the manifest at the start of a run; keeps earlier runs' history."""
        prev = json.loads(self.manifest_path.read_text()) if self.manifest_path.exists() else {}
        history = prev.get("history", [])
        if prev.get("started"):
            history.append({k: prev.get(k) for k in ("started", "finished", "argv", "git_commit", "config_hash",
                                                       "status")})
        man = {"experiment": experiment, "argv": list(sys.argv if argv is None else argv),
               "config": self.config, "config_hash": self.config_hash, "versions": library_versions(),
               "git_commit": git_commit(), "machine": machine_info(),
               "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "finished": None, "status": "running",
               "history": history, **(extra or {})}
        atomic_write_text(self.manifest_path, json.dumps(to_jsonable(man), indent=1))
        return man

    def finish(self, status: str, extra: dict | None = None) -> None:
        man = self.read_manifest()
        man.update({"finished": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "status": status, **(extra or {})})
        atomic_write_text(self.manifest_path, json.dumps(to_jsonable(man), indent=1))

    # ---------------------------------------------------------------- records
    def _paths(self, key: str) -> tuple[Path, Path, Path]:
        name = safe_key(key)
        return self.units_dir / f"{name}.json", self.units_dir / f"{name}.npz", self.failures_dir / f"{name}.json"

    def is_done(self, key: str) -> bool:
        js, _, _ = self._paths(key)
        if not js.exists():
            return False
        try:
            rec = json.loads(js.read_text())
        except json.JSONDecodeError:
            return False
        return rec.get("config_hash") == self.config_hash

    def stale(self, keys) -> list[str]:
        """Keys with a stored record computed under another configuration."""
        out = []
        for k in keys:
            js, _, _ = self._paths(k)
            if js.exists() and not self.is_done(k):
                out.append(k)
        return out

    def write(self, key: str, record: dict, arrays: dict[str, np.ndarray] | None = None) -> None:
        """Store a finished unit: arrays first, then the record (the commit point)."""
        js, npz, fail = self._paths(key)
        rec = {**record, "key": key, "config_hash": self.config_hash, "has_arrays": bool(arrays)}
        if arrays:
            import io
            buf = io.BytesIO()
            np.savez(buf, **{k: np.asarray(v) for k, v in arrays.items()})
            atomic_write_bytes(npz, buf.getvalue())
        atomic_write_text(js, json.dumps(to_jsonable(rec), indent=None, allow_nan=True))
        if fail.exists():
            fail.unlink()

    def write_failure(self, key: str, record: dict) -> None:
        _, _, fail = self._paths(key)
        atomic_write_text(fail, json.dumps(to_jsonable({**record, "key": key, "config_hash": self.config_hash}),
                                           indent=1))

    def records(self, current_only: bool = True) -> list[dict]:
        """All stored records (by default only those of the current configuration)."""
        out = []
        if not self.units_dir.exists():
            return out
        for js in sorted(self.units_dir.glob("*.json")):
            rec = json.loads(js.read_text())
            if current_only and self.config and rec.get("config_hash") != self.config_hash:
                continue
            out.append(rec)
        return out

    def failures(self) -> list[dict]:
        if not self.failures_dir.exists():
            return []
        return [json.loads(p.read_text()) for p in sorted(self.failures_dir.glob("*.json"))]

    def arrays(self, key: str) -> dict[str, np.ndarray]:
        _, npz, _ = self._paths(key)
        with np.load(npz) as z:
            return {k: z[k] for k in z.files}

    @classmethod
    def open(cls, run_dir) -> "ResultStore":
        """An existing run directory, with the configuration of its manifest."""
        root = Path(run_dir)
        st = cls(root)
        man = st.read_manifest()
        st.config = man.get("config", {})
        st.config_hash = man.get("config_hash", config_hash(st.config))
        return st

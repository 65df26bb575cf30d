"""Results store: one record per finished unit of work, written atomically; a run manifest.

Layout of a run directory::

    RUN/manifest.json            command line, config, versions, git commit, machine, start/end
    RUN/units/<key>.npz          per-query arrays of the unit (written first)
    RUN/units/<key>.json         the record (written last: its presence means "done")
    RUN/failures/<key>.json      a unit that raised: its traceback (removed once it succeeds)

Every file is written to a temporary name in the same directory and moved into place with
``os.replace``, so a run killed at any moment leaves either the old file or the new one,
never half of one; files get the permissions the user's umask gives. A record is *done* when
its JSON loads, its arrays load, and its ``config_hash`` equals the current run's:
re-running the same command skips it; a changed configuration recomputes it (and says so);
a damaged record or array file is named and recomputed. A damaged manifest is named and
rebuilt. One process at a time uses a run directory (``RUN/.lock``).

Manifests and records carry their schema version; an older one is read through
:mod:`ltrrepro.migrations` (the one place that knows older layouts), so old stores resume with
nothing recomputed.
"""
from __future__ import annotations

import json
import os
import platform
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from . import migrations
from .fileio import atomic_write_bytes, atomic_write_text, to_jsonable
from .migrations import SCHEMA, config_hash

__all__ = ["ResultStore", "StoreError", "config_hash", "library_versions", "safe_key"]


class StoreError(Exception):
    """A results directory that cannot be used as asked (locked by another run, damaged beyond
    what can be rebuilt); the message names the file and what to do."""


def safe_key(key: str) -> str:
    """A unit key as a file name: ``/`` becomes ``__``; other characters must be plain."""
    name = key.replace("/", "__")
    bad = [c for c in name if not (c.isalnum() or c in "-_.=+@,")]
    if bad:
        raise ValueError(f"unit key {key!r} has characters not allowed in file names: {''.join(set(bad))!r}")
    return name


def library_versions() -> dict:
    """The versions a manifest records: Python, the numeric stack, ltrrepro, and every GBDT
    library of :data:`ltrrepro.fit.backends.BACKENDS` (None where one is not installed)."""
    from .fit.backends import library_versions as gbdt_versions

    out = {"python": sys.version.split()[0]}
    for mod in ("numpy", "scipy", "pandas", "numba", "joblib", "ltrrepro"):
        try:
            m = __import__(mod)
            out[mod] = getattr(m, "__version__", "?")
        except Exception:           # an optional library that is absent
            out[mod] = None
    return {**out, **gbdt_versions()}


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
    """The machine a run ran on, as far as its results may depend on it (no user name: nothing
    of the person goes into what a run writes)."""
    return {"host": socket.gethostname(), "platform": platform.platform(), "cpus": os.cpu_count()}


class ResultStore:
    """Records of one run directory (see module docstring)."""

    #: configuration entries left out of the hash (:data:`ltrrepro.migrations.UNHASHED`)
    UNHASHED = migrations.UNHASHED

    def __init__(self, run_dir, config: dict | None = None, log=None):
        self.root = Path(run_dir)
        self.units_dir = self.root / "units"
        self.failures_dir = self.root / "failures"
        self.config = to_jsonable(config or {})
        self.config_hash = config_hash(migrations.hashed_config(self.config))
        #: hashes whose records are this configuration's, stored by an older version
        #: (:func:`ltrrepro.migrations.accepted_hashes`); such a record is re-stamped with the
        #: current hash when found (:meth:`current`), so a run resumes across the upgrade
        self.legacy_hashes = migrations.accepted_hashes(self.config, self._stored_manifest()) if config else set()
        self.selected: set[str] | None = None
        #: the units of the configuration (:meth:`expect`, :meth:`select`): those without a
        #: current record are :meth:`absent`, and reports and exports name them
        self.expected: list[str] | None = None
        self.log = log or (lambda msg: print(msg, file=sys.stderr))
        self.code = {"ltrrepro": library_versions().get("ltrrepro"), "git_commit": git_commit()}

    def _stored_manifest(self) -> dict | None:
        """The manifest as stored (None: none, or unreadable: the run names and rebuilds it)."""
        try:
            man = json.loads(self.manifest_path.read_text())
        except (OSError, ValueError, UnicodeDecodeError):
            return None
        return man if isinstance(man, dict) else None

    # ---------------------------------------------------------------- one run at a time
    #: what a run writes under its directory (relative paths): none may be a symbolic link
    #: (:meth:`lock` refuses one, naming it, before anything is written)
    OWNED = ("units", "failures", "manifest.json", ".lock", ".cache", "trec", "tables", "figures", "stale",
             "report.json", "claims.json", "claims.md", "claims.tex", "claims.csv", "summary.json", "sources.json")

    @contextmanager
    def lock(self, create: bool = True):
        """Hold ``RUN/.lock`` (an advisory lock the system drops when the process dies); a
        store object that holds it already goes on (re-entrant: a report or an export inside its
        run); another one — in this process or another — is refused. The lock
        file is opened without following a link (``O_NOFOLLOW``), and none of :data:`OWNED` may
        be a symbolic link: either is a :class:`StoreError` naming it, before anything is
        written. ``create=False`` (a reader of a run it does not write: an export elsewhere)
        goes on without the lock where the directory cannot be written."""
        import errno
        import fcntl

        from .fileio import LinkError, check_no_links

        if create:
            self.root.mkdir(parents=True, exist_ok=True)
        try:
            check_no_links(self.root, self.OWNED)
        except LinkError as err:
            raise StoreError(str(err)) from None
        if getattr(self, "_held", 0):
            self._held += 1
            try:
                yield self
            finally:
                self._held -= 1
            return
        path = self.root / ".lock"
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0),
                         0o666)
        except OSError as err:
            if err.errno == errno.ELOOP or os.path.islink(path):
                raise StoreError(f"{path} is a symbolic link (to {os.readlink(path)}); the lock is never opened through "
                                 f"one (its target would be overwritten): remove it") from None
            if not create and err.errno in (errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOENT):
                yield self                  # a directory this process cannot write: nothing here writes it
                return
            raise
        fh = os.fdopen(fd, "r+")
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            fh.seek(0)
            holder = fh.read().strip() or "?"
            fh.close()
            raise StoreError(f"another run is using {self.root} (pid {holder}); wait for it to end or choose "
                             f"another --out") from None
        self._held = 1
        try:
            fh.seek(0)
            fh.truncate()
            fh.write(str(os.getpid()))
            fh.flush()
            yield self
        finally:
            self._held = 0
            fcntl.flock(fh, fcntl.LOCK_UN)
            fh.close()

    def select(self, keys) -> None:
        """Report on exactly these units: other stored records (other levels, more trials)
        are left out of :meth:`records`, with a warning that says how many. Warns too when
        stored records of these units come from another code version."""
        self.selected = set(keys)
        self.expected = sorted(self.selected)
        others, versions = 0, set()
        for js in sorted(self.units_dir.glob("*.json")) if self.units_dir.exists() else []:
            rec = self._load_record(js)
            if rec is None or not self.current(rec):
                continue
            if rec.get("key") not in self.selected and rec.get("kind") != "tuning":   # --tune's searches: the run's own
                others += 1
            elif rec.get("code", {}).get("git_commit") != self.code["git_commit"]:
                versions.add(str(rec.get("code", {}).get("git_commit")))
        if others:
            self.log(f"note: {others} stored unit(s) in {self.units_dir} are not part of this command "
                     f"(other levels, models or trials); the report leaves them out")
        if versions:
            self.log(f"warning: stored units of this command were computed by other code versions "
                     f"({', '.join(sorted(versions))}; now {self.code['git_commit']}): the results mix versions; "
                     f"--force recomputes them")

    def expect(self, keys) -> None:
        """The units the configuration has (a report or export of a stored run: every unit of
        its configuration), without leaving other records out (:meth:`select` does)."""
        self.expected = sorted(set(keys))

    def absent(self) -> list[str]:
        """The expected units (:meth:`expect`, :meth:`select`) with no current record: not run
        yet, failed, or of a run still going; [] when nothing is expected."""
        if not self.expected:
            return []
        have = {r.get("key") for r in self.records(current_only=True, quiet=True)}
        return [k for k in self.expected if k not in have]

    # ---------------------------------------------------------------- manifest
    @property
    def manifest_path(self) -> Path:
        return self.root / "manifest.json"

    def read_manifest(self) -> dict:
        if not self.manifest_path.exists():
            raise FileNotFoundError(f"{self.manifest_path}: no manifest; is {self.root} a results directory "
                                    f"written by an ltrrepro experiment?")
        try:
            man = json.loads(self.manifest_path.read_text())
            if not isinstance(man, dict):
                raise ValueError("not a JSON object")
            return migrations.manifest(man)
        except (ValueError, UnicodeDecodeError) as err:
            raise StoreError(f"{self.manifest_path}: the manifest is damaged ({err}); re-running the experiment's "
                             f"command rebuilds it (finished units are kept)") from None

    def start(self, experiment: str, argv=None, extra: dict | None = None) -> dict:
        """Write (or update) the manifest at the start of a run; keeps earlier runs' history.
        ``argv``: the command as the user typed it (module form, paths as given; never the
        interpreter's or a script's location), None for a run through the Python API.
        A damaged manifest is named and rebuilt (its history is lost, the units are kept)."""
        try:
            prev = self.read_manifest() if self.manifest_path.exists() else {}
        except StoreError as err:
            self.log(f"warning: {err}; rebuilding it")
            prev = {}
        if prev.get("experiment") not in (None, experiment):
            raise StoreError(f"{self.root} holds a {prev['experiment']} run ({self.manifest_path}); a {experiment} run "
                             f"would mix its units and reports with it: choose another --out")
        history = prev.get("history", [])
        if prev.get("started"):
            history.append({k: prev.get(k) for k in ("started", "finished", "argv", "git_commit", "config_hash",
                                                       "status")})
        man = {"schema": SCHEMA, "experiment": experiment, "argv": None if argv is None else list(argv),
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

    def _load_record(self, js: Path, strict: bool = False, quiet: bool = False) -> dict | None:
        """The record of ``js``, or None (with a warning naming the file, unless ``quiet``)
        when it is damaged; ``strict``: a damaged record is a :class:`StoreError` instead (a
        reader that recomputes nothing: an export)."""
        try:
            rec = json.loads(js.read_text())
            if isinstance(rec, dict):
                return migrations.record(rec)
            raise ValueError("not a JSON object")
        except (ValueError, UnicodeDecodeError, OSError) as err:
            if strict:
                raise StoreError(f"{js} is damaged ({err}); re-run the study's command (it recomputes that unit), "
                                 f"then export again") from None
            if not quiet:
                self.log(f"warning: {js} is damaged ({err}); its unit will be recomputed")
            return None

    def record(self, key: str) -> dict | None:
        """The stored record of ``key`` (None when absent or damaged)."""
        return self._load_record(self._paths(key)[0])

    def current(self, record: dict) -> bool:
        """The record was computed under this configuration (its hash, or a legacy hash: then the
        stored record is re-stamped with the current one, written atomically)."""
        h = record.get("config_hash")
        if h == self.config_hash:
            return True
        if h not in self.legacy_hashes:
            return False
        if record.get("key"):
            js, _, _ = self._paths(record["key"])
            try:
                if js.exists():
                    atomic_write_text(js, json.dumps(to_jsonable({**record, "config_hash": self.config_hash}),
                                                     indent=None, allow_nan=True))     # as write() stores it
                    record["config_hash"] = self.config_hash
            except OSError:
                pass                       # read-only results: still this configuration's, not re-stamped
        return True

    def is_done(self, key: str) -> bool:
        """The record loads, was computed under this configuration, and its arrays load."""
        js, npz, _ = self._paths(key)
        if not js.exists():
            return False
        rec = self._load_record(js)
        if rec is None or not self.current(rec):
            return False
        if rec.get("key") != key:
            self.log(f"warning: {js} holds the record of another unit ({rec.get('key')!r}, copied or renamed?); "
                     f"its unit {key!r} will be recomputed")
            return False
        if rec.get("has_arrays"):
            try:
                with np.load(npz) as z:
                    for k in z.files:
                        z[k]
            except Exception as err:  # noqa: BLE001 - any unreadable archive means: recompute
                self.log(f"warning: {npz} is damaged or missing ({type(err).__name__}: {err}); "
                         f"its unit will be recomputed")
                return False
        return True

    def stale(self, keys) -> list[str]:
        """Keys with a stored record computed under another configuration."""
        out = []
        for k in keys:
            js, _, _ = self._paths(k)
            if js.exists():
                rec = self._load_record(js)
                if rec is not None and not self.current(rec):
                    out.append(k)
        return out

    def write(self, key: str, record: dict, arrays: dict[str, np.ndarray] | None = None) -> None:
        """Store a finished unit: arrays first, then the record (the commit point)."""
        js, npz, fail = self._paths(key)
        rec = {"schema": SCHEMA, **record, "key": key, "config_hash": self.config_hash, "has_arrays": bool(arrays),
               "code": self.code}
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
        atomic_write_text(fail, json.dumps(to_jsonable({"schema": SCHEMA, **record, "key": key,
                                                         "config_hash": self.config_hash}),
                                           indent=1))

    def records(self, current_only: bool = True, strict: bool = False, quiet: bool = False) -> list[dict]:
        """Stored records: by default those of the current configuration and, after
        :meth:`select`, of the selected units only. Damaged files are named and left out
        (``strict``: a :class:`StoreError`; ``quiet``: left out unsaid)."""
        out = []
        if not self.units_dir.exists():
            return out
        for js in sorted(self.units_dir.glob("*.json")):
            rec = self._load_record(js, strict=strict, quiet=quiet)
            if rec is None:
                continue
            if current_only and self.config and not self.current(rec):
                continue
            if current_only and self.selected is not None and rec.get("key") not in self.selected:
                continue
            out.append(rec)
        return out

    def failures(self) -> list[dict]:
        if not self.failures_dir.exists():
            return []
        return [r for r in (self._load_record(p) for p in sorted(self.failures_dir.glob("*.json"))) if r]

    def failure(self, key: str) -> dict:
        _, _, fail = self._paths(key)
        return (self._load_record(fail) if fail.exists() else None) or {}

    def arrays(self, key: str) -> dict[str, np.ndarray]:
        _, npz, _ = self._paths(key)
        try:
            with np.load(npz) as z:
                return {k: z[k] for k in z.files}
        except Exception as err:  # noqa: BLE001 - named for the user, whatever numpy/zipfile raised
            raise StoreError(f"{npz} is damaged or missing ({type(err).__name__}: {err}); re-run the experiment's "
                             f"command: it recomputes that unit") from None

    @classmethod
    def open(cls, run_dir) -> "ResultStore":
        """An existing run directory, with the configuration of its manifest."""
        root = Path(run_dir)
        st = cls(root)
        man = st.read_manifest()
        st.config = man.get("config", {})
        st.config_hash = man.get("config_hash") or config_hash(migrations.hashed_config(st.config))
        return st

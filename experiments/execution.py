"""How a run is executed, apart from what it computes: one frozen :class:`Execution`.

A configuration (:mod:`experiments.config`) decides a run's numbers; an ``Execution`` decides
only where the results go and how the units are run (local processes or a dask cluster,
jobs × threads, recomputing, printing, reporting, estimating). It is built once — from the
command line (:meth:`Execution.from_args`) or by a Python caller — checked here, and handed
with the configuration to :func:`experiments.run`. Two runs of one configuration under
different executions write the same records.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
from dataclasses import dataclass, fields
from pathlib import Path

from experiments.errors import UsageError
from experiments.values import field_hints, typed_value
from ltrrepro.store import ResultStore, StoreError

__all__ = ["Execution", "check_outputs", "check_units", "check_same_experiment"]

BACKENDS = ("loky", "dask")
#: seconds the scheduler probe's child gets beyond ``scheduler_timeout`` (importing dask) before it is killed
PROBE_GRACE_S = 15


@dataclass(frozen=True)
class Execution:
    """``out``: the results directory (default ``runs/EXPERIMENT-DATASET``); ``jobs`` ×
    ``threads``: parallel units and threads per unit (default: the cores, split by the runner);
    ``backend``: ``loky`` (local processes) or ``dask`` with ``scheduler`` (an address), waited
    for ``scheduler_timeout`` seconds; ``force``: recompute stored units; ``quiet``: no
    progress; ``no_report``: run the units only; ``estimate``: print the cost from a short
    calibration and stop; ``report_only``: report on the stored units, run none (what
    ``python -m experiments.report`` does); ``save_runs``: also write the units' test rankings as
    TREC runs and each trial's qrels under ``out/trec`` (:mod:`experiments.export`);
    ``unit_timeout``: seconds a unit may run before it fails with its reason, the others going
    on (:func:`ltrrepro.runner.run_units`); ``command``: the command line as typed (the
    manifest's ``argv``; None through the Python API)."""

    out: str | None = None
    jobs: int | None = None
    threads: int | None = None
    backend: str = "loky"
    scheduler: str | None = None
    scheduler_timeout: int = 30
    force: bool = False
    quiet: bool = False
    no_report: bool = False
    estimate: bool = False
    report_only: bool = False
    save_runs: bool = False
    #: the report's statistics (:class:`ltrrepro.inference.choices.Inference`), None = as the run's manifest
    #: stored them (else the defaults): ``--test``, ``--correction``, ``--effect`` — never hashed
    test: str | None = None
    correction: str | None = None
    effect: str | None = None
    #: seconds a unit may run before it fails with its reason (None: no limit); execution, not
    #: configuration: a unit that finishes within it gives the same record
    unit_timeout: float | None = None
    #: the command line as the user typed it, in module form (``("python", "-m", "experiments.quality",
    #: "--out", "runs/q")``: paths as given, nothing of the interpreter's location), which the manifest
    #: records as ``argv``; None: a run through the Python API (:func:`experiments.run`)
    command: tuple | None = None

    def __post_init__(self):
        import os

        if isinstance(self.out, os.PathLike):               # a Path is a directory too
            object.__setattr__(self, "out", os.fspath(self.out))
        hints = field_hints(type(self))
        for f in fields(self):
            if f.name not in ("jobs", "threads", "unit_timeout", "scheduler_timeout"):   # checked below, by flag
                typed_value(f.name, getattr(self, f.name), hints[f.name], "Execution", convert=False)
        for name in ("jobs", "threads"):
            v = getattr(self, name)
            if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 1):
                raise UsageError(f"--{name} must be an integer >= 1, got {v!r}")
        t = self.unit_timeout
        if t is not None and (isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 < t <= 7 * 86400):
            raise UsageError(f"--unit-timeout must be a number of seconds in (0, 604800] (a week), got {t!r}")
        if not isinstance(self.scheduler_timeout, int) or self.scheduler_timeout < 1:
            raise UsageError(f"--scheduler-timeout must be an integer >= 1 (seconds), got {self.scheduler_timeout!r}")
        if self.backend not in BACKENDS:
            raise UsageError(f"--backend must be one of {', '.join(BACKENDS)}, got {self.backend!r}")
        if self.backend != "dask" and self.scheduler:
            raise UsageError("--scheduler is only used with --backend dask")
        if self.backend == "dask" and not self.scheduler:
            raise UsageError("--backend dask needs --scheduler ADDRESS (a running dask.distributed scheduler)")
        if self.backend == "dask" and self.jobs is not None:
            raise UsageError("--jobs sets local worker processes; with --backend dask the cluster's workers run the "
                             "units: drop --jobs (size the cluster instead)")
        self.inference(None)                     # a bad --test / --correction / --effect: one line now
        if self.report_only and (self.force or self.estimate):
            raise UsageError("a report-only run computes nothing: drop --force / --estimate")

    @classmethod
    def from_args(cls, args) -> "Execution":
        """The execution flags of a parsed command line (those it has; the rest default)."""
        return cls(**{f.name: getattr(args, f.name) for f in fields(cls) if hasattr(args, f.name)})

    def inference(self, stored: dict | None):
        """The report's :class:`~ltrrepro.inference.choices.Inference`: the one a manifest ``stored`` (its
        ``statistics``; the defaults without), each of ``--test``, ``--correction``, ``--effect``
        given here replacing its part. A report choice: it changes what a report says (p-values,
        verdicts, power), never a unit, so it stays out of the configuration and its hash."""
        from ltrrepro.inference.effects import parse_effects
        from ltrrepro.inference.choices import Inference

        try:
            base = Inference.from_dict({} if stored is None else stored)
            if base.effects:                     # stored effects get the --effect checks (family, sign)
                parse_effects(",".join(f"{f}={100 * v:g}%" if r else f"{f}={v!r}" for f, v, r in base.effects))
            return Inference(test=self.test or base.test, correction=self.correction or base.correction,
                             effects=base.effects if self.effect is None else parse_effects(self.effect))
        except ValueError as err:
            raise UsageError(str(err)) from None

    def out_dir(self, cfg) -> Path:
        """The results directory: ``out``, or ``runs/<experiment>-<dataset>`` (a dataset given
        as a path is named ``user-<file stem>``)."""
        return Path(self.out or cfg.default_out)

    def check(self) -> None:
        """The scheduler answers within ``scheduler_timeout`` (``--backend dask``), and
        dask.distributed is installed; checked before any data is loaded."""
        if self.backend != "dask" or self.report_only:
            return
        import importlib.util
        if importlib.util.find_spec("distributed") is None:
            raise UsageError("--backend dask needs dask.distributed: pip install 'ltrrepro[dask]'")
        # probed in a child process: a scheduler that accepts the connection but never answers
        # makes dask's Client wait forever whatever its timeout; the child is killed at the bound
        probe = ("import sys; from dask.distributed import Client; "
                 "Client(sys.argv[1], timeout=sys.argv[2] + 's').close()")
        try:
            res = subprocess.run([sys.executable, "-c", probe, self.scheduler, str(self.scheduler_timeout)],
                                 capture_output=True, text=True, timeout=self.scheduler_timeout + PROBE_GRACE_S)
            why = (res.stderr.strip().splitlines() or ["?"])[-1] if res.returncode else ""
        except subprocess.TimeoutExpired:
            why = "no answer"
        if why:
            raise UsageError(f"--scheduler {self.scheduler} did not answer within {self.scheduler_timeout} s "
                             f"({why}); start it, or check the address")


def check_outputs(out: Path) -> Path:
    """``out`` is (or can be made) a writable directory; checked before any data is loaded."""
    import os

    out = Path(out)
    if os.path.islink(out) and not out.exists():
        raise UsageError(f"--out {out} is a symbolic link that leads nowhere (to {os.readlink(out)}): create its "
                         f"target, remove the link, or choose another path")
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file, not a directory: choose another path")
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".write-test-"):
            pass
    except OSError as err:
        raise UsageError(f"--out {out} is not writable ({err.strerror or err}): choose another path") from None
    return out


def check_units(units) -> None:
    """The run has units, and each unit's record can be stored under its name: checked
    before any data is loaded (an empty model list from a manifest ran nothing and exited 0;
    a plug-in name too long for a file name failed only after its units had trained)."""
    from ltrrepro.store import safe_key

    if not units:
        raise UsageError("the configuration runs no unit: give at least one model (--models) and one level")
    for u in units:
        try:
            name = safe_key(u.key)
        except ValueError as err:
            raise UsageError(f"model {u.model!r}: {err}") from None
        if len((name + ".json").encode()) > 255:
            raise UsageError(f"model {u.model!r}: its unit name makes a file name of {len(name.encode()) + 5} bytes "
                             f"(the limit is 255); give the plug-in a shorter module, class or argument text")


def check_same_experiment(out: Path, experiment: str) -> None:
    """``out`` holds no run of another experiment (its records and reports would be mixed
    with this one's); checked before any data is loaded. A damaged manifest is left to the
    store, which names and rebuilds it."""
    try:
        prev = ResultStore(out).read_manifest() if (out / "manifest.json").exists() else {}
    except (StoreError, OSError):
        return
    if prev.get("experiment") not in (None, experiment):
        raise UsageError(f"--out {out} holds a {prev['experiment']} run; a {experiment} run would mix its units and "
                         f"reports with it: choose another --out")

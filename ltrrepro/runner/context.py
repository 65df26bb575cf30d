"""The unit context: what every call ``fn(unit, ctx)`` of a run is handed besides its unit.

One frozen value, built once per run by the study (the configuration, the data reference, the
plug-in models) and completed by the runner (threads, the time limit, the parent process) and
by ``--tune`` (the tuned values, the searches' storage) with :func:`dataclasses.replace` — never
changed in place, since a copy of it travels to every worker. Keep it small: it is pickled into
every task (paths and settings, never arrays).

Unit functions read it by attribute (``ctx.cfg``, ``ctx.data``). ``ctx["cfg"]`` is the
compatibility form for studies written against the former plain dictionary: a field by name,
:class:`KeyError` for a name that is not a field.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

__all__ = ["UnitContext"]


@dataclass(frozen=True)
class UnitContext:
    """The context of a run's units.

    ``cfg``: the study's configuration (its ``RunConfig``; any picklable value);
    ``data``: the pooled data as ``{"path", "name"}`` (``DataRef(**ctx.data).open()``), None for
    a study that reads none; ``isolated``: the models whose units run in a process of their own
    (plug-ins, :func:`ltrrepro.runner.worker._execute`); ``threads``: each unit's threads (set by
    :func:`~ltrrepro.runner.run_units`); ``unit_timeout``: seconds before a unit is stopped
    (None: no limit); ``parent_pid``: the run's main process, which local workers watch (set for
    local worker processes only); ``tuned``: ``--tune``'s frozen configurations by
    ``"<model>@<trial>"``; ``tuning_dir``, ``tuning_study``: where the searches store their
    trials and under which study name (the run's configuration hash).
    """

    cfg: Any = None
    data: dict | None = None
    isolated: tuple = ()
    threads: int = 1
    unit_timeout: float | None = None
    parent_pid: int | None = None
    tuned: dict | None = None
    tuning_dir: str | None = None
    tuning_study: str | None = None

    def __getitem__(self, name: str):
        """``ctx["cfg"]`` is ``ctx.cfg``: the compatibility form of the former dictionary."""
        if not isinstance(name, str) or name not in _NAMES:
            raise KeyError(name)
        return getattr(self, name)

    def values(self) -> list:
        """The fields' values, in field order (what a task pickles by reference: see
        :func:`ltrrepro.runner.cluster._unit_modules`)."""
        return [getattr(self, f.name) for f in fields(self)]


_NAMES = frozenset(f.name for f in fields(UnitContext))

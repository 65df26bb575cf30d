"""What a unit's work gives back: :class:`UnitRecord`, one shape for every study."""
from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["UnitRecord"]


@dataclass(frozen=True)
class UnitRecord:
    """What one unit's work gives back, the same shape for every study's unit function
    (``fn(unit, ctx) -> (UnitRecord, arrays)``), stored as its record (:meth:`to_dict`; the
    runner adds the unit, its seeds, status and timing).

    ``means``: metric (canonical name) -> its mean over the test queries (or the unit's own
    measures, e.g. a simulated gap); ``log``: one line for the progress output; ``family`` and
    ``variant``: the identity of the system that was trained (:class:`ltrrepro.fit.System`), as
    fields, never a name to split; ``library``: the GBDT library it ran in; ``fit``: the fit's
    scalars (``best_iteration``, ``n_trees``, ``train_loss``); ``timings``: seconds
    (``train_s``, ...); ``info``: what the fit and the data design report (sizes, realized
    parameters); ``fields``: the study's own fields, stored beside these under their names
    (curves, transforms, per-example values) — what its report's frame reads."""

    means: dict
    log: str = ""
    family: str | None = None
    variant: str | None = None
    library: str | None = None
    fit: dict | None = None
    timings: dict | None = None
    info: dict | None = None
    fields: dict = field(default_factory=dict)

    @classmethod
    def of(cls, system, means: dict, **kw) -> "UnitRecord":
        """The record of a unit that trained ``system`` (its ``family`` and ``variant`` taken as fields)."""
        return cls(means=means, family=system.family, variant=system.variant, **kw)

    def to_dict(self) -> dict:
        """The stored record: ``means``, ``log``, ``system`` ({family, variant}) and the other
        fields that are set, then the study's own fields."""
        clash = set(self.fields) & {"means", "log", "system", "library", "fit", "timings", "info"}
        if clash:
            raise ValueError(f"a study's own record fields may not reuse the common names: {sorted(clash)}")
        out = {"means": dict(self.means), "log": self.log}
        if self.family is not None:
            out["system"] = {"family": self.family, "variant": self.variant}
        for name in ("library", "fit", "timings", "info"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        return {**out, **self.fields}

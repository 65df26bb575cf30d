"""What a unit's work gives back: :class:`UnitRecord`, one shape for every study."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

__all__ = ["UnitRecord", "fingerprint", "FINGERPRINT"]

#: the record field that holds a unit's test-score fingerprint (:func:`fingerprint`)
FINGERPRINT = "test_fingerprint"


def fingerprint(scores) -> str:
    """A short fingerprint of a unit's test scores: the first 16 hex digits of SHA-256 over the
    scores as float64, in the test part's order. Two units of a trial with the same fingerprint
    scored every test document bit for bit alike — they trained the same model (a knob that did
    nothing, or a parameter that never reached the library); two that differ in one score differ.

    >>> fingerprint([0.5, 1.0]) == fingerprint(np.array([0.5, 1.0], dtype=np.float32))
    True
    >>> fingerprint([0.5, 1.0]) == fingerprint([0.5, 1.0 + 1e-12])
    False
    """
    a = np.ascontiguousarray(np.asarray(scores, dtype=np.float64).ravel())
    return hashlib.sha256(a.tobytes()).hexdigest()[:16]


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
    (curves, transforms, per-example values) — what its report's frame reads; ``scores``: the
    unit's test scores, stored only as their :func:`fingerprint` (``test_fingerprint``), which
    the report's guard against identical models reads."""

    means: dict
    log: str = ""
    family: str | None = None
    variant: str | None = None
    library: str | None = None
    fit: dict | None = None
    timings: dict | None = None
    info: dict | None = None
    fields: dict = field(default_factory=dict)
    scores: object = field(default=None, repr=False, compare=False)

    @classmethod
    def of(cls, system, means: dict, **kw) -> "UnitRecord":
        """The record of a unit that trained ``system`` (its ``family`` and ``variant`` taken as fields)."""
        return cls(means=means, family=system.family, variant=system.variant, **kw)

    def to_dict(self) -> dict:
        """The stored record: ``means``, ``log``, ``system`` ({family, variant}) and the other
        fields that are set, then the study's own fields."""
        clash = set(self.fields) & {"means", "log", "system", "library", "fit", "timings", "info", FINGERPRINT}
        if clash:
            raise ValueError(f"a study's own record fields may not reuse the common names: {sorted(clash)}")
        out = {"means": dict(self.means), "log": self.log}
        if self.family is not None:
            out["system"] = {"family": self.family, "variant": self.variant}
        for name in ("library", "fit", "timings", "info"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        if self.scores is not None:
            out[FINGERPRINT] = fingerprint(self.scores)
        return {**out, **self.fields}

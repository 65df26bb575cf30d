"""A report's statistical choices as one value, :class:`Inference`: the test of a mean paired
difference, the correction within a claim family, the smallest effects of interest and the
level α. Built once (from the command line and the run's manifest) and handed to every report
builder, test, claim and :class:`~ltrrepro.report.Report` — nothing reads it from the
environment (ranx's ``Report`` carries its ``stat_test`` and ``max_p`` the same way). α is
defined here and nowhere else: :attr:`Inference.alpha`'s default, 0.01 (Bruch §5.1).
"""
from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Inference", "TESTS", "CORRECTIONS", "TEST_NAMES", "CORRECTION_NAMES"]

#: the tests of a mean paired difference a report may use (``--test``)
TESTS = ("t", "wilcoxon", "permutation")
#: the multiple-comparison corrections within a claim family (``--correction``)
CORRECTIONS = ("holm", "bh", "none")
TEST_NAMES = {"t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test",
              "permutation": "sign-flip permutation test of the mean"}
CORRECTION_NAMES = {"holm": "Holm", "bh": "Benjamini–Hochberg", "none": "no correction"}


@dataclass(frozen=True)
class Inference:
    """A report's statistical choices: ``test`` (:data:`TESTS`), ``correction`` within a claim
    family (:data:`CORRECTIONS`), ``effects``: the smallest effects of interest by metric
    family, ``((family, value, relative), ...)`` — ``relative``: a share of the baseline's
    mean — overriding the defaults where the paper gives no number, and ``alpha``: the
    two-sided level of every test, verdict and power (the one place α is set). None of them
    enters a run's configuration (its hash): they change what a report says, not what a run
    computes.

    >>> Inference().alpha, Inference.from_dict(Inference(test="wilcoxon").to_dict()).test
    (0.01, 'wilcoxon')
    """

    test: str = "t"
    correction: str = "holm"
    effects: tuple = field(default=())
    alpha: float = 0.01

    def __post_init__(self):
        if self.test not in TESTS:
            raise ValueError(f"--test {self.test!r}: choose one of {', '.join(TESTS)}")
        if self.correction not in CORRECTIONS:
            raise ValueError(f"--correction {self.correction!r}: choose one of {', '.join(CORRECTIONS)}")
        if not 0.0 < float(self.alpha) < 1.0:
            raise ValueError(f"alpha {self.alpha!r}: the level must lie strictly between 0 and 1")
        object.__setattr__(self, "alpha", float(self.alpha))
        object.__setattr__(self, "effects", tuple((str(f), float(v), bool(r)) for f, v, r in self.effects))

    def effect_for(self, family: str):
        """``(value, relative)`` set for a metric family, or None."""
        for f, v, r in self.effects:
            if f == family:
                return v, r
        return None

    def to_dict(self) -> dict:
        """As a manifest's ``statistics`` stores it (:meth:`from_dict` reads it back)."""
        return {"test": self.test, "correction": self.correction,
                "effects": {f: (f"{100 * v:g}%" if r else v) for f, v, r in self.effects}, "alpha": self.alpha}

    @classmethod
    def from_dict(cls, d) -> "Inference":
        """From :meth:`to_dict` (a manifest's ``statistics``); missing keys at their defaults
        (a manifest written before ``alpha`` was stored ran at the default). Checked as the
        flags are (a bad test or correction, effects that are not a mapping of families to
        positive values, an alpha that is not a number: one ``ValueError`` naming them)."""
        d = d or {}
        if not isinstance(d, dict):
            raise ValueError(f"the stored statistics {d!r} are not a mapping of test, correction and effects")
        base = cls()
        effects = d.get("effects") or {}
        if not isinstance(effects, dict):
            raise ValueError(f"the stored effects {effects!r} are not a mapping FAMILY: VALUE (as --effect "
                             f"FAMILY=VALUE,... stores them)")
        for key in ("test", "correction"):
            if key in d and not isinstance(d[key], str):
                raise ValueError(f"the stored {key} {d[key]!r} is not a name (--{key})")
        alpha = d.get("alpha", base.alpha)
        if isinstance(alpha, bool) or not isinstance(alpha, (int, float)):
            raise ValueError(f"the stored alpha {alpha!r} is not a number")
        return cls(test=d.get("test", base.test), correction=d.get("correction", base.correction),
                   effects=tuple(_effect_item(f, v) for f, v in effects.items()), alpha=alpha)


def _effect_item(family: str, value) -> tuple:
    """A stored effect ``family: value`` (``"2%"``: relative) as ``(family, value, relative)``;
    the family and the sign are checked by :func:`~ltrrepro.inference.effects.parse_effects`
    where the statistics are taken (``Execution.inference``)."""
    text = str(value).strip()
    rel = text.endswith("%")
    try:
        v = float(text[:-1]) / 100 if rel else float(text)
    except ValueError:
        raise ValueError(f"the stored effect {family}={value!r} is not a number (or percentage)") from None
    return str(family), v, rel

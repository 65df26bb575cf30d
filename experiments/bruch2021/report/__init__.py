"""Bruch (2021)'s report: one module per table or figure, each a set of pure functions
(frame, configuration) -> tables / figures / claims composed by its ``build`` into one
:class:`ltrrepro.report.Report`: :mod:`.table1` (Table 1, ``quality``), :mod:`.figure1`
(the Jensen gap), :mod:`.figure2` (convergence), :mod:`.noise` (Figures 3 and 4: robustness
and clicks). Each study module's ``report(store)`` reads the frame and the stored
configuration and writes the report.

**The significance rule, in one place.** A table marks a value with ``*`` where a p-value is
below :data:`ALPHA`: Table 1 the raw paired t-test p against λMART (:data:`TABLE1_MARK`),
the tables of Figures 3 and 4 the Holm-adjusted p over the levels of a noise type
(:data:`NOISE_MARK`). Every claim is judged on the raw p of its own test
(:meth:`ltrrepro.claims.Claim.check`), so a level may be starred in the table and its claim not
significant, or the reverse.
"""
from __future__ import annotations

from experiments.bruch2021.protocol import model_label

ALPHA = 0.01
#: the p-value column whose value below ALPHA marks a Table 1 cell (vs λMART)
TABLE1_MARK = "p"
#: the p-value column whose value below ALPHA marks a difference in the tables of Figures 3 and 4
NOISE_MARK = "p_holm"


def model_name(model: str, cfg) -> str:
    """A model's name in tables: a registered system's label, or a plug-in's ``Name(k=v)``
    (:func:`~experiments.bruch2021.protocol.model_label`, which reads the plug-ins of ``cfg``)."""
    return model_label(model, cfg)

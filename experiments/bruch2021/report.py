"""Bruch (2021)'s report: pure builders (frame, configuration) -> tables / figures / claims,
each composed by its ``build`` into one :class:`ltrrepro.report.Report`, one module per table
or figure (each over a hundred lines: the package template's ``report_<part>.py``):
:mod:`.report_table1` (Table 1, ``quality``), :mod:`.report_figure1` (the Jensen gap),
:mod:`.report_figure2` (convergence), :mod:`.report_noise` (Figures 3 and 4: robustness and
clicks) and :mod:`.report_across` (Table 1 and Figure 3 across the two datasets). The claims
they check are :mod:`.claims` and :mod:`.claims_noise`; the registry's one report function
(:meth:`experiments.registry.Experiment.report`) reads the frame and the stored configuration
and writes the report.

**The significance rule, in one place.** A table marks a value with ``*`` where the p-value of
the chosen test (``--test``), adjusted within its family by the chosen correction
(``--correction``, Holm by default), is below the report's α (:attr:`ltrrepro.inference.Inference.alpha`)
— and the claim on the same comparison is judged on that same adjusted p (:func:`ltrrepro.inference.correct`): Table 1 within
its six comparisons (:data:`TABLE1_MARK`), the tables of Figures 3 and 4 within the levels of a
noise type (:data:`NOISE_MARK`), as the claims "beats at every click level".
"""
from __future__ import annotations

from experiments.bruch2021.protocol import model_label

__all__ = ["TABLE1_MARK", "NOISE_MARK", "model_name"]

#: the p-value column whose value below α marks a Table 1 cell (vs λMART)
TABLE1_MARK = "p_adj"
#: the p-value column whose value below α marks a difference in the tables of Figures 3 and 4
NOISE_MARK = "p_adj"


def model_name(model: str, cfg) -> str:
    """A model's name in tables: a registered system's label, or a plug-in's ``Name(k=v)``
    (:func:`~experiments.bruch2021.protocol.model_label`, which reads the plug-ins of ``cfg``)."""
    return model_label(model, cfg)

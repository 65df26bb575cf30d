"""Lan–DeMets α- and β-spending functions, shared by the group-sequential design
(:mod:`ltrrepro.inference.sequential`) and its t-law simulation (:mod:`ltrrepro.inference.tlaw`).

Sources: Lan & DeMets (1983); gsDesign's ``sfLDOF`` and ``sfLDPocock``."""
from __future__ import annotations

import numpy as np
from scipy import stats as _st

__all__ = ["obf_spending", "pocock_spending", "SPENDING"]


def obf_spending(t, alpha: float) -> np.ndarray:
    """Lan–DeMets O'Brien–Fleming-type spending at one-sided level ``alpha``:
    α(t) = 2 − 2Φ(z_{1−α/2}/√t), α(0) = 0, α(1) = α (gsDesign ``sfLDOF``; rpact ``asOF``).

    >>> [round(float(x), 6) for x in obf_spending([0.2, 0.5, 1.0], 0.025)]
    [1e-06, 0.001525, 0.025]
    """
    t = np.clip(np.asarray(t, dtype=float), 0.0, 1.0)
    z = _st.norm.isf(alpha / 2.0)
    with np.errstate(divide="ignore"):
        return np.where(t > 0, 2.0 * _st.norm.sf(z / np.sqrt(np.where(t > 0, t, 1.0))), 0.0)


def pocock_spending(t, alpha: float) -> np.ndarray:
    """Lan–DeMets Pocock-type spending: α(t) = α·ln(1 + (e − 1)t) (gsDesign ``sfLDPocock``).

    >>> round(float(pocock_spending(0.5, 0.025)), 6)
    0.015503
    """
    t = np.clip(np.asarray(t, dtype=float), 0.0, 1.0)
    return alpha * np.log1p((np.e - 1.0) * t)


SPENDING = {"obf": obf_spending, "pocock": pocock_spending}

"""Bruch (2021), "An alternative cross entropy loss for learning-to-rank": Table 1 and
Figures 1–4. The paper's numbers in :mod:`.paper`; the protocol and unit in :mod:`.protocol`
(Figure 1's simulation in :mod:`.jensen_gap`, its configuration rules in :mod:`.checks`); the
reports as pure functions of (frame, configuration) in :mod:`.report` (``table1``,
``figure1``, ``figure2``, ``noise`` for Figures 3–4); the five studies (quality,
convergence, robustness, clicks, jensen_gap) as records in :mod:`.studies`."""

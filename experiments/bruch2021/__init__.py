"""Bruch (2021), "An alternative cross entropy loss for learning-to-rank": Table 1
(:mod:`.quality`), Figures 1–4 (:mod:`.jensen_gap`, :mod:`.convergence`, :mod:`.robustness`,
:mod:`.clicks`); the paper's numbers in :mod:`.paper`, the shared protocol and unit in
:mod:`.protocol`, the reports (pure functions of frame and configuration) in :mod:`.report`."""

"""The harness's statistics, in one package, every function a function of its arguments:

* :mod:`.choices` — :class:`Inference`, a report's statistical choices (test, correction,
  effects of interest, α) as one value, built once and handed to every builder, test, claim
  and :class:`~ltrrepro.report.Report`; α is defined there only;
* :mod:`.tests` — paired tests (t, Wilcoxon, sign-flip permutation), CIs, d_z, Holm/BH, the
  two-sample tests and TOST;
* :mod:`.power` — power and the trials it takes (paired, Welch, TOST), a claim's power fields;
* :mod:`.sequential` — group-sequential bounds, futility, stage-wise inference, the monitor;
* :mod:`.reproduction` — Effect Ratio, ΔRI and the size verdict (Breuer et al. 2020);
* :mod:`.effects` — the smallest effect of interest where a paper gives no number;
* :mod:`.claim` — :class:`Claim`, judged in one place (:func:`judge`) from an
  :class:`Evidence` and an :class:`Expectation`; :func:`correct` within claim families;
* :mod:`.rendering` — claims as tables, legends and printed lines.

Layering inside: ``choices`` ← ``tests`` ← ``power`` ← ``reproduction``, ``effects`` ←
``claim`` ← ``rendering``; ``sequential`` stands alone. Nothing here imports ``experiments``.
"""
from .choices import CORRECTION_NAMES, CORRECTIONS, TEST_NAMES, TESTS, Inference
from .claim import UNDERPOWERED, Claim, Evidence, Expectation, conjunction, correct, equivalence_verdict, judge, judge_comparison, \
    judge_equivalence, \
    no_test_reason, undefined_reason, verdict
from .effects import EFFECT_FAMILIES, parse_effects, smallest_effect
from .power import POWER_TARGET, power_block
from .reproduction import reproduction, reproduction_summary, size_verdict

__all__ = ["Inference", "TESTS", "CORRECTIONS", "TEST_NAMES", "CORRECTION_NAMES", "Claim", "Evidence", "Expectation",
           "judge", "judge_comparison", "judge_equivalence", "correct", "conjunction", "verdict", "equivalence_verdict", "no_test_reason", "undefined_reason", "UNDERPOWERED",
           "smallest_effect", "parse_effects", "EFFECT_FAMILIES", "POWER_TARGET", "power_block", "reproduction",
           "reproduction_summary", "size_verdict"]

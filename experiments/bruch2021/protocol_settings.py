"""Bruch's protocol, the settings' part: the noise types, levels and probabilities a study takes
(:func:`check_settings`, called by :class:`~experiments.bruch2021.protocol.BruchConfig`; a stored
manifest gets the same checks as the command line)."""
from __future__ import annotations

import numpy as np

from experiments.errors import UsageError

__all__ = ["check_settings"]


def check_settings(cfg) -> None:
    """Noise types and levels as the study's :class:`BruchStudy` allows them (a stored manifest
    gets the same checks as the command line): robustness takes documents and/or labels at
    finite levels >= 0 (labels <= 100), clicks click probabilities in [0, 1]; the label-noise
    distribution ``noise_probs`` and the click probabilities ``click_probs`` (a manifest may set
    them) are probabilities, the first summing to 1."""
    probs = {"noise_probs": tuple(cfg.noise_probs), "click_probs": tuple(cfg.click_probs)}
    for name, p in probs.items():
        if len(p) < 2 or any(isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1 for v in p):
            raise UsageError(f"{name} must be two or more probabilities in [0, 1] (one per grade), got {list(p)}")
    if abs(sum(probs["noise_probs"]) - 1.0) > 1e-9:
        raise UsageError(f"noise_probs (label noise: the probability of each grade) must sum to 1, got "
                         f"{sum(probs['noise_probs']):g}")
    levels = tuple(cfg.levels)
    if any(isinstance(v, bool) or not isinstance(v, (int, float)) or not np.isfinite(v) for v in levels):
        raise UsageError(f"--levels must be finite numbers, got {list(levels)}")        # whatever the study
    spec, allowed = cfg.spec, cfg.spec.noises
    if not allowed:
        if levels:
            raise UsageError(f"levels {list(levels)}: {cfg.experiment or 'this study'} adds no noise, so it has no "
                             f"levels (robustness and clicks take --levels); leave levels empty")
        return
    rule = f"--noise takes {' and/or '.join(allowed)}, each once"
    bad = [n for n in cfg.noise if n not in allowed]
    if bad or not cfg.noise:
        raise UsageError(f"{rule}; got {','.join(map(str, cfg.noise))!r}")
    if len(set(cfg.noise)) != len(cfg.noise):
        raise UsageError(f"--noise repeats a type: {','.join(cfg.noise)!r} ({rule[8:]})")
    if not (levels := cfg.levels):
        raise UsageError("--levels is empty")
    if len(set(levels)) != len(levels):
        raise UsageError(f"--levels repeats a value: {list(levels)}")
    if spec.levels == "probability" and any(not 0 <= c <= 1 for c in levels):
        raise UsageError("--levels are click probabilities in [0, 1]")
    if spec.levels == "percent":
        if any(lv < 0 for lv in levels):
            raise UsageError("--levels are percentages >= 0")
        if any(lv > 100 for lv in levels) and "labels" in cfg.noise:
            raise UsageError("label-noise levels are percentages in [0, 100]")

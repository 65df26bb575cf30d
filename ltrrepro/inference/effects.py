"""The smallest effect of interest a claim is powered against where the paper gives no number:
the library's defaults per metric family, replaced by the report's ``--effect``
(:attr:`~ltrrepro.inference.choices.Inference.effects`). A paper's own reason for a default (its
words) is passed by the paper's package (``reasons``), never written here.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from ..metrics import label, metric_family
from .choices import Inference

__all__ = ["DEFAULT_EFFECTS", "RELATIVE_EFFECTS", "EFFECT_FAMILIES", "smallest_effect", "parse_effects"]

NAN = float("nan")

#: the smallest effect of interest per metric family where the paper gives no number for a claim:
#: an absolute difference of one point for the [0, 1] metrics
DEFAULT_EFFECTS = {"ndcg": 0.01, "err": 0.01, "ap": 0.01, "map": 0.01, "mrr": 0.01, "prec": 0.01, "p": 0.01,
                   "recall": 0.01}
#: for an unbounded metric (DCG), a share of the baseline's mean: 1%
RELATIVE_EFFECTS = {"dcg": 0.01}


def smallest_effect(metric: str, inference: Inference, baseline_mean: float = NAN,
                    reasons: Mapping[str, str] | None = None) -> tuple[float, str]:
    """``(effect, where it comes from)``: the smallest effect of interest a claim on ``metric``
    is powered against when the paper gives no number — the one set for the metric's family in
    ``inference`` (``--effect``: absolute, ``ndcg=0.005``, or a share of the baseline's mean,
    ``dcg=2%``), else the library's default (:data:`DEFAULT_EFFECTS`, :data:`RELATIVE_EFFECTS`
    of ``baseline_mean``), its reason in words ``reasons[family]`` where the paper's package
    gives one; NaN for a metric family without one.

    >>> inf = Inference()
    >>> smallest_effect("ndcg@5[gain=exp2,norel=drop]", inf)
    (0.01, 'the default effect of interest for NDCG, 0.01')
    >>> smallest_effect("dcg@5[gain=exp2,norel=zero]", inf, 8.0, {"dcg": "a paper's words"})
    (0.08, "1% of the baseline's DCG@5, 0.08 (a paper's words)")
    >>> smallest_effect("ndcg@5[gain=exp2,norel=drop]", Inference(effects=parse_effects("ndcg=0.005")))[0]
    0.005
    """
    family, name = metric_family(metric), label(metric).split("@")[0]
    chosen = inference.effect_for(family)
    if chosen is not None:                               # --effect FAMILY=VALUE[%]
        value, relative = chosen
        if not relative:
            return value, f"the effect of interest set for {name} (--effect), {value:g}"
        if np.isfinite(baseline_mean):
            effect = value * abs(float(baseline_mean))
            return effect, (f"{100 * value:g}% of the baseline's {label(metric)}, {effect:.4g} (the effect of "
                            f"interest set with --effect)")
        return NAN, ""
    why = (reasons or {}).get(family)
    if family in RELATIVE_EFFECTS and np.isfinite(baseline_mean):
        share = RELATIVE_EFFECTS[family]
        effect = share * abs(float(baseline_mean))
        return effect, (f"{100 * share:g}% of the baseline's {label(metric)}, {effect:.4g} "
                        f"({why or f'the default effect of interest for {name}'})")
    if family in DEFAULT_EFFECTS:
        return (DEFAULT_EFFECTS[family], f"the default effect of interest for {name}, {DEFAULT_EFFECTS[family]:g}"
                + (f" ({why})" if why else ""))
    return NAN, ""


#: the metric families an effect of interest may be set for (``--effect FAMILY=VALUE[%]``)
EFFECT_FAMILIES = (*DEFAULT_EFFECTS, *RELATIVE_EFFECTS)


def parse_effects(text: str | None) -> tuple:
    """``--effect`` text -> :attr:`~ltrrepro.inference.choices.Inference.effects`: comma-separated
    ``FAMILY=VALUE`` (absolute, in the metric's units) or ``FAMILY=VALUE%`` (a share of the
    baseline's mean), FAMILY one of :data:`EFFECT_FAMILIES`. A bad item raises ValueError naming it.

    >>> parse_effects("ndcg=0.005,dcg=2%")
    (('ndcg', 0.005, False), ('dcg', 0.02, True))
    """
    if text is not None and not isinstance(text, str):
        raise ValueError(f"--effect {text!r}: give one text of comma-separated FAMILY=VALUE items (e.g. "
                         f"'ndcg=0.005,dcg=2%'), not a {type(text).__name__}")
    out = {}
    for item in (text or "").split(","):
        item = item.strip()
        if not item:
            continue
        fam, sep, value = item.partition("=")
        fam = fam.strip().lower()
        if fam in out:
            raise ValueError(f"--effect {text!r} gives the family {fam!r} twice: give each family once")
        if not sep or fam not in EFFECT_FAMILIES:
            raise ValueError(f"--effect {item!r}: write FAMILY=VALUE or FAMILY=VALUE% with FAMILY one of "
                             f"{', '.join(EFFECT_FAMILIES)} (e.g. --effect ndcg=0.005,dcg=2%)")
        value = value.strip()
        rel = value.endswith("%")
        try:
            v = float(value[:-1] if rel else value) / (100 if rel else 1)
        except ValueError:
            v = NAN
        if not (np.isfinite(v) and v > 0):
            raise ValueError(f"--effect {item!r}: the effect must be a positive number (or percentage)")
        out[fam] = (fam, v, rel)
    return tuple(out.values())

"""Every claim the debiasing study checks, on NDCG@10 of the test queries' expert labels, each
through :class:`ltrrepro.claims.Claim` (power, verdict; corrected within its family):

* Hu et al. 2019: Unbiased LambdaMART beats λMART on raw clicks and the IPS baselines (one
  family), and is close to the skyline (TOST within the effect of interest);
* the libraries: position debiasing beats naive training (LightGBM's, XGBoost's; one family);
* the reproducibility study (arXiv 2404.03707, SIGIR-AP 2024): debiasing does not beat naive
  training when the logging ranker is strong and sessions are few (the corner setting);
* the study's own: the bias update pays — Unbiased LambdaMART beats its own lambdas with every
  bias fixed at 1 (``ulm_off``: the same objective, the same sessions, no debiasing);
* Bruch's question carried over: XE_NDCG beats λMART under IPS (true propensities);
* each plug-in objective (``--models package.module:Name``) against λMART on raw clicks.

Hu et al.'s claims read the paper's NDCG@10 where :data:`.paper.PAPER_TABLE` gives both arms:
then they are powered against the paper's difference, with ER, ΔRI and the size verdict
(Breuer et al. 2020; :func:`ltrrepro.inference.reproduction.reproduction`) of the run's paired
per-trial differences. The table is not transcribed (:mod:`.paper` says what was searched), so
today every claim is powered against the smallest effect of interest, which its
``effect_source`` says.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from experiments import analysis as an
from experiments.hu2019 import paper
from experiments.hu2019.protocol import NDCG10, SETTING, ulm_arm
from ltrrepro.inference import Claim, Expectation, Inference, correct, judge_comparison, judge_equivalence, \
    smallest_effect
from ltrrepro.inference.claim import no_test_reason
from ltrrepro.inference.reproduction import reproduction


def _at(df, setting: dict):
    mask = np.ones(len(df), bool)
    for f in SETTING:
        mask &= (df[f] == setting[f]).to_numpy()
    return df[mask]


def _paper_note(means) -> str:
    return f"; paper {means[0] - means[1]:+.4f} ({paper.PAPER_TABLE_SOURCE or 'its table'})"


def _compare(cfg, df, text, a, b, family, inference, sign=+1, table=None):
    """The claim a beats b (``sign`` −1: b beats a) on NDCG@10; against the paper's difference,
    with ER, ΔRI and the size verdict, where ``table`` (the paper's results; None: a claim that is
    not the paper's) gives both arms (:func:`.paper.paper_means`)."""
    if not {a, b} <= set(df.model):
        return None
    c = an.compare(df, NDCG10, a, b, test=inference.test)
    means = paper.paper_means(a, b, table=table) if table is not None else None
    if means is None:
        return judge_comparison(text, c, (cfg.arm(a).label, cfg.arm(b).label), NDCG10, inference,
                                Expectation(sign=sign, family=family))
    pr = an.paired(df, NDCG10, a, b)
    claim = judge_comparison(text, c, (cfg.arm(a).label, cfg.arm(b).label), NDCG10, inference,
                             Expectation(sign=sign, paper_effect=means[0] - means[1], family=family),
                             paper_means=means, diffs=(pr.a - pr.b).to_numpy(float), base=pr.b.to_numpy(float))
    return claim.replace(detail=claim.detail + _paper_note(means))


def _close(cfg, df, a, b, text, inference, table=None) -> Claim | None:
    """TOST: a − b within ± the effect of interest (supported when equivalence is shown); with
    the paper's two means (``table``, :func:`.paper.paper_means`), ER, ΔRI and the size verdict too."""
    if not {a, b} <= set(df.model):
        return None
    pr = an.paired(df, NDCG10, a, b)
    d = (pr.a - pr.b).to_numpy(float)
    margin, source = smallest_effect(NDCG10, inference)
    means = paper.paper_means(a, b, table=table) if table is not None else None
    tested = d.size > 1 and d.std(ddof=1) > 0           # else no test: neither sizes nor the paper's note
    sizes = reproduction(d, pr.b.to_numpy(float), *means) if means is not None and tested else {}
    note = _paper_note(means) if means is not None and tested else ""
    return judge_equivalence(
        text, d, margin,
        lambda mean, sd: (f"{cfg.arm(a).label} − {cfg.arm(b).label} on NDCG@10: {mean:+.4f} (SD {sd:.4f}); p: TOST, "
                          f"margin ±{margin:g}{note}"),
        f"the equivalence margin: {source}", inference, missing=lambda n, sd: no_test_reason(n, sd, NDCG10),
        effect_sizes=sizes)


def build_claims(df: pd.DataFrame, cfg, *, inference: Inference, table: dict | None = None) -> list[Claim]:
    """The study's claims on the default point (and the corner setting), corrected within each
    family; ``table``: the paper's results (default :data:`.paper.PAPER_TABLE`)."""
    if not len(df):
        return []
    table = paper.PAPER_TABLE if table is None else table
    base = dict(cfg.default_setting)
    g = _at(df, base)
    ulm = ulm_arm(cfg.library)
    out = []
    fam = "Hu et al.: Unbiased LambdaMART beats the baselines"
    for text, a, b, sign in paper.PAPER_CLAIMS:
        out.append(_compare(cfg, g, f"{text} (Hu et al. 2019)", ulm if a == "ulm" else a, b, fam, inference, sign,
                            table))
    out.append(_close(cfg, g, ulm, "skyline", "Unbiased LambdaMART is close to λMART on expert labels (Hu et al. 2019)",
                      inference, table))
    out.append(_compare(cfg, g, "The bias update pays: Unbiased LambdaMART beats the same lambdas with every bias "
                                "fixed at 1", ulm, "ulm_off", None, inference))
    fam = "the libraries: position debiasing beats naive λMART"
    out.append(_compare(cfg, g, "LightGBM's position-debiased λMART beats λMART on raw clicks", "lgb_position", "naive",
                        fam, inference))
    out.append(_compare(cfg, g, "XGBoost's lambdarank_unbiased beats λMART on raw clicks", "xgb_unbiased", "naive", fam,
                        inference))
    corner = {**base, "sessions": min((cfg.sessions, *cfg.sweep_sessions)), "share": max((cfg.share, *cfg.sweep_share))}
    # without sweeps the corner is the default point: its claim would only restate the first one, reversed
    c = None if corner == base else _compare(cfg, _at(df, corner), f"Debiasing does not beat naive training with a strong logger (share "
                                       f"{corner['share']:g}) and few sessions ({corner['sessions']}): naive λMART "
                                       f"≥ Unbiased LambdaMART (arXiv 2404.03707)", "naive", ulm, None, inference)
    out.append(c.replace(extra={**c.extra, "setting": f"sessions={corner['sessions']}, share={corner['share']:g}"})
               if c else None)
    out.append(_compare(cfg, g, "XE_NDCG beats λMART under IPS, true propensities (Bruch's question on debiased clicks)",
                        "ipsxe_true", "ips_true", None, inference))
    for key in dict(cfg.plugins):
        out.append(_compare(cfg, g, f"{cfg.arm(key).label} beats λMART on raw clicks", key, "naive",
                            "plug-ins against naive λMART", inference))
    return correct([c for c in out if c is not None], inference)

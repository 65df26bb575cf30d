"""Zheng et al.'s "clear convergence trend of QBrank … demonstrated in Figure 1" (§4), as a
claim on a run's test DCG-5 curves: a converging curve gains more in the first half of its
iterations than in the second. Per trial and QBRank run, the statistic is the early gain
(DCG-5 at the middle checkpoint − at the first) minus the late gain (at the last − at the
middle), tested > 0 over the trials by the test in force. The paper gives no number: it is
powered against the effect of interest for DCG (1% of the run's final mean DCG-5 by default,
Zheng et al.'s own "a 1% DCG gain is significant"; ``--effect``). The QBRank runs form one
family, corrected by ``--correction``."""
from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.zheng2007.protocol import DCG5
from ltrrepro.claims import Claim, correct, smallest_effect
from ltrrepro.stats import one_sample_p

__all__ = ["trend_claims", "RUNS"]

ALPHA = 0.01
RUNS = {"qbrank_P2": "QBRank(P2)", "qbrank_P2L1": "QBRank(P2∪L1)"}
FAMILY = "Figure 1: QBRank's convergence trend (one claim per QBRank run)"


def trend_claims(df: pd.DataFrame) -> list[Claim]:
    """One claim per QBRank run with stored test curves of at least three checkpoints."""
    out = []
    for run, name in RUNS.items():
        g = df[(df.model == run) & df.test_curve_dcg5.map(lambda c: isinstance(c, list) and len(c) >= 3)] \
            if len(df) else df
        if not len(g):
            continue
        curves = np.array(list(g.test_curve_dcg5), float)
        pts = np.asarray(g.curve_points.iloc[0])
        mid = curves.shape[1] // 2
        early, late = curves[:, mid] - curves[:, 0], curves[:, -1] - curves[:, mid]
        d = early - late
        n, sd = d.size, (float(d.std(ddof=1)) if d.size > 1 else None)
        p = one_sample_p(d) if n > 1 and sd and sd > 0 else float("nan")
        effect, source = smallest_effect(DCG5, float(curves[:, -1].mean()))
        out.append(Claim.check(
            f"Figure 1: {name}'s DCG-5 converges (it gains more in the first half of the iterations than in the second)",
            float(d.mean()), p, n,
            f"early gain (iteration {pts[0]}→{pts[mid]}) {early.mean():+.4f} − late gain ({pts[mid]}→{pts[-1]}) "
            f"{late.mean():+.4f} = {d.mean():+.4f} DCG-5, mean over {n} trial(s); p: the test in force over the trials",
            +1, ALPHA, sd=sd, effect=effect, effect_source=source, family=FAMILY))
    return correct(out, ALPHA)

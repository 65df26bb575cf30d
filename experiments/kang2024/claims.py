"""Every claim the Hessian study checks, on the test part's NDCG@10 (``--metric kang``: Kang et
al.'s mean DCG@10 / mean IDCG@10) of the ``arms`` part, each a :class:`ltrrepro.inference.Claim`
(its power at the level applied; corrected within its family):

* Kang et al. 2024: PL-Rank with the sampled Hessian beats PL-Rank with Hessian 1 (a paired test
  of the sign; the abstract's "extremely poor performance" without it), and is competitive with
  the library's λMART (TOST: the difference within ± ``--margin``, an equivalence claim; shown
  only when both one-sided tests reject) — each twice: among the arms (the run's settings, or
  both tuned with the same budget under ``--tune``) and in the paper's column (Kang et al.'s
  settings, or their search space under ``--tune``; the λMART the arms' own, on the same splits);
* Bruch 2021: the Neumann series of order 2 is enough — XE_NDCG's order-2 step within ± ``--margin``
  of the exact Newton step (TOST);
* the study's own, one per loss: its best Hessian treatment (chosen on the validation part's
  NDCG@10, never the test part) beats Hessian 1 — once both are tuned under ``--tune``, else at
  the preset's settings, as the claim says.
"""
from __future__ import annotations

import pandas as pd

from experiments import analysis as an
from experiments.kang2024 import paper
from experiments.kang2024.protocol import KANG, NDCG10
from ltrrepro.fit import BACKENDS, SYSTEMS
from ltrrepro.fit.hessian import LOSSES, PAPER_SYSTEMS
from ltrrepro.inference import (Claim, Evidence, Expectation, Inference, correct, judge, judge_comparison,
                                judge_equivalence)
from ltrrepro.inference.claim import no_test_reason

KANG_FAMILY = "Kang et al. 2024: the sampled Hessian"
OWN_FAMILY = "the study's: some Hessian treatment beats Hessian 1"


def _words(cfg) -> str:
    return "" if cfg.column == NDCG10 else " (Kang et al.'s mean DCG@10 / mean IDCG@10)"


def _compare(cfg, df, text, a, b, family, inference) -> Claim | None:
    """The claim a beats b on the configuration's metric (a paired test of the report's kind)."""
    if not {a, b} <= set(df.model):
        return None
    c = an.compare(df, cfg.column, a, b, test=inference.test)
    claim = judge_comparison(text, c, (SYSTEMS[a].label, SYSTEMS[b].label), NDCG10, inference,
                             Expectation(sign=+1, family=family))
    return claim.replace(detail=claim.detail + _words(cfg)) if cfg.column != NDCG10 else claim


def _close(cfg, df, a, b, text, inference) -> Claim | None:
    """TOST: a − b within ± ``cfg.margin`` (supported when equivalence is shown)."""
    if not {a, b} <= set(df.model):
        return None
    pr = an.paired(df, cfg.column, a, b)
    margin = float(cfg.margin)
    return judge_equivalence(
        text, (pr.a - pr.b).to_numpy(float), margin,
        lambda mean, sd: (f"{SYSTEMS[a].label} − {SYSTEMS[b].label}: {mean:+.4f} (SD {sd:.4f}){_words(cfg)}; p: TOST, "
                          f"margin ±{margin:g}"),
        f"the equivalence margin ±{margin:g} (--margin)", inference,
        missing=lambda n, sd: no_test_reason(n, sd, NDCG10))


def best_treatment(df: pd.DataFrame, loss: str) -> str | None:
    """The arm of ``loss`` other than Hessian 1 with the highest mean validation NDCG@10 (None without one)."""
    arms = [m for m in LOSSES[loss] if SYSTEMS[m].options.hessian != "constant" and m in set(df.model)]
    if not arms:
        return None
    means = df[df.model.isin(arms)].groupby("model").valid_ndcg10.mean()
    return str(means.idxmax())


def _lib(model: str, cfg) -> str:
    """The library ``model`` trains in under ``cfg`` (its label)."""
    return BACKENDS[SYSTEMS[model].resolve_library(cfg.library)].label


def paper_claims(cfg, g: pd.DataFrame, inference: Inference) -> list:
    """Kang et al.'s two claims in the paper's column (``g``: its units and the arms' library λMART).
    A trial whose PL-Rank diverged (NaN scores in training) has no test value: it is left out and
    counted in the claim's detail; when every trial diverged the claim says so and is not tested."""
    at = "tuned in the authors' search space" if cfg.tune else "at Kang et al.'s settings"
    texts = (f"{at}: PL-Rank with the sampled Hessian beats it with Hessian 1 (Kang et al. 2024)",
             f"{at}: PL-Rank with the sampled Hessian is within ±{cfg.margin:g} of the library's λMART (the arms': "
             f"{_lib(LOSSES['library'][0], cfg)}, same splits; Kang et al. 2024)")
    bad = g[g["diverged"].notna()] if "diverged" in g else g.iloc[:0]
    ok = g.drop(bad.index)
    sampled = PAPER_SYSTEMS[0]
    if len(bad) and sampled in set(bad.model) and sampled not in set(ok.model):
        why = (f"{SYSTEMS[sampled].label} diverged (NaN scores in training) in every trial ({len(bad[bad.model == sampled])}): "
               f"no test value")
        return [judge(t, Evidence(float("nan"), float("nan"), 0, why, missing=why), Expectation(sign=+1, family=KANG_FAMILY),
                      inference) for t in texts]
    out = [_compare(cfg, ok, texts[0], *PAPER_SYSTEMS, KANG_FAMILY, inference),
           _close(cfg, ok, sampled, LOSSES["library"][0], texts[1], inference)]
    if len(bad):
        note = "; diverged, left out: " + ", ".join(f"{SYSTEMS[m].label} in trial(s) {sorted(h.trial.tolist())}"
                                                     for m, h in bad.groupby("model"))
        out = [c.replace(detail=c.detail + note) if c else None for c in out]
    return out


def build_claims(df: pd.DataFrame, cfg, *, inference: Inference) -> list[Claim]:
    """The study's claims on the ``arms`` part, corrected within each family."""
    g = df[df.part == "arms"] if "part" in df else df.iloc[:0]
    if not len(g):
        return []
    sampled, constant = LOSSES["plrank"]
    out = [_compare(cfg, g, f"PL-Rank with the sampled Hessian beats it with Hessian 1 ({paper.ABSTRACT_CLAIMS['sampled']}; "
                            f"Kang et al. 2024)", sampled, constant, KANG_FAMILY, inference),
           _close(cfg, g, sampled, LOSSES["library"][0], f"PL-Rank with the sampled Hessian is competitive with the "
                  f"library's λMART: within ±{cfg.margin:g} ({paper.ABSTRACT_CLAIMS['competitive']}; Kang et al. 2024)",
                  inference),
           _close(cfg, g, "xendcg_o2", "xendcg_exact", f"The Neumann series of order {paper.NEUMANN_ORDER} is enough: "
                  f"XE_NDCG's order-2 step within ±{cfg.margin:g} of the exact Newton step (Bruch 2021)", inference)]
    if len(p := df[df.part == "paper"]):
        out += paper_claims(cfg, pd.concat([p, g[g.model == LOSSES["library"][0]]]), inference)
    when = f"both tuned (--tune {cfg.tune})" if cfg.tune else "at the preset's settings"
    for loss in ("plrank", "xendcg", "lambdamart", "listnet"):
        best = best_treatment(g, loss)
        const = next((m for m in LOSSES[loss] if SYSTEMS[m].options.hessian == "constant"), None)
        if best is None or const is None:
            continue
        c = _compare(cfg, g, f"{loss}: its best Hessian treatment ({SYSTEMS[best].options.hessian}, chosen on "
                             f"validation) beats Hessian 1, {when}", best, const, OWN_FAMILY, inference)
        out.append(c.replace(extra={**c.extra, "treatment": SYSTEMS[best].options.hessian}) if c else None)
    return correct([c for c in out if c is not None], inference)


__all__ = ["build_claims", "paper_claims", "best_treatment", "KANG", "KANG_FAMILY", "OWN_FAMILY"]

"""Bruch Figure 4 (appendix E): λMART vs XE_NDCG MART trained on simulated cascade clicks.

    python -m experiments.clicks [--dataset web30k --data-dir DIR] [--levels 0.05,0.1,...] [--trials 20]

Per trial: the 60/20/20 split; every training and validation list is turned into 10
impressions of a persistent cascade user over a random shuffle (click probabilities
(C, .3, .5, .7, .95) for labels 0–4; a scan without a click gives no impression); models
are trained and early-stopped on clicks and evaluated on the original test labels. The
level C is the label-0 click probability, from .05 in steps of .05 (Bruch 2021 appendix E; docs/protocols/bruch2021.md §6; 20 trials
on real data). Claim checked: XE_NDCG is more robust to click noise (the per-trial slope of
the NDCG@5 difference against C is positive).
"""
from __future__ import annotations

import sys

from experiments import bruch, common, robustness
from ltrrepro.noise import BRUCH_CLICK_PROBS
from ltrrepro.runner import Unit

EXPERIMENT = "clicks"
MODELS = ("lambdamart", "xendcg")


def report(store) -> dict:
    return robustness.report(store, name="clicks", figure="fig4", paper_trials=20,
                             title="Bruch Figure 4 — click noise")


@common.cli
def main(argv=None) -> int:
    ap = common.parser(__doc__, synthetic_trials=4, real_trials=20, synthetic_queries=400,
                       levels="0.05,0.1,0.15,0.2,0.25,0.3")
    ap.add_argument("--impressions", type=common.positive_int, default=10, help="impressions per list (default 10)")
    ap.add_argument("--click-model", choices=("cascade", "pbm"), default="cascade",
                    help="cascade (the paper) or the position-based model (option)")
    ap.add_argument("--eta", type=float, default=1.0, help="pbm: examination probability (1/rank)^eta")
    args = ap.parse_args(argv)
    levels = common.parse_levels(args.levels)
    if any(not 0 <= c <= 1 for c in levels):
        raise common.UsageError("--levels are click probabilities in [0, 1]")
    if not args.eta > 0:
        raise common.UsageError(f"--eta must be > 0, got {args.eta}")
    cfg = common.resolve(args, EXPERIMENT)
    cfg["click_probs"] = list(BRUCH_CLICK_PROBS)
    cfg["impressions"] = args.impressions
    cfg["click_model"] = args.click_model
    if args.click_model == "pbm":
        cfg["eta"] = args.eta
        cfg["deviations"].append(f"position-based click model (eta {args.eta}), not the paper's cascade model")
    units = [Unit(EXPERIMENT, cfg["dataset"], t, m, (("noise", "clicks"), ("level", c)), seed=cfg["seed"])
             for t in range(args.trials) for c in levels for m in MODELS]
    return common.main(EXPERIMENT, args, cfg, units, bruch.unit_fn, report,
                       ctx_extra={"click_probs": cfg["click_probs"], "impressions": args.impressions,
                                  "click_model": args.click_model, "eta": args.eta})


if __name__ == "__main__":
    sys.exit(main())

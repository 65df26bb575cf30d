"""Hu et al. (2019)'s simulated-click protocol as the ``debiasing`` study's
:class:`~experiments.registry.Experiment` record: configuration (each field's flag declared by
:class:`.protocol.DebiasingConfig`), units, unit and report."""
from __future__ import annotations

from experiments.hu2019 import paper
from experiments.hu2019.protocol import EXPERIMENT, DebiasingConfig, build_units, train_size, unit_fn
from experiments.hu2019.report import build, frame
from experiments.registry import Experiment, register
from ltrrepro.datasets import is_synthetic

DOC = """Learning to rank from biased clicks with boosted trees: the libraries' position debiasing,
Unbiased LambdaMART (Hu, Wang, Peng, Li, WWW 2019) and IPS side by side (docs/protocols/debiasing.md).

    python -m experiments.debiasing [--dataset yahoo --data-dir DIR] [--trials N] [--sessions 16]
                                    [--sweep-sessions 4,64,1000] [--sweep-eta 0.5,2] ...

Per trial, as the authors' generator: a logging ranker (a Ranking SVM on the labels of --share
of the training queries; --logger lambdamart) ranks the training lists; users see every document
(--k K: its top K); --sessions sessions per query click under the position-based model
(examination from the eye-tracking table^η, past 10 the 10th value; --curve inverse: (1/r)^η;
click noise ε⁺/ε⁻) or the harness's cascade user, a session without a click re-drawn until it
has one (--no-click drop); each arm trains on the sessions (the skyline on expert labels) and is
tested on the test queries' expert labels (NDCG@1/3/5/10). Arms (--models): skyline, naive,
lgb_position (LightGBM Dataset position), xgb_unbiased (XGBoost lambdarank_unbiased), ulm_lgb /
ulm_xgb (ltrrepro's Unbiased LambdaMART in each library, as --ulm sets it: the authors' released
code, XGBoost's lambdarank_unbiased or the paper's equations), ulm_off (its lambdas with every bias fixed at 1),
ips_true / ips_est (IPS λMART),
ipsxe_true / ipsxe_est (IPS XE_NDCG), position_feature; and your own objective,
--models naive,mylosses:MyLoss(k=v), trained on the click sessions (bound to the rows' positions
and propensities when it has a bind method). Sweeps (--sweep-*: values beside the
default point, for --sweep-models) give a table and a figure each; the propensity-recovery
figure compares each method's estimated examination curve with the simulator's. The default
run (synthetic Web30K profile, 150 queries, 3 trials) takes a few minutes on 2 cores."""


register(Experiment(
    name=EXPERIMENT, paper="hu2019", title="Learning to rank from biased clicks: position debiasing, Unbiased "
                                           "LambdaMART, IPS (Hu et al. 2019's protocol)",
    doc=DOC, config_cls=DebiasingConfig, units=build_units, unit_fn=unit_fn, build=build, frame=frame,
    size_of=train_size, paper_trials=1, paper_datasets=("yahoo",),
    default=lambda: DebiasingConfig(experiment=EXPERIMENT, queries=150, trials=3),
    data_defaults=lambda dataset: {} if is_synthetic(dataset) else {"queries": None, "preset": "", "trials": 5,
                                                                    "share": paper.LOGGER_SHARE}))

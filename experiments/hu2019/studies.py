"""Hu et al. (2019)'s simulated-click protocol as the ``debiasing`` study's
:class:`~experiments.registry.Experiment` record: flags, configuration, units, unit and report."""
from __future__ import annotations

from experiments.errors import UsageError
from experiments.hu2019 import paper
from experiments.hu2019.protocol import (ARMS, EXPERIMENT, LOGGERS, SWEEP_ARMS, DebiasingConfig, build_units, train_size,
                                         unit_fn)
from ltrrepro.clicks import NO_CLICK
from ltrrepro.objectives.debiasing import VARIANTS
from experiments.hu2019.report import build, frame
from experiments.registry import Experiment, get, register
from experiments.values import bounded_int, parse_levels, parse_names
from ltrrepro.datasets import is_synthetic
from ltrrepro.fit.plugins import is_plugin_spec, plugin_key, split_models

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


def _floats(text, flag):
    return tuple(float(v) for v in parse_levels(text, float, flag)) if text else ()


def _shown(text: str) -> int:
    """``--k``: ``all`` (0: every document) or a number of documents >= 2."""
    if str(text).strip().lower() == "all":
        return 0
    try:
        k = int(text)
    except ValueError:
        raise UsageError(f"--k: 'all' or a whole number >= 2, not {text!r}") from None
    if k < 2:
        raise UsageError(f"--k: 'all' or a whole number >= 2, not {text!r}")
    return k


def own_flags(ap) -> None:
    d = DebiasingConfig
    ap.add_argument("--sessions", type=bounded_int("sessions"), default=d.sessions,
                    help=f"sessions per query (default {d.sessions}, the authors' generator)")
    ap.add_argument("--eta", type=float, default=d.eta, help="position-bias severity: examination^eta (default 1)")
    ap.add_argument("--share", type=float, default=None,
                    help=f"the logging ranker's labelled share of the training queries (default {d.share:g} on "
                         f"synthetic data, the paper's {paper.LOGGER_SHARE:g} on real data)")
    ap.add_argument("--click-model", choices=("pbm", "cascade"), default=d.click_model, help="default pbm")
    ap.add_argument("--curve", choices=("inverse", "eyetracking"), default=d.curve,
                    help="examination curve: Ai et al.'s eye-tracking table^eta, past 10 the 10th value (default), "
                         "or (1/r)^eta")
    ap.add_argument("--k", type=_shown, default=d.k,
                    help="documents shown per query: all (default, the authors' generator) or a number")
    ap.add_argument("--no-click", choices=NO_CLICK, default=d.no_click,
                    help="a session without a click: redraw it until it has one (default, the authors' generator) "
                         "or drop it")
    ap.add_argument("--logger", choices=LOGGERS, default=d.logger,
                    help="the logging ranker: svm (a linear Ranking SVM, default, as the papers) or lambdamart")
    ap.add_argument("--ulm", choices=tuple(VARIANTS), default=d.ulm,
                    help="the harness's Unbiased LambdaMART: authors (Hu et al.'s released code, default), "
                         "lambdarank_unbiased (XGBoost's settings) or equations (the paper's as written)")
    ap.add_argument("--eps-plus", type=float, default=d.eps_plus, help="click probability of the top grade (1)")
    ap.add_argument("--eps-minus", type=float, default=d.eps_minus, help="click probability of grade 0 (0.1)")
    ap.add_argument("--bias-p", type=float, default=d.bias_p,
                    help="Unbiased LambdaMART's bias regularization p (default: the --ulm variant's)")
    ap.add_argument("--sweep-sessions", default=",".join(map(str, d.sweep_sessions)), help="sessions sweep values")
    ap.add_argument("--sweep-eta", default=",".join(map(str, d.sweep_eta)), help="eta sweep values")
    ap.add_argument("--sweep-share", default=",".join(map(str, d.sweep_share)), help="logger share sweep values")
    ap.add_argument("--sweep-click", default=",".join(d.sweep_click), help="click-model sweep values (cascade)")
    ap.add_argument("--sweep-models", default=",".join(SWEEP_ARMS), help="the arms of the sweeps")


def from_args(a) -> DebiasingConfig:
    d = get(EXPERIMENT).defaults_on(a.dataset)           # a flag left out: the study's default on this dataset
    given = split_models(a.models) if a.models is not None else list(ARMS)
    if a.models is not None and not given:
        raise UsageError(f"--models is empty ({a.models!r}): name at least one arm")
    plugins = tuple((plugin_key(n), n) for n in given if is_plugin_spec(n))
    builtin = [n for n in given if not is_plugin_spec(n)]
    if builtin:
        parse_names(",".join(builtin), ARMS, "--models", "arm")
    models = tuple(plugin_key(n) if is_plugin_spec(n) else n for n in given)
    if len(set(models)) != len(models):
        raise UsageError(f"--models repeats an arm: {a.models!r}")
    sweep_models = tuple(parse_names(a.sweep_models, ARMS, "--sweep-models", "arm")) if a.sweep_models else ()
    clicks = tuple(c.strip() for c in a.sweep_click.split(",") if c.strip())
    sessions = tuple(int(v) for v in parse_levels(a.sweep_sessions, int, "--sweep-sessions")) if a.sweep_sessions else ()
    if a.share is not None and not 0 < a.share <= 1:
        raise UsageError(f"--share must be in (0, 1], got {a.share}")
    return DebiasingConfig(experiment=EXPERIMENT, dataset=a.dataset, data_dir=a.data_dir,
                           queries=a.queries or d["queries"], trials=a.trials or d["trials"], seed=a.seed,
                           library=a.library, preset=a.preset or d["preset"], rounds=a.rounds, models=models,
                           sweep_models=sweep_models,
                           k=a.k, sessions=a.sessions, eta=a.eta,
                           share=a.share if a.share is not None else d["share"],
                           click_model=a.click_model, curve=a.curve, no_click=a.no_click, logger=a.logger, ulm=a.ulm,
                           eps_plus=a.eps_plus, eps_minus=a.eps_minus,
                           bias_p=a.bias_p, plugins=plugins, sweep_sessions=sessions, sweep_eta=_floats(a.sweep_eta, "--sweep-eta"),
                           sweep_share=_floats(a.sweep_share, "--sweep-share"), sweep_click=clicks)


register(Experiment(
    name=EXPERIMENT, paper="hu2019", title="Learning to rank from biased clicks: position debiasing, Unbiased "
                                           "LambdaMART, IPS (Hu et al. 2019's protocol)",
    doc=DOC, config_cls=DebiasingConfig, flags=("dataset", "data-dir", "queries", "trials", "library", "preset",
                                                "rounds", "models"),
    own_flags=own_flags, from_args=from_args, units=build_units, unit_fn=unit_fn, build=build, frame=frame,
    size_of=train_size, paper_trials=1, paper_datasets=("yahoo",),
    default=lambda: DebiasingConfig(experiment=EXPERIMENT, queries=150, trials=3),
    data_defaults=lambda dataset: {} if is_synthetic(dataset) else {"queries": None, "preset": "", "trials": 5,
                                                                    "share": paper.LOGGER_SHARE}))

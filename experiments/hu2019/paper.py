"""What Hu, Wang, Peng, Li (WWW 2019, arXiv 1809.05818) set and report, as far as the harness
could read it (docs/protocols/debiasing.md gives the sources, column by column).

From the paper and its released generator (github.com/acbull/Unbiased_LambdaMart, forked from
Ai et al. 2018's): Yahoo! LTR Set 1; a logging ranker (a Ranking SVM) trained on 1% of the
training queries' labels; every document of a list shown (``rank_cut = 100000``), positions past
10 at the 10th examination value; 16 sessions per training query, a session without a click
re-drawn until it has one; the position-based click model with click noise — an examined
document of grade y is clicked with ε⁻ + (ε⁺ − ε⁻)(2^y − 1)/(2^{y_max} − 1), ε⁺ = 1, ε⁻ = 0.1
(the generator's 0.1, 0.16, 0.28, 0.52, 1.0 for grades 0–4) and examination ρ_r^η, η = 1; the
table's Unbiased LambdaMART without bias regularization (p = 0: the first author, issue #3 of
the released code); the released fork's ``eta = 0.5`` (train.conf and its default) is p: its
config.cpp turns it into the exponent 1/(1 + 0.5) = 2/3.

Not transcribed: the numbers of the paper's results table (NDCG@1/3/5/10 and MAP of each method on
the simulated Yahoo! clicks) and of its other tables and figures. The harness could not read them.
What was searched (November 2026), and what each gave:

* the released code (github.com/acbull/Unbiased_LambdaMart, its newest snapshot and full history):
  README.md, Unbias_LightGBM/README.md, evaluation/ (click models, configs, scripts) — the
  protocol and the p = 0 remark ("the result of our table"), no table, no result file;
* its issues #3 and #4 (the first author: the table is the unregularized run) — no numbers;
* the stored public pages: the paper's LaTeX source (the SPIQA dump of 1809.05818v2), the WWW
  version (fdocuments.net), emergentmind, tomesphere, scholarfeed, a zybuluo note — each reachable
  only as its opening excerpt (title, abstract, introduction), never the experiments section;
* the stored code, documentation and issue threads (LightGBM PR #4531, XGBoost PR #8822 and issue
  #12096, ULTRA, metarank, paper-note repositories) — none quotes the paper's table.

So :data:`PAPER_TABLE` is empty and every claim is powered against the smallest effect of
interest, which its ``effect_source`` says. The claims are wired to the table: enter the paper's
rows there, each under the arm of the study it corresponds to, with :data:`PAPER_TABLE_SOURCE`
(table number, dataset, click model), and the paper's claims are powered against its
differences on NDCG@10 with ER, ΔRI and the size verdict (:func:`paper_effect`).
"""
from __future__ import annotations

__all__ = ["TOP_K", "ETA", "EPS_PLUS", "EPS_MINUS", "LOGGER_SHARE", "PAPER_P", "RELEASED_P", "SESSIONS",
           "EYETRACKING_SOURCE", "PAPER_TABLE", "PAPER_TABLE_SOURCE", "PAPER_CLAIMS", "SOURCES",
           "paper_means", "paper_effect"]

TOP_K = 10                 # the examination table's positions; past them the 10th value
SESSIONS = 16              # sessions per training query (the generator's), each with a click
ETA = 1.0                  # severity of the position bias
EPS_PLUS = 1.0             # click probability of the top grade, once examined
EPS_MINUS = 0.1            # click probability of grade 0 (click noise)
LOGGER_SHARE = 0.01        # the logging ranker's labelled share of the training queries
PAPER_P = 0.0              # the table's Unbiased LambdaMART: no bias regularization
RELEASED_P = 0.5           # the released fork's eta: p, the exponent 1/(1 + p) = 2/3
EYETRACKING_SOURCE = "Ai et al. 2018's generator: examination (0.68, 0.61, 0.48, 0.34, 0.28, 0.20, 0.11, 0.10, 0.08, 0.06)^η"

#: the paper's results table: the study's arm a row corresponds to ("ulm": Unbiased LambdaMART in
#: whichever library; "naive", "skyline", "ips_est", "ips_true", ...) -> {"NDCG@1": ..., "NDCG@3": ...,
#: "NDCG@5": ..., "NDCG@10": ...} as fractions (0.7 for 70.0). Empty: not transcribed (module docstring).
PAPER_TABLE: dict[str, dict[str, float]] = {}
#: where :data:`PAPER_TABLE`'s numbers stand in the paper (table, dataset, click model); "" while empty
PAPER_TABLE_SOURCE = ""

#: the paper's claims the study checks (text, the arms compared, the expected sign)
PAPER_CLAIMS = (
    ("Unbiased LambdaMART beats LambdaMART trained on raw clicks", "ulm", "naive", +1),
    ("Unbiased LambdaMART beats IPS λMART with estimated propensities", "ulm", "ips_est", +1),
    ("Unbiased LambdaMART beats IPS λMART with true propensities", "ulm", "ips_true", +1),
)

SOURCES = {
    "paper": "Hu, Wang, Peng, Li. Unbiased LambdaMART: An Unbiased Pairwise Learning-to-Rank Algorithm. WWW 2019",
    "code": "github.com/acbull/Unbiased_LambdaMart (evaluation/click_model/*.json, scripts/click_models.py)",
    "xgb": "dmlc/xgboost src/objective/lambdarank_obj.{h,cc} (lambdarank_unbiased, lambdarank_bias_norm)",
    "lgb": "LightGBM rank_objective.hpp (Dataset position, lambdarank_position_bias_regularization)",
}


def paper_means(a: str, b: str, metric: str = "NDCG@10", table: dict | None = None) -> tuple[float, float] | None:
    """The paper's means of arms ``a`` and ``b`` on ``metric`` from ``table`` (default
    :data:`PAPER_TABLE`; a harness Unbiased LambdaMART arm ``ulm_*`` reads the row ``ulm``), or
    None where the table lacks either.

    >>> paper_means("ulm_lgb", "naive", table={"ulm": {"NDCG@10": 0.75}, "naive": {"NDCG@10": 0.70}})
    (0.75, 0.7)
    >>> paper_means("ulm_xgb", "ips_true", table={"ulm": {"NDCG@10": 0.75}}) is None
    True
    """
    table = PAPER_TABLE if table is None else table
    rows = [table.get("ulm" if k.startswith("ulm_") else k, {}).get(metric) for k in (a, b)]
    return None if None in rows else (float(rows[0]), float(rows[1]))


def paper_effect(a: str, b: str, metric: str = "NDCG@10", table: dict | None = None) -> float | None:
    """The paper's difference a − b on ``metric`` (:func:`paper_means`), or None where it gives none.

    >>> round(paper_effect("ulm_lgb", "naive", table={"ulm": {"NDCG@10": 0.75}, "naive": {"NDCG@10": 0.70}}), 4)
    0.05
    """
    m = paper_means(a, b, metric, table)
    return None if m is None else m[0] - m[1]

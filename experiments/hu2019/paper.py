"""What Hu, Wang, Peng, Li (WWW 2019, arXiv 1809.05818) set and report, as far as the harness
could read it (docs/protocols/debiasing.md gives the sources, column by column).

From the paper and its released generator (github.com/acbull/Unbiased_LambdaMart, forked from
Ai et al. 2018's): Yahoo! LTR Set 1; a logging ranker trained on 1% of the training queries'
labels; users see the top 10; the position-based click model with click noise — an examined
document of grade y is clicked with ε⁻ + (ε⁺ − ε⁻)(2^y − 1)/(2^{y_max} − 1), ε⁺ = 1, ε⁻ = 0.1
(the generator's 0.1, 0.16, 0.28, 0.52, 1.0 for grades 0–4) and examination ρ_r^η, η = 1; the
table's Unbiased LambdaMART without bias regularization (p = 0: the first author, issue #3 of
the released code), the released code's default 0.5 as the exponent 1/(1 + p) (p = 1).

Not transcribed: the numbers of the paper's results table (NDCG@1/3/5/10, MAP of each method on
the simulated clicks). The harness's sources gave the protocol but not the table's values, so the
claims are powered against the smallest effect of interest and say so; :data:`PAPER_TABLE` is
empty until someone enters them from the paper.
"""
from __future__ import annotations

__all__ = ["TOP_K", "ETA", "EPS_PLUS", "EPS_MINUS", "LOGGER_SHARE", "PAPER_P", "RELEASED_EXPONENT",
           "EYETRACKING_SOURCE", "PAPER_TABLE", "PAPER_CLAIMS", "SOURCES"]

TOP_K = 10                 # users see the logging ranker's top 10
ETA = 1.0                  # severity of the position bias
EPS_PLUS = 1.0             # click probability of the top grade, once examined
EPS_MINUS = 0.1            # click probability of grade 0 (click noise)
LOGGER_SHARE = 0.01        # the logging ranker's labelled share of the training queries
PAPER_P = 0.0              # the table's Unbiased LambdaMART: no bias regularization
RELEASED_EXPONENT = 0.5    # the released code's default exponent 1/(1 + p)
EYETRACKING_SOURCE = "Ai et al. 2018's generator: examination (0.68, 0.61, 0.48, 0.34, 0.28, 0.20, 0.11, 0.10, 0.08, 0.06)^η"

#: the paper's results table (method -> {metric: value}); not transcribed (module docstring)
PAPER_TABLE: dict = {}

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

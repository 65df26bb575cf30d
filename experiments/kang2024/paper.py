"""What Kang, de Rijke, Oosterhuis (SIGIR 2024, arXiv 2404.12190) set and report, as far as the
harness could read it, and what Bruch (2021) says of the Neumann series' order
(docs/protocols/kang2024.md gives the sources, column by column).

From the authors' released code (github.com/jkang98/2024-SIGIR-XGBoost-PL-Rank, MIT; read, not
copied): Yahoo! Webscope Set 1, fold 1 (its training, validation and test parts); XGBoost with a
custom objective: PL-Rank-3's gradient and the sampled diagonal Hessian from the same 200
Plackett–Luce rankings per query (Gumbel sampling, full rankings), gains 2^y − 1, rank weights
1/log2(rank + 1) up to the cutoff K, both negated for XGBoost, the Hessian handed over as the
estimator gives it (not sign-constrained); the run "without the Hessian" hands XGBoost a Hessian of
ones. The reported run with the Hessian: learning rate 0.00878, max_depth 8, min_child_weight 6,
gamma 0.660, lambda 2.2e-4, alpha 0.0177, 1,000 rounds; without it, its own tuned values: learning
rate 1.47e-4, max_depth 8, min_child_weight 6, gamma 0.00219, lambda 0.0291, alpha 5.94e-5 (a
learning rate below the released search's range). The search (Optuna, 100 trials, each 200 rounds with early stopping after 20 on the
validation NDCG@K): learning rate log-uniform [1e-3, 1e-2], max_depth 3–8, min_child_weight 2–10,
gamma, lambda and alpha log-uniform [1e-8, 1]. The metric: each query's DCG@K over the mean IDCG@K
of the queries, averaged — mean DCG@K / mean IDCG@K — logged on the test part every round.

Not transcribed: the numbers of the paper's results table (NDCG@K of PL-Rank with and without the
Hessian, λMART and the neural baselines on Yahoo!, MSLR and Istella). The harness could not read
it. What was searched (November 2026), and what each gave:

* the stored public pages for "Kang de Rijke Oosterhuis 2024 Hessian stochastic learning to rank
  gradient boosted trees PL-Rank": arxiv.org/html/2404.12190v2 and /abs/2404.12190v1,
  sciencestack.ai, paperswithcode, sotaverified, deeppaper — each reachable only as its opening
  (title, abstract, introduction), never the experiments section;
* the released code (its newest snapshot): the objective, the search and the run scripts, no
  results file and no table; scholarfeed, liner, themoonlight and astro.paperswithcode summaries:
  the abstract's words, no number.

The abstract's words are what the claims test: "stochastic LTR without the Hessian has extremely
poor performance, whilst the performance is competitive with the current state-of-the-art with our
estimated Hessian". :data:`PAPER_TABLE` is empty, so every claim is powered against the smallest
effect of interest (or its stated margin).
"""
from __future__ import annotations

__all__ = ["SAMPLES", "CUTOFF", "ROUNDS", "WITH_HESSIAN", "WITHOUT_HESSIAN", "SEARCH_SPACE", "SEARCH_TRIALS",
           "SEARCH_ROUNDS", "SEARCH_PATIENCE", "BOOSTING_NAMES", "MAX_BIN", "PAPER_TABLE", "PAPER_TABLE_SOURCE",
           "NEUMANN_ORDER", "SOURCES", "ABSTRACT_CLAIMS"]

SAMPLES = 200              # Plackett–Luce rankings sampled per query per round (gradient and Hessian)
CUTOFF = 10                # K of DCG@K in the objective and the metric (a command-line value in the code)
ROUNDS = 1000              # boosting rounds of the reported runs
#: the reported run with the sampled Hessian (XGBoost's names)
WITH_HESSIAN = {"learning_rate": 0.00878, "max_depth": 8, "min_child_weight": 6, "gamma": 0.660,
                "lambda": 2.2e-4, "alpha": 0.0177}
#: the run with a Hessian of ones: its own tuned values (``gbdt_without_hessian/run.py``); its learning
#: rate lies below the released search's range [1e-3, 1e-2], so that search was not the one that found it
WITHOUT_HESSIAN = {"learning_rate": 1.47e-4, "max_depth": 8, "min_child_weight": 6, "gamma": 0.00219,
                   "lambda": 0.0291, "alpha": 5.94e-5}
#: XGBoost's names of the reported values -> :class:`ltrrepro.fit.boosting.Boosting`'s
BOOSTING_NAMES = {"learning_rate": "learning_rate", "max_depth": "max_depth", "min_child_weight": "min_sum_hessian",
                  "gamma": "min_split_gain", "lambda": "lambda_l2", "alpha": "lambda_l1"}
#: XGBoost's defaults the authors kept: trees grown depth-wise, histograms of 256 bins (``hist``, the
#: default from XGBoost 2.0; their code states no version) — the harness grows them loss-guided to
#: 2^depth leaves: the same trees, tests/lib/test_tree_limits.py
MAX_BIN = 256
#: the authors' search space (XGBoost's names): (low, high, scale)
SEARCH_SPACE = {"learning_rate": (1e-3, 1e-2, "log"), "max_depth": (3, 8, "int"), "min_child_weight": (2, 10, "int"),
                "gamma": (1e-8, 1.0, "log"), "lambda": (1e-8, 1.0, "log"), "alpha": (1e-8, 1.0, "log")}
SEARCH_TRIALS = 100        # Optuna configurations (a 12-hour cap)
SEARCH_ROUNDS = 200        # rounds per configuration
SEARCH_PATIENCE = 20       # early stopping on the validation NDCG@K
#: Bruch (2021) §4.4: the Neumann series of XE_NDCG's Newton step truncated at order 2
NEUMANN_ORDER = 2

#: the paper's results table: arm -> {"NDCG@10": ...} as fractions; empty: not transcribed (docstring)
PAPER_TABLE: dict[str, dict[str, float]] = {}
PAPER_TABLE_SOURCE = ""

#: the paper's claims as its abstract words them
ABSTRACT_CLAIMS = {
    "sampled": "stochastic LTR without the Hessian has extremely poor performance",
    "competitive": "the performance is competitive with the current state-of-the-art with our estimated Hessian",
}

SOURCES = {
    "paper": "Kang, de Rijke, Oosterhuis. Estimating the Hessian Matrix of Ranking Objectives for Stochastic Learning "
             "to Rank with Gradient Boosted Trees. SIGIR 2024 (arXiv 2404.12190)",
    "code": "github.com/jkang98/2024-SIGIR-XGBoost-PL-Rank (gbdt_with_hessian/, gbdt_without_hessian/, utils/)",
    "bruch": "Bruch. An Alternative Cross Entropy Loss for Learning-to-Rank. WWW 2021 (arXiv 1911.09798), §4.4",
}

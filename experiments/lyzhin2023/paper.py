"""What Lyzhin, Ustimenko, Gulin and Prokhorenkova (ICML 2023, arXiv 2204.01500, "Which Tricks are
Important for Learning to Rank?") report, as far as this repository could read it.

Read (the arXiv HTML's section list and its setup paragraphs, §4.1 "Setup"): six datasets — Web10K and
Web30K (fold 1), Yahoo Set 1 and Set 2, Istella and Istella-S; all but Istella come with train,
validation and test parts, which the paper uses, and Istella's validation part is drawn at random from
its training part — "All datasets except for Istella are pre-divided into the train, validation, and
test sets. For Istella, there is no standard validation set, so we randomly divided the train part into
train and validation" (§4.1 "Datasets"; Table 1 lists the sizes; the share drawn is not stated). The
study's ``--split official`` follows it (:mod:`.protocol`). The quality functions are NDCG@10, MRR@10,
MAP@10 and ERR@10 (§4.1 "Ranking loss functions"), each algorithm's variant trained for the function it
is evaluated on where it has one (YetiLoss, LambdaMART and StochasticRank of CatBoost; §4.1
"Algorithms"); hyper-parameters tuned on the validation part with one budget per algorithm (§4.1
"Parameter tuning") and also compared at the libraries' defaults (§4.2 "Comparison with default
hyper-parameters"); the algorithmic details analysed in §4.3 are the stochastic treatment of scores
(noise: Gumbel, Gauss, none) and the number of neighbours, with appendix B on the generalization gap
(oblivious vs non-oblivious trees), the number of neighbours and stochastic smoothing. The study's fixed
tables follow §4.2 "Comparison with default hyper-parameters": ``--hp defaults`` (its default) trains every
system at its library's own defaults but the number of trees (:mod:`.protocol`; the defaults are read from the
installed libraries and declared in ``ltrrepro.fit.backends``), and ``--tune`` adds the tuned tables (§4.1).

Not read: the numbers of Table 2 (tuned), the defaults table, and the binarisation of grades for
MRR/MAP. Searched: the stored pages and documentation for "Which Tricks are Important for Learning
to Rank Lyzhin Ustimenko Gulin Prokhorenkova YetiRank StochasticRank", "MRR MAP binarize labels ERR
results table", "arxiv 2204.01500 Ranking loss functions NDCG@10 MRR@10 MAP@10 ERR@10"; they return
the abstract, the section list and the setup paragraphs only. Searched again on 29 November 2026
("YetiLoss LambdaMART StochasticRank tuned hyper-parameters table Web10K Web30K Yahoo S1 S2 Istella
NDCG@10 MRR@10 MAP@10 ERR@10", "... results table NDCG@10 Web30K Yahoo Istella"): the arXiv HTML,
a markdown mirror of it (hf.zsm.im), arxivlens, liner, scholarfeed and a reproducibility digest
(ri.k117.org) — each the opening or a summary; the digest quotes §4.1 "Datasets" (above) and says
no code was released; no page reaches Table 2. So :data:`PAPER_TABLE` is empty and
every claim is powered against the smallest effect of interest, not a paper difference; MRR/MAP
count grades >= 1 as relevant (CatBoost's MRR/MAP default border 0.5 on integer grades) and ERR's
gain is (2^g − 1)/2^4 (Chapelle et al. 2009), both recorded as the harness's choices.
"""
from __future__ import annotations

__all__ = ["PAPER_TABLE", "CLAIMS", "SOURCE"]

SOURCE = "Lyzhin et al. 2023 (arXiv 2204.01500)"
#: Table 2 (tuned), dataset -> system family -> metric -> value: not transcribed (see the module docstring)
PAPER_TABLE: dict = {}
#: the paper's claims as it states them (abstract, §4.2, §4.3, appendix B): (id, text, what the run compares)
CLAIMS = (
    ("yetiloss_beats_lambdamart", "YetiLoss outperforms LambdaMART for the specific quality function it optimizes "
     "(§4.2, Table 2; abstract: 'a new state-of-the-art algorithm')", ("yetiloss", "lambdamart")),
    ("yetiloss_beats_stochasticrank", "YetiLoss outperforms StochasticRank, the direct optimization of a smoothed "
     "ranking loss (§3.3, §4.2)", ("yetiloss", "stochasticrank")),
    ("yetiloss_beats_lightgbm", "YetiLoss outperforms LightGBM's LambdaMART (§4.2, Table 2)",
     ("yetiloss", "lgb_lambdarank")),
    ("noise_matters", "The stochastic treatment of scores improves YetiLoss: no noise is worse (§4.3 'Stochastic "
     "treatment of scores')", "noise-No"),
    ("neighbors", "The study's question on §4.3 'Number of neighbors' (appendix B): YetiLoss with one neighbour, "
     "CatBoost's default, beats three neighbours", "neighbors-3"),
    ("oblivious_gap", "Oblivious (symmetric) trees have a smaller train–test gap than leaf-wise ones (appendix B "
     "'Generalization gap')", "trees-leafwise"),
)

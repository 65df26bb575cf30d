"""What Zheng et al. (2007) report (docs/protocols/zheng2007.md §4, §6): Table 1 (precision at
K% on P3), RankSVM's DCG-5 in Figure 1, and the share of single-grade queries (L1) in their
data, and the settings it gives (η, leaves, w, the L2 : L3 query counts). The protocol (the runs,
the data design) is :mod:`.protocol`."""
from __future__ import annotations

__all__ = ["PAPER_TABLE1", "PAPER_RANKSVM_DCG5", "PAPER_L1_SHARE", "PAPER_ETA", "PAPER_LEAVES", "PAPER_W",
           "PAPER_L2_L3", "EFFECT_REASONS"]

#: Table 1, precision at K% on P3: K -> (QBRank, GBT, RankSVM)
PAPER_TABLE1 = {
    10: (.9446, .9328, .8524), 20: (.903, .8939, .8152), 30: (.8611, .8557, .7839), 40: (.8246, .8199, .7578),
    50: (.7938, .7899, .7357), 60: (.7673, .7637, .7151), 70: (.7435, .7399, .6957), 80: (.7218, .7176, .6779),
    90: (.7015, .6977, .6615), 100: (.6834, .6803, .6465)}
#: Figure 1: RankSVM's DCG-5, a flat line (their data and gains)
PAPER_RANKSVM_DCG5 = 6.181
#: L1's share of the queries: ≈2,000 single-grade queries of 4,898
PAPER_L1_SHARE = 2000 / 4898
#: §4: "We set η to be 0.05 … 20 leaf nodes"; w = 0.5
PAPER_ETA, PAPER_LEAVES = 0.05, 20
PAPER_W = 0.5
#: §4: the labelled queries, 1,300 for training (L2) and 1,400 for testing (L3)
PAPER_L2_L3 = (1300, 1400)

#: the paper's reason for the smallest effect of interest on DCG (1% of the baseline's mean,
#: :data:`ltrrepro.inference.effects.RELATIVE_EFFECTS`): "a 1% DCG gain is significant" (footnote 3)
EFFECT_REASONS = {"dcg": "Zheng et al.: a 1% DCG gain is significant"}

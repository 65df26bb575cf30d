"""What Bruch (2021) reports (docs/protocols/bruch2021.md §5): Table 1's numbers. Which of its
columns a run is compared with (:func:`~.protocol.paper_reference`) and the protocol's settings
(presets) are in :mod:`.protocol`; the paper's trials per study are its records' (:mod:`.studies`)."""
from __future__ import annotations

__all__ = ["PAPER_TABLE1"]

#: Bruch 2021 Table 1, ×100, mean over 100 trials: dataset -> model -> (NDCG@5, NDCG@10)
PAPER_TABLE1 = {
    "web30k": {"listnet": (47.68, 49.76), "lambdamart": (48.08, 49.94), "xendcg": (48.23, 50.27)},
    "yahoo": {"listnet": (71.76, 76.52), "lambdamart": (73.00, 77.49), "xendcg": (73.37, 77.84)},
}


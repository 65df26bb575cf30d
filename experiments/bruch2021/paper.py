"""What Bruch (2021) reports (docs/protocols/bruch2021.md §5): Table 1's numbers, and which of
its columns a run is compared with. The protocol's settings (presets, trials) are in
:mod:`.protocol`."""
from __future__ import annotations

__all__ = ["PAPER_TABLE1", "paper_reference"]

#: Bruch 2021 Table 1, ×100, mean over 100 trials: dataset -> model -> (NDCG@5, NDCG@10)
PAPER_TABLE1 = {
    "web30k": {"listnet": (47.68, 49.76), "lambdamart": (48.08, 49.94), "xendcg": (48.23, 50.27)},
    "yahoo": {"listnet": (71.76, 76.52), "lambdamart": (73.00, 77.49), "xendcg": (73.37, 77.84)},
}


def paper_reference(dataset: str) -> str | None:
    """The Table 1 column a run is compared and powered against: Web30K or Yahoo, also for the
    synthetic data calibrated to it; none for other data.

    >>> paper_reference("synthetic-yahoo"), paper_reference("web30k"), paper_reference("mq2008")
    ('yahoo', 'web30k', None)
    """
    key = dataset.replace("synthetic-", "")
    return key if key in PAPER_TABLE1 else None

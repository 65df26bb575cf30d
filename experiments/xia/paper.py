"""What Xia, Zhai, Wang report (docs/protocols/xia.md §4): Tables 2 and 3, the counts, the
final-loss range and the time overheads of the text, and the helpers that read them."""
from __future__ import annotations

import numpy as np

__all__ = ["PAPER_TABLE_NAMES", "PAPER_TEXT_COUNTS", "PAPER_LOSS_RANGE", "PAPER_TIME_RATIO", "paper_table",
           "paper_differences", "paper_counts", "paper_means", "in_grid", "PAPER_ROUNDS"]

# Xia et al. Tables 2 (Yahoo) and 3 (MSLR-WEB10K): (SE, OLE) ×100 for NDCG@1, @3, @10, ERR
_T = {
    "yahoo": {
        ("mcrank", 10, .06): ((71.32, 71.76), (71.47, 72.22), (77.97, 78.52), (45.44, 45.71)),
        ("mcrank", 10, .10): ((71.38, 71.73), (71.82, 72.37), (78.25, 78.67), (45.52, 45.77)),
        ("mcrank", 10, .12): ((71.67, 71.87), (71.96, 72.52), (78.33, 78.77), (45.59, 45.79)),
        ("mcrank", 20, .06): ((71.52, 71.90), (71.80, 72.60), (78.26, 78.84), (45.54, 45.83)),
        ("mcrank", 20, .10): ((71.65, 72.03), (72.14, 72.77), (78.50, 79.00), (45.64, 45.88)),
        ("mcrank", 20, .12): ((71.80, 72.10), (72.23, 72.79), (78.58, 78.99), (45.66, 45.89)),
        ("lambdamart", 10, .06): ((71.15, 71.62), (71.60, 71.94), (77.82, 78.15), (45.66, 45.80)),
        ("lambdamart", 10, .10): ((71.29, 71.81), (71.76, 72.11), (77.96, 78.29), (45.72, 45.90)),
        ("lambdamart", 10, .12): ((71.30, 71.76), (71.76, 72.19), (77.93, 78.34), (45.67, 45.87)),
        ("lambdamart", 20, .06): ((71.51, 71.75), (72.02, 72.25), (78.13, 78.40), (45.77, 45.92)),
        ("lambdamart", 20, .10): ((71.37, 72.10), (71.92, 72.56), (78.04, 78.58), (45.72, 46.02)),
        ("lambdamart", 20, .12): ((71.44, 71.76), (71.91, 72.39), (78.06, 78.57), (45.71, 45.96)),
    },
    "web10k": {
        ("mcrank", 10, .06): ((47.43, 47.14), (46.14, 46.46), (48.60, 49.17), (35.90, 36.13)),
        ("mcrank", 10, .10): ((47.49, 47.69), (46.41, 46.79), (49.00, 49.47), (36.13, 36.32)),
        ("mcrank", 10, .12): ((47.42, 47.67), (46.50, 46.78), (49.02, 49.51), (36.13, 36.30)),
        ("mcrank", 20, .06): ((47.69, 47.94), (46.44, 47.06), (49.07, 49.67), (36.09, 36.45)),
        ("mcrank", 20, .10): ((47.52, 48.04), (46.76, 47.24), (49.36, 49.80), (36.26, 36.54)),
        ("mcrank", 20, .12): ((47.87, 47.89), (46.86, 47.12), (49.51, 49.68), (36.34, 36.45)),
        ("lambdamart", 10, .06): ((47.42, 47.98), (46.21, 46.54), (48.22, 48.70), (36.44, 36.68)),
        ("lambdamart", 10, .10): ((47.79, 47.64), (46.55, 46.57), (48.57, 48.85), (36.54, 36.71)),
        ("lambdamart", 10, .12): ((47.45, 47.79), (46.32, 46.62), (48.54, 48.94), (36.42, 36.67)),
        ("lambdamart", 20, .06): ((48.01, 48.19), (46.52, 46.87), (48.78, 49.13), (36.74, 36.88)),
        ("lambdamart", 20, .10): ((47.99, 48.07), (46.66, 46.79), (48.95, 49.10), (36.72, 36.81)),
        ("lambdamart", 20, .12): ((47.63, 47.67), (46.69, 46.51), (49.02, 49.03), (36.70, 36.61)),
    },
}


#: the datasets the paper reports, and the table of each
PAPER_TABLE_NAMES = {"yahoo": "Table 2 (Yahoo)", "web10k": "Table 3 (MSLR-WEB10K)"}


def paper_table(dataset: str) -> tuple[str | None, dict]:
    """The paper's table for the run's dataset: Table 2 for Yahoo, Table 3 for MSLR-WEB10K,
    none for any other dataset (synthetic, Web30K, LETOR, a user's): a table of other data is
    no reference."""
    return (dataset, _T[dataset]) if dataset in _T else (None, {})


def paper_differences(system: str, key: str | None = None, grid=None) -> np.ndarray:
    """The paper's OLE − SE (points ×100) over its comparisons for ``system``: every
    configuration and metric of table ``key``, or of both tables when None; ``grid``: only the
    configurations (leaves, learning rate) the run used, where the paper has them (all of the
    paper's when none of them is in it)."""
    tables = [_T[key]] if key else list(_T.values())
    cells = [(k[1:], ole - se) for t in tables for k, v in t.items() if k[0] == system for se, ole in v]
    kept = [d for cfg, d in cells if grid is None or in_grid(cfg, grid)]
    return np.array(kept if kept else [d for _, d in cells])


def in_grid(cfg, grid) -> bool:
    """A paper configuration (leaves, learning rate) is one of ``grid``'s (floats compared to 1e-9)."""
    return any(int(cfg[0]) == int(g[0]) and abs(float(cfg[1]) - float(g[1])) < 1e-9 for g in grid)


def paper_counts(system: str) -> tuple[int, int]:
    """(comparisons where OLE beats SE by ≥ 0.1 point, comparisons) in Tables 2 and 3. The
    text says 68 (McRank) and 56 (LambdaMART) of 72; the tables give 46 and 40 of 48.

    >>> paper_counts("mcrank"), paper_counts("lambdamart")
    ((46, 48), (40, 48))
    """
    d = paper_differences(system)
    return int((d >= 0.1 - 1e-9).sum()), int(d.size)


#: the text's counts ("68 and 56 of 72 comparisons"), which the tables do not give
PAPER_TEXT_COUNTS = {"mcrank": 68, "lambdamart": 56}
#: the paper's final-loss claim: OLE's objective loss 0.32%–1% lower than SE's (Figure 2 text)
PAPER_LOSS_RANGE = (0.32, 1.0)
#: the rounds of the paper's runs per system (§5: 1,000 for LambdaMART, 2,500 for McRank)
PAPER_ROUNDS = {"mcrank": 2500, "lambdamart": 1000}
#: the text's time overheads, OLE's time / SE's: ≈30% more for pairwise losses (LambdaMART), none for
#: pointwise ones (McRank)
PAPER_TIME_RATIO = {"lambdamart": 1.3, "mcrank": 1.0}


def paper_means(system: str, key: str | None, grid=None) -> tuple[float | None, float | None]:
    """The paper's mean SE and OLE (points ×100) over the cells of table ``key`` (both when
    None) for ``system``: the two means ΔRI compares (Breuer et al. 2020); ``grid``: only the
    configurations (leaves, learning rate) the run used (all when the paper has none of them)."""
    rows = [(cfg, v) for k in ((key,) if key else tuple(PAPER_TABLE_NAMES)) for (sy, *cfg), v in paper_table(k)[1].items()
            if sy == system]
    kept = [v for cfg, v in rows if grid is None or in_grid(cfg, grid)] or [v for _, v in rows]
    cells = [c for v in kept for c in v]
    if not cells:
        return None, None
    return float(np.mean([c[0] for c in cells])), float(np.mean([c[1] for c in cells]))

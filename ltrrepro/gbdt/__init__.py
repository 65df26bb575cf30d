"""ltrrepro's own histogram GBDT for the split-principle study: regression trees grown
width-first (Xia et al.) or best-first (LightGBM) under the SE, RWSE and exact-OLE split
principles, with diagonal (Eq. 8) or exact leaves (docs/protocols/xia.md §1–§3)."""
from .binning import BinMapper
from .boosting import Model, TrainLog, train
from .tree import Tree, TreeGrower

__all__ = ["BinMapper", "Tree", "TreeGrower", "Model", "TrainLog", "train"]

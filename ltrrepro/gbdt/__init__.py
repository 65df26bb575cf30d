"""ltrrepro's own histogram GBDT: regression trees grown width-first (Xia et al.) or best-first
(LightGBM) with the SE, RWSE and exact-OLE
split principles of Xia et al. (docs/protocols/xia.md §1–§2), for the split-principle study."""
from .binning import BinMapper
from .boosting import Model, TrainLog, train
from .tree import Tree, TreeGrower

__all__ = ["BinMapper", "Tree", "TreeGrower", "Model", "TrainLog", "train"]

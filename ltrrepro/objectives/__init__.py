"""Ranking objectives as small callable classes, with LightGBM and XGBoost adapters."""
from .adapters import LightGBMObjective, XGBoostObjective
from .base import HESS_FLOOR, Objective, check_grad_hess
from .listwise import XENDCG, ListNet
from .pairwise import LambdaMART, RankNet
from .pointwise import SquaredLoss

__all__ = ["Objective", "XENDCG", "ListNet", "LambdaMART", "RankNet", "SquaredLoss",
           "LightGBMObjective", "XGBoostObjective", "check_grad_hess", "HESS_FLOOR"]

"""Ranking objectives as small callable classes, with LightGBM and XGBoost adapters."""
from .adapters import LightGBMObjective, RoundState, XGBoostObjective
from .base import HESS_FLOOR, Objective, check_grad_hess, objective_factory
from .debiasing import IPSLambdaMART, IPSXENDCG, UnbiasedLambdaMART
from .listwise import XENDCG, ListNet
from .mcrank_listmle import ListMLE, McRank, mcrank_scores
from .pairwise import LambdaMART, QBRank, RankNet, qbrank_step
from .plrank import PLRank
from .pointwise import SquaredLoss

__all__ = ["Objective", "objective_factory", "XENDCG", "ListNet", "LambdaMART", "RankNet", "SquaredLoss", "QBRank", "qbrank_step", "McRank", "mcrank_scores",
           "ListMLE", "PLRank", "UnbiasedLambdaMART", "IPSLambdaMART", "IPSXENDCG",
           "LightGBMObjective", "XGBoostObjective", "RoundState", "check_grad_hess", "HESS_FLOOR"]

"""The systems of the Hessian study (Kang, de Rijke, Oosterhuis, SIGIR 2024; Bruch 2021's Neumann
series): each loss under several Hessian treatments, the same gradient in every one.

Per loss, the arms differ only in what the library receives as the Hessian (what a leaf's
Newton step divides by):

* PL-Rank-3 (:class:`~ltrrepro.objectives.PLRank`): ``plrank_sampled`` (Kang et al.'s sampled
  diagonal Hessian, from the same rankings as the gradient) and ``plrank_constant`` (Hessian 1);
* XE_NDCG (:class:`~ltrrepro.objectives.XENDCG`): the Neumann series of order 0 (the diagonal
  Newton step), 1, 2 (Bruch's), 3 and the exact Newton step (on the range of
  the singular Hessian: :class:`~ltrrepro.objectives.hessian.RangeNewton`), and ``xendcg_constant`` (the loss's
  gradient ρ − φ, Hessian 1);
* λMART (:class:`~ltrrepro.objectives.LambdaMART`, σ = 1, no normalization): its λ-Hessian and
  Hessian 1; ``lambdamart_library`` is each library's own LambdaMART, the reference of Kang et
  al.'s second claim;
* ListNet (:class:`~ltrrepro.objectives.ListNet`): its exact diagonal ρ(1 − ρ) and Hessian 1.

Their search space (``--tune``) is the library's (:mod:`.space`) with the learning rate on
:data:`NEWTON_RATE` for the arms with a Hessian and :data:`CONSTANT_RATE` for the constant ones:
a Hessian of 1 in place of the losses' (ρ(1 − ρ) ≤ 1/4, λ-Hessians and PL-Rank's well below 1)
changes every step's length by orders of magnitude, so the constant arms search a range wide
enough to hold their own optimum (two decades more below, up to 1 above).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..objectives import LambdaMART, ListNet, PLRank, XENDCG
from ..objectives.hessian import constant_hessian, range_newton
from .backends import BACKENDS, custom_objective_libraries, negative_hessian_libraries
from .base import System, register
from .ranking import RankingOptions, RankingTrainer
from .space import IntRange, LogUniform

__all__ = ["HessianOptions", "NEWTON_RATE", "CONSTANT_RATE", "HESSIAN_SYSTEMS", "LOSSES", "PAPER_SPACE",
           "PAPER_SYSTEMS"]

#: the learning-rate range searched by the arms with a Hessian: the lower end of Kang et al.'s
#: [1e-3, 1e-2], the upper end of the harness's (runs of a few hundred rounds, not 1,000)
NEWTON_RATE = (1e-3, 0.3)
#: the learning-rate range of the constant-Hessian arms
CONSTANT_RATE = (1e-5, 1.0)


@dataclass(frozen=True)
class HessianOptions(RankingOptions):
    """:class:`RankingOptions` whose search space puts the learning rate on ``learning_rate``
    (low, high), log-uniform; ``hessian``: the arm's treatment, as its tables name it."""

    learning_rate: tuple = NEWTON_RATE
    hessian: str = ""
    #: a whole search space of its own ((name, distribution), ...) in place of the library's (Kang
    #: et al.'s, :data:`PAPER_SPACE`); empty: the library's with ``learning_rate``
    search: tuple = ()

    def space(self, library: str) -> dict:
        if self.search:
            return dict(self.search)
        return {**super().space(library), "learning_rate": LogUniform(*self.learning_rate)}


#: loss -> its arms (system names), the constant arm last
LOSSES: dict = {}


def _arm(name, label, loss, hessian, paper, **options):
    rate = CONSTANT_RATE if hessian == "constant" else NEWTON_RATE
    libraries = options.pop("libraries", None) or custom_objective_libraries()
    LOSSES.setdefault(loss, []).append(name)
    return register(System(name, label, RankingTrainer, libraries=libraries,
                           options=HessianOptions(learning_rate=rate, hessian=hessian, **options), paper=paper,
                           family=loss, variant=f"hess={hessian}"))


_KANG = "Kang, de Rijke, Oosterhuis 2024"
_PL = (("n_samples", 200), ("cutoff", 10), ("hessian_policy", "clip"))
_arm("plrank_sampled", "PL-Rank-3, sampled Hessian", "plrank", "sampled", _KANG, objective=PLRank, objective_kwargs=_PL)
_arm("plrank_constant", "PL-Rank-3, Hessian 1", "plrank", "constant", _KANG, objective=constant_hessian(PLRank),
     objective_kwargs=_PL)
for _order in (0, 1, 2, 3, "exact"):
    _arm(f"xendcg_{'exact' if _order == 'exact' else f'o{_order}'}",
         f"XE_NDCG, {'exact Newton step' if _order == 'exact' else f'Neumann order {_order}'}", "xendcg",
         "exact" if _order == "exact" else f"neumann{_order}", "Bruch 2021",
         objective=range_newton(XENDCG) if _order == "exact" else XENDCG,
         objective_kwargs=(("order", 0 if _order == "exact" else _order),))
_arm("xendcg_constant", "XE_NDCG, Hessian 1", "xendcg", "constant", "Bruch 2021", objective=constant_hessian(XENDCG),
     objective_kwargs=(("order", 0),))
_LM = (("sigma", 1.0), ("norm", False))
_arm("lambdamart_lambda", "λMART (ltrrepro lambdas), λ-Hessian", "lambdamart", "lambda", "Burges 2010",
     objective=LambdaMART, objective_kwargs=_LM)
_arm("lambdamart_constant", "λMART (ltrrepro lambdas), Hessian 1", "lambdamart", "constant", "Burges 2010",
     objective=constant_hessian(LambdaMART), objective_kwargs=_LM)
_arm("listnet_diag", "ListNet, exact diagonal Hessian", "listnet", "diagonal", "Cao et al. 2007", objective=ListNet,
     objective_kwargs=(("order", 0),))
_arm("listnet_constant", "ListNet, Hessian 1", "listnet", "constant", "Cao et al. 2007",
     objective=constant_hessian(ListNet), objective_kwargs=(("order", 0),))
#: each library's own LambdaMART (its ``lambdarank`` objective), searched on the Newton arms' range
_LIB = {n: b.objectives["lambdarank"] for n, b in BACKENDS.items() if "lambdarank" in b.objectives}
LOSSES.setdefault("library", [])
register(System("lambdamart_library", "λMART (the library's own)", RankingTrainer, libraries=tuple(_LIB),
                options=HessianOptions(builtin=tuple(_LIB.items()), hessian="library"), paper="Burges 2010",
                family="lambdamart", variant="builtin"))
LOSSES["library"].append("lambdamart_library")
#: every system of the study, in table order
HESSIAN_SYSTEMS = tuple(n for arms in LOSSES.values() for n in arms)


#: Kang et al.'s search space (their released code's Optuna search, the same for the runs with and
#: without the Hessian), in :class:`~ltrrepro.fit.boosting.Boosting`'s names: learning rate
#: log-uniform [1e-3, 1e-2], depth 3–8, the least Σ Hessian of a leaf (XGBoost's
#: ``min_child_weight``) on the integers 2–10, the least split gain (``gamma``), L2 (``lambda``) and
#: L1 (``alpha``) log-uniform [1e-8, 1]
PAPER_SPACE = (("learning_rate", LogUniform(1e-3, 1e-2)), ("max_depth", IntRange(3, 8)),
               ("min_sum_hessian", IntRange(2, 10)), ("min_split_gain", LogUniform(1e-8, 1.0)),
               ("lambda_l2", LogUniform(1e-8, 1.0)), ("lambda_l1", LogUniform(1e-8, 1.0)))
#: PL-Rank-3 as Kang et al. trained it: in the library that takes its raw sampled Hessian
#: (``hessian_policy="none"``, theirs), with their search space; with the sampled Hessian and with
#: Hessian 1 (the paper's column of the Hessian study, docs/protocols/kang2024.md)
_RAW = negative_hessian_libraries()
PAPER_SYSTEMS = ("kang_plrank_sampled", "kang_plrank_constant")
register(System(PAPER_SYSTEMS[0], "PL-Rank-3, sampled Hessian (Kang et al.'s settings)", RankingTrainer,
                libraries=_RAW, options=HessianOptions(objective=PLRank, objective_kwargs=_PL[:2] + (
                    ("hessian_policy", "none"),), hessian="sampled", search=PAPER_SPACE), paper=_KANG,
                family="plrank", variant="hess=sampled,settings=paper"))
register(System(PAPER_SYSTEMS[1], "PL-Rank-3, Hessian 1 (Kang et al.'s settings)", RankingTrainer, libraries=_RAW,
                options=HessianOptions(objective=constant_hessian(PLRank), objective_kwargs=_PL, hessian="constant",
                                       search=PAPER_SPACE), paper=_KANG, family="plrank",
                variant="hess=constant,settings=paper"))

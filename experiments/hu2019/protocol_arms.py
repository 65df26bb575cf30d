"""The arms of Hu et al. (2019)'s study (what ``--models`` names: :data:`ARMS`) and the parsing
of :class:`~.protocol.DebiasingConfig`'s flag values (a part of :mod:`.protocol`)."""
from __future__ import annotations

from dataclasses import dataclass

from experiments.errors import UsageError
from experiments.values import parse_levels, parse_names
from ltrrepro.fit.backends import BACKENDS, custom_objective_libraries

__all__ = ["Arm", "ARMS", "SWEEP_ARMS", "ulm_arm", "shown", "share", "ints", "floats", "names", "arms"]


@dataclass(frozen=True)
class Arm:
    """A system of the study: the registered ``system``, the library it is pinned to (None: the
    run's ``--library``), its training data (``clicks``: the sessions; ``labels``: the training
    lists' expert labels) and, for IPS, the propensities it is given (``true`` or ``estimated``)."""

    system: str
    label: str
    library: str | None = None
    data: str = "clicks"
    propensity: str = ""
    update: bool = True             # Unbiased LambdaMART: False keeps every bias at 1 (no debiasing)


def ulm_arm(library: str) -> str:
    """The arm of ltrrepro's Unbiased LambdaMART in ``library`` (``ulm_lgb``, ``ulm_xgb``)."""
    return f"ulm_{BACKENDS[library].tag}"


ARMS = {
    "skyline": Arm("click_lambdamart", "λMART on expert labels (skyline)", data="labels"),
    "naive": Arm("click_lambdamart", "λMART on clicks (naive)"),
    # each library's own debiasing (its backend declares the system): lgb_position, xgb_unbiased
    **{name.removesuffix("_lambdamart"): Arm(name, spec[0]) for b in BACKENDS.values() for name, spec in b.debiasing.items()},
    **{ulm_arm(lib): Arm("unbiased_lambdamart", f"Unbiased LambdaMART (ltrrepro, {BACKENDS[lib].label})", lib)
       for lib in custom_objective_libraries()},
    "ulm_off": Arm("unbiased_lambdamart", "Unbiased LambdaMART's λMART, biases fixed at 1 (no debiasing)",
                   update=False),
    "ips_true": Arm("ips_lambdamart", "IPS λMART, true propensities", propensity="true"),
    "ips_est": Arm("ips_lambdamart", "IPS λMART, estimated propensities", propensity="estimated"),
    "ipsxe_true": Arm("ips_xendcg", "IPS XE_NDCG, true propensities", propensity="true"),
    "ipsxe_est": Arm("ips_xendcg", "IPS XE_NDCG, estimated propensities", propensity="estimated"),
    "position_feature": Arm("position_feature_lambdamart", "λMART, position as a feature (at 1 in test)"),
}
SWEEP_ARMS = ("naive", "lgb_position", "xgb_unbiased", "ulm_lgb")


def shown(text: str) -> int:
    """``--k``: ``all`` (0: every document) or a number of documents >= 2."""
    if str(text).strip().lower() == "all":
        return 0
    try:
        k = int(text)
    except ValueError:
        raise UsageError(f"--k: 'all' or a whole number >= 2, not {text!r}") from None
    if k < 2:
        raise UsageError(f"--k: 'all' or a whole number >= 2, not {text!r}")
    return k


def share(text: str) -> float:
    """``--share``: a share of the training queries, in (0, 1]."""
    try:
        v = float(text)
    except ValueError:
        raise UsageError(f"--share must be a number in (0, 1], got {text!r}") from None
    if not 0 < v <= 1:
        raise UsageError(f"--share must be in (0, 1], got {v}")
    return v


def ints(flag: str):
    """A sweep's flag: comma-separated whole numbers (empty: no sweep)."""
    return lambda text: tuple(int(v) for v in parse_levels(text, int, flag)) if text else ()


def floats(flag: str):
    """A sweep's flag: comma-separated numbers (empty: no sweep)."""
    return lambda text: tuple(float(v) for v in parse_levels(text, float, flag)) if text else ()


def names(text: str) -> tuple:
    """Comma-separated names (``--sweep-click``; checked by the configuration)."""
    return tuple(c.strip() for c in text.split(",") if c.strip())


def arms(text: str) -> tuple:
    """``--sweep-models``: known arms (empty: no sweep)."""
    return tuple(parse_names(text, ARMS, "--sweep-models", "arm")) if text else ()

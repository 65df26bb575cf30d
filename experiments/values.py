"""Values of the flags and manifests, parsed: integers with a bound, comma-separated names,
levels and models (with plug-in specs). The ground floor: each raises
:class:`~experiments.errors.UsageError` (or argparse's type error) naming the flag."""
from __future__ import annotations

from experiments.errors import UsageError

__all__ = ["parse_names", "parse_levels", "parse_models", "positive_int", "seed_int", "trials_arg"]


def _int_at_least(low: int, words: str):
    """An argparse type: an integer ``>= low`` (``words`` says the rule in the error)."""
    import argparse

    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if v < low:
            raise argparse.ArgumentTypeError(f"{text!r} must be {words}")
        return v
    return parse


positive_int = _int_at_least(1, "at least 1")
seed_int = _int_at_least(0, "a non-negative integer")


def trials_arg(text: str):
    """``--trials``: a positive integer, or ``auto`` (a group-sequential run)."""
    if str(text).strip().lower() == "auto":
        return "auto"
    return positive_int(text)


def _number(x: str):
    v = float(x)
    return int(v) if v.is_integer() else v


def parse_names(text: str, known, flag: str, what: str = "model") -> list[str]:
    """``"a,b"`` -> ``["a", "b"]``: each a known name, at least one, none twice."""
    names = [n.strip() for n in str(text).split(",") if n.strip()]
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise UsageError(f"{flag}: unknown {what}(s) {unknown or text!r}; known: {', '.join(known)}")
    if len(set(names)) != len(names):
        raise UsageError(f"{flag} repeats a {what}: {text!r}")
    return names


def parse_levels(text: str, cast=_number, flag: str = "--levels") -> list:
    """``"0,20,2.5"`` -> ``[0, 20, 2.5]`` (integral values as ints, so unit keys read ``level=20``);
    empty lists and repeated values are errors."""
    import math

    try:
        out = [cast(x) for x in str(text).split(",") if x.strip() != ""]
    except ValueError:
        raise UsageError(f"{flag} must be comma-separated numbers, got {text!r}") from None
    if not all(math.isfinite(v) for v in out):
        raise UsageError(f"{flag} must be finite numbers, got {text!r}")
    if not out:
        raise UsageError(f"{flag} is empty")
    if len(set(out)) != len(out):
        raise UsageError(f"{flag} repeats a value: {text!r}")
    return out


def parse_models(text: str, known, flag: str = "--models", suffixes=()) -> tuple[tuple, tuple]:
    """``--models`` with plug-in objectives: ``(models, plugins)``, the unit names and the
    ``((key, spec), ...)`` of the plug-ins they use. A name is a known system, or a plug-in
    spec ``package.module:Name(k=v)``; with ``suffixes`` (Xia's split principles) a plug-in is
    written ``SPEC-SUFFIX`` and named ``<key>-<suffix>``. At least one, none twice.

    >>> parse_models("gbt,mylosses:Focal(gamma=2)", ("gbt", "qbrank"))
    (('gbt', 'mylosses.Focal@gamma=2'), (('mylosses.Focal@gamma=2', 'mylosses:Focal(gamma=2)'),))
    >>> parse_models("lambdamart-se,m:F-rwse", ("lambdamart-se",), suffixes=("se", "rwse"))
    (('lambdamart-se', 'm.F-rwse'), (('m.F', 'm:F'),))
    """
    from ltrrepro.fit.plugins import is_plugin_spec, plugin_key, split_models
    from ltrrepro.fit.xia import arm, arm_of

    names = [n for n in split_models(text or "") if n]
    if not names:
        raise UsageError(f"{flag} is empty ({text!r}): name at least one model")
    form = "package.module:Name(k=v)" + (f"-<{'|'.join(suffixes)}>" if suffixes else "")
    models, plugins = [], {}
    for n in names:
        if n in known:
            models.append(n)
            continue
        spec, suffix = (arm_of(n, suffixes) or (n, "")) if suffixes else (n, None)
        if not is_plugin_spec(spec) or (suffixes and suffix not in suffixes):
            raise UsageError(f"{flag}: unknown model {n!r}; known: {', '.join(known)}, and plug-in objectives {form}")
        key = plugin_key(spec)
        if plugins.get(key, spec) != spec:
            raise UsageError(f"{flag}: {plugins[key]!r} and {spec!r} are one plug-in ({key}); write it one way")
        plugins[key] = spec
        models.append(key if suffix is None else arm(key, suffix))
    if len(set(models)) != len(models):
        raise UsageError(f"{flag} repeats a model: {text!r}")
    return tuple(models), tuple(plugins.items())

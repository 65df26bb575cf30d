"""Values of the flags and manifests, parsed: integers with a bound, comma-separated names,
levels and models (with plug-in specs). The ground floor: each raises
:class:`~experiments.errors.UsageError` (or argparse's type error) naming the flag."""
from __future__ import annotations

import functools
import types
import typing

from experiments.errors import UsageError

__all__ = ["parse_names", "parse_levels", "parse_models", "positive_int", "seed_int", "bounded_int", "BOUNDS",
           "check_bounds", "check_looks", "field_hints", "typed_value", "trials_arg",
           "MAX_TRIALS", "MAX_LOOKS", "MAX_TUNE", "MAX_SESSIONS"]

#: the largest number of trials a run may ask for (the papers use at most 100; each trial is a
#: unit per model and level): beyond it a design is refused where it is parsed and built, so
#: that ``--max-trials 1000000000000`` is one line, not a run (or an estimate) that never ends
MAX_TRIALS = 10_000
#: the most looks of a ``--trials auto`` run (each look is a report)
MAX_LOOKS = 100
#: the largest ``--tune`` budget: configurations per search, each a model trained (the docs tune
#: with 10 to 20; Optuna's TPE also slows as its history grows): beyond it the search cannot end
MAX_TUNE = 1_000
#: the most click sessions per query (``debiasing --sessions``, ``--sweep-sessions``): ten times
#: the largest sweep the docs show (10,000); the simulated log holds queries × sessions × k rows
MAX_SESSIONS = 100_000

#: field -> (least, largest, flag): the range of every numeric design field, checked when a
#: flag is parsed (:func:`bounded_int`) and when a configuration is built, by hand or from a
#: manifest (:func:`check_bounds`); a field absent from a configuration is not checked
BOUNDS = {"trials": (1, MAX_TRIALS, "--trials"), "looks": (2, MAX_LOOKS, "--looks"),
          "seed": (0, 2 ** 63 - 1, "--seed"), "queries": (1, 1_000_000, "--queries"),
          "rounds": (1, 100_000, "--rounds"), "every": (1, 100_000, "--every"),
          "impressions": (1, 10_000, "--impressions"), "max_pairs": (1, 10 ** 9, "--max-pairs"),
          "leaves": (1, 131_072, "--leaves"), "max_bin": (2, 65_535, "--max-bin"),
          "min_data_in_leaf": (1, 10 ** 9, "--min-data-in-leaf"),
          # 0: no search (a configuration's default); the flag itself takes 1 or more
          "tune": (0, MAX_TUNE, "--tune"),
          "sessions": (1, MAX_SESSIONS, "--sessions"), "sweep_sessions": (1, MAX_SESSIONS, "--sweep-sessions")}


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


def bounded_int(field: str, low: int | None = None, words: str | None = None):
    """An argparse type for the design field ``field``: an integer within :data:`BOUNDS`
    (``low`` replaces the least value where a later check words the lower bound better;
    ``words`` says the lower bound in the error)."""
    import argparse

    least, most, _ = BOUNDS[field]
    least = least if low is None else low

    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if v < least:
            raise argparse.ArgumentTypeError(f"{text!r} must be {words or f'at least {least}'}")
        if v > most:
            raise argparse.ArgumentTypeError(f"{text!r} is more than {most:,}, the most a run takes")
        return v
    parse.__name__ = "int"
    return parse


seed_int = bounded_int("seed", words="a non-negative integer")


def check_bounds(values: dict, where: str = "") -> None:
    """Each field of ``values`` named in :data:`BOUNDS` within its range (an integer field; a
    tuple of integers, as a sweep's values, or of ``(name, value)`` pairs, as Xia's per-system
    rounds, value by value); a
    :class:`UsageError` naming the field and its flag otherwise. Types are checked before
    (:meth:`experiments.config.RunConfig.__post_init__`)."""
    for name, (least, most, flag) in BOUNDS.items():
        if name not in values:
            continue
        v = values[name]
        items = [x[1] if isinstance(x, tuple) and len(x) == 2 else x for x in v] if isinstance(v, tuple) else [v]
        for x in items:
            if isinstance(x, bool) or not isinstance(x, int):
                continue
            if not least <= x <= most:
                raise UsageError(f"{where}{name} ({flag}) must be between {least} and {most:,}, got {x!r}")


def trials_arg(text: str):
    """``--trials``: a positive integer, or ``auto`` (a group-sequential run)."""
    if str(text).strip().lower() == "auto":
        return "auto"
    return bounded_int("trials")(text)


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


def check_looks(trials: int, looks: int) -> None:
    """``looks`` equally spaced looks fit in at most ``trials`` trials (each look at least 2
    trials and more than the one before: :func:`ltrrepro.inference.sequential.look_sizes`), else one
    :class:`UsageError` giving the most that fit — a run never takes fewer looks than it says."""
    from ltrrepro.inference.sequential import look_sizes

    if len(look_sizes(trials, looks)) == looks:
        return
    fit = [k for k in range(2, looks) if len(look_sizes(trials, k)) == k]
    if not fit:
        raise UsageError(f"--max-trials {trials} leaves room for one look only (a look needs 2 trials, the next "
                         f"more): a sequential run needs --max-trials 3 or more (or the fixed design, --trials "
                         f"{trials})")
    sizes = ", ".join(map(str, look_sizes(trials, fit[-1])))
    raise UsageError(f"--looks {looks} with --max-trials {trials}: equally spaced looks of at least 2 trials each "
                     f"(each more than the last) fit {fit[-1]} look(s) at most ({sizes} trials); give --looks "
                     f"{fit[-1]} or a larger --max-trials")


@functools.lru_cache(maxsize=None)
def field_hints(cls) -> dict:
    """The declared types of a configuration class's fields (cached)."""
    return typing.get_type_hints(cls)


def typed_value(name: str, value, hint, where: str, convert: bool = True):
    """``value`` if it is of the declared type ``hint`` (``int``, ``float``, ``str``, ``bool``,
    ``tuple``, ``X | None``), else a :class:`UsageError` naming the field (``convert``: an
    integer given for a float field becomes a float)."""
    options = typing.get_args(hint) if typing.get_origin(hint) in (typing.Union, types.UnionType) else (hint,)
    for t in options:
        if t is type(None) and value is None:
            return value
        if t is bool and isinstance(value, bool):
            return value
        if t is int and isinstance(value, int) and not isinstance(value, bool):
            return value
        if t is float and isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value) if convert else value
        if t is str and isinstance(value, str):
            return value
        if t is tuple and isinstance(value, tuple):
            return value
        if t not in (type(None), bool, int, float, str, tuple):
            return value                          # a type this check does not know: __post_init__ decides
    want = " or ".join("null" if t is type(None) else getattr(t, "__name__", str(t)) for t in options)
    raise UsageError(f"{where}: field {name!r} must be {want}, got {value!r}")

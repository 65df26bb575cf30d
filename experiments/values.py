"""Values of the flags and manifests, parsed: integers with a bound, comma-separated names,
levels and models (with plug-in specs). The ground floor: each raises
:class:`~experiments.errors.UsageError` (or argparse's type error) naming the flag."""
from __future__ import annotations

import functools
import types
import typing

from experiments.errors import UsageError

__all__ = ["parse_names", "parse_levels", "parse_models", "models_flag", "Several", "parse_pairs", "positive_int",
           "seed_int", "bounded_int",
           "check_looks", "field_hints", "typed_value", "trials_arg",
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


def bounded_int(least: int, most: int, words: str | None = None):
    """An argparse type: an integer from ``least`` to ``most`` (a field's ``bounds``,
    :func:`experiments.options.option`; ``words`` says the lower bound in the error)."""
    import argparse

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


seed_int = bounded_int(0, 2 ** 63 - 1, words="a non-negative integer")


def trials_arg(text: str):
    """``--trials``: a positive integer, or ``auto`` (a group-sequential run)."""
    if str(text).strip().lower() == "auto":
        return "auto"
    return bounded_int(1, MAX_TRIALS)(text)


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


def parse_models(text: str, known, flag: str = "--models", suffixes=(), what: str = "model") -> tuple[tuple, tuple]:
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
        raise UsageError(f"{flag} is empty ({text!r}): name at least one {what}")
    form = "package.module:Name(k=v)" + (f"-<{'|'.join(suffixes)}>" if suffixes else "")
    models, plugins = [], {}
    for n in names:
        if n in known:
            models.append(n)
            continue
        spec, suffix = (arm_of(n, suffixes) or (n, "")) if suffixes else (n, None)
        if not is_plugin_spec(spec) or (suffixes and suffix not in suffixes):
            raise UsageError(f"{flag}: unknown {what} {n!r}; known: {', '.join(known)}, and plug-in objectives {form}")
        key = plugin_key(spec)
        if plugins.get(key, spec) != spec:
            raise UsageError(f"{flag}: {plugins[key]!r} and {spec!r} are one plug-in ({key}); write it one way")
        plugins[key] = spec
        models.append(key if suffix is None else arm(key, suffix))
    if len(set(models)) != len(models):
        raise UsageError(f"{flag} repeats a{'n' if what[0] in 'aeiou' else ''} {what}: {text!r}")
    return tuple(models), tuple(plugins.items())


class Several(dict):
    """A flag's parsed value that sets several fields (``--models``: the models and the
    plug-ins they use), by field name (:func:`experiments.options.from_args`)."""


def models_flag(known, suffixes=(), what: str = "model"):
    """The ``parse`` of a ``--models`` field (:func:`experiments.options.option`): the one
    reading of the flag, :func:`parse_models`, setting ``models`` and ``plugins``. ``known``: the
    built-in names (or a function giving them, read when the flag is parsed)."""
    def parse(text: str):
        names = known() if callable(known) else known
        models, plugins = parse_models(text, tuple(names), suffixes=suffixes, what=what)
        return Several(models=models, plugins=plugins)
    parse.__name__ = "models"
    return parse


def parse_pairs(text: str, flag: str = "--gbt-grid") -> tuple:
    """``"0.05:10,0.1:20"`` -> ``((0.05, 10), (0.1, 20))``: comma-separated ``eta:leaves`` pairs."""
    try:
        return tuple((float(a), int(b)) for a, b in (x.split(":") for x in text.split(",") if x.strip()))
    except ValueError:
        raise UsageError(f"{flag} takes eta:leaves pairs, e.g. 0.05:10,0.1:20; got {text!r}") from None


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

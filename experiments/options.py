"""A configuration field declared once: :func:`option`, the field's default and everything the
harness derives from it — its flag (help with the default shown, choices, the parsing of its
value), its range, whether it was added after runs were stored — and what is derived:
:func:`add_options` (a study's flags), :func:`from_args` (its configuration from a parsed
command line), :func:`check_bounds` (the ranges, however a configuration is built) and
:func:`added_fields` (the fields left out of the stored hash at their default).

A new field with a flag is one line in the configuration class::

    depth: int = option(3, flag="--depth", bounds=(1, 64), help="tree depth", added=True)
"""
from __future__ import annotations

import argparse
import dataclasses
import functools
import typing
from dataclasses import dataclass
from typing import Any, Callable

from experiments.errors import UsageError
from experiments.values import Several, bounded_int

__all__ = ["option", "Option", "Several", "options", "added_fields", "check_bounds", "add_options", "from_args",
           "flag_names", "dest_of", "shown", "TrialsAction"]


@dataclass(frozen=True)
class Option:
    """What a field declares beside its default (:func:`option`)."""

    help: str = ""
    flag: str | None = None
    parse: Callable | None = None
    bounds: tuple | None = None
    choices: tuple | None = None
    added: bool = False
    metavar: str | None = None
    old: tuple | None = None
    default_of: Callable | None = None
    action: Any = None


class TrialsAction(argparse.Action):
    """``--trials N`` stores N; ``--trials auto`` stores None (the trials are then the design's,
    :func:`experiments.cli.apply_design`) and sets ``auto_trials``."""

    def __call__(self, parser, namespace, values, option_string=None):
        namespace.auto_trials = values == "auto"
        setattr(namespace, self.dest, None if values == "auto" else values)


def option(default=dataclasses.MISSING, *, help: str = "", flag: str | None = None, parse: Callable | None = None,
           bounds: tuple | None = None, choices=None, added: bool = False, metavar: str | None = None,
           old: tuple | None = None, default_of: Callable | None = None, action=None):
    """A configuration field with its default and its one declaration: ``flag`` its command-line
    flag (None: none), ``help`` the flag's help (the default is shown after it), ``parse(text)``
    the field's value of the flag's text (a :class:`UsageError` or argparse's type error naming
    the flag; a :class:`Several` sets several fields; default: the field's type, an integer
    within ``bounds``), ``choices`` the values the flag takes, ``bounds`` ``(least, largest)``
    of a numeric field (or of each value of a tuple of them), checked however the
    configuration is built; ``added`` a field added after runs were stored (left out of the
    manifest and hash at its default, so those runs resume); ``old`` ``(flag, {old value: value})``
    a renamed flag still read; ``default_of(values)`` the value when the flag is not given,
    computed from the other fields; ``action`` an argparse action (e.g. ``--trials auto``'s)."""
    opt = Option(help, flag, parse, None if bounds is None else tuple(bounds),
                 None if choices is None else tuple(choices), added, metavar, old, default_of, action)
    return dataclasses.field(default=default, metadata={"option": opt})


@functools.lru_cache(maxsize=None)
def options(cls) -> dict:
    """The :class:`Option` of each field of ``cls`` that declares one, by field name. A field
    redeclared with a plain default (``trials: int = 6``) keeps the option of the class it
    overrides: only its default changes; ``option(default)`` with no flag takes the flag away."""
    out = {}
    for f in dataclasses.fields(cls):
        opt = f.metadata.get("option")
        for base in cls.__mro__[1:] if opt is None else ():
            inherited = getattr(base, "__dataclass_fields__", {}).get(f.name)
            if inherited is not None and "option" in inherited.metadata:
                opt = inherited.metadata["option"]
                break
        if opt is not None:
            out[f.name] = opt
    return out


def added_fields(cls) -> tuple:
    """The fields of ``cls`` declared ``added``: left out of the stored configuration at their default."""
    return tuple(name for name, opt in options(cls).items() if opt.added)


def dest_of(flag: str) -> str:
    """The namespace attribute of ``flag`` (``--tune-on`` -> ``tune_on``)."""
    return flag.lstrip("-").replace("-", "_")


def flag_names(cls, skip=()) -> tuple:
    """The flags a configuration class declares, without dashes (``data-dir``), ``skip``'s fields left out."""
    return tuple(opt.flag[2:] for name, opt in options(cls).items() if opt.flag and name not in skip)


def check_bounds(cfg, where: str = "") -> None:
    """Each field of ``cfg`` that declares ``bounds`` within them (an integer; a tuple of
    integers, as a sweep's values, or of ``(name, value)`` pairs, as Xia's per-system rounds,
    value by value); a :class:`UsageError` naming the field and its flag otherwise."""
    for name, opt in options(type(cfg)).items():
        if opt.bounds is None:
            continue
        least, most = opt.bounds
        v = getattr(cfg, name)
        items = [x[1] if isinstance(x, tuple) and len(x) == 2 else x for x in v] if isinstance(v, tuple) else [v]
        for x in items:
            if isinstance(x, bool) or not isinstance(x, int):
                continue
            if not least <= x <= most:
                flag = opt.flag or "--" + name.replace("_", "-")
                raise UsageError(f"{where}{name} ({flag}) must be between {least} and {most:,}, got {x!r}")


def shown(value) -> str | None:
    """A default as ``--help`` shows it (None: not shown): a tuple comma-separated, pairs ``a:b``."""
    if value is None or isinstance(value, bool) or value == "":
        return None
    if isinstance(value, tuple):
        return ",".join(f"{x[0]}:{x[1]}" if isinstance(x, tuple) else f"{x:g}" if isinstance(x, float) else str(x)
                        for x in value)
    return f"{value:g}" if isinstance(value, float) else str(value)


def _type(name: str, opt: Option, hint):
    """The argparse type of a field's flag: its ``parse``, else an integer within its bounds, a float, text."""
    if opt.parse is not None:
        return opt.parse
    base = [t for t in typing.get_args(hint) if t is not type(None)] or [hint]
    if base[0] is int:
        least, most = opt.bounds or (-2 ** 63, 2 ** 63 - 1)
        return bounded_int(least, most)
    return float if base[0] is float else None


def add_options(ap: argparse.ArgumentParser, cls, defaults: dict | None = None, skip=(), given_only: bool = True,
                only=None) -> None:
    """Register the flag of each field of ``cls`` that declares one (``skip``'s left out; with
    ``only``, those flags only, by name without dashes). ``given_only``: every flag's default is
    None (a flag left out takes the study's default in :func:`from_args`), else the field's value
    in ``defaults``; the help shows the default of ``defaults`` (the study's default configuration)."""
    hints = typing.get_type_hints(cls)
    defaults = defaults or {}
    for name, opt in options(cls).items():
        if not opt.flag or name in skip or (only is not None and opt.flag[2:] not in only):
            continue
        default = defaults.get(name, getattr(cls, name, None))
        kw: dict = {"dest": dest_of(opt.flag), "default": None if given_only else default}
        text = opt.help
        if hints.get(name) is bool:
            kw.update(action="store_const", const=not getattr(cls, name))
        else:
            kw.update(type=_type(name, opt, hints.get(name)))
            if opt.action is not None:
                kw["action"] = opt.action
            if opt.choices is not None:
                kw["choices"] = opt.choices
            if opt.metavar is not None:
                kw["metavar"] = opt.metavar
            if "default" not in text and shown(default) is not None:
                text = f"{text} (default {shown(default)})".lstrip()
        ap.add_argument(opt.flag, help=text.replace("%", "%%"), **kw)
        if opt.old is not None:
            flag, values = opt.old
            reads = ", ".join(f"{k} reads as {v}" for k, v in values.items())
            ap.add_argument(flag, dest=dest_of(flag), choices=tuple(values), default=None,
                            help=f"old name of {opt.flag}: {reads}")


def from_args(cls, args, defaults: dict, **fixed):
    """The configuration ``cls`` of a parsed command line: each field's flag as given (parsed by
    its :class:`Option`), a flag left out (None) the value of ``defaults`` (the study's default
    on the dataset), else the field's default; ``fixed`` last. Checked by the configuration."""
    names = {f.name for f in dataclasses.fields(cls)}
    values = {k: v for k, v in defaults.items() if k in names}
    given = set()
    for name, opt in options(cls).items():
        if not opt.flag:
            continue
        v = getattr(args, dest_of(opt.flag), None)
        if opt.old is not None and getattr(args, dest_of(opt.old[0]), None) is not None:
            v = opt.old[1][getattr(args, dest_of(opt.old[0]))]
        if v is None:
            continue
        given.add(name)
        values.update(v) if isinstance(v, Several) else values.__setitem__(name, v)
    for name, opt in options(cls).items():
        if opt.default_of is not None and name not in given:
            values[name] = opt.default_of(values)
    return cls(**{**values, **fixed})

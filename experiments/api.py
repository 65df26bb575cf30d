"""The Python API's keyword convenience: a study's command-line flags given as keywords.

``experiments.run("robustness", out="runs/x", queries=200, levels=[0, 50])`` and
``experiments.configure("robustness", queries=200)`` go through the very parser, defaults
and checks of ``python -m experiments.robustness``, so a call and a command with the same
arguments build the same configuration and write the same results; the parser's errors
raise :class:`~experiments.errors.UsageError` naming the keyword (``trials (--trials)``)
instead of exiting. The API proper takes a configuration object and an
:class:`~experiments.execution.Execution` (:func:`experiments.run`).
"""
from __future__ import annotations

import re
from contextlib import contextmanager
from dataclasses import fields

from experiments.cli import PARSER_ERRORS_RAISE, parse_command
from experiments.errors import UsageError
from experiments.execution import Execution

__all__ = ["run_keywords", "configure"]


def _argv(params: dict) -> list[str]:
    argv = []
    for key, value in params.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            argv.append(flag)
        elif isinstance(value, (list, tuple)):
            argv += [flag, ",".join(str(v) for v in value)]
        else:
            argv += [flag, str(value)]
    return argv


def run_keywords(name: str, keywords: dict):
    """``(config, execution)`` of study ``name`` from the command's flags as keywords (quiet
    unless ``quiet=False``)."""
    keywords = {"quiet": True, **keywords}
    with _parser_errors_raise(f"experiments.run({name!r})"):
        return parse_command(name, _argv(keywords))


def configure(name: str, flags: dict):
    """The configuration of study ``name`` from its flags as keywords (no execution flag)."""
    if "config" in flags:
        raise UsageError(f"experiments.configure({name!r}): to re-run a stored configuration, read it with "
                         f"experiments.registry.get({name!r}).config_cls.from_manifest(PATH, {name!r})")
    execution = {f.name for f in fields(Execution)} | {"debug"}
    given = sorted(set(flags) & execution)
    if given:
        raise UsageError(f"experiments.configure({name!r}): {', '.join(given)} belong(s) to the execution "
                         f"(Execution(...) or experiments.run(name, ...)), not the configuration")
    with _parser_errors_raise(f"experiments.configure({name!r})"):
        return parse_command(name, _argv(flags))[0]


@contextmanager
def _parser_errors_raise(caller: str):
    """The command's parser reports a bad flag by exiting (``SystemExit(2)``, after printing
    ``error: …``); inside the Python API it raises :class:`~experiments.errors.UsageError` instead,
    naming the keyword as the caller wrote it."""
    def rename(message):
        message = re.sub(r"--([\w-]+)", lambda m: f"{m.group(1).replace('-', '_')} ({m.group(0)})", message)
        return f"{caller}: {message}"

    token = PARSER_ERRORS_RAISE.set(rename)
    try:
        yield
    finally:
        PARSER_ERRORS_RAISE.reset(token)

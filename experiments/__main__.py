"""``python -m experiments``: the studies, one line each, read from :mod:`experiments.registry`;
``python -m experiments NAME [flags]`` runs one.

    python -m experiments                  # or --help: the list
    python -m experiments NAME --help      # a study's flags (also python -m experiments.NAME)
    python -m experiments NAME [flags]     # run it: the command line of every study

The list is the registry's, so a study registered in a paper package's ``studies.py``, or
declared by an installed distribution (the entry-point group ``ltrrepro.studies``), is listed
and run with no change here; the tools beside the studies (``report``, ``notebook``,
``export``) are listed where their module exists and run as ``python -m experiments.<tool>``.
An installed study that does not load is listed in one line saying why, under ``not loaded:``;
the rest are listed and run. An unknown name, or a broken one, is refused with one ``error:``
line (exit 2).
"""
from __future__ import annotations

import importlib.util
import sys

from experiments import registry

#: modules beside the studies, each with what it does (listed when importable)
TOOLS = (
    ("report", "rebuild the tables, figures and claims check of a results directory, without training"),
    ("notebook", "re-execute the notebooks under notebooks/ on results/"),
    ("export", "write a finished run's stored test rankings as TREC run files and qrels"),
)


def listing() -> str:
    """The text ``python -m experiments`` prints: every registered study, then the tools."""
    studies = registry.experiments()
    width = max(len(n) for n in [*studies, *(t for t, _ in TOOLS)])
    lines = ["usage: python -m experiments NAME [flags]   (python -m experiments NAME --help: its flags)",
             "studies:"]
    lines += [f"  {name:<{width}}  {exp.title}" for name, exp in studies.items()]
    broken = registry.broken()
    if broken:
        lines.append("not loaded (installed studies whose entry point fails; fix or uninstall them):")
        lines += [f"  {name:<{width}}  {why}" for name, why in broken.items()]
    tools = [(t, what) for t, what in TOOLS if importlib.util.find_spec(f"experiments.{t}") is not None]
    if tools:
        lines.append("tools:")
        lines += [f"  {t:<{width}}  {what}" for t, what in tools]
    return "\n".join(lines)


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(listing())
        return 0
    known = registry.experiments()
    if argv[0] not in known and argv[0] in registry.broken():       # an installed study that does not load
        print(f"error: {registry.broken()[argv[0]]}", file=sys.stderr)
        return 2
    if argv[0] not in known:
        tools = [t for t, _ in TOOLS]
        hint = (f"; {argv[0]} is a tool: python -m experiments.{argv[0]}" if argv[0] in tools else
                " (the list: python -m experiments)")
        print(f"error: unknown study {argv[0]!r}{hint}", file=sys.stderr)
        return 2
    from experiments.cli import main_of

    return main_of(argv[0], ("python", "-m", "experiments", argv[0]))(argv[1:])


if __name__ == "__main__":
    sys.exit(main())

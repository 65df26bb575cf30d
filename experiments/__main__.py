"""``python -m experiments``: the studies, one line each, read from :mod:`experiments.registry`.

    python -m experiments            # or --help: the list
    python -m experiments.<name> --help

The list is the registry's, so a study registered in a paper package's ``studies.py`` is
listed with no change here; the tools beside the studies (``report``, ``notebook``,
``export``) are listed where their module exists. Any other argument is refused with one
``error:`` line (exit 2): a study runs as its own module, ``python -m experiments.<name>``.
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
    lines = ["usage: python -m experiments.NAME [flags]   (python -m experiments.NAME --help: its flags)",
             "studies:"]
    lines += [f"  {name:<{width}}  {exp.title}" for name, exp in studies.items()]
    tools = [(t, what) for t, what in TOOLS if importlib.util.find_spec(f"experiments.{t}") is not None]
    if tools:
        lines.append("tools:")
        lines += [f"  {t:<{width}}  {what}" for t, what in tools]
    return "\n".join(lines)


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv not in (["-h"], ["--help"]):
        print(f"error: python -m experiments takes no argument (got {argv[0]!r}); "
              "run a study as python -m experiments.NAME (the list: python -m experiments)", file=sys.stderr)
        return 2
    print(listing())
    return 0


if __name__ == "__main__":
    sys.exit(main())

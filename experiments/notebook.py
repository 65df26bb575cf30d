"""Helpers of the companion notebooks (``notebooks/*.ipynb``), and the command that executes them.

    python -m experiments.notebook                 # execute every notebook, save it with its outputs
    python -m experiments.notebook xia.ipynb       # one of them

A notebook shows a stored results directory as a paper's companion: the paper's table beside
the run's, the figures, the claims with their verdicts. It writes nothing under ``results/``:
:func:`show_run` rebuilds the reports in a temporary copy of the run and shows them from
there, so the tables and figures are those the current code makes from the stored units.
The executed notebooks are committed with their outputs; executing them again (this command
or Jupyter) leaves ``results/`` untouched.
"""
from __future__ import annotations

import argparse
import base64
import shutil
import sys
import tempfile
from pathlib import Path

from experiments.errors import ArgumentParser, UsageError, cli

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"


def runs_under(results) -> list[Path]:
    """``results`` itself when it is a run (holds ``manifest.json``), else its runs one level down."""
    results = Path(results)
    if (results / "manifest.json").exists():
        return [results]
    return sorted(p.parent for p in results.glob("*/manifest.json"))


def show_run(run_dir, title: str | None = None, tables: bool = True, figures: bool = True):
    """Rebuild the reports of ``run_dir`` in a temporary copy and display its tables (Markdown)
    and figures (PNG, embedded); returns the experiment's :class:`ltrrepro.report.Report`
    (``.claims``, ``.table(name).frame``, ``.text``; its ``files`` were written in the copy, now
    gone). Nothing is written under ``run_dir``."""
    from IPython.display import Image, Markdown, display

    from experiments.report import rebuild

    run_dir = Path(run_dir)
    with tempfile.TemporaryDirectory(prefix="ltrrepro-nb-") as tmp:
        copy = Path(tmp) / run_dir.name
        shutil.copytree(run_dir, copy)
        info = rebuild(copy, quiet=True)
        if title:
            display(Markdown(f"### {title}"))
        if tables:
            for table in sorted((copy / "tables").glob("*.md")):
                display(Markdown(table.read_text(encoding="utf-8")))
        if figures:
            for fig in sorted((copy / "figures").glob("*.png")):
                display(Image(data=fig.read_bytes(), format="png"))
    return info


def claims_frame(infos: dict):
    """One row per claim of every run (``infos``: name -> :class:`~ltrrepro.report.Report`):
    experiment, claim, verdict, p, trials, detail."""
    import pandas as pd

    rows = [{"experiment": name, "claim": c.text, "verdict": c.verdict, "p": c.p, "trials": c.trials,
             "detail": c.detail} for name, info in infos.items() for c in info.claims]
    return pd.DataFrame(rows)


def execute(names=None, timeout: int = 600) -> list[Path]:
    """Execute the notebooks in place (kernel started in ``notebooks/``) and save them with
    their outputs. Returns the paths written."""
    import nbclient
    import nbformat

    paths = [NOTEBOOKS / n for n in names] if names else sorted(NOTEBOOKS.glob("*.ipynb"))
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        nbclient.NotebookClient(nb, timeout=timeout, kernel_name="python3",
                                resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
        for cell in nb.cells:                     # no run-specific metadata in the committed file
            cell.get("metadata", {}).pop("execution", None)
        nbformat.write(nb, path)
        print(f"executed {path.relative_to(ROOT)}", file=sys.stderr)
    return paths


def png_count(path) -> int:
    """How many PNG images the saved outputs of notebook ``path`` hold."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    return sum(1 for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
               if "image/png" in o.get("data", {}) and base64.b64decode(o["data"]["image/png"])[:4] == b"\x89PNG")


@cli
def main(argv=None) -> int:
    ap = ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help="notebook file names under notebooks/ (default: all)")
    ap.add_argument("--debug", action="store_true", help="show tracebacks of user errors")
    args = ap.parse_args(argv)
    missing = [n for n in args.names if not (NOTEBOOKS / n).is_file()]
    if missing:
        raise UsageError(f"no such notebook under {NOTEBOOKS}: {', '.join(missing)}")
    execute(args.names or None)
    return 0


if __name__ == "__main__":
    sys.exit(main())

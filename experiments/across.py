"""Reports across runs: the claims a single run cannot check because the paper compares its
datasets (Bruch's "more pronounced on Yahoo / on Web30K"), and the paper's tables and figures
with the datasets side by side. ``python -m experiments.report A B`` writes one when its
directories are one run per dataset of a study that has such a report (:data:`ACROSS`);
:func:`write` does the work."""
from __future__ import annotations

from pathlib import Path

from experiments import analysis as an
from experiments import registry
from experiments.errors import UsageError
from ltrrepro.store import ResultStore

__all__ = ["ACROSS", "applies", "write"]


def _bruch(runs, inference):
    from experiments.bruch2021 import crossdata
    return crossdata.build(runs, inference)


#: study -> the builder of its cross-dataset report ``([(directory, config, frame, notes)], inference) -> Report``
#: (``notes``: the run's protocol notes as its manifest stored them)
ACROSS = {"quality": _bruch, "robustness": _bruch}


def _runs(dirs):
    """``[(directory, config, manifest)]`` of the stored runs in ``dirs``."""
    out = []
    for d in dirs:
        man = ResultStore.open(d).read_manifest()
        exp = registry.experiments().get(man.get("experiment"))
        if exp is None:
            raise UsageError(f"{ResultStore(d).manifest_path}: names experiment {man.get('experiment')!r}, which has no "
                             "report")
        out.append((Path(d), exp.config_cls.from_stored(man.get("config") or {}), man))
    return out


#: study -> the dataset profiles one run each of which its cross-dataset report compares
PROFILES = {"quality": {"web30k", "yahoo"}, "robustness": {"web30k", "yahoo"}}


def applies(dirs) -> bool:
    """``dirs`` are one run per dataset profile of one study with a cross-dataset report (Bruch:
    one Web30K and one Yahoo run, synthetic profiles included); anything else is a plain rebuild."""
    from experiments.bruch2021.paper import paper_reference

    if len(dirs) < 2:
        return False
    runs = _runs(dirs)
    studies = {cfg.experiment for _, cfg, _ in runs}
    if len(studies) != 1 or next(iter(studies)) not in ACROSS:
        return False
    refs = [paper_reference(cfg.dataset) for _, cfg, _ in runs]
    return len(set(refs)) == len(refs) and set(refs) == PROFILES[next(iter(studies))]


def default_out(dirs) -> Path:
    """Beside the first run: ``<its parent>/<study>-across-datasets``."""
    first = _runs(dirs[:1])[0]
    return first[0].parent / f"{first[1].experiment}-across-datasets"


def write(dirs, out=None, quiet: bool = False, *, inference):
    """Write the cross-dataset report of the runs in ``dirs`` under ``out`` (default
    :func:`default_out`): its tables, figures, claims, and ``sources.json`` naming each run
    (directory, dataset, trials, configuration hash) it was built from, under the report's
    statistics ``inference`` (:class:`ltrrepro.inference.Inference`). Returns the report."""
    runs = _runs(dirs)
    study = runs[0][1].experiment
    if study not in ACROSS or len({cfg.experiment for _, cfg, _ in runs}) != 1:
        raise UsageError(f"a cross-dataset report takes runs of one study among {', '.join(ACROSS)}; got "
                         f"{', '.join(sorted({cfg.experiment for _, cfg, _ in runs}))}")
    out = Path(out) if out else default_out(dirs)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file: give a directory for the cross-dataset report")
    if (out / "manifest.json").exists():
        raise UsageError(f"{out} holds a run (manifest.json): write the cross-dataset report elsewhere (--out)")
    if out.is_dir() and any(out.iterdir()) and not (out / "sources.json").exists():
        raise UsageError(f"{out} exists and holds no cross-dataset report (no sources.json): give an empty or new "
                         "directory (--out), so that nothing of yours is overwritten")
    rep = ACROSS[study]([(d, cfg, an.frame(ResultStore.open(d)),
                          {k: list(man["config"].get(k, [])) for k in ("as_paper", "choices", "deviations")})
                         for d, cfg, man in runs], inference)
    rep.json_files = {"sources.json": {"runs": [{"dir": str(d), "dataset": cfg.dataset, "trials": cfg.trials,
                                                 "config_hash": man.get("config_hash")} for d, cfg, man in runs]}}
    rep.write(out)
    if not quiet:
        print(rep.text)
        print(f"cross-dataset report written to {out}")
    return rep

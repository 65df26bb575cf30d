"""Reports across runs: the claims a single run cannot check because the paper compares its
datasets (Bruch's "more pronounced on Yahoo / on Web30K"), and the paper's tables and figures
with the datasets side by side. ``python -m experiments.report A B`` writes one when its
directories are one run per dataset profile of a study that has such a report (its
:class:`~experiments.registry.Experiment`'s ``across``: the builder, the profiles, and how a
run's dataset maps to one); :func:`write` does the work."""
from __future__ import annotations

from pathlib import Path

from experiments import analysis as an
from experiments import registry
from experiments.errors import UsageError
from ltrrepro.store import ResultStore

__all__ = ["studies", "applies", "write"]


def studies() -> list[str]:
    """The studies with a cross-dataset report."""
    return [name for name, exp in registry.experiments().items() if exp.across is not None]


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


def applies(dirs) -> bool:
    """``dirs`` are one run per dataset profile of one study with a cross-dataset report (Bruch:
    one Web30K and one Yahoo run, synthetic profiles included); anything else is a plain rebuild."""
    if len(dirs) < 2:
        return False
    runs = _runs(dirs)
    names = {cfg.experiment for _, cfg, _ in runs}
    across = registry.get(next(iter(names))).across if len(names) == 1 else None
    if across is None:
        return False
    refs = [across.profile_of(cfg.dataset) for _, cfg, _ in runs]
    return len(set(refs)) == len(refs) and set(refs) == set(across.profiles)


def default_out(dirs) -> Path:
    """Beside the first run: ``<its parent>/<study>-across-datasets``."""
    first = _runs(dirs[:1])[0]
    return first[0].parent / f"{first[1].experiment}-across-datasets"


def _stored_frame(d, cfg):
    """The frame of the run in ``d`` read under its lock (a run still going is refused), with
    the units of its configuration that are not stored in ``attrs["absent"]``."""
    store = ResultStore.open(d)
    with store.lock(create=False):
        store.expect(u.key for u in registry.get(cfg.experiment).units(cfg))
        return an.frame(store)


def write(dirs, out=None, quiet: bool = False, *, inference):
    """Write the cross-dataset report of the runs in ``dirs`` under ``out`` (default
    :func:`default_out`): its tables, figures, claims, and ``sources.json`` naming each run
    (directory, dataset, the trials stored and configured, the units not stored, configuration
    hash) it was built from, under the report's statistics ``inference``
    (:class:`ltrrepro.inference.Inference`). Each run is read under its lock. Returns the report."""
    runs = _runs(dirs)
    across = registry.get(runs[0][1].experiment).across
    if across is None or len({cfg.experiment for _, cfg, _ in runs}) != 1:
        raise UsageError(f"a cross-dataset report takes runs of one study among {', '.join(studies())}; got "
                         f"{', '.join(sorted({cfg.experiment for _, cfg, _ in runs}))}")
    out = Path(out) if out else default_out(dirs)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file: give a directory for the cross-dataset report")
    if (out / "manifest.json").exists():
        raise UsageError(f"{out} holds a run (manifest.json): write the cross-dataset report elsewhere (--out)")
    if out.is_dir() and any(out.iterdir()) and not (out / "sources.json").exists():
        raise UsageError(f"{out} exists and holds no cross-dataset report (no sources.json): give an empty or new "
                         "directory (--out), so that nothing of yours is overwritten")
    frames = [_stored_frame(d, cfg) for d, cfg, _ in runs]
    sources = {"runs": [{"dir": str(d), "dataset": cfg.dataset,
                         "trials": int(df["trial"].nunique()) if "trial" in df else 0, "configured_trials": cfg.trials,
                         "absent_units": list(df.attrs.get("absent") or []), "config_hash": man.get("config_hash")}
                        for (d, cfg, man), df in zip(runs, frames)]}
    rep = across.build([(d, cfg, df, {k: list(man["config"].get(k, [])) for k in ("as_paper", "choices", "deviations")})
                        for (d, cfg, man), df in zip(runs, frames)], inference, sources).write(out)
    if not quiet:
        print(rep.text)
        print(f"cross-dataset report written to {out}")
    return rep

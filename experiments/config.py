"""Typed, frozen run configurations: a common :class:`RunConfig` and one subclass per paper.

A configuration holds everything that decides a run's numbers (dataset, trials, seed,
models, hyperparameters, levels); execution (jobs, threads, backend, output directory) is not
part of it. Fields are checked in ``__post_init__`` (a bad value raises
:class:`~experiments.errors.UsageError`), the deviations from the paper are computed from the
fields, and the manifest stores :meth:`RunConfig.to_dict`, from which
:meth:`RunConfig.from_manifest` rebuilds the same configuration (``--config OUT/manifest.json``).
"""
from __future__ import annotations

import dataclasses
import json
import os
import typing
from dataclasses import dataclass, fields
from pathlib import Path

from experiments.errors import UsageError
from experiments.options import TrialsAction, added_fields, check_bounds, option
from experiments.values import MAX_LOOKS, MAX_TRIALS, check_looks, seed_int, trials_arg
from experiments.values import field_hints as _hints
from experiments.values import typed_value as _typed
from ltrrepro import migrations
from ltrrepro.datasets import REGISTRY, SYNTHETIC, is_synthetic
from ltrrepro.fit.plugins import PluginError
from ltrrepro.fit.xia import arm_of

__all__ = ["RunConfig", "DATASETS", "is_synthetic", "load_manifest_config"]

#: the datasets known by name: the registered real ones and the synthetic profiles
DATASETS = (*REGISTRY, *SYNTHETIC)


def _tuple(v):
    return tuple(_tuple(x) for x in v) if isinstance(v, (list, tuple)) else v


@dataclass(frozen=True)
class RunConfig:
    """What every experiment's numbers depend on. ``queries``: the synthetic dataset's size
    (None on real data). The study's facts (the paper's trials and datasets, for the
    deviations) are its :class:`~experiments.registry.Experiment`'s (:attr:`study`)."""

    experiment: str = ""
    dataset: str = option("synthetic-web30k", flag="--dataset", metavar="NAME|PATH",
                          help=", ".join(DATASETS) + "; svmlight (your files, with --data-dir); or the path of your "
                                                     "SVMlight/LETOR file or directory")
    data_dir: str | None = option(None, flag="--data-dir", help="folder with the dataset (or $LTRREPRO_DATA_DIR)")
    queries: int | None = option(None, flag="--queries", bounds=(1, 1_000_000), help="synthetic data: number of queries")
    trials: int = option(1, flag="--trials", parse=trials_arg, action=TrialsAction, metavar="N|auto",
                         bounds=(1, MAX_TRIALS),
                         help="randomized splits (default: the paper's on real data, fewer on synthetic data); auto: a "
                              "group-sequential run that stops when every claim crossed a bound (--max-trials, "
                              "--looks; docs/sequential.md)")
    seed: int = option(0, flag="--seed", parse=seed_int, bounds=(0, 2 ** 63 - 1), help="root seed of every random stream")
    #: ``--trials auto``: equally spaced looks of a group-sequential run of at most ``trials``
    #: (:mod:`experiments.design`); None: the fixed design (left out of the hash then)
    looks: int | None = option(None, bounds=(2, MAX_LOOKS), added=True)

    #: a field declared ``added=True`` (:func:`~experiments.options.option`) was added after runs
    #: of this configuration were stored: left out of :meth:`to_dict` (the manifest and the stored
    #: hash) while at its default, so that those runs keep their hash and resume instead of
    #: recomputing every unit; a study from outside may still name such fields here
    added_fields = ()

    def __post_init__(self):
        self._check_types()
        if self.dataset not in (*DATASETS, "svmlight", "simulated"):
            if not Path(self.dataset).exists() and os.path.lexists(self.dataset):
                raise UsageError(f"--dataset {self.dataset!r}: a symbolic link that leads nowhere (a loop or a missing "
                                 f"target); point it at your data file or directory")
            if not Path(self.dataset).exists():
                raise UsageError(f"--dataset {self.dataset!r}: neither a known dataset ({', '.join(DATASETS)}, "
                                 f"svmlight) nor an existing file or directory")
            object.__setattr__(self, "dataset", str(Path(self.dataset).resolve()))
        if self.data_dir and (self.synthetic or self.dataset == "simulated"):
            raise UsageError(f"--data-dir {self.data_dir}: {self.dataset} is generated, not read; drop --data-dir (or "
                             f"name the real dataset: --dataset web30k --data-dir DIR)")
        if self.dataset == "simulated" and self.queries is not None:
            raise UsageError("--queries sizes a synthetic dataset; this study simulates its own lists")
        if self.dataset == "svmlight" and not self.data_dir:
            raise UsageError("--dataset svmlight reads your files: give --data-dir DIR (train/vali/test files, or "
                             "one file) or pass the file as --dataset PATH")
        if self.trials < 1:
            raise UsageError(f"trials must be >= 1, got {self.trials}")
        if self.seed < 0:
            raise UsageError(f"--seed must be a non-negative integer (numpy's SeedSequence), got {self.seed}")
        if self.looks is not None and not (2 <= self.looks and self.trials >= 2):
            raise UsageError(f"looks {self.looks} of at most {self.trials} trials: a sequential run needs at least 2 "
                             f"looks and 2 trials")
        if self.synthetic and (self.queries is None or self.queries < 10):
            raise UsageError(f"--queries {self.queries}: a 60/20/20 split needs at least 10 queries")
        if not self.synthetic and self.queries is not None:
            raise UsageError("--queries sizes a synthetic dataset; a real one has its own queries")
        check_bounds(self)
        if self.looks is not None:
            check_looks(self.trials, self.looks)

    def _check_types(self) -> None:
        """Every field of its declared type (:func:`_typed`), however built; lists become tuples."""
        hints = _hints(type(self))
        for f in fields(self):
            if isinstance(getattr(self, f.name), list):
                object.__setattr__(self, f.name, _tuple(getattr(self, f.name)))
            _typed(f.name, getattr(self, f.name), hints.get(f.name), "configuration", convert=False)

    @property
    def study(self):
        """The registered study of :attr:`experiment` (:class:`~experiments.registry.Experiment`),
        None for a name no study has (a configuration built by hand, e.g. a benchmark's)."""
        from experiments import registry

        return registry.experiments().get(self.experiment)

    @property
    def paper_trials(self) -> int:
        """The paper's number of trials for this study (:attr:`Experiment.paper_trials`)."""
        return self.study.paper_trials if self.study is not None else 100

    @property
    def paper_datasets(self) -> tuple:
        """The datasets the paper reports for this study (:attr:`Experiment.paper_datasets`)."""
        return self.study.paper_datasets if self.study is not None else ()

    @property
    def synthetic(self) -> bool:
        return is_synthetic(self.dataset)

    @property
    def user_data(self) -> bool:
        """The user's own files (``svmlight`` or a path), not a registered dataset."""
        return self.dataset == "svmlight" or "/" in self.dataset

    @property
    def unit_dataset(self) -> str:
        """The dataset's name in unit keys (file names): a path becomes ``user-<file stem>``."""
        if "/" not in self.dataset:
            return self.dataset
        stem = Path(self.dataset).name.split(".")[0] or "data"
        return "user-" + "".join(c if c.isalnum() or c in "-_" else "_" for c in stem)

    @property
    def default_out(self) -> str:
        """The results directory when none is given: ``runs/<experiment>-<dataset>``
        (``runs/<experiment>`` for a simulation that reads no dataset)."""
        if self.dataset == "simulated":
            return f"runs/{self.experiment}"
        return f"runs/{self.experiment}-{self.unit_dataset}"

    def deviations(self) -> list[str]:
        """What differs from the paper's protocol, from the fields (all of a run's: :meth:`protocol_notes`)."""
        out = []
        if self.synthetic:
            out.append(f"synthetic data ({self.dataset}, {self.queries} queries), not the real dataset")
        elif self.user_data or self.dataset not in self.paper_datasets:
            where = self.data_dir if self.dataset == "svmlight" else self.dataset
            out.append(f"dataset {where}, not the paper's ({', '.join(self.paper_datasets)})")
        if self.looks is not None:
            out.append(f"group-sequential (--trials auto): up to {self.trials} trials in {self.looks} looks, not the "
                       f"paper's fixed {self.paper_trials}")
        elif self.trials < self.paper_trials:
            out.append(f"{self.trials} trial(s), not the paper's {self.paper_trials}")
        return out

    def choices(self) -> list[str]:
        """The modelling choices the harness makes where the paper is silent (recorded in
        the manifest and listed by every report beside the deviations): each says what the
        paper leaves open and what this run does."""
        return []

    def as_paper(self) -> list[str]:
        """The settings this run takes from the paper where a reader could doubt it (a
        library default that differs, a setting easy to get wrong): the third column of the
        protocol notes, beside :meth:`choices` and :meth:`deviations`."""
        return []

    def protocol_notes(self) -> dict[str, list[str]]:
        """The three columns of the run's protocol notes, as its manifest stores them: the
        study's (:meth:`as_paper`, :meth:`choices`, :meth:`deviations`), then what a tuned run
        adds (:func:`experiments.tuning_report.tuning_notes`, the study's declared words)."""
        from experiments.tuning_report import tuning_notes

        search = getattr(self.study, "tuning", None) if getattr(self, "tune", 0) else None
        more = tuning_notes(self, search.words) if search is not None else {}
        return {k: [*getattr(self, k)(), *more.get(k, ())] for k in ("as_paper", "choices", "deviations")}

    def to_dict(self) -> dict:
        """The fields, the type, and with plug-ins (a ``plugins`` field) each one's source
        file, package version and source digest: a new version is a new configuration."""
        out = {"type": type(self).__name__, **dataclasses.asdict(self)}
        added = {*added_fields(type(self)), *self.added_fields}
        for f in fields(self):
            if f.name in added and getattr(self, f.name) == f.default:
                del out[f.name]
        if getattr(self, "plugins", ()):
            from ltrrepro.fit.plugins import describe
            out["plugin_sources"] = [describe(spec) for _, spec in self.plugins]
        return out

    def check_plugins(self, suffixes=()) -> None:
        """The ``plugins`` field agrees with ``models``: each spec's unit name is its key, each
        plug-in is used by a model (``<key>``, or ``<key>-<suffix>`` with ``suffixes``: Xia's
        principles), no two share a label in the tables, and each model's system can be made
        (the plug-in imported and checked: a broken one, or OLE without the pair structure, is
        one line now, before any work)."""
        from ltrrepro.fit.plugins import load_plugin, plugin_key, plugin_label

        labels: dict = {}
        for key, spec in self.plugins:
            if plugin_key(spec) != key:
                raise UsageError(f"plug-in {spec!r} has the unit name {plugin_key(spec)!r}, not {key!r}")
            used = [m for m in self.models if m == key or (arm_of(m, suffixes) or (None,))[0] == key]
            if not used:
                raise UsageError(f"plug-in {spec!r} is listed in plugins but no model uses it: name it in --models")
            if plugin_label(spec) in labels:
                raise UsageError(f"plug-ins {labels[plugin_label(spec)]!r} and {spec!r} would share the label "
                                 f"{plugin_label(spec)!r} in the tables: run them in separate --out directories")
            labels[plugin_label(spec)] = spec
            load_plugin(spec)
        for m in self.plugin_models(self.models):
            try:
                self.system(m)
            except KeyError:
                raise UsageError(f"--models: {m!r} is not a plug-in arm: write SPEC-<{'|'.join(suffixes)}>"
                                 if suffixes else f"--models: unknown model {m!r}") from None

    def plugin_models(self, models) -> tuple:
        """The ``models`` that are plug-in objectives (``<key>`` or an arm ``<key>-<suffix>``):
        code the harness does not know, run in a process of their own."""
        keys = {k for k, _ in getattr(self, "plugins", ())}
        return tuple(sorted({m for m in models if m in keys or (arm_of(m) or (None,))[0] in keys}))

    @classmethod
    def from_dict(cls, d: dict, where: str = "configuration"):
        """The configuration of a stored dict, each field checked against its declared type
        (a string seed or a float trial count is one :class:`UsageError` naming the field,
        never a traceback); then ``__post_init__`` makes every check the flags get."""
        hints = typing.get_type_hints(cls)
        unknown = sorted(set(d) - {f.name for f in fields(cls)} - STORED_EXTRAS)
        if unknown:
            raise UsageError(f"{where}: unknown field(s) {', '.join(map(repr, unknown))} (a {cls.__name__} has "
                             f"{', '.join(f.name for f in fields(cls))})")
        out = {}
        for f in fields(cls):
            if f.name in d:
                out[f.name] = _typed(f.name, _tuple(d[f.name]), hints.get(f.name), where)
        return cls(**out)

    @classmethod
    def from_stored(cls, d: dict):
        """The configuration a stored run was made with, for reading its results (reports,
        analysis): the fields as stored (lists as tuples, missing ones at their defaults), with
        none of the checks that touch the world — the data path need not exist here, and a
        plug-in is not imported — so a run is reported on any machine. Not for running: use
        :meth:`from_dict` (or :meth:`from_manifest`), which checks everything."""
        obj = object.__new__(cls)
        for f in fields(cls):
            if f.name in d:
                value = _tuple(d[f.name])
            elif f.default is not dataclasses.MISSING:
                value = f.default
            else:
                value = f.default_factory()                      # type: ignore[misc]
            object.__setattr__(obj, f.name, value)
        return obj

    @classmethod
    def from_manifest(cls, path, experiment: str):
        cfg = load_manifest_config(path)
        if cfg.get("type") != cls.__name__ or cfg.get("experiment") != experiment:
            raise UsageError(f"--config {path}: a {cfg.get('experiment') or '?'} run, not {experiment}; run it with "
                             f"python -m experiments.report or the matching experiment")
        try:
            return cls.from_dict(cfg, where=f"--config {path}")
        except (UsageError, PluginError) as err:
            text = str(err)
            raise UsageError(text if text.startswith("--config") else f"--config {path}: {text}") from None


#: what a manifest's configuration holds beside the fields: derived, written for readers
STORED_EXTRAS = frozenset({"type", "plugin_sources", "deviations", "choices", "as_paper", "data"})


def load_manifest_config(path) -> dict:
    """The configuration stored in a run's ``manifest.json`` (or the run directory)."""
    path = Path(path)
    if path.is_dir():
        path = path / "manifest.json"
    try:
        man = json.loads(path.read_text())
        man = migrations.manifest(man) if isinstance(man, dict) else man
    except FileNotFoundError:
        raise UsageError(f"--config {path}: no such file (give a run's manifest.json)") from None
    except (OSError, ValueError) as err:
        raise UsageError(f"--config {path}: not a readable manifest ({err})") from None
    cfg = man.get("config") if isinstance(man, dict) else None
    if not isinstance(cfg, dict) or "type" not in cfg:
        raise UsageError(f"--config {path}: holds no typed configuration (written by an older version?)")
    return cfg

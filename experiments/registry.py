"""One record per study: :class:`Experiment`, and the registry every entry point reads.

A study is named once, in its :class:`Experiment` record, declared by its paper package
(``experiments/<paper>/studies.py``). The command line (``python -m experiments.<name>``,
whose module is a two-line stub named after the study), ``python -m experiments.report``,
the Python API (:func:`experiments.run`) and a manifest (its ``experiment`` field) all find
the study here, and everything a run needs of it comes from the record: the configuration
class, the flags it honours, the units, the unit function, the report and the cost model of
``--estimate``, and every fact about the study that the harness acts on (the paper's trials,
whether its units keep rankings, its cross-dataset report, its own protocol facts) — no module
branches on a study's name.

A paper package has one shape (docs/layout.md): ``paper.py`` (its numbers), ``protocol.py``
(configuration and unit function), ``notes.py`` (the three columns of protocol notes),
``claims.py`` (every claim the paper makes), ``report.py`` (pure builders) and ``studies.py``
(its records); :data:`TEMPLATE` names them.

A study from outside the repository is an installed distribution that declares an entry point
in the group :data:`ENTRY_POINTS` (``ltrrepro.studies``) whose value is its :class:`Experiment`
(``[project.entry-points."ltrrepro.studies"] toy = "toy_study:TOY"``): it is listed and run
like the built-in ones (``python -m experiments NAME``; docs/own-study.md). One that does not
load (its import fails, its value is not an :class:`Experiment` named as its entry point, or
its name is taken) stops nothing else: :func:`broken` names it and why, ``python -m
experiments`` lists it in one line, and only a command that asks for it by name is refused.
"""
from __future__ import annotations

import dataclasses
import importlib
import sys
from dataclasses import dataclass, field, fields
from typing import Any, Callable

from experiments.errors import UsageError

__all__ = ["Experiment", "Across", "register", "get", "experiments", "broken", "PAPERS", "TEMPLATE", "ENTRY_POINTS"]

#: the paper packages, each declaring its studies in ``experiments/<paper>/studies.py``
PAPERS = ("bruch2021", "zheng2007", "xia", "hu2019", "kang2024", "lyzhin2023")
#: the modules of a paper package (a module over ~300 lines splits into helpers named
#: ``<module>_<part>.py``, e.g. ``report_table1.py``)
TEMPLATE = ("paper", "protocol", "notes", "claims", "report", "studies")
#: the entry-point group of studies from installed distributions (value: an :class:`Experiment`)
ENTRY_POINTS = "ltrrepro.studies"


def _always(cfg) -> bool:
    return True


@dataclass(frozen=True)
class Across:
    """A study's report across datasets (``python -m experiments.report A B``): ``build``
    ``[(directory, config, frame, notes)] -> Report`` of one run per dataset profile;
    ``profiles`` the profiles it compares, one run each; ``profile_of(dataset)`` a run's
    profile (None: a dataset the report does not take)."""

    build: Callable
    profiles: frozenset
    profile_of: Callable[[str], str | None]


@dataclass(frozen=True)
class Experiment:
    """A study of a paper.

    ``name``: the study's one name (the command ``python -m experiments.<name>``, the
    manifest's ``experiment``, unit keys); ``paper``: its paper package; ``title``: one line;
    ``doc``: the command's description; ``config_cls``: its :class:`~experiments.config.RunConfig`;
    ``unflagged``: its configuration's fields that take no flag in this study (left at the
    study's default); every other field declared with a flag
    (:func:`experiments.options.option`) is a flag of the study, parsed as the field declares,
    and the configuration of a command line is :meth:`config_of`. ``flags`` (derived: the
    flags' names) and ``from_args(args)``, ``own_flags(parser)`` and ``defaults`` (by dest) are
    the older way, for a study from outside that still gives them: its ``from_args`` builds the
    configuration from the flags ``flags`` names (each a field of its configuration) and those
    ``own_flags`` adds;
    ``units(cfg)``: its units; ``unit_fn(unit, ctx) -> (record, arrays)``: one unit's work
    (the record a :class:`ltrrepro.runner.UnitRecord`); ``build(frame, config, deviations,
    choices, as_paper=..., inference=...) -> Report``: its report, a pure function of the run's
    ``frame(store)`` (default :func:`experiments.analysis.frame`), stored configuration and the
    report's statistics (:class:`ltrrepro.inference.Inference`) — :meth:`report` reads the store
    and writes it; ``size_of(unit, ctx)``: a unit's training size, which
    ``--estimate`` scales its calibration by; ``reads_data(cfg)``: the run prepares the pooled
    dataset (else the units read their own, e.g. Xia's folds); ``before(cfg)``: checks before
    any work (files the units will read).

    The study's facts: ``paper_trials`` the paper's number of trials and ``paper_datasets`` the
    datasets it reports (the deviations say when a run has fewer trials or other data);
    ``keeps_rankings`` its units store the test rankings (``--save-runs``,
    ``python -m experiments.export``); ``across`` its report across datasets (:class:`Across`),
    if any; ``spec`` the paper's own facts about the study (a frozen value of its package, read
    by its configuration: e.g. Bruch's noise types and level range per study). ``default()``: the
    study's complete default configuration (what the command runs with no flag), and
    ``data_defaults(dataset)`` the fields whose default differs on another dataset (real data:
    the paper's trials, no synthetic size), which :func:`experiments.configure` applies."""

    name: str
    paper: str
    title: str
    doc: str
    config_cls: type
    units: Callable[[Any], list]
    unit_fn: Callable
    build: Callable
    frame: Callable | None = None
    from_args: Callable[[Any], Any] | None = None
    flags: tuple | None = None
    unflagged: tuple = ()
    defaults: dict = field(default_factory=dict)
    own_flags: Callable | None = None
    size_of: Callable | None = None
    reads_data: Callable[[Any], bool] = _always
    before: Callable[[Any], None] | None = None
    paper_trials: int = 100
    paper_datasets: tuple = ("web30k", "yahoo")
    keeps_rankings: bool = False
    across: Across | None = None
    spec: Any = None
    default: Callable[[], Any] | None = None
    data_defaults: Callable[[str], dict] | None = None
    #: what ``--tune``'s search needs (:class:`experiments.tuning.Search`, data): a study that declares it
    #: takes ``--tune``, and its units, searches, notes, tuning table and tuned claims are the stage's
    #: (:mod:`experiments.tuning`, :mod:`experiments.tuning_report`): its ``units`` and ``build`` are
    #: those at the paper's settings, made tuned here (None: its systems run at fixed settings only)
    tuning: Any = None

    def __post_init__(self):
        if self.tuning is not None:          # the tuned units and report: written once, for every study
            from experiments.tuning import tuned_units
            from experiments.tuning_report import with_tuning

            if getattr(self.units, "search", None) is not self.tuning:      # once per search (a replaced record)
                wrapped = getattr(self.units, "search", None) is not None
                fixed = self.units.__wrapped__ if wrapped else self.units
                build = self.build.__wrapped__ if wrapped else self.build
                search = self.tuning

                def units(cfg):
                    return tuned_units(fixed(cfg), cfg, search)
                units.__wrapped__, units.search = fixed, search
                object.__setattr__(self, "units", units)
                object.__setattr__(self, "build", with_tuning(build, search))
        derived = self.from_args is None or getattr(self.from_args, "__func__", None) is Experiment.config_of
        object.__setattr__(self, "derived", derived)
        if derived:
            from experiments import options

            object.__setattr__(self, "from_args", self.config_of)
            object.__setattr__(self, "flags", options.flag_names(self.config_cls, skip=self.unflagged))
        elif self.flags is None:
            object.__setattr__(self, "flags", ())

    def config_of(self, args):
        """The configuration of a parsed command line (:func:`experiments.options.from_args`):
        each flag given, parsed as its field declares; a flag left out, the study's default on the
        dataset (:meth:`defaults_on`)."""
        from experiments import options

        dataset = getattr(args, "dataset", None)
        if dataset is None:
            dataset = self.default().dataset if self.default is not None else self.config_cls.dataset
        return options.from_args(self.config_cls, args, {"experiment": self.name, **self.defaults_on(dataset)})

    def defaults_on(self, dataset: str) -> dict:
        """Every configuration field's default on ``dataset``: :attr:`default`'s values, with
        :attr:`data_defaults` applied where ``dataset`` is not the default's. The one source of a
        study's defaults: its command line (``from_args``: a flag left out takes the value here)
        and :func:`experiments.configure` both start from it. Empty when the study declares no
        default."""
        if self.default is None:
            return {}
        default = self.default()
        values = {f.name: getattr(default, f.name) for f in fields(default)}
        if self.data_defaults is not None and dataset != default.dataset:
            values.update(self.data_defaults(dataset))
        return values

    def report(self, store, inference):
        """The report of the run in ``store`` under ``inference`` (the report's test,
        correction, effects and α), written: :attr:`build` of its :attr:`frame`, its stored
        configuration and the protocol notes its manifest recorded."""
        from experiments import analysis as an

        cfg, deviations, choices = an.stored_config(store, self.config_cls)
        df = self.frame(store) if self.frame is not None else an.frame(store)
        rep = self.build(df, cfg, deviations, choices, as_paper=an.stored_as_paper(store, cfg), inference=inference)
        same = an.identical_notes(df, cfg)          # two arms that trained the same model: said first
        return (dataclasses.replace(rep, warnings=[*rep.warnings, *same]) if same else rep).write(store.root)


_REGISTRY: dict[str, Experiment] = {}


def register(exp: Experiment) -> Experiment:
    """Add a study (from its paper package's ``studies.py``); a name is taken once."""
    if exp.name in _REGISTRY and _REGISTRY[exp.name] is not exp:
        raise ValueError(f"two studies named {exp.name!r}: {_REGISTRY[exp.name].paper} and {exp.paper}")
    _REGISTRY[exp.name] = exp
    return exp


def experiments() -> dict[str, Experiment]:
    """Every study, by name: the paper packages' (their ``studies`` modules imported once),
    then those installed distributions declare (entry points :data:`ENTRY_POINTS`)."""
    for paper in PAPERS:
        importlib.import_module(f"experiments.{paper}.studies")
    _load_installed()
    return dict(_REGISTRY)


_LOADED: set = set()
#: the entry points that did not load at the last reading: entry-point name -> why (one line)
_BROKEN: dict = {}
#: the ``sys.path`` the entry points were last read under (read again when it changes)
_SCANNED: list = [None]


def broken() -> dict[str, str]:
    """The installed studies that do not load, by entry-point name: why, in one line (naming
    the distribution). They are left out of :func:`experiments`; the rest run."""
    experiments()
    return dict(_BROKEN)


def _load_installed() -> None:
    """Register each study of the ``ltrrepro.studies`` entry points (once per entry point):
    its value must be an :class:`Experiment` named as the entry point. One that fails to load is
    recorded in :data:`_BROKEN` (its distribution and the error), not raised: an installed
    package's fault must not stop the built-in studies nor the other installed ones."""
    from importlib.metadata import entry_points

    if _SCANNED[0] == tuple(sys.path):
        return
    _BROKEN.clear()
    for ep in entry_points(group=ENTRY_POINTS):
        where = f"{ep.value} (entry point {ep.name!r} of {getattr(ep.dist, 'name', None) or '?'})"
        if where in _LOADED:
            continue
        try:
            exp = ep.load()
        except (Exception, SystemExit) as err:  # noqa: BLE001 - an installed package's import error, named for the user
            text = " ".join(str(err).split())
            _BROKEN[ep.name] = f"the study {where} does not load: {type(err).__name__}: {text}"
            continue
        if not isinstance(exp, Experiment) or exp.name != ep.name:
            _BROKEN[ep.name] = f"the study {where} is not an experiments.registry.Experiment named {ep.name!r}"
            continue
        try:
            register(exp)
        except ValueError as err:
            _BROKEN[ep.name] = f"the study {where}: {err}"
            continue
        _LOADED.add(where)
    _SCANNED[0] = tuple(sys.path)


def get(name: str) -> Experiment:
    """The study named ``name``; a :class:`UsageError` naming the known ones otherwise (or, for
    an installed study that does not load, why)."""
    known = experiments()
    if name not in known and name in _BROKEN:
        raise UsageError(_BROKEN[name])
    if name not in known:
        raise UsageError(f"unknown experiment {name!r}; known: {', '.join(known)}")
    return known[name]

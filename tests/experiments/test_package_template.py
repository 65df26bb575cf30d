"""The package template (docs/layout.md) holds for every registered paper: each paper package is
the six modules of :data:`experiments.registry.TEMPLATE` (a module over ~300 lines split into
helpers named ``<module>_<part>.py``), each :class:`~experiments.registry.Experiment` points
into them, claims are made in ``claims*`` only, the report is one function of the registry
around the paper's pure ``build``, and the facts about a study live on its record."""
import ast
import dataclasses
import inspect
import re
from pathlib import Path

import pytest

from experiments import registry
from ltrrepro.report import Report

ROOT = Path(__file__).resolve().parents[2]
BUILT_IN = sorted(n for n, e in registry.experiments().items() if e.paper in registry.PAPERS)


def _template_module(path: Path) -> str | None:
    """The template module a file of a paper package belongs to (``report_table1`` -> ``report``)."""
    stem = path.stem
    return stem if stem in registry.TEMPLATE else next(
        (t for t in registry.TEMPLATE if stem.startswith(t + "_")), None)


def _part(obj, paper: str) -> str | None:
    """The template module of the paper package ``obj`` (a function, partial or class) is defined in."""
    fn = getattr(obj, "__wrapped__", obj)                 # a study's own, under the tuning stage's
    fn = getattr(fn, "func", fn)                          # functools.partial
    mod = fn.__module__
    prefix = f"experiments.{paper}."
    return _template_module(Path(mod[len(prefix):] + ".py")) if mod.startswith(prefix) else None


@pytest.mark.parametrize("paper", registry.PAPERS)
def test_a_paper_package_is_the_six_template_modules_and_their_parts(paper):
    files = [p for p in (ROOT / "experiments" / paper).glob("*.py") if p.name != "__init__.py"]
    assert not [d for d in (ROOT / "experiments" / paper).iterdir() if d.is_dir() and d.name != "__pycache__"]
    assert {p.stem for p in files} >= set(registry.TEMPLATE), paper
    assert [p.name for p in files if _template_module(p) is None] == [], "a module outside the template"
    # a helper module exists because its template module would be too long, not instead of it
    for p in files:
        assert len(p.read_text(encoding="utf-8").splitlines()) <= 300, p


@pytest.mark.parametrize("name", BUILT_IN)
def test_every_experiment_points_into_its_paper_package(name):
    exp = registry.get(name)
    assert _part(exp.config_cls, exp.paper) == "protocol"
    assert _part(exp.unit_fn, exp.paper) == "protocol"
    assert _part(exp.build, exp.paper) == "report"
    assert exp.frame is None or _part(exp.frame, exp.paper) == "report" or \
        getattr(exp.frame, "func", None).__module__ == "experiments.analysis"
    assert exp.derived, "the command line's configuration: derived from the fields' options, not a study's own"
    assert _part(exp.units, exp.paper) in ("studies", "protocol")
    assert exp.size_of is None or _part(exp.size_of, exp.paper) == "protocol"
    assert exp.across is None or _part(exp.across.build, exp.paper) == "report"
    # the configuration's three columns of notes come from the package's notes module
    for column in ("as_paper", "choices", "deviations"):
        assert "notes." in inspect.getsource(getattr(exp.config_cls, column)), (name, column)
    # one typed record: the unit function returns a ltrrepro.runner.UnitRecord
    assert "UnitRecord" in inspect.getsource(exp.unit_fn)


def test_a_unit_function_returns_the_one_unit_record():
    from ltrrepro.runner import Unit, UnitContext, UnitRecord

    exp = registry.get("jensen_gap")
    cfg = exp.config_cls(experiment="jensen_gap", trials=1, draws=5, docs=4)
    rec, arrays = exp.unit_fn(Unit("jensen_gap", "simulated", 0, "list", seed=0), UnitContext(cfg=cfg))
    assert isinstance(rec, UnitRecord) and set(rec.to_dict()) == {"means", "log", "gap_gamma0", "label_counts"}
    with pytest.raises(ValueError, match="common names"):
        UnitRecord(means={}, fields={"fit": 1}).to_dict()


@pytest.mark.parametrize("paper", registry.PAPERS)
def test_claims_are_made_in_the_claims_modules_only(paper):
    for p in (ROOT / "experiments" / paper).glob("*.py"):
        text = p.read_text(encoding="utf-8")
        if _template_module(p) != "claims":
            assert not re.search(r"Claim\.(check|from_comparison)\(", text), p


@pytest.mark.parametrize("paper", registry.PAPERS)
def test_no_paper_package_writes_its_own_report_function(paper):
    """The registry's one report function (Experiment.report) reads the store; a paper's builders
    take a frame and a configuration, never the store, and never patch a built report."""
    for p in (ROOT / "experiments" / paper).glob("*.py"):
        tree = ast.parse(p.read_text(encoding="utf-8"))
        for fn in (n for n in tree.body if isinstance(n, ast.FunctionDef)):
            assert "store" not in [a.arg for a in fn.args.args] or fn.name == "frame", (p, fn.name)
        assert not re.search(r"\brep\.\w+ = ", p.read_text(encoding="utf-8")), p


def test_a_report_is_frozen():
    from ltrrepro.inference import Inference

    rep = Report(title="t", inference=Inference())
    with pytest.raises(dataclasses.FrozenInstanceError):
        rep.as_paper = ["patched"]


def test_the_facts_about_a_study_are_on_its_record():
    """Paper trials, rankings kept, cross-dataset reports: fields of the Experiment, never a
    branch on a study's name in the paper packages or the wing."""
    exps = registry.experiments()
    assert {n: exps[n].paper_trials for n in ("quality", "robustness", "clicks", "convergence", "qbrank")} == \
        {"quality": 100, "robustness": 100, "clicks": 20, "convergence": 1, "qbrank": 1}
    assert {n for n, e in exps.items() if e.keeps_rankings} == {"quality", "convergence", "robustness", "clicks"}
    assert {n for n, e in exps.items() if e.across} == {"quality", "robustness"}
    for p in (ROOT / "experiments").rglob("*.py"):
        text = p.read_text(encoding="utf-8")
        assert not re.search(r"\.experiment (==|!=|in|not in) ", text), p
        assert not re.search(r"\b(PAPER_TRIALS|TREC_STUDIES|ACROSS|PROFILES)\s*=", text), p


def test_library_names_live_in_the_backends():
    """``--library``'s choices, the library checks, the recorded versions and the GPU probes
    read the backends: no library's name is written as a string outside ltrrepro/fit/backends
    (but for the McRank cross-check system pinned to LightGBM's own parameter names)."""
    from experiments.bruch2021.protocol import BruchConfig
    from experiments.options import options
    from ltrrepro.fit import BACKENDS
    from ltrrepro.store import library_versions

    assert options(BruchConfig)["library"].choices == tuple(BACKENDS)
    assert set(BACKENDS) <= set(library_versions())
    pattern = re.compile(r"""["'](%s)["']""" % "|".join(BACKENDS))
    hits = [f"{p.relative_to(ROOT)}:{i}" for base in ("experiments", "ltrrepro") for p in (ROOT / base).rglob("*.py")
            if "backends" not in p.parts
            for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]
    assert [h for h in hits if not h.startswith("ltrrepro/fit/xia.py")] == []


def test_an_arm_name_is_made_and_read_in_one_place():
    """Xia's arms (``lambdamart-ole``, a plug-in's ``<key>-se``): :func:`ltrrepro.fit.xia.arm`
    makes the name and :func:`~ltrrepro.fit.xia.arm_of` reads it; nothing else splits a model name."""
    from ltrrepro.fit.xia import arm, arm_of

    assert arm_of(arm("m.Focal@gamma=2", "ole")) == ("m.Focal@gamma=2", "ole") and arm_of("gbt") is None
    split = re.compile(r"""\.(r?partition|r?split)\(["'][-_:@]["']\)""")
    hits = [f"{p.relative_to(ROOT)}:{i}" for base in ("experiments", "ltrrepro") for p in (ROOT / base).rglob("*.py")
            for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if split.search(line)]
    assert [h for h in hits if not h.startswith(("ltrrepro/fit/xia.py", "ltrrepro/metrics", "ltrrepro/inference",
                                                  "ltrrepro/datasets.py", "ltrrepro/fit/backends/",
                                                  "experiments/values.py"))] == []  # parse_pairs: --gbt-grid


def test_dataset_facts_are_answered_once():
    from ltrrepro.datasets import REGISTRY, SYNTHETIC, base_dataset, has_folds, is_synthetic

    assert set(SYNTHETIC) == {"synthetic-web30k", "synthetic-yahoo"} and is_synthetic("synthetic-yahoo")
    assert base_dataset("synthetic-yahoo") == "yahoo" and not is_synthetic("yahoo")
    assert {n for n in REGISTRY if has_folds(n)} == {"web10k", "web30k", "mq2007", "mq2008"}
    hits = [f"{p.relative_to(ROOT)}:{i}" for p in (ROOT / "experiments").rglob("*.py")
            for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
            if re.search(r"""startswith\(["']synthetic|replace\(["']synthetic""", line)]
    assert hits == []


@pytest.mark.parametrize("paper", registry.PAPERS)
def test_a_study_that_tunes_declares_its_search_and_no_tuning_module(paper):
    """``--tune`` is one stage of every run (experiments.tuning): a paper package declares what its
    search needs as data on its records (a Search) and holds no tuning glue of its own."""
    from experiments.tuning import Search

    files = [p.name for p in (ROOT / "experiments" / paper).glob("*.py")]
    assert not [f for f in files if "tuning" in f], paper
    for exp in (e for e in registry.experiments().values() if e.paper == paper):
        fields = {f.name for f in dataclasses.fields(exp.config_cls)}
        assert ("tune" in fields) == isinstance(exp.tuning, Search), exp.name
        assert not hasattr(exp, "tune_fn")

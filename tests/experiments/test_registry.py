"""One registry of studies, one run function, a layered package: each study is named once
(its Experiment record), every ``python -m experiments.<name>`` module is a stub of a
registered study, the library never imports the experiments, and the ground floor of the
experiments (errors, execution, configurations) never imports the command line."""
from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

import pytest

from experiments import registry
from experiments.cli import parse_command, parser_for
from experiments.errors import UsageError
from experiments.execution import Execution

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "experiments"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
    return out


def test_every_entry_module_is_a_registered_study_and_the_reverse():
    studies = registry.experiments()
    papers = {p.name for p in PKG.iterdir() if (p / "studies.py").exists()}
    assert papers == set(registry.PAPERS)
    stubs = {p.stem for p in PKG.glob("*.py")
             if "entry_point(__spec__.name)" in p.read_text(encoding="utf-8")}
    assert stubs == set(studies)
    for name in stubs:                         # a stub does not name its study: the module's name does
        text = (PKG / f"{name}.py").read_text(encoding="utf-8")
        code = text.split('"""', 2)[-1]
        assert name not in code, name
    # no second name: a paper package is not a study, and has no command module of its own
    assert not set(studies) & set(registry.PAPERS)
    assert not list(PKG.glob("*/cli.py"))
    for exp in studies.values():
        assert exp.paper in registry.PAPERS and exp.config_cls.__module__.startswith("experiments.")


def test_a_name_is_registered_once():
    exp = registry.get("quality")
    with pytest.raises(ValueError, match="two studies named 'quality'"):
        registry.register(dataclasses.replace(exp, paper="xia"))
    with pytest.raises(UsageError, match="unknown experiment 'table9'; known: quality"):
        registry.get("table9")


def test_the_library_never_imports_the_experiments():
    """As the issue's own check: ``grep -rn "import experiments\\|experiments\\." ltrrepro/``."""
    hits = [f"{p.relative_to(ROOT)}:{i}" for p in (ROOT / "ltrrepro").rglob("*.py")
            for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
            if re.search(r"import experiments|experiments\.", line)]
    assert hits == []


def test_the_ground_floor_does_not_import_the_command_line():
    for name in ("errors", "values", "execution", "config", "registry", "results", "study"):
        assert "experiments.cli" not in _imports(PKG / f"{name}.py"), name
    for paper in registry.PAPERS:
        for mod in ("protocol", "paper"):
            path = PKG / paper / f"{mod}.py"
            if path.exists():
                assert "experiments.cli" not in _imports(path), path


def test_running_a_study_loads_no_command_line():
    """Not only the direct imports: the registry, every paper's studies and the run function
    together leave ``experiments.cli`` unloaded (checked in a fresh interpreter)."""
    import subprocess
    import sys

    code = ("import sys, experiments.study; from experiments import registry; registry.experiments(); "
            "assert 'experiments.cli' not in sys.modules, sorted(m for m in sys.modules if m.startswith('experiments'))")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]


def test_execution_flags_default_to_execution_and_no_flag_to_the_studys_default():
    for name, exp in registry.experiments().items():
        args = parser_for(exp).parse_args([])
        assert Execution.from_args(args) == Execution(), name
        if exp.derived and exp.default is not None:         # a flag left out: the study's default, one source
            assert exp.from_args(args) == exp.default(), name
    cfg, ex = parse_command("qbrank", ["--out", "o", "--jobs", "2", "--force"])
    assert cfg.dataset == "synthetic-yahoo" and ex == Execution(out="o", jobs=2, force=True)


@pytest.mark.parametrize("kwargs, message", [
    ({"backend": "dask"}, "--backend dask needs --scheduler"),
    ({"scheduler": "tcp://x:1"}, "--scheduler is only used with --backend dask"),
    ({"backend": "dask", "scheduler": "tcp://x:1", "jobs": 2}, "drop --jobs"),
    ({"jobs": 0}, "--jobs must be an integer >= 1"),
    ({"report_only": True, "force": True}, "a report-only run computes nothing"),
])
def test_an_execution_is_checked_when_built(kwargs, message):
    with pytest.raises(UsageError, match=re.escape(message)):
        Execution(**kwargs)


def test_a_report_only_run_computes_nothing(tmp_path):
    import experiments

    cfg = experiments.configure("jensen_gap", trials=2, draws=10, docs=5)
    with pytest.raises(FileNotFoundError, match="no manifest"):
        experiments.run(cfg, Execution(out=str(tmp_path / "none"), report_only=True, quiet=True))
    experiments.run(cfg, Execution(out=str(tmp_path / "j"), quiet=True, no_report=True))
    assert not (tmp_path / "j" / "claims.json").exists()
    res = experiments.run(cfg, Execution(out=str(tmp_path / "j"), quiet=True, report_only=True))
    assert (tmp_path / "j" / "claims.json").exists() and res.report is not None
    assert res.manifest["n_done"] == 2                     # the run's manifest, unchanged by the report

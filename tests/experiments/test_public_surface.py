"""The outside author's surface (issue 50): ``experiments.surface.PUBLIC`` names the modules and
names a study written outside the repository may import; each exists and is in its module's
``__all__``, the guide lists every module, and the example study imports nothing else and keeps
the house rules it teaches."""
from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

from experiments.surface import PUBLIC

ROOT = Path(__file__).resolve().parents[2]
TOY = ROOT / "examples" / "ltrrepro-toy-study" / "toy_study.py"


@pytest.mark.parametrize("module", sorted(PUBLIC))
def test_every_public_name_exists_and_is_exported(module):
    mod = importlib.import_module(module)
    exported = set(getattr(mod, "__all__", ()))
    assert set(PUBLIC[module]) <= exported, sorted(set(PUBLIC[module]) - exported)
    for name in PUBLIC[module]:
        assert getattr(mod, name) is not None


def test_the_guide_lists_every_public_module_and_name():
    text = (ROOT / "docs" / "own-study.md").read_text(encoding="utf-8")
    for module, names in PUBLIC.items():
        row = next((ln for ln in text.splitlines() if ln.startswith(f"| `{module}` |")), "")
        assert row, module
        assert all(f"`{n}`" in row for n in names), (module, [n for n in names if f"`{n}`" not in row])


def _imports(path: Path) -> list[tuple[str, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in ("experiments", "ltrrepro"):
            out += [(node.module, a.name) for a in node.names]
        elif isinstance(node, ast.Import):
            out += [(a.name, "") for a in node.names if a.name.split(".")[0] in ("experiments", "ltrrepro")]
    return out


def _outside(used) -> list:
    """The imports of ``used`` that are not on the surface (a public module imported whole counts)."""
    return [(m, n) for m, n in used if not (m in PUBLIC and n in PUBLIC[m]) and not (n and f"{m}.{n}" in PUBLIC)]


def test_the_example_imports_only_the_public_surface():
    used = _imports(TOY)
    assert used and _outside(used) == []


def test_a_private_import_is_caught(tmp_path):
    """The check above can fail: a module importing a name outside the surface is reported."""
    f = tmp_path / "study.py"
    f.write_text("from experiments import analysis as an\nfrom experiments.study import run_and_report\n"
                 "from ltrrepro.runner import Unit, run_units\n")
    assert _outside(_imports(f)) == [("experiments.study", "run_and_report"), ("ltrrepro.runner", "run_units")]


def test_the_example_keeps_the_house_rules_it_teaches():
    source = TOY.read_text(encoding="utf-8")
    assert len(source.splitlines()) <= 300
    assert not any(lib in source.lower() for lib in ("import lightgbm", "import xgboost", "import catboost"))
    import sys

    sys.path.insert(0, str(TOY.parent))
    try:
        toy = importlib.import_module("toy_study")
    finally:
        sys.path.remove(str(TOY.parent))
    fn = inspect.getsource(toy.unit_fn)
    assert "UnitRecord(" in fn and "scores=" in fn          # one typed record, with its test scores' fingerprint
    assert "ctx: UnitContext" in fn and 'ctx["' not in fn    # the typed context
    assert "startswith(\"synthetic" not in source and "is_synthetic" in source   # dataset facts answered once
    assert "add_argument" not in source                      # a field and its flag declared once (option)

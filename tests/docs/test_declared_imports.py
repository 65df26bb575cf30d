"""Every third-party module the project imports comes from a distribution ``pyproject.toml``
declares (its dependencies, an extra, or what those require in turn), so that a clean clone
with ``pip install -e ".[test]"`` runs everything the README promises: an undeclared import
(issue 36: ``repro_eval``) fails here, before CI.

The imports are read with ``ast`` from every ``.py`` file of ``ltrrepro/``, ``experiments/``,
``tests/``, ``benchmarks/`` and ``examples/`` (function-level imports included, and the string
arguments of ``pytest.importorskip``/``importlib.import_module``); a module maps to its
distributions through ``importlib.metadata.packages_distributions()``."""
from __future__ import annotations

import ast
import importlib.metadata as md
import re
import sys
from pathlib import Path

from packaging.requirements import Requirement

from conftest import ROOT

SCANNED = ("ltrrepro", "experiments", "tests", "benchmarks", "examples")
FIRST_PARTY = {"ltrrepro", "experiments"}


def _normalise(name: str) -> str:
    """A distribution name as PEP 503 compares them (``ir_measures`` == ``IR-Measures``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _toml_arrays(text: str) -> dict[str, dict[str, list[str]]]:
    """The string arrays (``key = ["...", ...]``) of each ``[table]`` of a TOML text: enough
    of TOML for ``pyproject.toml`` on Python 3.10, which has no ``tomllib``."""
    tables: dict[str, dict[str, list[str]]] = {}
    current = tables.setdefault("", {})
    lines = iter(text.splitlines())
    for line in lines:
        stripped = line.split("#", 1)[0].strip() if '"' not in line else line.strip()
        if m := re.fullmatch(r"\[([^\[\]]+)\]", stripped):
            current = tables.setdefault(m.group(1).strip(), {})
        elif m := re.match(r'("?[\w.-]+"?)\s*=\s*\[(.*)$', stripped):
            body = m.group(2)
            while "]" not in re.sub(r'"[^"]*"', "", body):
                body += "\n" + next(lines)
            current[m.group(1).strip('"')] = re.findall(r'"([^"]*)"', body.rsplit("]", 1)[0])
    return tables


def declared_requirements(pyproject_text: str) -> list[Requirement]:
    """The runtime dependencies and every optional-dependency group of a ``pyproject.toml`` text."""
    try:
        import tomllib
    except ModuleNotFoundError:             # Python 3.10
        tables = _toml_arrays(pyproject_text)
        deps = tables.get("project", {}).get("dependencies", [])
        extras = tables.get("project.optional-dependencies", {})
    else:
        project = tomllib.loads(pyproject_text)["project"]
        deps, extras = project.get("dependencies", []), project.get("optional-dependencies", {})
    return [Requirement(r) for r in [*deps, *(r for group in extras.values() for r in group)]]


def _closure(requirements: list[Requirement]) -> set[str]:
    """The declared distributions and, through the installed metadata, all they require (with
    the extras asked for, and the environment markers of this interpreter)."""
    seen: set[str] = set()
    todo = [(r.name, frozenset(r.extras)) for r in requirements]
    done: set[tuple[str, frozenset]] = set()
    while todo:
        name, extras = todo.pop()
        if (_normalise(name), extras) in done:
            continue
        done.add((_normalise(name), extras))
        seen.add(_normalise(name))
        try:
            requires = md.requires(name) or []
        except md.PackageNotFoundError:
            continue                        # declared but not installed: it brings nothing
        for text in requires:
            req = Requirement(text)
            if req.marker is None or any(req.marker.evaluate({"extra": e}) for e in {"", *extras}):
                todo.append((req.name, frozenset(req.extras)))
    return seen


def _imported_modules(path: Path) -> set[str]:
    """The absolute top-level module names one Python file imports, anywhere in it."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", None) in {"importorskip", "import_module"}
              and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            names.add(node.args[0].value.split(".")[0])
    return names


def _local_modules(root: Path) -> set[str]:
    """Top-level modules that resolve to files of the clone: the packages, and the files of
    folders that are not packages (``conftest``, ``plugin_losses``, ``bench_tests``…), which
    pytest and the benchmarks put on ``sys.path``."""
    local = set(FIRST_PARTY)
    for top in SCANNED:
        local.update(p.stem for p in (root / top).rglob("*.py") if not (p.parent / "__init__.py").exists())
    return local


def third_party_imports(root: Path) -> dict[str, list[str]]:
    """Each third-party top-level module imported under ``root``, with the files importing it."""
    local, found = _local_modules(root), {}
    for top in SCANNED:
        for path in sorted((root / top).rglob("*.py")):
            for name in _imported_modules(path):
                if name not in local and name not in sys.stdlib_module_names and name != "__future__":
                    found.setdefault(name, []).append(str(path.relative_to(root)))
    return found


def undeclared_imports(pyproject_text: str, root: Path = ROOT) -> list[str]:
    """One line per imported third-party module that no declared distribution (or what it
    requires) provides; empty when every import is declared."""
    declared = _closure(declared_requirements(pyproject_text))
    providers = md.packages_distributions()
    problems = []
    for module, files in sorted(third_party_imports(root).items()):
        dists = {_normalise(d) for d in providers.get(module, [])}
        if not dists & declared:
            where = f"from {', '.join(sorted(dists))}" if dists else "no installed distribution provides it"
            problems.append(f"{module} ({where}) imported by {', '.join(files[:3])} is not declared in pyproject.toml")
    return problems


def test_every_third_party_import_is_declared_in_pyproject():
    problems = undeclared_imports((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert not problems, "\n".join(problems)


def test_removing_a_declared_dependency_makes_its_imports_fail():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"lightgbm>=' in text
    problems = undeclared_imports(re.sub(r'^\s*"lightgbm[^"]*",\n', "", text, flags=re.M))
    assert [p.split()[0] for p in problems] == ["lightgbm"], problems
    assert "ltrrepro/" in problems[0]
    assert undeclared_imports(text.replace('"repro-eval', '"repro-eval-not'))[0].startswith("repro_eval ")


def test_the_test_oracles_are_in_the_test_extra():
    groups = _toml_arrays((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project.optional-dependencies"]
    test = {_normalise(Requirement(r).name) for r in groups["test"]}
    assert {"pytest", "hypothesis", "repro-eval", "statsmodels", "ir-measures", "ranx", "scikit-learn"} <= test


def test_the_python_3_10_reader_agrees_with_tomllib():
    tomllib = __import__("tomllib") if sys.version_info >= (3, 11) else None
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    arrays = _toml_arrays(text)
    if tomllib is None:                     # 3.10: the fallback itself is what ran above
        assert arrays["project"]["dependencies"]
        return
    project = tomllib.loads(text)["project"]
    assert arrays["project"]["dependencies"] == project["dependencies"]
    assert arrays["project.optional-dependencies"] == project["optional-dependencies"]
